/* Statistics for comparing two benchmark runs; see sb_compare_stats.h for
   the purpose of each function and the sources of the formulas. */
#include <float.h>
#include <math.h>
#include <stddef.h>

#include "commands/compare/sb_compare_stats.h"

/* Continued fraction tuning. The fraction for I_x(a,b) needs on the order
   of sqrt(max(a,b)) terms (Numerical Recipes 6.4), i.e. ~1000 for
   df = 1e6; beyond NORMAL_DF the normal distribution is used instead
   (t and normal quantiles differ by < 3e-7 relative there at levels up
   to 0.999), so this bound
   is never the limiting factor. */
static const int CF_MAX_TERMS = 100000;
static const double CF_EPS = 1e-15;   /* relative change ending the fraction */
static const double CF_TINY = 1e-300; /* Lentz: replaces a zero denominator */
static const double NORMAL_DF = 1e7;
/* Beyond this |t| the p-value is the first term of I_x's series alone
   (see sb_t_pvalue); chosen so that t^2 is still far from overflow. */
static const double FAR_TAIL_T = 1e100;

/* Mean and corrected two-pass variance of the means of `count`
   consecutive blocks of `len` values starting at x (len = 1: of the
   values themselves). Shared by sb_sample_of and sb_batch_means so that
   both use one variance algorithm; needs no buffer for the block means,
   which are simply recomputed in the second pass. */
static double block_mean(const double *x, unsigned len)
{
  double s = 0;
  for (unsigned i = 0; i < len; i++)
    s += x[i];
  return s / len;
}

static void summarize_blocks(const double *x, unsigned len, unsigned count,
                             sb_sample_t *out)
{
  out->n = count;
  out->mean = 0;
  out->var = 0;
  if (count == 0)
    return;
  double sum = 0;
  for (unsigned i = 0; i < count; i++)
    sum += block_mean(x + (size_t) i * len, len);
  double mean = sum / count;
  out->mean = mean;
  if (count < 2)
    return;
  /* Chan, Golub & LeVeque's correction: sum(d)^2/n would be exactly 0 in
     exact arithmetic; in floating point it removes most of the rounding
     error left in `mean`. */
  double ss = 0, sd = 0;
  for (unsigned i = 0; i < count; i++)
  {
    double d = block_mean(x + (size_t) i * len, len) - mean;
    ss += d * d;
    sd += d;
  }
  double var = (ss - sd * sd / count) / (count - 1);
  out->var = var > 0 ? var : 0;
}

void sb_sample_of(const double *x, unsigned n, sb_sample_t *out)
{
  summarize_blocks(x, 1, n, out);
}

/* The continued fraction of I_x(a,b) (Numerical Recipes 6.4), evaluated
   front to back by the modified Lentz method (Numerical Recipes 5.2): the
   running value is the product of the ratios C_j = A_j/A_{j-1} and
   D_j = B_{j-1}/B_j, so no partial numerator or denominator can
   overflow. Converges quickly for x < (a+1)/(a+b+2); the caller uses the
   symmetry I_x(a,b) = 1 - I_{1-x}(b,a) otherwise. */
static double incbeta_cf(double a, double b, double x)
{
  double c = 1.0;
  double d = 1.0 - (a + b) * x / (a + 1.0);
  if (fabs(d) < CF_TINY)
    d = CF_TINY;
  d = 1.0 / d;
  double f = d;
  for (int m = 1; m <= CF_MAX_TERMS; m++)
  {
    /* Two terms per step: the even coefficient d_{2m}, then the odd
       d_{2m+1}, of the fraction 1/(1+ d_1/(1+ d_2/(1+ ...))). */
    double coef[2] = {
      m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m)),
      -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0)),
    };
    double delta = 1.0;
    for (int k = 0; k < 2; k++)
    {
      d = 1.0 + coef[k] * d;
      if (fabs(d) < CF_TINY)
        d = CF_TINY;
      c = 1.0 + coef[k] / c;
      if (fabs(c) < CF_TINY)
        c = CF_TINY;
      d = 1.0 / d;
      delta = c * d;
      f *= delta;
    }
    if (fabs(delta - 1.0) < CF_EPS)
      break;
  }
  return f;
}

/* Regularized incomplete beta I_x(a,b), with y = 1 - x passed in by the
   caller: for the t distribution x is often within 1e-6 of 1, and
   computing 1 - x here would lose those digits (y = t^2/(df+t^2) is
   exact to rounding). */
static double incbeta(double a, double b, double x, double y)
{
  if (x <= 0)
    return 0;
  if (y <= 0)
    return 1;
  /* x^a y^b / (a B(a,b)), in logs so that large a (large df) cannot
     overflow or underflow the pieces */
  double lfront = lgamma(a + b) - lgamma(a) - lgamma(b)
                  + a * log(x) + b * log(y);
  if (x < (a + 1.0) / (a + b + 2.0))
    return exp(lfront) * incbeta_cf(a, b, x) / a;
  return 1.0 - exp(lfront) * incbeta_cf(b, a, y) / b;
}

double sb_t_pvalue(double t, double df)
{
  if (isnan(t) || isnan(df) || df <= 0)
    return NAN;
  if (isinf(t))
    return 0;
  if (df > NORMAL_DF)                 /* includes INFINITY */
    return erfc(fabs(t) / sqrt(2.0));
  double a = df / 2.0;
  if (fabs(t) > FAR_TAIL_T)
  {
    /* t^2 could overflow; x = df/(df+t^2) = df/t^2 to double precision
       (x < 1e-186), taken in logs, where y^b = 1 and the continued
       fraction is 1, leaving the leading term x^a / (a B(a, 1/2)) */
    double lx = log(df) - 2.0 * log(fabs(t));
    return exp(lgamma(a + 0.5) - lgamma(a) - lgamma(0.5) + a * lx) / a;
  }
  double t2 = t * t;
  double x = df / (df + t2);
  double p = incbeta(a, 0.5, x, t2 / (df + t2));
  /* rounding can leave p a hair outside [0,1] */
  return p < 0 ? 0 : (p > 1 ? 1 : p);
}

double sb_t_critical(double level, double df)
{
  if (!(level > 0 && level < 1) || isnan(df) || df <= 0)
    return NAN;
  double target = 1.0 - level;        /* the p-value at the critical t */
  double lo = 0, hi = 1e6;
  /* The bracket [0, 1e6] holds every practical case (df = 1 at level
     0.999999 needs 636620); below df ~ 0.5 the tails are heavier still,
     so widen rather than return a wrong value. */
  while (sb_t_pvalue(hi, df) > target)
  {
    if (hi > DBL_MAX / 4)
      return INFINITY;
    hi *= 4;
  }
  /* Bisection: p is strictly decreasing in t, so this always converges;
     60-70 halvings reach 1e-12 relative from the 1e6 bracket. The cap
     lets a tiny quantile (level near 0) descend to the smallest double,
     where the relative criterion can no longer be met. */
  for (int i = 0; i < 1200 && hi - lo > 1e-12 * hi; i++)
  {
    double mid = 0.5 * (lo + hi);
    if (sb_t_pvalue(mid, df) > target)
      lo = mid;
    else
      hi = mid;
  }
  return 0.5 * (lo + hi);
}

int sb_welch(const sb_sample_t *a, const sb_sample_t *b, double level,
             sb_welch_t *out)
{
  if (a == NULL || b == NULL || out == NULL)
    return -1;
  if (a->n < 2 || b->n < 2 || !(level > 0 && level < 1))
    return -1;
  double diff = b->mean - a->mean;
  double va = a->var / a->n;          /* squared standard errors of the means */
  double vb = b->var / b->n;
  double se2 = va + vb;
  if (!(se2 > 0))
  {
    /* No spread at all: the difference is known exactly; the df is the
       pooled one, the limit Welch's tends to with equal variances. */
    out->diff = diff;
    out->lo = out->hi = diff;
    out->df = (double) a->n + b->n - 2;
    out->p = diff == 0 ? 1.0 : 0.0;
    return 0;
  }
  /* Welch-Satterthwaite df = se2^2 / (va^2/(na-1) + vb^2/(nb-1)), written
     with the shares va/se2 and vb/se2 so that tiny variances cannot
     underflow to a 0/0. */
  double wa = va / se2, wb = vb / se2;
  double df = 1.0 / (wa * wa / (a->n - 1) + wb * wb / (b->n - 1));
  double se = sqrt(se2);
  double half = sb_t_critical(level, df) * se;
  out->diff = diff;
  out->lo = diff - half;
  out->hi = diff + half;
  out->df = df;
  out->p = sb_t_pvalue(diff / se, df);
  return 0;
}

int sb_batch_means(const double *x, unsigned n, unsigned nbatches,
                   sb_sample_t *out)
{
  if (x == NULL || out == NULL || n < 2 || nbatches == 1)
    return -1;
  unsigned k = nbatches;
  if (k == 0)
  {
    /* Law & Kelton's 10-30 batches, capped at 20 so that each batch stays
       long enough to absorb the autocorrelation, and >= 5 observations a
       batch so that a batch mean is a mean at all; never fewer than 2
       (a sample of one batch mean has no variance). */
    k = n / 5;
    if (k > 20)
      k = 20;
    if (k < 2)
      k = 2;
  }
  else if (k > n)
    k = n;
  unsigned len = n / k;
  unsigned skip = n - k * len;        /* = n % k, the oldest observations */
  summarize_blocks(x + skip, len, k, out);
  return (int) k;
}

int sb_pct_of(const sb_welch_t *w, double a_mean, double *pct,
              double *lo_pct, double *hi_pct)
{
  if (w == NULL || pct == NULL || lo_pct == NULL || hi_pct == NULL)
    return -1;
  if (isnan(a_mean) || a_mean == 0)
    return -1;
  double lo = 100.0 * w->lo / a_mean;
  double hi = 100.0 * w->hi / a_mean;
  *pct = 100.0 * w->diff / a_mean;
  /* a negative baseline flips the order of the ends */
  *lo_pct = lo < hi ? lo : hi;
  *hi_pct = lo < hi ? hi : lo;
  return 0;
}
