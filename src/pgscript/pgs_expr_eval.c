/*
 * pgbench's expression language: evaluation (pgs_expr.h). The rules are
 * pgbench 15's: any NULL argument makes a function NULL (but IS and
 * debug), + - * / < <= = <> work on doubles when an argument is a double
 * and else on checked 64-bit integers, % always on integers, AND and OR
 * evaluate their right side only when needed, CASE takes the first true
 * condition (NULL and zero are false), doubles become integers by
 * rounding to the nearest (rint).
 */
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pgscript/pgs_expr_priv.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

typedef struct {
  const pgs_env_t *env;
  char *err;
  size_t errlen;
} ectx_t;

static bool eval(const pgs_expr_t *e, ectx_t *c, pgs_value_t *out);

/* `d` printed with the one-double printf format `fmt` into buf (len
   bytes), but as PostgreSQL's printf prints what is not a number:
   "NaN", "Infinity", "-Infinity" (pgbench's messages and values).
   Returns buf. Any thread. */
static char *fmt_double(char *buf, size_t len, const char *fmt, double d)
{
  if (isnan(d))
    snprintf(buf, len, "NaN");
  else if (isinf(d))
    snprintf(buf, len, "%s", d > 0 ? "Infinity" : "-Infinity");
  else
    snprintf(buf, len, fmt, d);
  return buf;
}

static bool error(ectx_t *c, const char *fmt, const char *arg)
{
  snprintf(c->err, c->errlen, fmt, arg);
  return false;
}

static const char *type_name(const pgs_value_t *v)
{
  switch (v->type)
  {
    case PGS_NULL: return "null";
    case PGS_BOOL: return "boolean";
    case PGS_INT: return "int";
    default: return "double";
  }
}

static bool to_bool(ectx_t *c, const pgs_value_t *v, bool *b)
{
  if (v->type == PGS_BOOL)
  {
    *b = v->u.b;
    return true;
  }
  return error(c, "cannot coerce %s to boolean", type_name(v));
}

static bool to_int(ectx_t *c, const pgs_value_t *v, int64_t *i)
{
  if (v->type == PGS_INT)
  {
    *i = v->u.i;
    return true;
  }
  if (v->type == PGS_DOUBLE)
  {
    double d = rint(v->u.d);
    /* the doubles that fit: [-2^63, 2^63) */
    if (isnan(d) || d < -9223372036854775808.0 || d >= 9223372036854775808.0)
    {
      char t[400];
      return error(c, "double to int overflow for %s", fmt_double(t, sizeof(t), "%f", d));
    }
    *i = (int64_t) d;
    return true;
  }
  return error(c, "cannot coerce %s to int", type_name(v));
}

static bool to_double(ectx_t *c, const pgs_value_t *v, double *d)
{
  if (v->type == PGS_DOUBLE)
    *d = v->u.d;
  else if (v->type == PGS_INT)
    *d = (double) v->u.i;
  else
    return error(c, "cannot coerce %s to double", type_name(v));
  return true;
}

static void set_int(pgs_value_t *v, int64_t i)
{
  v->type = PGS_INT;
  v->u.i = i;
}

static void set_double(pgs_value_t *v, double d)
{
  v->type = PGS_DOUBLE;
  v->u.d = d;
}

static void set_bool(pgs_value_t *v, bool b)
{
  v->type = PGS_BOOL;
  v->u.b = b;
}

static bool truth(const pgs_value_t *v)
{
  switch (v->type)
  {
    case PGS_BOOL: return v->u.b;
    case PGS_INT: return v->u.i != 0;
    case PGS_DOUBLE: return v->u.d != 0.0;
    default: return false;
  }
}

/* An operand of AND or OR: its truth in *b, or *null when it is NULL. */
static bool bool_arg(const pgs_expr_t *arg, ectx_t *c, bool *b, bool *null)
{
  pgs_value_t a;
  if (!eval(arg, c, &a))
    return false;
  *null = a.type == PGS_NULL;
  return *null || to_bool(c, &a, b);
}

/* AND, OR and CASE: arguments evaluated only when needed. */
static bool eval_lazy(const pgs_expr_t *e, ectx_t *c, pgs_value_t *out)
{
  pgs_value_t a;
  bool b;
  if (e->func == F_CASE)
  {
    unsigned i;
    for (i = 0; i + 1 < e->nargs; i += 2)
    {
      if (!eval(e->args[i], c, &a))
        return false;
      if (truth(&a))
        return eval(e->args[i + 1], c, out);
    }
    return eval(e->args[e->nargs - 1], c, out);
  }
  bool is_and = e->func == F_AND, null;
  if (!bool_arg(e->args[0], c, &b, &null))
    return false;
  /* NULL AND x, NULL OR x: NULL; false AND x, true OR x: b */
  if (!null && b == is_and && !bool_arg(e->args[1], c, &b, &null))
    return false;
  if (null)
    out->type = PGS_NULL;
  else
    set_bool(out, b);
  return true;
}

static bool arith_double(pgs_func_t f, double l, double r, pgs_value_t *out)
{
  switch (f)
  {
    case F_ADD: set_double(out, l + r); break;
    case F_SUB: set_double(out, l - r); break;
    case F_MUL: set_double(out, l * r); break;
    case F_DIV: set_double(out, l / r); break;
    case F_EQ: set_bool(out, l == r); break;
    case F_NE: set_bool(out, l != r); break;
    case F_LE: set_bool(out, l <= r); break;
    default: set_bool(out, l < r); break;
  }
  return true;
}

static bool arith_int(ectx_t *c, pgs_func_t f, int64_t l, int64_t r, pgs_value_t *out)
{
  int64_t res;
  switch (f)
  {
    case F_ADD: case F_SUB: case F_MUL:
    {
      bool over = f == F_ADD ? __builtin_add_overflow(l, r, &res)
                  : f == F_SUB ? __builtin_sub_overflow(l, r, &res)
                  : __builtin_mul_overflow(l, r, &res);
      if (over)
        return error(c, "bigint %s out of range", f == F_ADD ? "add" : f == F_SUB ? "sub" : "mul");
      set_int(out, res);
      return true;
    }
    case F_EQ: set_bool(out, l == r); return true;
    case F_NE: set_bool(out, l != r); return true;
    case F_LE: set_bool(out, l <= r); return true;
    case F_LT: set_bool(out, l < r); return true;
    default:                    /* F_DIV, F_MOD */
      if (r == 0)
        return error(c, "%s", "division by zero");
      if (r == -1)
      {
        if (f == F_MOD)
          set_int(out, 0);
        else if (l == INT64_MIN)
          return error(c, "%s", "bigint div out of range");
        else
          set_int(out, -l);
        return true;
      }
      set_int(out, f == F_DIV ? l / r : l % r);
      return true;
  }
}

/* random(), random_exponential(), random_gaussian(), random_zipfian() */
static bool eval_random(ectx_t *c, pgs_func_t f, const pgs_value_t *v, pgs_value_t *out)
{
  int64_t lo, hi, delta;
  double param = 0;
  if (!to_int(c, &v[0], &lo) || !to_int(c, &v[1], &hi))
    return false;
  if (lo > hi)
    return error(c, "%s", "empty range given to random");
  if (__builtin_sub_overflow(hi, lo, &delta) || __builtin_add_overflow(delta, 1, &delta))
    return error(c, "%s", "random range is too large");
  pgs_prng_t *rs = c->env->rs;
  if (f == F_RANDOM)
  {
    set_int(out, pgs_rand_uniform(rs, lo, hi));
    return true;
  }
  if (!to_double(c, &v[2], &param))
    return false;
  if (f == F_RANDOM_GAUSSIAN)
  {
    if (param < PGS_MIN_GAUSSIAN_PARAM)
    {
      char t[400];
      snprintf(c->err, c->errlen, "gaussian parameter must be at least %f (not %s)",
               PGS_MIN_GAUSSIAN_PARAM, fmt_double(t, sizeof(t), "%f", param));
      return false;
    }
    set_int(out, pgs_rand_gaussian(rs, lo, hi, param));
  }
  else if (f == F_RANDOM_ZIPFIAN)
  {
    if (param < PGS_MIN_ZIPFIAN_PARAM || param > PGS_MAX_ZIPFIAN_PARAM)
    {
      char t[400];
      snprintf(c->err, c->errlen, "zipfian parameter must be in range [%.3f, %.0f] (not %s)",
               PGS_MIN_ZIPFIAN_PARAM, PGS_MAX_ZIPFIAN_PARAM, fmt_double(t, sizeof(t), "%f", param));
      return false;
    }
    set_int(out, pgs_rand_zipfian(rs, lo, hi, param));
  }
  else
  {
    if (param <= 0.0)
    {
      char t[400];
      snprintf(c->err, c->errlen, "exponential parameter must be greater than zero (not %s)",
               fmt_double(t, sizeof(t), "%f", param));
      return false;
    }
    set_int(out, pgs_rand_exponential(rs, lo, hi, param));
  }
  return true;
}

/* `v` as an int, or as a double when `dbl`, into `out`. */
static bool coerce_num(ectx_t *c, const pgs_value_t *v, bool dbl, pgs_value_t *out)
{
  if (dbl)
  {
    double d;
    if (!to_double(c, v, &d))
      return false;
    set_double(out, d);
    return true;
  }
  int64_t i;
  if (!to_int(c, v, &i))
    return false;
  set_int(out, i);
  return true;
}

/* least() and greatest(): doubles when any argument is one; the
   arguments are converted in order, the first that cannot be stops. */
static bool eval_extremum(ectx_t *c, pgs_func_t f, const pgs_value_t *v, unsigned n,
                          pgs_value_t *out)
{
  bool dbl = false;
  for (unsigned i = 0; i < n; i++)
    dbl |= v[i].type == PGS_DOUBLE;
  for (unsigned i = 0; i < n; i++)
  {
    pgs_value_t y;
    if (!coerce_num(c, &v[i], dbl, &y))
      return false;
    if (i == 0 || (f == F_LEAST) == (dbl ? y.u.d < out->u.d : y.u.i < out->u.i))
      *out = y;
  }
  return true;
}

static bool eval_debug(ectx_t *c, const pgs_value_t *v, pgs_value_t *out)
{
  char buf[64];
  switch (v->type)
  {
    case PGS_NULL: snprintf(buf, sizeof(buf), "null"); break;
    case PGS_BOOL: snprintf(buf, sizeof(buf), "boolean %s", v->u.b ? "true" : "false"); break;
    case PGS_INT: snprintf(buf, sizeof(buf), "int %" PRId64, v->u.i); break;
    default:
    {
      char t[40];
      snprintf(buf, sizeof(buf), "double %s", fmt_double(t, sizeof(t), "%.15g", v->u.d));
      break;
    }
  }
  if (c->env->debug)
    c->env->debug(c->env->ctx, buf);
  *out = *v;
  return true;
}

/* & | # << >> on integers (shifts by the count's low 6 bits). */
static bool eval_bits(ectx_t *c, pgs_func_t f, const pgs_value_t *v, pgs_value_t *out)
{
  int64_t a, b;
  if (!to_int(c, &v[0], &a) || !to_int(c, &v[1], &b))
    return false;
  if (f == F_BITAND)
    set_int(out, a & b);
  else if (f == F_BITOR)
    set_int(out, a | b);
  else if (f == F_BITXOR)
    set_int(out, a ^ b);
  else if (f == F_LSHIFT)
    set_int(out, (int64_t) ((uint64_t) a << (b & 63)));
  else
    set_int(out, a >> (b & 63));
  return true;
}

/* double(), sqrt(), ln(), exp(), pow() on doubles; int() rounds. */
static bool eval_math(ectx_t *c, pgs_func_t f, const pgs_value_t *v, pgs_value_t *out)
{
  double d, d2;
  int64_t a;
  if (f == F_INT)
  {
    if (!to_int(c, &v[0], &a))
      return false;
    set_int(out, a);
    return true;
  }
  if (!to_double(c, &v[0], &d))
    return false;
  if (f == F_POW)
  {
    if (!to_double(c, &v[1], &d2))
      return false;
    set_double(out, pow(d, d2));
    return true;
  }
  set_double(out, f == F_SQRT ? sqrt(d) : f == F_LN ? log(d) : f == F_EXP ? exp(d) : d);
  return true;
}

/* The functions whose arguments are all evaluated first. */
static bool eval_standard(const pgs_expr_t *e, ectx_t *c, pgs_value_t *out)
{
  pgs_value_t v[PGS_MAX_ARGS];
  bool has_null = false;
  for (unsigned i = 0; i < e->nargs; i++)
  {
    if (!eval(e->args[i], c, &v[i]))
      return false;
    has_null |= v[i].type == PGS_NULL;
  }
  if (has_null && e->func != F_IS && e->func != F_DEBUG)
  {
    out->type = PGS_NULL;
    return true;
  }
  int64_t a, b, s;
  double d, d2;
  bool bv;
  switch (e->func)
  {
    case F_ADD: case F_SUB: case F_MUL: case F_DIV: case F_MOD:
    case F_EQ: case F_NE: case F_LE: case F_LT:
      if ((v[0].type == PGS_DOUBLE || v[1].type == PGS_DOUBLE) && e->func != F_MOD)
        return to_double(c, &v[0], &d) && to_double(c, &v[1], &d2) &&
               arith_double(e->func, d, d2, out);
      return to_int(c, &v[0], &a) && to_int(c, &v[1], &b) &&
             arith_int(c, e->func, a, b, out);
    case F_BITAND: case F_BITOR: case F_BITXOR: case F_LSHIFT: case F_RSHIFT:
      return eval_bits(c, e->func, v, out);
    case F_NOT:
      if (!to_bool(c, &v[0], &bv))
        return false;
      set_bool(out, !bv);
      return true;
    case F_IS:
      set_bool(out, v[0].type == v[1].type &&
               (v[0].type == PGS_NULL || (v[0].type == PGS_BOOL && v[0].u.b == v[1].u.b)));
      return true;
    case F_PI:
      set_double(out, M_PI);
      return true;
    case F_ABS:
      if (v[0].type == PGS_INT)
        set_int(out, v[0].u.i < 0 ? -(uint64_t) v[0].u.i : (uint64_t) v[0].u.i);
      else if (v[0].type == PGS_DOUBLE)
        set_double(out, fabs(v[0].u.d));
      else
        return error(c, "cannot coerce %s to double", type_name(&v[0]));
      return true;
    case F_DEBUG:
      return eval_debug(c, &v[0], out);
    case F_DOUBLE: case F_SQRT: case F_LN: case F_EXP: case F_INT: case F_POW:
      return eval_math(c, e->func, v, out);
    case F_LEAST: case F_GREATEST:
      return eval_extremum(c, e->func, v, e->nargs, out);
    case F_RANDOM: case F_RANDOM_EXPONENTIAL: case F_RANDOM_GAUSSIAN: case F_RANDOM_ZIPFIAN:
      return eval_random(c, e->func, v, out);
    case F_HASH_MURMUR2: case F_HASH_FNV1A:
      if (!to_int(c, &v[0], &a) || !to_int(c, &v[1], &s))
        return false;
      set_int(out, e->func == F_HASH_MURMUR2 ? pgs_hash_murmur2(a, (uint64_t) s)
                                             : pgs_hash_fnv1a(a, (uint64_t) s));
      return true;
    case F_PERMUTE:
      if (!to_int(c, &v[0], &a) || !to_int(c, &v[1], &b) || !to_int(c, &v[2], &s))
        return false;
      if (b <= 0)
        return error(c, "%s", "permute size parameter must be greater than zero");
      set_int(out, pgs_permute(a, b, s));
      return true;
    default:
      return error(c, "%s", "internal error: unknown function");
  }
}

static bool eval(const pgs_expr_t *e, ectx_t *c, pgs_value_t *out)
{
  switch (e->kind)
  {
    case PGS_E_CONST:
      *out = e->value;
      return true;
    case PGS_E_VAR:
      return c->env->lookup(c->env->ctx, e->name, out, c->err, c->errlen);
    default:
      if (e->func == F_AND || e->func == F_OR || e->func == F_CASE)
        return eval_lazy(e, c, out);
      return eval_standard(e, c, out);
  }
}

bool pgs_expr_eval(const pgs_expr_t *e, const pgs_env_t *env, pgs_value_t *out,
                   char *err, size_t errlen)
{
  ectx_t c = {.env = env, .err = err, .errlen = errlen};
  return eval(e, &c, out);
}

/* "%" PRId64 of `i` into buf (len bytes), without printf's cost: an
   integer variable is formatted for every statement that binds it. Two
   digits per division, from a table of "00" to "99". */
static void int_text(int64_t i, char *buf, size_t len)
{
  static const char pairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";
  char t[24];
  size_t n = sizeof(t);
  /* the magnitude as unsigned: INT64_MIN has no positive int64 */
  uint64_t u = i < 0 ? 0 - (uint64_t) i : (uint64_t) i;
  while (u >= 100)
  {
    unsigned r = (unsigned) (u % 100);
    u /= 100;
    t[--n] = pairs[2 * r + 1];
    t[--n] = pairs[2 * r];
  }
  if (u >= 10)
  {
    t[--n] = pairs[2 * u + 1];
    t[--n] = pairs[2 * u];
  }
  else
    t[--n] = (char) ('0' + u);
  if (i < 0)
    t[--n] = '-';
  size_t k = 0;
  while (n < sizeof(t) && k + 1 < len)
    buf[k++] = t[n++];
  if (len > 0)
    buf[k] = '\0';
}

char *pgs_value_text(const pgs_value_t *v, char *buf, size_t len)
{
  switch (v->type)
  {
    case PGS_NULL: snprintf(buf, len, "%s", ""); break;
    case PGS_BOOL: snprintf(buf, len, "%s", v->u.b ? "true" : "false"); break;
    case PGS_INT: int_text(v->u.i, buf, len); break;
    default: fmt_double(buf, len, "%.15g", v->u.d); break;
  }
  return buf;
}

/* pgbench's prefix rule for booleans: "t", "tr", ... "true", "y", "yes",
   "on"; "f" ... "false", "n", "no", "off", "of". */
static bool bool_word(const char *s, bool *b)
{
  size_t n = strlen(s);
  if (strncasecmp(s, "true", n) == 0 || strncasecmp(s, "yes", n) == 0 ||
      strcasecmp(s, "on") == 0)
    *b = true;
  else if (strncasecmp(s, "false", n) == 0 || strncasecmp(s, "no", n) == 0 ||
           strcasecmp(s, "off") == 0 || strcasecmp(s, "of") == 0)
    *b = false;
  else
    return false;
  return true;
}

bool pgs_text_is_int(const char *s)
{
  const char *p = s;
  while (*p == ' ' || (*p >= '\t' && *p <= '\r'))
    p++;
  if (*p == '+' || *p == '-')
    p++;
  const char *digits = p;
  while (*p >= '0' && *p <= '9')
    p++;
  return p > digits && *p == '\0';
}

bool pgs_value_from_text(const char *s, pgs_value_t *out)
{
  if (*s == '\0')
    return false;
  if (strcasecmp(s, "null") == 0)
  {
    out->type = PGS_NULL;
    return true;
  }
  bool b;
  if (bool_word(s, &b))
  {
    set_bool(out, b);
    return true;
  }
  char *end;
  errno = 0;
  if (pgs_text_is_int(s))
  {
    long long v = strtoll(s, &end, 10);
    if (errno == ERANGE)
      return false;
    set_int(out, v);
    return true;
  }
  /* a double: what strtod reads, to the very end (no trailing blank) */
  double d = strtod(s, &end);
  if (end == s || *end != '\0' || errno == ERANGE)
    return false;
  set_double(out, d);
  return true;
}
