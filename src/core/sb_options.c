/* Option registry and parsing; see sb_options.h. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/sb_logger.h"
#include "core/sb_options.h"
#include "core/sb_version.h"

/* A value seen on the command line or in the config file, kept as text until
   the option it names is registered. */
typedef struct {
  char *name;      /* normalised */
  char *value;     /* NULL: given without '=' */
  char *arg;       /* the argument as written, for error messages */
  bool used;       /* matched a registered option */
} pending_t;

typedef struct {
  pending_t *v;
  unsigned n, cap;
} pending_list_t;

static sb_opt_t **opts;
static unsigned nopts, opts_cap;
static pending_list_t cmdline, config;
static char **group_names;   /* per option: driver name for driver groups */

static char *xstrdup(const char *s)
{
  if (s == NULL)
    return NULL;
  char *d = strdup(s);
  if (d == NULL)
  {
    fprintf(stderr, "FATAL: out of memory\n");
    exit(1);
  }
  return d;
}

static char *normalise(const char *name, size_t len)
{
  char *s = malloc(len + 1);
  if (s == NULL)
    exit(1);
  for (size_t i = 0; i < len; i++)
    s[i] = name[i] == '-' ? '_' : name[i];
  s[len] = '\0';
  return s;
}

void sb_opt_init(void)
{
  nopts = 0;
}

static void free_list(sb_opt_t *o)
{
  for (unsigned i = 0; i < o->nlist; i++)
    free(o->list[i]);
  free(o->list);
  o->list = NULL;
  o->nlist = 0;
}

static void pending_free(pending_list_t *l)
{
  for (unsigned i = 0; i < l->n; i++)
  {
    free(l->v[i].name);
    free(l->v[i].value);
    free(l->v[i].arg);
  }
  free(l->v);
  memset(l, 0, sizeof(*l));
}

void sb_opt_done(void)
{
  for (unsigned i = 0; i < nopts; i++)
  {
    sb_opt_t *o = opts[i];
    free(o->name);
    free(o->display_name);
    free(o->desc);
    free(o->def);
    free(o->value);
    free_list(o);
    free(o);
    free(group_names[i]);
  }
  free(opts);
  free(group_names);
  opts = NULL;
  group_names = NULL;
  nopts = opts_cap = 0;
  pending_free(&cmdline);
  pending_free(&config);
}

/* ---- value parsers -------------------------------------------------------- */

int sb_parse_bool(const char *s, bool *out)
{
  if (s == NULL)
    return -1;
  if (!strcasecmp(s, "on") || !strcasecmp(s, "true") || !strcmp(s, "1"))
    *out = true;
  else if (!strcasecmp(s, "off") || !strcasecmp(s, "false") || !strcmp(s, "0"))
    *out = false;
  else
    return -1;
  return 0;
}

int sb_parse_int(const char *s, int *out)
{
  char *end;
  long v;

  if (s == NULL || *s == '\0')
    return -1;
  errno = 0;
  v = strtol(s, &end, 10);
  if (errno != 0 || *end != '\0' || v < INT_MIN || v > INT_MAX)
    return -1;
  *out = (int) v;
  return 0;
}

int sb_parse_size(const char *s, uint64_t *out)
{
  char *end;
  unsigned long long v;
  unsigned shift = 0;

  if (s == NULL || !isdigit((unsigned char) *s))
    return -1;
  errno = 0;
  v = strtoull(s, &end, 10);
  if (errno != 0)
    return -1;
  switch (toupper((unsigned char) *end))
  {
  case 'K': shift = 10; end++; break;
  case 'M': shift = 20; end++; break;
  case 'G': shift = 30; end++; break;
  case 'T': shift = 40; end++; break;
  default: break;
  }
  /* bmk decision: accept a trailing B / iB ("16KiB", "1GB"). */
  if ((end[0] == 'i' || end[0] == 'I') && (end[1] == 'B' || end[1] == 'b') &&
      shift > 0)
    end += 2;
  else if (end[0] == 'B' || end[0] == 'b')
    end++;
  if (*end != '\0')
    return -1;
  if (shift && v > (UINT64_MAX >> shift))
    return -1;
  *out = (uint64_t) v << shift;
  return 0;
}

int sb_parse_double(const char *s, double *out)
{
  char *end;
  double v;

  if (s == NULL || *s == '\0')
    return -1;
  errno = 0;
  v = strtod(s, &end);
  if (errno != 0 || *end != '\0')
    return -1;
  *out = v;
  return 0;
}

/* ---- registry ------------------------------------------------------------- */

sb_opt_t *sb_opt_find(const char *name)
{
  char *n = normalise(name, strlen(name));
  sb_opt_t *found = NULL;
  for (unsigned i = 0; i < nopts; i++)
    if (strcmp(opts[i]->name, n) == 0)
    {
      found = opts[i];
      break;
    }
  free(n);
  return found;
}

static pending_t *pending_find(pending_list_t *l, const char *name)
{
  /* The last occurrence wins. */
  for (unsigned i = l->n; i-- > 0;)
    if (strcmp(l->v[i].name, name) == 0)
      return &l->v[i];
  return NULL;
}

static void mark_used(pending_list_t *l, const char *name)
{
  for (unsigned i = 0; i < l->n; i++)
    if (strcmp(l->v[i].name, name) == 0)
      l->v[i].used = true;
}

/* Splits a LIST value on commas, dropping empty items. */
static void split_list(sb_opt_t *o, const char *value)
{
  free_list(o);
  if (value == NULL)
    return;
  const char *p = value;
  while (*p)
  {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t) (comma - p) : strlen(p);
    if (len > 0)
    {
      o->list = realloc(o->list, sizeof(char *) * (o->nlist + 1));
      o->list[o->nlist] = malloc(len + 1);
      memcpy(o->list[o->nlist], p, len);
      o->list[o->nlist][len] = '\0';
      o->nlist++;
    }
    if (!comma)
      break;
    p = comma + 1;
  }
}

/* True for "N[,N]..." (empty items allowed, at least one number). */
static bool int_list_ok(const char *value)
{
  char *copy = xstrdup(value), *save = NULL;
  int v;
  bool any = false, ok = true;
  for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
  {
    if (sb_parse_int(t, &v) != 0)
      ok = false;
    any = true;
  }
  free(copy);
  return ok && any;
}

/* Validates `value` for `o`'s type; prints the sysbench message on error.
   `arg` is the argument as written (for BOOL errors). */
static int validate(sb_opt_t *o, const char *value, const char *arg)
{
  bool b;
  int i;
  uint64_t sz;
  double d;

  switch (o->type)
  {
  case SB_ARG_TYPE_BOOL:
    if (value == NULL)
      return 0;
    if (sb_parse_bool(value, &b) != 0)
    {
      if (arg)
        fprintf(stderr, "invalid option: %s\n", arg);
      else
        fprintf(stderr, "invalid option: --%s=%s\n", o->name, value);
      return -1;
    }
    return 0;
  case SB_ARG_TYPE_INT:
    if (value == NULL || *value == '\0' || sb_parse_int(value, &i) == 0)
      return 0;
    /* sysbench reads --file-block-size as a SIZE ("16K") though its help
       says N; fileio checks the value. */
    if (strcmp(o->name, "file_block_size") == 0 && sb_parse_size(value, &sz) == 0)
      return 0;
    /* bmk decision: --pgsql-port takes a comma list like --pgsql-host
       (round-robin), while its help keeps sysbench's "=N". */
    if (strcmp(o->name, "pgsql_port") == 0 && int_list_ok(value))
      return 0;
    break;
  case SB_ARG_TYPE_SIZE:
    if (value == NULL || *value == '\0' || sb_parse_size(value, &sz) == 0)
      return 0;
    /* sysbench's memory test reports a bad block size itself
       ("FATAL: Invalid value for memory-block-size: -1"). */
    if (strcmp(o->name, "memory_block_size") == 0)
      return 0;
    break;
  case SB_ARG_TYPE_DOUBLE:
    if (value == NULL || *value == '\0' || sb_parse_double(value, &d) == 0)
      return 0;
    break;
  default:
    return 0;
  }
  fprintf(stderr, "Invalid value for the '%s' option: '%s'\n", o->name, value);
  return -1;
}

/* Stores `value` as o's current value. A bare BOOL flag means "on". */
static void assign(sb_opt_t *o, const char *value, bool bare)
{
  free(o->value);
  if (o->type == SB_ARG_TYPE_BOOL && bare)
    value = "on";
  o->value = (value && (*value || o->type == SB_ARG_TYPE_LIST)) ? xstrdup(value) : NULL;
  if (o->type == SB_ARG_TYPE_LIST)
    split_list(o, o->value);
}

int sb_opt_register(const char *name, const char *desc, const char *def,
                    sb_arg_type_t type, int group, const char *group_name)
{
  if (sb_opt_find(name) != NULL)
    return 0;

  sb_opt_t *o = calloc(1, sizeof(*o));
  if (o == NULL)
    return -1;
  o->name = normalise(name, strlen(name));
  o->display_name = xstrdup(name);
  o->desc = xstrdup(desc ? desc : "");
  o->def = xstrdup(def);
  o->type = type;
  o->group = group;

  if (nopts == opts_cap)
  {
    opts_cap = opts_cap ? opts_cap * 2 : 64;
    opts = realloc(opts, sizeof(*opts) * opts_cap);
    group_names = realloc(group_names, sizeof(char *) * opts_cap);
  }
  group_names[nopts] = xstrdup(group_name);
  opts[nopts++] = o;

  pending_t *p = pending_find(&cmdline, o->name);
  sb_opt_source_t src = SB_SRC_CMDLINE;
  if (p == NULL)
  {
    p = pending_find(&config, o->name);
    src = SB_SRC_CONFIG;
  }
  if (p != NULL)
  {
    mark_used(&cmdline, o->name);
    mark_used(&config, o->name);
    if (validate(o, p->value, src == SB_SRC_CMDLINE ? p->arg : NULL) != 0)
      return -1;
    assign(o, p->value, p->value == NULL);
    o->source = src;
  }
  else
  {
    assign(o, def, false);
    o->source = SB_SRC_DEFAULT;
  }
  return 0;
}

int sb_opt_register_table(const sb_option_t *t, int group, const char *group_name)
{
  int rc = 0;
  for (; t && t->name; t++)
    if (sb_opt_register(t->name, t->desc, t->value, t->type, group, group_name) != 0)
      rc = -1;
  return rc;
}

int sb_opt_set(const char *name, const char *value)
{
  sb_opt_t *o = sb_opt_find(name);
  if (o == NULL)
    return -1;
  if (validate(o, value, NULL) != 0)
    return -1;
  assign(o, value, false);
  o->source = SB_SRC_SET;
  return 0;
}

/* ---- parsing ---------------------------------------------------------------- */

static void pending_add(pending_list_t *l, const char *name, size_t name_len,
                        const char *value, const char *arg)
{
  if (l->n == l->cap)
  {
    l->cap = l->cap ? l->cap * 2 : 32;
    l->v = realloc(l->v, sizeof(pending_t) * l->cap);
  }
  pending_t *p = &l->v[l->n++];
  p->name = normalise(name, name_len);
  p->value = xstrdup(value);
  p->arg = xstrdup(arg);
  p->used = false;
}

int sb_opt_parse_argv(int argc, char **argv, char **positional,
                      unsigned max_pos, unsigned *npos)
{
  const char *config_file = NULL;

  *npos = 0;
  for (int i = 1; i < argc; i++)
  {
    const char *a = argv[i];
    if (a[0] == '-' && a[1] == '-' && a[2] != '\0')
    {
      const char *name = a + 2;
      const char *eq = strchr(name, '=');
      size_t nlen = eq ? (size_t) (eq - name) : strlen(name);
      pending_add(&cmdline, name, nlen, eq ? eq + 1 : NULL, a);
      if (nlen == 11 && (!strncmp(name, "config-file", 11) ||
                         !strncmp(name, "config_file", 11)))
        config_file = eq ? eq + 1 : NULL;
    }
    else if (*npos < max_pos)
      positional[(*npos)++] = argv[i];
    else
      (*npos)++;
  }
  if (config_file && *config_file)
    return sb_opt_read_config(config_file);
  return 0;
}

/* Parses one config value: trims, handles quotes and '#' comments. Returns
   a malloc'd string, or NULL with *err set on an unterminated quote. */
static char *config_value(const char *s, bool *err)
{
  size_t cap = strlen(s) + 1, n = 0;
  char *out = malloc(cap);
  char quote = 0;

  *err = false;
  while (isspace((unsigned char) *s))
    s++;
  for (; *s; s++)
  {
    if (quote)
    {
      if (*s == quote)
        quote = 0;
      else
        out[n++] = *s;
      continue;
    }
    if (*s == '\'' || *s == '"')
    {
      quote = *s;
      continue;
    }
    if (*s == '#')
      break;
    out[n++] = *s;
  }
  if (quote)
  {
    free(out);
    *err = true;
    return NULL;
  }
  while (n > 0 && isspace((unsigned char) out[n - 1]))
    n--;
  out[n] = '\0';
  return out;
}

int sb_opt_read_config(const char *path)
{
  FILE *f = fopen(path, "r");
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  unsigned lineno = 0;

  if (f == NULL)
  {
    fprintf(stderr, "FATAL: cannot open config file '%s': %s\n", path,
            strerror(errno));
    return -1;
  }
  while ((len = getline(&line, &cap, f)) >= 0)
  {
    lineno++;
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
      line[--len] = '\0';
    char *eq = strchr(line, '=');
    if (eq == NULL)
      continue;
    char *name = line;
    while (isspace((unsigned char) *name))
      name++;
    char *name_end = eq;
    while (name_end > name && isspace((unsigned char) name_end[-1]))
      name_end--;
    if (name_end == name || *name == '#')
      continue;
    bool err;
    char *value = config_value(eq + 1, &err);
    if (err)
    {
      fprintf(stderr, "unexpected EOL on line %u\n", lineno);
      free(line);
      fclose(f);
      return -1;
    }
    pending_add(&config, name, (size_t) (name_end - name), value, NULL);
    config.v[config.n - 1].arg = malloc(strlen(path) + 32);
    sprintf(config.v[config.n - 1].arg, "%s:%u", path, lineno);
    free(value);
  }
  free(line);
  fclose(f);
  return 0;
}

int sb_opt_check_unknown(void)
{
  for (unsigned i = 0; i < cmdline.n; i++)
    if (!cmdline.v[i].used && sb_opt_find(cmdline.v[i].name) == NULL)
    {
      fprintf(stderr, "invalid option: %s\n", cmdline.v[i].arg);
      return -1;
    }
  for (unsigned i = 0; i < config.n; i++)
    if (!config.v[i].used && sb_opt_find(config.v[i].name) == NULL)
    {
      /* One file may serve several workloads: warn only. */
      const char *where = config.v[i].arg;
      const char *colon = strrchr(where, ':');
      log_text(LOG_WARNING, "unknown option '%s' in config file %.*s line %s",
               config.v[i].name, (int) (colon - where), where, colon + 1);
      config.v[i].used = true;
    }
  return 0;
}

void sb_opt_ignore_unknown(void)
{
  for (unsigned i = 0; i < cmdline.n; i++)
    cmdline.v[i].used = true;
  for (unsigned i = 0; i < config.n; i++)
    config.v[i].used = true;
}

bool sb_opt_given(const char *name)
{
  char *n = normalise(name, strlen(name));
  bool r = pending_find(&cmdline, n) != NULL || pending_find(&config, n) != NULL;
  free(n);
  return r;
}

bool sb_opt_given_cmdline(const char *name)
{
  char *n = normalise(name, strlen(name));
  bool r = pending_find(&cmdline, n) != NULL;
  free(n);
  return r;
}

/* ---- getters ---------------------------------------------------------------- */

bool sb_opt_bool(const char *name)
{
  sb_opt_t *o = sb_opt_find(name);
  bool b = false;
  if (o && o->value)
    sb_parse_bool(o->value, &b);
  return b;
}

int sb_opt_int(const char *name)
{
  sb_opt_t *o = sb_opt_find(name);
  int v = 0;
  if (o && o->value)
    sb_parse_int(o->value, &v);
  return v;
}

uint64_t sb_opt_size(const char *name)
{
  sb_opt_t *o = sb_opt_find(name);
  uint64_t v = 0;
  if (o && o->value)
    sb_parse_size(o->value, &v);
  return v;
}

double sb_opt_double(const char *name)
{
  sb_opt_t *o = sb_opt_find(name);
  double v = 0;
  if (o && o->value)
    sb_parse_double(o->value, &v);
  return v;
}

const char *sb_opt_str(const char *name)
{
  sb_opt_t *o = sb_opt_find(name);
  return o ? o->value : NULL;
}

char **sb_opt_list(const char *name, unsigned *n)
{
  sb_opt_t *o = sb_opt_find(name);
  if (o == NULL)
  {
    *n = 0;
    return NULL;
  }
  if (o->type != SB_ARG_TYPE_LIST && o->nlist == 0 && o->value)
    split_list(o, o->value);
  *n = o->nlist;
  return o->list;
}

unsigned sb_opt_all_values(const char *name, const char **out, unsigned max)
{
  char *key = normalise(name, strlen(name));
  unsigned n = 0;
  for (int pass = 0; pass < 2 && n == 0; pass++)
  {
    const pending_list_t *l = pass == 0 ? &cmdline : &config;
    for (unsigned i = 0; i < l->n && n < max; i++)
      if (strcmp(l->v[i].name, key) == 0 && l->v[i].value)
        out[n++] = l->v[i].value;
  }
  free(key);
  return n;
}

unsigned sb_opt_count(void)
{
  return nopts;
}

sb_opt_t *sb_opt_at(unsigned i)
{
  return i < nopts ? opts[i] : NULL;
}

/* ---- help ----------------------------------------------------------------- */

const char *sb_opt_type_fmt(sb_arg_type_t type)
{
  switch (type)
  {
  case SB_ARG_TYPE_BOOL: return "[=on|off]";
  case SB_ARG_TYPE_INT: return "=N";
  case SB_ARG_TYPE_SIZE: return "=SIZE";
  case SB_ARG_TYPE_DOUBLE: return "=N";
  case SB_ARG_TYPE_STRING: return "=STRING";
  case SB_ARG_TYPE_LIST: return "=[LIST,...]";
  case SB_ARG_TYPE_FILE: return "=FILENAME";
  default: return "";
  }
}

static bool in_group(unsigned i, int group, const char *group_name)
{
  if (opts[i]->group != group)
    return false;
  if (group_name == NULL)
    return true;
  return group_names[i] && strcmp(group_names[i], group_name) == 0;
}

/* One help line's fields: from the registry or from `extra`. */
typedef struct {
  const char *name, *desc, *def;
  sb_arg_type_t type;
} help_line_t;

static int cmp_lines(const void *a, const void *b)
{
  return strcmp(((const help_line_t *) a)->name, ((const help_line_t *) b)->name);
}

void sb_opt_print_group_extra(int group, const char *group_name, bool sorted,
                              const sb_option_t *extra, unsigned nextra)
{
  help_line_t *sel = malloc(sizeof(*sel) * (nopts + nextra + 1));
  unsigned n = 0;
  size_t width = 0;

  if (sel == NULL)
    return;
  for (unsigned i = 0; i < nopts; i++)
    if (in_group(i, group, group_name) && !(opts[i]->extension && sb_persona_sysbench()))
      sel[n++] = (help_line_t) { opts[i]->display_name, opts[i]->desc, opts[i]->def,
                                 opts[i]->type };
  for (unsigned i = 0; i < nextra; i++)
    sel[n++] = (help_line_t) { extra[i].name, extra[i].desc, extra[i].value, extra[i].type };
  for (unsigned i = 0; i < n; i++)
  {
    size_t w = strlen(sel[i].name) + strlen(sb_opt_type_fmt(sel[i].type));
    if (w > width)
      width = w;
  }
  if (sorted)
    qsort(sel, n, sizeof(*sel), cmp_lines);
  for (unsigned i = 0; i < n; i++)
  {
    char head[512];
    snprintf(head, sizeof(head), "%s%s", sel[i].name, sb_opt_type_fmt(sel[i].type));
    printf("  --%-*s %s", (int) width, head, sel[i].desc ? sel[i].desc : "");
    if (sel[i].def != NULL)
      printf(" [%s]", sel[i].def);
    printf("\n");
  }
  free(sel);
}

void sb_opt_print_group(int group, const char *group_name, bool sorted)
{
  sb_opt_print_group_extra(group, group_name, sorted, NULL, 0);
}
