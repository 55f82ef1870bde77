/*
 * pgbench's expression language (the right-hand side of \set, \if and
 * \elif): values, parsing into a tree, and evaluation.
 *
 * The language is pgbench 15's, as its manual page documents it
 * ("Built-in Operators", "Built-in Functions"): NULL, booleans, 64-bit
 * integers and doubles; the operators OR AND NOT IS [NOT] (NULL|TRUE|
 * FALSE) ISNULL NOTNULL = <> != < <= > >= | # & << >> ~ + - * / %, unary
 * - and +, CASE WHEN ... THEN ... [ELSE ...] END, :variables, and the
 * functions abs, debug, double, exp, greatest, hash, hash_fnv1a,
 * hash_murmur2, int, least, ln, mod, permute, pi, pow/power, random,
 * random_exponential, random_gaussian, random_zipfian, sqrt. Precedence
 * and associativity follow pgbench's grammar (its exprparse.y): OR, AND,
 * NOT, IS, comparisons (not associative), the bit operators (one level,
 * left), + -, * / %, unary. Integer arithmetic is checked: an overflow is
 * the error "bigint out of range", as in pgbench.
 *
 * Thread-safety: a parsed tree is read-only and may be evaluated by many
 * threads at once, each with its own pgs_env_t.
 */
#ifndef PGS_EXPR_H
#define PGS_EXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pgscript/pgs_random.h"

typedef enum { PGS_NULL, PGS_BOOL, PGS_INT, PGS_DOUBLE } pgs_type_t;

/* One value. */
typedef struct {
  pgs_type_t type;
  union {
    bool b;
    int64_t i;
    double d;
  } u;
} pgs_value_t;

typedef struct pgs_expr pgs_expr_t;

/* What evaluation reads and draws from, owned by one client. */
typedef struct {
  /* Looks variable `name` up: true with *out set, false when it is not
     defined or holds a string that is no number ("malformed"); then the
     function writes the reason into err (errlen bytes). */
  bool (*lookup)(void *ctx, const char *name, pgs_value_t *out, char *err,
                 size_t errlen);
  void *ctx;
  pgs_prng_t *rs;               /* the client's random functions' generator */
  int64_t default_seed;         /* :default_seed, the hash functions' seed */
  /* debug(): called with the value's text ("int 5", "double 1.5",
     "boolean true", "null"); NULL prints nothing */
  void (*debug)(void *ctx, const char *text);
} pgs_env_t;

/*
 * Parses `text` (one expression, up to its end). Returns the tree, or NULL
 * with a message in `err` (errlen bytes) and the byte offset of the error
 * in *errpos (-1 when no position applies). Thread-safe.
 */
pgs_expr_t *pgs_expr_parse(const char *text, char *err, size_t errlen, int *errpos);

/* Frees a tree (NULL is allowed). */
void pgs_expr_free(pgs_expr_t *e);

/*
 * Evaluates `e` in `env`. Returns true with *out set, or false with
 * pgbench's message in `err` ("division by zero", "bigint out of range",
 * "undefined variable \"x\"", ...). Thread-safe for distinct envs.
 */
bool pgs_expr_eval(const pgs_expr_t *e, const pgs_env_t *env, pgs_value_t *out,
                   char *err, size_t errlen);

/*
 * A value as text, as pgbench puts it into SQL: integers in decimal,
 * doubles with 15 significant digits ("%.15g"), booleans true/false, NULL
 * as the empty string. Returns `buf`. Thread-safe.
 */
char *pgs_value_text(const pgs_value_t *v, char *buf, size_t len);

/*
 * A variable's string read as a value, as pgbench does when an expression
 * uses a variable set by -D or \gset: NULL, a boolean word, an integer
 * when the string is one (pgs_text_is_int), else a double when strtod
 * reads the whole string, else false: malformed, or an integer out of
 * bigint's range (pgs_text_is_int tells which). Thread-safe.
 */
bool pgs_value_from_text(const char *s, pgs_value_t *out);

/*
 * True when `s` is written as an integer as pgbench tests it: blanks, an
 * optional sign, digits, and nothing after them (a trailing blank makes
 * it no integer). Thread-safe.
 */
bool pgs_text_is_int(const char *s);

#endif
