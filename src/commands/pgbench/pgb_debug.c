/*
 * The -d trace (docs/pgbench.md "-d"): the lines pgbench 15 logs at its
 * debug level while its clients run, in its words. pgbench's logger puts
 * "pgbench: " before a debug message (no level label, unlike "error: ")
 * and writes it to stderr. Clients run in threads of their own here, so
 * each line is formatted whole and written with one write(2): lines of
 * two clients interleave, never their parts. Callers test pgb_cfg.debug
 * first (PGB_DEBUG), so a run without -d pays one branch per line.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands/pgbench/pgb_client.h"

#define PREFIX "pgbench: "

/* A growing line; on a failed allocation it stays as it was and is
   marked so that nothing is printed rather than half a line. */
typedef struct {
  char stack[512];
  char *s;
  size_t len, cap;
  bool oom;
} line_t;

static void line_init(line_t *l)
{
  l->s = l->stack;
  l->len = 0;
  l->cap = sizeof(l->stack);
  l->oom = false;
}

static void line_put(line_t *l, const char *p, size_t n)
{
  if (l->oom)
    return;
  if (l->len + n + 2 > l->cap)
  {
    size_t cap = (l->len + n + 2) * 2;
    char *g = l->s == l->stack ? malloc(cap) : realloc(l->s, cap);
    if (g == NULL)
    {
      l->oom = true;
      return;
    }
    if (l->s == l->stack)
      memcpy(g, l->stack, l->len);
    l->s = g;
    l->cap = cap;
  }
  memcpy(l->s + l->len, p, n);
  l->len += n;
}

static void line_str(line_t *l, const char *s)
{
  line_put(l, s, strlen(s));
}

static void line_vfmt(line_t *l, const char *fmt, va_list ap)
{
  char buf[256];
  va_list again;
  va_copy(again, ap);
  int n = vsnprintf(buf, sizeof(buf), fmt, ap);
  if (n < 0)
    l->oom = true;
  else if ((size_t) n < sizeof(buf))
    line_put(l, buf, (size_t) n);
  else
  {
    char *big = malloc((size_t) n + 1);
    if (big == NULL)
      l->oom = true;
    else
    {
      vsnprintf(big, (size_t) n + 1, fmt, again);
      line_put(l, big, (size_t) n);
      free(big);
    }
  }
  va_end(again);
}

static void line_fmt(line_t *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line_fmt(line_t *l, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  line_vfmt(l, fmt, ap);
  va_end(ap);
}

/* Ends the line with its newline, writes it to stderr in one call (a
   second only when the first was cut short) and frees it. */
static void line_emit(line_t *l)
{
  line_put(l, "\n", 1);
  for (size_t off = 0; !l->oom && off < l->len;)
  {
    ssize_t w = write(STDERR_FILENO, l->s + off, l->len - off);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      break;
    off += (size_t) w;
  }
  if (l->s != l->stack)
    free(l->s);
  line_init(l);
}

void pgb_debug(const char *fmt, ...)
{
  line_t l;
  line_init(&l);
  line_str(&l, PREFIX);
  va_list ap;
  va_start(ap, fmt);
  line_vfmt(&l, fmt, ap);
  va_end(ap);
  line_emit(&l);
}

/* pgbench's name of a meta-command, as its trace shows it. */
static const char *meta_name(pgb_ctype_t t)
{
  switch (t)
  {
    case PGB_SET: return "set";
    case PGB_SLEEP: return "sleep";
    case PGB_SETSHELL: return "setshell";
    case PGB_SHELL: return "shell";
    case PGB_IF: return "if";
    case PGB_ELIF: return "elif";
    case PGB_ELSE: return "else";
    case PGB_ENDIF: return "endif";
    case PGB_STARTPIPELINE: return "startpipeline";
    case PGB_ENDPIPELINE: return "endpipeline";
    default: return "?";
  }
}

void pgb_debug_meta(const pgb_client_t *c, const pgb_cmd_t *cmd)
{
  line_t l;
  line_init(&l);
  /* the name as the script wrote it (its case is free) */
  const char *w = cmd->first_line ? cmd->first_line : "";
  w += strspn(w, " \t");
  if (*w == '\\')
  {
    w++;
    line_fmt(&l, PREFIX "client %d executing \\%.*s", c->id, (int) strcspn(w, " \t\r\n"), w);
  }
  else
    line_fmt(&l, PREFIX "client %d executing \\%s", c->id, meta_name(cmd->type));
  /* pgbench keeps \set's variable as its one argument (the expression
     is parsed apart) and the words of \sleep and the shell commands;
     the conditionals' expressions are not shown */
  if (cmd->type == PGB_SET)
    line_fmt(&l, " %s", cmd->var);
  else if (cmd->type == PGB_SLEEP || cmd->type == PGB_SHELL || cmd->type == PGB_SETSHELL)
    for (int k = 0; k < cmd->argc; k++)
      line_fmt(&l, " %s", cmd->argv[k]);
  line_emit(&l);
}

void pgb_debug_sending(const pgb_client_t *c, const pgb_cmd_t *cmd, const char *text)
{
  line_t l;
  line_init(&l);
  line_fmt(&l, PREFIX "client %d sending ", c->id);
  if (pgb_cfg.querymode == PGB_QUERY_SIMPLE)
    line_str(&l, text);
  else if (pgb_cfg.querymode == PGB_QUERY_PREPARED)
    line_fmt(&l, "P_%u", cmd->prep_no);
  else
  {
    /* -M extended sends the text with $1, $2... in place of its
       :variables, numbered by occurrence */
    line_str(&l, cmd->nsql);
  }
  line_emit(&l);
}
