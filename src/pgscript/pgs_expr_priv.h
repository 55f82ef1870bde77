/* The expression tree shared by pgs_expr_parse.c and pgs_expr_eval.c. */
#ifndef PGS_EXPR_PRIV_H
#define PGS_EXPR_PRIV_H

#include "pgscript/pgs_expr.h"

/* pgbench evaluates at most 16 arguments of a function */
#define PGS_MAX_ARGS 16

typedef enum {
  F_ADD, F_SUB, F_MUL, F_DIV, F_MOD, F_EQ, F_NE, F_LE, F_LT, F_IS,
  F_BITAND, F_BITOR, F_BITXOR, F_LSHIFT, F_RSHIFT, F_NOT, F_AND, F_OR,
  F_CASE, F_ABS, F_LEAST, F_GREATEST, F_DEBUG, F_PI, F_SQRT, F_LN, F_EXP,
  F_INT, F_DOUBLE, F_RANDOM, F_RANDOM_GAUSSIAN, F_RANDOM_EXPONENTIAL,
  F_RANDOM_ZIPFIAN, F_POW, F_HASH_MURMUR2, F_HASH_FNV1A, F_PERMUTE
} pgs_func_t;

typedef enum { PGS_E_CONST, PGS_E_VAR, PGS_E_FUNC } pgs_kind_t;

struct pgs_expr {
  pgs_kind_t kind;
  pgs_value_t value;            /* PGS_E_CONST */
  char *name;                   /* PGS_E_VAR */
  pgs_func_t func;              /* PGS_E_FUNC */
  unsigned nargs;
  struct pgs_expr *args[];      /* CASE: cond, value, ..., else */
};

#endif
