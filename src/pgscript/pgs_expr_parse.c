/*
 * pgbench's expression language: the scanner and the parser (a
 * precedence-climbing parser over pgbench 15's grammar; pgs_expr.h).
 * Operators become function nodes as in pgbench: "a > b" is lt(b, a),
 * "-x" is 0 - x, "~x" is -1 # x, "x IS NULL" is is(x, NULL), and the
 * one-argument hash functions take :default_seed as their seed.
 * Errors are reported where pgbench 15 reports them: after any error the
 * rest of the line is scanned, and the last scanner error found there
 * (a bad character, a constant out of range) is the one reported.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pgscript/pgs_expr_priv.h"

typedef enum {
  T_END, T_INT, T_DOUBLE, T_VAR, T_IDENT, T_OP, T_LPAREN, T_RPAREN, T_COMMA,
  T_AND, T_OR, T_NOT, T_IS, T_ISNULL, T_NOTNULL, T_TRUE, T_FALSE, T_NULL,
  T_CASE, T_WHEN, T_THEN, T_ELSE, T_ENDKW, T_BAD,
  T_MAXINT              /* 9223372036854775808: only after a unary minus */
} tok_t;

typedef struct {
  const char *s;        /* the whole text */
  size_t pos;           /* next byte to scan */
  tok_t tok;            /* current token */
  size_t tok_start;
  size_t tok_end;       /* one past the current token's last byte */
  char text[128];       /* the token's text (names, operators) */
  int64_t ival;
  double dval;
  char *err;
  size_t errlen;
  int errpos;
  bool failed;
  bool draining;        /* an error is set: the rest of the line is being
                           scanned, and each scanner error there takes its
                           place, as in pgbench */
  bool scan_failed;     /* the token just scanned failed: drain next */
} parser_t;

static const struct { const char *word; tok_t tok; } keywords[] = {
  {"and", T_AND}, {"or", T_OR}, {"not", T_NOT}, {"is", T_IS},
  {"isnull", T_ISNULL}, {"notnull", T_NOTNULL}, {"true", T_TRUE},
  {"false", T_FALSE}, {"null", T_NULL}, {"case", T_CASE}, {"when", T_WHEN},
  {"then", T_THEN}, {"else", T_ELSE}, {"end", T_ENDKW},
};

/* Function names: arity (-1: one or more; -3: one or two, the second
   defaulting to :default_seed; -4: two or three, the same) */
static const struct { const char *name; int nargs; pgs_func_t f; } functions[] = {
  {"abs", 1, F_ABS}, {"least", -1, F_LEAST}, {"greatest", -1, F_GREATEST},
  {"debug", 1, F_DEBUG}, {"pi", 0, F_PI}, {"sqrt", 1, F_SQRT}, {"ln", 1, F_LN},
  {"exp", 1, F_EXP}, {"int", 1, F_INT}, {"double", 1, F_DOUBLE},
  {"random", 2, F_RANDOM}, {"random_gaussian", 3, F_RANDOM_GAUSSIAN},
  {"random_exponential", 3, F_RANDOM_EXPONENTIAL},
  {"random_zipfian", 3, F_RANDOM_ZIPFIAN}, {"pow", 2, F_POW},
  {"power", 2, F_POW}, {"mod", 2, F_MOD}, {"hash", -3, F_HASH_MURMUR2},
  {"hash_murmur2", -3, F_HASH_MURMUR2}, {"hash_fnv1a", -3, F_HASH_FNV1A},
  {"permute", -4, F_PERMUTE},
};

static void fail(parser_t *p, size_t at, const char *msg, const char *more)
{
  if (p->failed)
    return;
  p->failed = true;
  p->errpos = (int) at;
  if (more)
    snprintf(p->err, p->errlen, "%s: %s", msg, more);
  else
    snprintf(p->err, p->errlen, "%s", msg);
}

static bool is_name_start(int c)
{
  return isalpha(c) || c == '_' || c >= 0x80;
}

static bool is_name_char(int c)
{
  return is_name_start(c) || isdigit(c);
}

/* A scanner error (a bad character, a constant out of range) at byte
   `at`. pgbench scans the rest of the line after any error to print
   it, and a scanner error found there is reported instead (the last one
   on the line wins): while draining it replaces the error set; else it
   is set and the rest of the line is drained after this token. */
static void scan_fail(parser_t *p, size_t at, const char *msg, const char *more)
{
  if (p->draining)
    p->failed = false;
  else if (p->failed)
    return;
  else
    p->scan_failed = true;
  fail(p, at, msg, more);
}

static void scan(parser_t *p);

/* Scans the rest of the text (its scanner errors replacing the one
   set), leaving the current token at its end. */
static void drain(parser_t *p)
{
  p->draining = true;
  while (p->tok != T_END)
  {
    scan(p);
    p->tok_end = p->pos;
  }
  p->draining = false;
}

/* A grammar error (pgbench's parser's) at byte `at`, then the rest of
   the line drained. */
static void grammar_fail_at(parser_t *p, size_t at, const char *msg, const char *more)
{
  if (p->failed)
    return;
  fail(p, at, msg, more);
  drain(p);
}

/* A grammar error at the last byte of the token that does not fit (at
   the end of the text at its end). */
static void grammar_fail(parser_t *p, const char *msg, const char *more)
{
  grammar_fail_at(p, p->tok == T_END ? p->tok_start : p->tok_end - 1, msg, more);
}

static void syntax_error(parser_t *p)
{
  grammar_fail(p, "syntax error", NULL);
}

/* Scans a number at p->pos: an integer, or a double with '.' or an
   exponent. */
static void scan_number(parser_t *p)
{
  const char *start = p->s + p->pos;
  const char *q = start;
  bool is_double = false;
  while (isdigit((unsigned char) *q))
    q++;
  if (*q == '.')
  {
    is_double = true;
    q++;
    while (isdigit((unsigned char) *q))
      q++;
  }
  if ((*q == 'e' || *q == 'E') &&
      (isdigit((unsigned char) q[1]) ||
       ((q[1] == '+' || q[1] == '-') && isdigit((unsigned char) q[2]))))
  {
    is_double = true;
    q += 2;
    while (isdigit((unsigned char) *q))
      q++;
  }
  char *end;
  size_t n = (size_t) (q - start);
  static const char maxint[] = "9223372036854775808";
  p->pos = (size_t) (q - p->s);
  errno = 0;
  if (is_double)
  {
    p->tok = T_DOUBLE;
    p->dval = strtod(start, &end);
  }
  else if (n == sizeof(maxint) - 1 && strncmp(start, maxint, n) == 0)
  {
    /* 2^63, which only "-" makes a bigint (the minimum) */
    p->tok = T_MAXINT;
    return;
  }
  else
  {
    p->tok = T_INT;
    p->ival = strtoll(start, &end, 10);
  }
  if (errno == ERANGE)
  {
    /* out of range (a double's underflow too): reported at its last
       character, the literal named */
    char lit[64];
    snprintf(lit, sizeof(lit), "%.*s", (int) (n < sizeof(lit) ? n : sizeof(lit) - 1), start);
    scan_fail(p, (size_t) (q - p->s) - 1,
              is_double ? "double constant overflow" : "bigint constant overflow", lit);
  }
}

/* Moves to the next token (after a scanner error: to the end). */
static void next(parser_t *p)
{
  scan(p);
  p->tok_end = p->pos;
  if (p->scan_failed)
  {
    p->scan_failed = false;
    drain(p);
  }
}

/* Scans the token at p->pos. */
static void scan(parser_t *p)
{
  const char *s = p->s;
  while (isspace((unsigned char) s[p->pos]))
    p->pos++;
  p->tok_start = p->pos;
  p->text[0] = '\0';
  char c = s[p->pos];
  if (c == '\0')
  {
    p->tok = T_END;
    return;
  }
  if (isdigit((unsigned char) c) || (c == '.' && isdigit((unsigned char) s[p->pos + 1])))
  {
    scan_number(p);
    return;
  }
  if (c == ':' && is_name_start((unsigned char) s[p->pos + 1]))
  {
    size_t n = 0;
    p->pos++;
    while (is_name_char((unsigned char) s[p->pos]) && n < sizeof(p->text) - 1)
      p->text[n++] = s[p->pos++];
    p->text[n] = '\0';
    p->tok = T_VAR;
    return;
  }
  if (is_name_start((unsigned char) c))
  {
    size_t n = 0;
    while (is_name_char((unsigned char) s[p->pos]) && n < sizeof(p->text) - 1)
      p->text[n++] = s[p->pos++];
    p->text[n] = '\0';
    p->tok = T_IDENT;
    for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
      if (strcasecmp(p->text, keywords[i].word) == 0)
        p->tok = keywords[i].tok;
    return;
  }
  static const char *const two[] = {"<>", "!=", "<=", ">=", "<<", ">>"};
  for (size_t i = 0; i < sizeof(two) / sizeof(two[0]); i++)
    if (strncmp(s + p->pos, two[i], 2) == 0)
    {
      memcpy(p->text, two[i], 3);
      p->pos += 2;
      p->tok = T_OP;
      return;
    }
  p->pos++;
  switch (c)
  {
    case '(': p->tok = T_LPAREN; return;
    case ')': p->tok = T_RPAREN; return;
    case ',': p->tok = T_COMMA; return;
    case '+': case '-': case '*': case '/': case '%': case '<': case '>':
    case '=': case '&': case '|': case '#': case '~':
      p->text[0] = c;
      p->text[1] = '\0';
      p->tok = T_OP;
      return;
    default:
    {
      /* named in the message, at its place (of a quoted string, the
         closing quote's: the last error on the line) */
      char what[2] = {c, '\0'};
      scan_fail(p, p->pos - 1, "unexpected character", what);
      p->tok = T_BAD;
      return;
    }
  }
}

static pgs_expr_t *node(pgs_func_t f, unsigned nargs)
{
  pgs_expr_t *e = calloc(1, sizeof(*e) + nargs * sizeof(pgs_expr_t *));
  if (e)
  {
    e->kind = PGS_E_FUNC;
    e->func = f;
    e->nargs = nargs;
  }
  return e;
}

static pgs_expr_t *constant(pgs_value_t v)
{
  pgs_expr_t *e = calloc(1, sizeof(*e));
  if (e)
  {
    e->kind = PGS_E_CONST;
    e->value = v;
  }
  return e;
}

static pgs_expr_t *int_const(int64_t i)
{
  pgs_value_t v = {.type = PGS_INT, .u.i = i};
  return constant(v);
}

static pgs_expr_t *null_const(void)
{
  pgs_value_t v = {.type = PGS_NULL};
  return constant(v);
}

static pgs_expr_t *variable(const char *name)
{
  pgs_expr_t *e = calloc(1, sizeof(*e));
  if (e)
  {
    e->kind = PGS_E_VAR;
    e->name = strdup(name);
    if (e->name == NULL)
    {
      free(e);
      return NULL;
    }
  }
  return e;
}

static pgs_expr_t *binary(pgs_func_t f, pgs_expr_t *a, pgs_expr_t *b)
{
  pgs_expr_t *e = (a && b) ? node(f, 2) : NULL;
  if (e == NULL)
  {
    pgs_expr_free(a);
    pgs_expr_free(b);
    return NULL;
  }
  e->args[0] = a;
  e->args[1] = b;
  return e;
}

static pgs_expr_t *unary(pgs_func_t f, pgs_expr_t *a)
{
  pgs_expr_t *e = a ? node(f, 1) : NULL;
  if (e == NULL)
  {
    pgs_expr_free(a);
    return NULL;
  }
  e->args[0] = a;
  return e;
}

/* Binding powers of the binary operators (higher binds tighter), as in
   pgbench's grammar; 0 when the token is no binary operator. */
enum { BP_OR = 1, BP_AND, BP_NOT, BP_IS, BP_CMP, BP_BIT, BP_ADD, BP_MUL, BP_UNARY };

static int binding_power(const parser_t *p)
{
  switch (p->tok)
  {
    case T_OR: return BP_OR;
    case T_AND: return BP_AND;
    case T_IS: case T_ISNULL: case T_NOTNULL: return BP_IS;
    case T_OP:
      if (strchr("+-", p->text[0]) && p->text[1] == '\0')
        return BP_ADD;
      if (strchr("*/%", p->text[0]) && p->text[1] == '\0')
        return BP_MUL;
      if (strcmp(p->text, "<<") == 0 || strcmp(p->text, ">>") == 0 ||
          (strchr("&|#~", p->text[0]) && p->text[1] == '\0'))
        return BP_BIT;
      return BP_CMP;
    default:
      return 0;
  }
}

static pgs_expr_t *parse_expr(parser_t *p, int min_bp);

/* CASE WHEN c THEN v [WHEN ...] [ELSE v] END: args c1 v1 c2 v2 ... else */
static pgs_expr_t *parse_case(parser_t *p)
{
  pgs_expr_t *items[64];
  unsigned n = 0;
  next(p);
  while (p->tok == T_WHEN && n + 3 < sizeof(items) / sizeof(items[0]))
  {
    next(p);
    items[n++] = parse_expr(p, BP_OR);
    if (p->tok != T_THEN)
      syntax_error(p);
    next(p);
    items[n++] = parse_expr(p, BP_OR);
    if (p->failed)
      break;
  }
  if (n == 0)
    syntax_error(p);
  if (!p->failed && p->tok == T_ELSE)
  {
    next(p);
    items[n++] = parse_expr(p, BP_OR);
  }
  else
    items[n++] = null_const();
  if (!p->failed && p->tok != T_ENDKW)
    syntax_error(p);
  next(p);
  pgs_expr_t *e = p->failed ? NULL : node(F_CASE, n);
  for (unsigned i = 0; i < n; i++)
  {
    if (e && items[i])
      e->args[i] = items[i];
    else
    {
      pgs_expr_free(items[i]);
      if (e && !items[i])
      {
        pgs_expr_free(e);
        e = NULL;
      }
    }
  }
  return e;
}

/* name(args): checks the name and the argument count as pgbench does. */
static pgs_expr_t *parse_call(parser_t *p)
{
  char name[128];
  snprintf(name, sizeof(name), "%s", p->text);
  int fi = -1;
  for (size_t i = 0; i < sizeof(functions) / sizeof(functions[0]); i++)
    if (strcasecmp(name, functions[i].name) == 0)
      fi = (int) i;
  /* pgbench's scanner looks every name up as it reads it: an unknown one
     is an error at its last character, parentheses or not */
  if (fi < 0)
  {
    grammar_fail_at(p, p->pos - 1, "unexpected function name", name);
    return NULL;
  }
  next(p);
  if (p->tok != T_LPAREN)
  {
    syntax_error(p);
    return NULL;
  }
  pgs_expr_t *args[PGS_MAX_ARGS + 1];
  unsigned n = 0;
  next(p);
  if (p->tok != T_RPAREN)
    for (;;)
    {
      pgs_expr_t *a = parse_expr(p, BP_OR);
      if (n < PGS_MAX_ARGS)
        args[n++] = a;
      else
        pgs_expr_free(a);
      if (p->failed || p->tok != T_COMMA)
        break;
      next(p);
    }
  if (!p->failed && p->tok != T_RPAREN)
    syntax_error(p);
  int want = functions[fi].nargs;
  if (!p->failed)
  {
    /* at the closing parenthesis */
    if (want == -1 && n == 0)
      grammar_fail(p, "at least one argument expected", functions[fi].name);
    else if ((want == -3 && (n < 1 || n > 2)) || (want == -4 && (n < 2 || n > 3)) ||
             (want >= 0 && (unsigned) want != n))
      grammar_fail(p, "unexpected number of arguments", functions[fi].name);
  }
  next(p);
  if (!p->failed && ((want == -3 && n == 1) || (want == -4 && n == 2)))
    args[n++] = variable("default_seed");
  pgs_expr_t *e = p->failed ? NULL : node(functions[fi].f, n);
  for (unsigned i = 0; i < n; i++)
  {
    if (e && args[i])
      e->args[i] = args[i];
    else
    {
      pgs_expr_free(args[i]);
      if (e)
      {
        pgs_expr_free(e);
        e = NULL;
      }
    }
  }
  return e;
}

/* A primary expression or a prefix operator. */
static pgs_expr_t *parse_prefix(parser_t *p)
{
  pgs_value_t v;
  pgs_expr_t *e;
  switch (p->tok)
  {
    case T_INT:
      e = int_const(p->ival);
      next(p);
      return e;
    case T_DOUBLE:
      v.type = PGS_DOUBLE;
      v.u.d = p->dval;
      next(p);
      return constant(v);
    case T_TRUE: case T_FALSE:
      v.type = PGS_BOOL;
      v.u.b = p->tok == T_TRUE;
      next(p);
      return constant(v);
    case T_NULL:
      next(p);
      return null_const();
    case T_VAR:
      e = variable(p->text);
      next(p);
      return e;
    case T_IDENT:
      return parse_call(p);
    case T_CASE:
      return parse_case(p);
    case T_LPAREN:
      next(p);
      e = parse_expr(p, BP_OR);
      if (!p->failed && p->tok != T_RPAREN)
        syntax_error(p);
      next(p);
      return e;
    case T_NOT:
      next(p);
      return unary(F_NOT, parse_expr(p, BP_NOT));
    case T_OP:
      if (strcmp(p->text, "+") == 0)
      {
        next(p);
        return parse_expr(p, BP_UNARY);
      }
      if (strcmp(p->text, "-") == 0)
      {
        next(p);
        if (p->tok == T_MAXINT)
        {
          next(p);
          return int_const(INT64_MIN);
        }
        return binary(F_SUB, int_const(0), parse_expr(p, BP_UNARY));
      }
      if (strcmp(p->text, "~") == 0)
      {
        next(p);
        return binary(F_BITXOR, int_const(-1), parse_expr(p, BP_UNARY));
      }
      /* FALLTHROUGH */
    default:
      syntax_error(p);
      return NULL;
  }
}

/* The IS forms after `left`: IS [NOT] NULL|TRUE|FALSE, ISNULL, NOTNULL. */
static pgs_expr_t *parse_is(parser_t *p, pgs_expr_t *left)
{
  bool negate = false;
  pgs_value_t v = {.type = PGS_NULL};
  if (p->tok == T_ISNULL || p->tok == T_NOTNULL)
  {
    negate = p->tok == T_NOTNULL;
    next(p);
  }
  else
  {
    next(p);
    if (p->tok == T_NOT)
    {
      negate = true;
      next(p);
    }
    if (p->tok == T_TRUE || p->tok == T_FALSE)
    {
      v.type = PGS_BOOL;
      v.u.b = p->tok == T_TRUE;
    }
    else if (p->tok != T_NULL)
    {
      syntax_error(p);
      pgs_expr_free(left);
      return NULL;
    }
    next(p);
  }
  pgs_expr_t *e = binary(F_IS, left, constant(v));
  return negate ? unary(F_NOT, e) : e;
}

static pgs_expr_t *make_binop(const char *op, pgs_expr_t *l, pgs_expr_t *r)
{
  static const struct { const char *op; pgs_func_t f; bool swap; } ops[] = {
    {"+", F_ADD, false}, {"-", F_SUB, false}, {"*", F_MUL, false},
    {"/", F_DIV, false}, {"%", F_MOD, false}, {"<", F_LT, false},
    {"<=", F_LE, false}, {">", F_LT, true}, {">=", F_LE, true},
    {"=", F_EQ, false}, {"<>", F_NE, false}, {"!=", F_NE, false},
    {"&", F_BITAND, false}, {"|", F_BITOR, false}, {"#", F_BITXOR, false},
    {"<<", F_LSHIFT, false}, {">>", F_RSHIFT, false},
  };
  for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
    if (strcmp(op, ops[i].op) == 0)
      return ops[i].swap ? binary(ops[i].f, r, l) : binary(ops[i].f, l, r);
  pgs_expr_free(l);
  pgs_expr_free(r);
  return NULL;
}

static pgs_expr_t *parse_expr(parser_t *p, int min_bp)
{
  pgs_expr_t *left = parse_prefix(p);
  for (;;)
  {
    if (p->failed || left == NULL)
    {
      pgs_expr_free(left);
      return NULL;
    }
    int bp = binding_power(p);
    if (bp == 0 || bp < min_bp)
      return left;
    if (bp == BP_IS)
    {
      left = parse_is(p, left);
      continue;
    }
    tok_t tok = p->tok;
    char op[4] = "";
    if (tok == T_OP)
      memcpy(op, p->text, strnlen(p->text, 2) + 1);
    if (tok == T_OP && strcmp(op, "~") == 0)
    {
      syntax_error(p);
      continue;
    }
    next(p);
    /* left-associative: the right side binds tighter; comparisons are
       not associative (a second one is a syntax error below) */
    pgs_expr_t *right = parse_expr(p, bp + 1);
    if (tok == T_AND)
      left = binary(F_AND, left, right);
    else if (tok == T_OR)
      left = binary(F_OR, left, right);
    else
      left = make_binop(op, left, right);
    if (!p->failed && bp == BP_CMP && binding_power(p) == BP_CMP)
      syntax_error(p);
  }
}

pgs_expr_t *pgs_expr_parse(const char *text, char *err, size_t errlen, int *errpos)
{
  parser_t p = {.s = text, .err = err, .errlen = errlen, .errpos = -1};
  next(&p);
  pgs_expr_t *e = parse_expr(&p, BP_OR);
  if (!p.failed && p.tok != T_END)
  {
    syntax_error(&p);
    pgs_expr_free(e);
    e = NULL;
  }
  if (!p.failed && e == NULL)
    fail(&p, p.tok_start, "out of memory", NULL);
  if (p.failed)
  {
    pgs_expr_free(e);
    e = NULL;
  }
  if (errpos)
    *errpos = p.failed ? p.errpos : -1;
  return e;
}

void pgs_expr_free(pgs_expr_t *e)
{
  if (e == NULL)
    return;
  if (e->kind == PGS_E_FUNC)
    for (unsigned i = 0; i < e->nargs; i++)
      pgs_expr_free(e->args[i]);
  free(e->name);
  free(e);
}
