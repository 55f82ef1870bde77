/*
 * pgbench scripts: splitting a script into SQL commands (ended by ';'
 * outside quotes and comments, or by a backslash command) and
 * meta-commands (a backslash to the end of the line; a backslash at the
 * end of a line continues it), checking them with pgbench 15's messages,
 * and the three built-in scripts. See pgb.h.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "commands/pgbench/pgb.h"

/* The built-in scripts: pgbench 15's TPC-B-like transaction and its two
   variants, as its manual page documents them (the statements are the
   benchmark's definition, and the per-statement report prints them). */
#define TPCB_HEAD                                                                  \
  "\\set aid random(1, 100000 * :scale)\n"                                         \
  "\\set bid random(1, 1 * :scale)\n"                                              \
  "\\set tid random(1, 10 * :scale)\n"                                             \
  "\\set delta random(-5000, 5000)\n"                                              \
  "BEGIN;\n"                                                                       \
  "UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;\n"   \
  "SELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n"
#define TPCB_INSERT                                                                \
  "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) "                     \
  "VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);\n"
#define TPCB_TAIL TPCB_INSERT "END;\n"
/* MySQL's dialect (bmk's face on --db-driver=mysql): COMMIT, as END is
   not a statement there */
#define TPCB_TAIL_MY TPCB_INSERT "COMMIT;\n"
#define TPCB_BRANCH                                                                \
  "UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;\n"    \
  "UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;\n"

#define SELECT_ONLY                                                                \
  "\\set aid random(1, 100000 * :scale)\n"                                         \
  "SELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n"

static const struct {
  const char *name, *desc, *script, *script_my;
} builtins[] = {
  {"tpcb-like", "<builtin: TPC-B (sort of)>", TPCB_HEAD TPCB_BRANCH TPCB_TAIL,
   TPCB_HEAD TPCB_BRANCH TPCB_TAIL_MY},
  {"simple-update", "<builtin: simple update>", TPCB_HEAD TPCB_TAIL, TPCB_HEAD TPCB_TAIL_MY},
  {"select-only", "<builtin: select only>", SELECT_ONLY, SELECT_ONLY},
};
#define NBUILTINS (sizeof(builtins) / sizeof(builtins[0]))

/* `p` (NULL: an allocation failed) or exit 1 after pgbench's message. */
static void *check_alloc(void *p)
{
  if (p == NULL)
  {
    pgb_error("out of memory");
    exit(1);
  }
  return p;
}

static void *xmalloc(size_t n)
{
  return check_alloc(calloc(1, n ? n : 1));
}

static char *xstrndup(const char *s, size_t n)
{
  char *p = xmalloc(n + 1);
  memcpy(p, s, n);
  return p;
}

/* The script being parsed. */
typedef struct {
  const char *desc;
  pgb_cmd_t *cmds;
  unsigned n, cap;
  /* the SQL command being read: where its \; are (the backslashes,
     dropped from its text) */
  const char *cuts[PGB_MAX_ARGS];
  unsigned ncuts;
} build_t;

static pgb_cmd_t *add_cmd(build_t *b, pgb_ctype_t type)
{
  if (b->n == b->cap)
  {
    b->cap = b->cap ? b->cap * 2 : 16;
    b->cmds = check_alloc(realloc(b->cmds, b->cap * sizeof(*b->cmds)));
  }
  pgb_cmd_t *c = &b->cmds[b->n++];
  memset(c, 0, sizeof(*c));
  c->type = type;
  return c;
}

/* pgbench's syntax error: "SOURCE:LINE: MSG (MORE) in command "CMD"",
   then the line and a caret under byte `column` (when >= 0); exits 1. */
static void syntax_error(const char *source, int lineno, const char *line,
                         const char *command, const char *msg, const char *more,
                         int column)
{
  fprintf(stderr, "pgbench: error: %s:%d: %s", source, lineno, msg);
  if (more)
    fprintf(stderr, " (%s)", more);
  if (column >= 0 && line == NULL)
    fprintf(stderr, " at column %d", column + 1);
  if (command)
    fprintf(stderr, " in command \"%s\"", command);
  fprintf(stderr, "\n");
  if (line)
  {
    fprintf(stderr, "%s\n", line);
    if (column >= 0)
      fprintf(stderr, "%*c error found here\n", column + 1, '^');
  }
  exit(1);
}

static bool name_start(int c)
{
  return isalpha(c) || c == '_' || c >= 0x80;
}

static bool name_char(int c)
{
  return name_start(c) || isdigit(c);
}

/* The text after leading blanks and "--" comments, or NULL when nothing
   else is left. */
static const char *skip_comments(const char *p)
{
  for (;;)
  {
    while (isspace((unsigned char) *p))
      p++;
    if (p[0] == '-' && p[1] == '-')
    {
      p = strchr(p, '\n');
      if (p == NULL)
        return NULL;
    }
    else
      break;
  }
  return *p ? p : NULL;
}

/* A SQL command from `text` (len bytes, b->cuts in it: \; of a compound
   command, which become ;): its first line for the report, the ?-form
   and pgbench's $n-form with the names of its :variables. Under -M
   extended or prepared, more than pgbench's 255 of them is its error
   (exit 1). */
static void add_sql(build_t *b, const char *text, size_t len)
{
  char *whole = xstrndup(text, len);
  for (unsigned k = b->ncuts; k-- > 0;)
  {
    size_t at = (size_t) (b->cuts[k] - text);
    memmove(whole + at, whole + at + 1, len - at);
  }
  b->ncuts = 0;
  const char *p = skip_comments(whole);
  if (p == NULL)
  {
    free(whole);
    return;
  }
  pgb_cmd_t *c = add_cmd(b, PGB_SQL);
  c->prep_no = pgb_cfg.nsql++;
  c->sql = xstrndup(p, strlen(p));
  free(whole);
  size_t fl = strcspn(c->sql, "\r\n");
  c->first_line = xstrndup(c->sql, fl > 127 ? 127 : fl);

  /* :name becomes ? (psql) and $1, $2... in order (nsql); a run of colons
     not followed by a name is left as it is, quoted parts included */
  size_t n = strlen(c->sql), cap = 0;
  c->psql = xmalloc(n + 1);
  size_t ncap = n + 1;
  c->nsql = xmalloc(ncap);
  size_t o = 0, no = 0;
  for (size_t i = 0; i < n;)
  {
    if (c->sql[i] == ':' && name_start((unsigned char) c->sql[i + 1]))
    {
      size_t j = i + 1;
      while (name_char((unsigned char) c->sql[j]))
        j++;
      if (c->nparams == cap)
      {
        cap = cap ? cap * 2 : 8;
        c->params = check_alloc(realloc(c->params, cap * sizeof(char *)));
      }
      c->params[c->nparams++] = xstrndup(c->sql + i + 1, j - i - 1);
      c->psql[o++] = '?';
      ncap += 12;                  /* room for "$N" (N < 2^32) */
      c->nsql = check_alloc(realloc(c->nsql, ncap));
      no += (size_t) sprintf(c->nsql + no, "$%u", c->nparams);
      i = j;
    }
    else if (c->sql[i] == ':')
      while (c->sql[i] == ':')
      {
        c->nsql[no++] = ':';
        c->psql[o++] = c->sql[i++];
      }
    else
    {
      c->nsql[no++] = c->sql[i];
      c->psql[o++] = c->sql[i++];
    }
  }
  c->psql[o] = '\0';
  c->nsql[no] = '\0';
  /* pgbench's limit on the parameters of a statement it prepares */
  if (pgb_cfg.querymode != PGB_QUERY_SIMPLE && c->nparams > PGB_MAX_ARGS - 1)
  {
    size_t len = strlen(c->sql);
    pgb_error("statement has too many arguments (maximum is %d): %.*s", PGB_MAX_ARGS - 1,
              (int) (len && c->sql[len - 1] == '\n' ? len - 1 : len), c->sql);
    exit(1);
  }
}

/* Splits a meta-command line into words (blank-separated). */
static int split_words(char *line, char **words, int max)
{
  int n = 0;
  char *p = line;
  while (*p)
  {
    while (isspace((unsigned char) *p))
      *p++ = '\0';
    if (!*p)
      break;
    if (n == max)
      return -1;
    words[n++] = p;
    while (*p && !isspace((unsigned char) *p))
      p++;
  }
  return n;
}

/* \sleep's arguments: a number or :variable, and an optional unit. */
static void check_sleep(pgb_cmd_t *c, const char *src, int lineno, const char *line)
{
  if (c->argc < 1)
    syntax_error(src, lineno, c->first_line, "sleep", "missing argument", NULL, -1);
  if (c->argc > 2)
    syntax_error(src, lineno, c->first_line, "sleep", "too many arguments", NULL,
                 (int) (strstr(line, c->argv[2]) - line));
  char *a = c->argv[0];
  if (a[0] != ':')
  {
    char *q = a + (*a == '+' || *a == '-');
    bool digit = isdigit((unsigned char) *q);
    while (isdigit((unsigned char) *q))
      q++;
    if (*q)
    {
      if (c->argc == 1 && digit)
      {
        c->argv[1] = xstrndup(q, strlen(q));
        *q = '\0';
        c->argc = 2;
      }
      else
        syntax_error(src, lineno, c->first_line, "sleep",
                     "invalid sleep time, must be an integer", a,
                     (int) (strstr(line, a) - line));
    }
  }
  c->sleep_unit_us = 1000000;
  if (c->argc == 2)
  {
    if (strcasecmp(c->argv[1], "us") == 0)
      c->sleep_unit_us = 1;
    else if (strcasecmp(c->argv[1], "ms") == 0)
      c->sleep_unit_us = 1000;
    else if (strcasecmp(c->argv[1], "s") != 0)
      syntax_error(src, lineno, c->first_line, "sleep",
                   "unrecognized time unit, must be us, ms or s", c->argv[1],
                   (int) (strstr(line, c->argv[1]) - line));
  }
}

/* An expression of \set, \if or \elif starting at `expr` within `line`. */
static pgs_expr_t *parse_expr(const char *src, int lineno, const char *line,
                              const char *expr, const char *cmdname)
{
  char err[256];
  int pos;
  pgs_expr_t *e = pgs_expr_parse(expr, err, sizeof(err), &pos);
  if (e == NULL)
  {
    /* "unexpected function name: f" is printed as "... (f)" */
    char *more = strstr(err, ": ");
    if (more)
    {
      *more = '\0';
      more += 2;
    }
    syntax_error(src, lineno, line, cmdname, err, more,
                 pos >= 0 ? (int) (expr - line) + pos : -1);
  }
  return e;
}

/* A meta-command: `line` is its whole text from the backslash. */
static void add_meta(build_t *b, char *line, int lineno)
{
  const char *src = b->desc;
  char *copy = xstrndup(line, strlen(line));
  char *words[PGB_MAX_ARGS + 2];
  int n = split_words(copy, words, PGB_MAX_ARGS + 1);
  const char *name = n > 0 ? words[0] + 1 : "";
  static const struct { const char *name; pgb_ctype_t type; } metas[] = {
    {"set", PGB_SET}, {"sleep", PGB_SLEEP}, {"setshell", PGB_SETSHELL},
    {"shell", PGB_SHELL}, {"if", PGB_IF}, {"elif", PGB_ELIF},
    {"else", PGB_ELSE}, {"endif", PGB_ENDIF}, {"startpipeline", PGB_STARTPIPELINE},
    {"endpipeline", PGB_ENDPIPELINE},
  };
  if (n > 0 && (strcasecmp(name, "gset") == 0 || strcasecmp(name, "aset") == 0))
  {
    pgb_cmd_t *prev = b->n ? &b->cmds[b->n - 1] : NULL;
    if (prev == NULL || prev->type != PGB_SQL || prev->gset_prefix)
      syntax_error(src, lineno, NULL, NULL, "\\gset must follow an SQL command",
                   prev && prev->type != PGB_SQL ? prev->first_line : NULL, -1);
    if (n > 2)
      syntax_error(src, lineno, line, name, "too many arguments", NULL, -1);
    prev->aset = strcasecmp(name, "aset") == 0;
    prev->gset_prefix = xstrndup(n > 1 ? words[1] : "", n > 1 ? strlen(words[1]) : 0);
    free(copy);
    return;
  }
  int type = -1;
  for (size_t i = 0; n > 0 && i < sizeof(metas) / sizeof(metas[0]); i++)
    if (strcasecmp(name, metas[i].name) == 0)
      type = (int) metas[i].type;
  if (type < 0)
    syntax_error(src, lineno, line, name, "invalid command", NULL, -1);
  pgb_cmd_t *c = add_cmd(b, (pgb_ctype_t) type);
  if (c->type == PGB_SET)
  {
    if (n < 2)
      syntax_error(src, lineno, NULL, "set", "missing argument", NULL, -1);
    c->var = xstrndup(words[1], strlen(words[1]));
    const char *expr = strstr(line + 1 + strlen(name), words[1]) + strlen(words[1]);
    c->first_line = xstrndup(line, strlen(line));
    c->expr = parse_expr(src, lineno, line, expr, "set");
  }
  else if (c->type == PGB_IF || c->type == PGB_ELIF)
  {
    c->first_line = xstrndup(line, strlen(line));
    c->expr = parse_expr(src, lineno, line, line + 1 + strlen(name), name);
  }
  else
  {
    c->first_line = xstrndup(line, strlen(line));
    c->argc = n - 1;
    c->argv = xmalloc(sizeof(char *) * (PGB_MAX_ARGS + 1));
    for (int i = 1; i < n; i++)
      c->argv[i - 1] = xstrndup(words[i], strlen(words[i]));
    if (n > PGB_MAX_ARGS)
      syntax_error(src, lineno, c->first_line, name, "too many arguments", NULL, -1);
    if (c->type == PGB_SLEEP)
      check_sleep(c, src, lineno, line);
    else if (c->type == PGB_SETSHELL && c->argc < 2)
      syntax_error(src, lineno, c->first_line, name, "missing argument", NULL, -1);
    else if (c->type == PGB_SHELL && c->argc < 1)
      syntax_error(src, lineno, c->first_line, name, "missing command", NULL, -1);
    else if ((c->type == PGB_ELSE || c->type == PGB_ENDIF || c->type == PGB_STARTPIPELINE ||
              c->type == PGB_ENDPIPELINE) && c->argc != 0)
      syntax_error(src, lineno, c->first_line, name, "unexpected argument", NULL, -1);
  }
  free(copy);
}

/* pgbench's static check of \if ... \endif, and the jumps: each branch
   command links to the next branch of its \if and to its \endif. */
static void link_conditionals(build_t *b)
{
  unsigned first[64], last[64], depth = 0;
  bool seen_else[64];
  for (unsigned i = 0; i < b->n; i++)
  {
    pgb_cmd_t *c = &b->cmds[i];
    const char *problem = NULL;
    switch (c->type)
    {
      case PGB_IF:
        if (depth == 64)
          problem = "\\if nested too deeply";
        else
        {
          seen_else[depth] = false;
          first[depth] = last[depth] = i;
          depth++;
        }
        break;
      case PGB_ELIF: case PGB_ELSE:
        if (depth == 0)
          problem = c->type == PGB_ELIF ? "\\elif without matching \\if"
                                        : "\\else without matching \\if";
        else if (seen_else[depth - 1])
          problem = c->type == PGB_ELIF ? "\\elif after \\else" : "\\else after \\else";
        else
        {
          b->cmds[last[depth - 1]].next_branch = i;
          last[depth - 1] = i;
          seen_else[depth - 1] = c->type == PGB_ELSE;
        }
        break;
      case PGB_ENDIF:
        if (depth == 0)
          problem = "\\endif without matching \\if";
        else
        {
          depth--;
          b->cmds[last[depth]].next_branch = i;
          for (unsigned j = first[depth]; j != i; j = b->cmds[j].next_branch)
            b->cmds[j].endif = i;
        }
        break;
      default:
        break;
    }
    if (problem)
    {
      pgb_error("condition error in script \"%s\" command %u: %s", b->desc, i + 1, problem);
      exit(1);
    }
  }
  if (depth > 0)
  {
    pgb_error("condition error in script \"%s\" command %u: \\if without matching \\endif",
              b->desc, b->n + 1);
    exit(1);
  }
}

/* Skips a quoted part starting at text[i] (a quote, a dollar quote or a
   comment); returns the index after it. */
static size_t skip_quoted(const char *text, size_t i, int *lineno)
{
  char q = text[i];
  size_t j = i + 1;
  if (q == '-')
  {
    while (text[j] && text[j] != '\n')
      j++;
    return j;
  }
  if (q == '/')
  {
    int nest = 1;
    for (j = i + 2; text[j] && nest > 0; j++)
    {
      if (text[j] == '\n')
        (*lineno)++;
      if (text[j] == '/' && text[j + 1] == '*')
        nest++, j++;
      else if (text[j] == '*' && text[j + 1] == '/')
        nest--, j++;
    }
    return j;
  }
  if (q == '$')
  {
    size_t t = j;
    while (name_char((unsigned char) text[t]))
      t++;
    size_t taglen = t + 1 - i;  /* "$tag$" */
    const char *end;
    for (end = text + t + 1; *end; end++)
    {
      if (*end == '\n')
        (*lineno)++;
      if (strncmp(end, text + i, taglen) == 0)
        return (size_t) (end - text) + taglen;
    }
    return (size_t) (end - text);
  }
  bool backslash = q == '\'' && i > 0 && (text[i - 1] == 'E' || text[i - 1] == 'e');
  for (; text[j]; j++)
  {
    if (text[j] == '\n')
      (*lineno)++;
    if (backslash && text[j] == '\\' && text[j + 1])
      j++;
    else if (text[j] == q)
    {
      if (text[j + 1] == q)
        j++;
      else
        return j + 1;
    }
  }
  return j;
}

/* True when text[i] starts a dollar quote ($$ or $tag$, not $1). */
static bool dollar_quote(const char *text, size_t i)
{
  if (text[i] != '$' || (i > 0 && name_char((unsigned char) text[i - 1])))
    return false;
  size_t j = i + 1;
  if (isdigit((unsigned char) text[j]))
    return false;
  while (name_char((unsigned char) text[j]))
    j++;
  return text[j] == '$';
}

/* A meta-command's text from text[i] (the backslash) to the end of its
   line (its trailing blanks too: pgbench's -r lines and error lines show
   them), lines ending in a backslash joined; *next is where it ends. */
static char *meta_line(const char *text, size_t i, size_t *next, int *lines)
{
  size_t cap = 256, n = 0;
  char *buf = xmalloc(cap);
  size_t j = i;
  *lines = 0;
  for (; text[j] && text[j] != '\n'; j++)
  {
    if (text[j] == '\\' && j > i && (text[j + 1] == '\n' ||
                                     (text[j + 1] == '\r' && text[j + 2] == '\n')))
    {
      j += text[j + 1] == '\r' ? 2 : 1;
      (*lines)++;
      continue;
    }
    if (text[j] == '\r' && text[j + 1] == '\n')
      continue;
    if (n + 2 > cap)
      buf = check_alloc(realloc(buf, cap *= 2));
    buf[n++] = text[j];
  }
  buf[n] = '\0';             /* trailing blanks kept, as pgbench shows them */
  *next = j;
  return buf;
}

void pgb_script_add(const char *text, const char *desc, int weight)
{
  build_t b = {.desc = desc};
  size_t start = 0, i = 0;
  int lineno = 1;
  while (text[i])
  {
    char ch = text[i];
    if (ch == '\n')
    {
      lineno++;
      i++;
    }
    else if (ch == '\'' || ch == '"' || (ch == '-' && text[i + 1] == '-') ||
             (ch == '/' && text[i + 1] == '*') || dollar_quote(text, i))
      i = skip_quoted(text, i, &lineno);
    else if (ch == ';')
    {
      add_sql(&b, text + start, i + 1 - start);
      start = ++i;
    }
    else if (ch == '\\' && text[i + 1] == ';' && b.ncuts < PGB_MAX_ARGS)
    {
      b.cuts[b.ncuts++] = text + i;
      i += 2;
    }
    else if (ch == '\\')
    {
      add_sql(&b, text + start, i - start);
      int extra;
      char *line = meta_line(text, i, &i, &extra);
      add_meta(&b, line, lineno);
      free(line);
      lineno += extra;
      start = i;
    }
    else
      i++;
  }
  add_sql(&b, text + start, i - start);
  if (b.n == 0)
  {
    pgb_error("empty command list for script \"%s\"", desc);
    exit(1);
  }
  if (pgb_cfg.nscripts >= PGB_MAX_SCRIPTS)
  {
    pgb_error("at most %d SQL scripts are allowed", PGB_MAX_SCRIPTS);
    exit(1);
  }
  link_conditionals(&b);
  pgb_script_t *s = &pgb_cfg.scripts[pgb_cfg.nscripts++];
  s->desc = xstrndup(desc, strlen(desc));
  s->name = s->desc;
  s->weight = weight;
  s->cmds = b.cmds;
  s->ncmds = b.n;
  s->first = pgb_cfg.ncmds;
  pgb_cfg.ncmds += b.n;
}

void pgb_script_list(void)
{
  fprintf(stderr, "Available builtin scripts:\n");
  for (size_t i = 0; i < NBUILTINS; i++)
    fprintf(stderr, "  %13s: %s\n", builtins[i].name, builtins[i].desc);
  fprintf(stderr, "\n");
}

/* The built-in script whose name starts with `name`, or exit 1. */
static size_t find_builtin(const char *name)
{
  size_t found = 0, which = 0, len = strlen(name);
  for (size_t i = 0; i < NBUILTINS; i++)
    if (strncmp(builtins[i].name, name, len) == 0)
    {
      which = i;
      found++;
    }
  if (found == 1)
    return which;
  if (found == 0)
    pgb_error("no builtin script found for name \"%s\"", name);
  else
    pgb_error("ambiguous builtin name: %zu builtin scripts found for prefix \"%s\"",
              found, name);
  pgb_script_list();
  exit(1);
}

void pgb_script_add_builtin(const char *name, int weight)
{
  size_t i = find_builtin(name);
  pgb_script_add(pgb_cfg.mysql ? builtins[i].script_my : builtins[i].script, builtins[i].desc,
                 weight);
  pgb_cfg.scripts[pgb_cfg.nscripts - 1].name = builtins[i].name;
}

void pgb_script_show(const char *name)
{
  size_t i = find_builtin(name);
  fprintf(stderr, "-- %s: %s\n%s\n", builtins[i].name, builtins[i].desc, builtins[i].script);
}

void pgb_script_add_file(const char *path, int weight)
{
  FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
  if (f == NULL)
  {
    pgb_error("could not open file \"%s\": %s", path, strerror(errno));
    exit(1);
  }
  size_t cap = 4096, n = 0, got;
  char *buf = xmalloc(cap);
  while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0)
  {
    n += got;
    if (n + 1 == cap)
      buf = check_alloc(realloc(buf, cap *= 2));
  }
  buf[n] = '\0';
  if (ferror(f))
  {
    pgb_error("could not read file \"%s\": %s", path, strerror(errno));
    exit(1);
  }
  if (f != stdin)
    fclose(f);
  pgb_script_add(buf, path, weight);
  free(buf);
}
