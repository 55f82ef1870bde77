/*
 * A pgbench client's variables (see pgb_client.h): setting them (\set,
 * -D, \gset, \aset, \setshell), their text and value, the expression
 * evaluator's view of them, and their substitution into simple-mode SQL.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/pgbench/pgb_client.h"

/* The variable `name`, or NULL. The names a script refers to are the
   same few pointers every transaction (its parsed commands), so a small
   cache keyed by the address (two slots to look at, Fibonacci hashing)
   finds them with one strcmp instead of one per variable; variables are
   never removed, so an index stays valid. */
static pgb_var_t *lookup_var(pgb_client_t *c, const char *name)
{
  uint64_t a = (uint64_t) (uintptr_t) name * UINT64_C(0x9E3779B97F4A7C15);
  unsigned slot = (unsigned) (a >> 58) % PGB_VAR_CACHE;
  for (unsigned p = 0; p < 2; p++)
  {
    unsigned k = (slot + p) % PGB_VAR_CACHE;
    if (c->vcache[k].key == name && c->vcache[k].idx < c->nvars &&
        strcmp(c->vars[c->vcache[k].idx].name, name) == 0)
      return &c->vars[c->vcache[k].idx];
  }
  for (unsigned i = 0; i < c->nvars; i++)
    if (strcmp(c->vars[i].name, name) == 0)
    {
      /* the first slot unless it is taken and the second is free */
      unsigned k = slot;
      if (c->vcache[k].key != NULL && c->vcache[(k + 1) % PGB_VAR_CACHE].key == NULL)
        k = (k + 1) % PGB_VAR_CACHE;
      c->vcache[k].key = name;
      c->vcache[k].idx = i;
      return &c->vars[i];
    }
  return NULL;
}

static bool valid_name(const char *s)
{
  if (!(isalpha((unsigned char) *s) || *s == '_' || (unsigned char) *s >= 0x80))
    return false;
  for (; *s; s++)
    if (!(isalnum((unsigned char) *s) || *s == '_' || (unsigned char) *s >= 0x80))
      return false;
  return true;
}

/* The variable `name`, made when missing (context names the caller for
   pgbench's "invalid variable name" message). */
static pgb_var_t *create_var(pgb_client_t *c, const char *context, const char *name)
{
  pgb_var_t *v = lookup_var(c, name);
  if (v)
    return v;
  if (!valid_name(name))
  {
    pgb_error("%s: invalid variable name: \"%s\"", context, name);
    return NULL;
  }
  if (c->nvars == c->capvars)
  {
    unsigned cap = c->capvars ? c->capvars * 2 : 16;
    pgb_var_t *nv = realloc(c->vars, cap * sizeof(*nv));
    if (nv == NULL)
      return NULL;
    c->vars = nv;
    c->capvars = cap;
  }
  v = &c->vars[c->nvars++];
  memset(v, 0, sizeof(*v));
  v->name = strdup(name);
  return v->name ? v : NULL;
}

/* Gives variable `name` the text `s` (copied) or, when `s` is NULL, the
   value *val; false when it cannot be made or memory is short. */
static bool set_var(pgb_client_t *c, const char *context, const char *name, const char *s,
                    const pgs_value_t *val)
{
  pgb_var_t *v = create_var(c, context, name);
  char *copy = NULL;
  if (v == NULL || (s && (copy = strdup(s)) == NULL))
    return false;
  free(v->str);
  v->str = copy;
  v->num_text = false;
  v->has_value = s == NULL;
  if (s == NULL)
    v->value = *val;
  return true;
}

bool pgb_var_set_value(pgb_client_t *c, const char *name, const pgs_value_t *val)
{
  return set_var(c, "set", name, NULL, val);
}

bool pgb_var_set_str(pgb_client_t *c, const char *context, const char *name, const char *s)
{
  return set_var(c, context, name, s, NULL);
}

const char *pgb_var_text(pgb_client_t *c, const char *name)
{
  pgb_var_t *v = lookup_var(c, name);
  if (v == NULL)
    return NULL;
  if (v->str == NULL && !v->num_text && v->value.type == PGS_INT)
  {
    /* an int64 takes at most 20 characters: straight into num */
    _Static_assert(sizeof(v->num) > 20, "num holds any int64's text");
    pgs_value_text(&v->value, v->num, sizeof(v->num));
    v->num_text = true;
  }
  else if (v->str == NULL && !v->num_text)
  {
    /* a double's or a boolean's text: in num when it fits */
    char buf[64];
    pgs_value_text(&v->value, buf, sizeof(buf));
    size_t n = strlen(buf);
    if (n < sizeof(v->num))
    {
      memcpy(v->num, buf, n + 1);
      v->num_text = true;
    }
    else
      v->str = strdup(buf);
  }
  /* num moves with the array: the pointer holds until a variable is made */
  return v->num_text ? v->num : v->str;
}

/* The expression evaluator's variable lookup (pgs_env_t). */
static bool env_lookup(void *ctx, const char *name, pgs_value_t *out, char *err, size_t errlen)
{
  pgb_client_t *c = ctx;
  pgb_var_t *v = lookup_var(c, name);
  if (v == NULL)
  {
    snprintf(err, errlen, "undefined variable \"%s\"", name);
    return false;
  }
  if (!v->has_value)
  {
    if (!pgs_value_from_text(v->str, &v->value))
    {
      /* an empty text (a NULL stored by \gset) fails without a message,
         as in pgbench */
      if (v->str[0] == '\0')
        err[0] = '\0';
      else if (pgs_text_is_int(v->str))
        snprintf(err, errlen, "value \"%s\" is out of range for type bigint", v->str);
      else
        snprintf(err, errlen, "malformed variable \"%s\" value: \"%s\"", name, v->str);
      return false;
    }
    v->has_value = true;
  }
  *out = v->value;
  return true;
}

typedef struct {
  pgb_client_t *c;
  unsigned script, cmd;
} debug_ctx_t;

static void env_debug(void *ctx, const char *text)
{
  debug_ctx_t *d = ctx;
  fprintf(stderr, "debug(script=%u,command=%u): %s\n", d->script, d->cmd + 1, text);
}

typedef struct {
  pgb_client_t *c;
  debug_ctx_t dbg;
} eval_ctx_t;

static bool lookup_thunk(void *ctx, const char *name, pgs_value_t *out, char *err, size_t n)
{
  return env_lookup(((eval_ctx_t *) ctx)->c, name, out, err, n);
}

static void debug_thunk(void *ctx, const char *text)
{
  env_debug(&((eval_ctx_t *) ctx)->dbg, text);
}

bool pgb_var_eval(pgb_client_t *c, unsigned s, unsigned i, const pgb_cmd_t *cmd,
                     pgs_value_t *out)
{
  eval_ctx_t ec = {.c = c, .dbg = {.c = c, .script = s, .cmd = i}};
  pgs_env_t env = {.lookup = lookup_thunk, .ctx = &ec, .rs = &c->rs, .debug = debug_thunk};
  char err[1024];
  err[0] = '\0';
  if (pgs_expr_eval(cmd->expr, &env, out, err, sizeof(err)))
    return true;
  if (err[0] != '\0')
    pgb_error("%s", err);
  pgb_error("client %d aborted in command %u (%s) of script %u; evaluation of meta-command failed",
            c->id, i, cmd->type == PGB_SET ? "set" : cmd->type == PGB_IF ? "if" : "elif", s);
  return false;
}

char *pgb_var_substitute(pgb_client_t *c, const pgb_cmd_t *cmd)
{
  size_t cap = strlen(cmd->sql) + 64, n = 0;
  char *out = malloc(cap);
  const char *p = cmd->sql;
  unsigned k = 0;
  if (out == NULL)
    return NULL;
  for (const char *q = cmd->psql; *q; q++)
  {
    const char *piece = NULL;
    size_t plen = 1;
    if (*q == '?' && k < cmd->nparams && *p == ':')
    {
      const char *name = cmd->params[k++];
      const char *t = pgb_var_text(c, name);
      size_t nl = strlen(name) + 1;
      piece = t ? t : p;
      plen = t ? strlen(t) : nl;
      p += nl;
    }
    else
    {
      piece = p;
      p++;
    }
    if (n + plen + 1 > cap)
    {
      cap = (n + plen + 1) * 2;
      char *grown = realloc(out, cap);
      if (grown == NULL)
      {
        free(out);
        return NULL;
      }
      out = grown;
    }
    memcpy(out + n, piece, plen);
    n += plen;
  }
  out[n] = '\0';
  return out;
}
