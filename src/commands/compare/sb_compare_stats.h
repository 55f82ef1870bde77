/*
 * Statistics for comparing two benchmark runs, or two sets of runs.
 *
 * The question answered is "is B faster/slower than A, by how much, and how
 * sure are we": the difference of the means, a confidence interval for it,
 * and a two-sided p-value, by Welch's unequal-variance t-test (two runs of
 * a benchmark on different builds or machines rarely have equal variances,
 * so Student's pooled test is not used).
 *
 * What the two samples are depends on how many runs there are:
 *   - With >= 3 repetitions per side, each side's sample is one value per
 *     repetition (e.g. each run's mean throughput: sb_sample_of), and the
 *     repetitions are independent, as the t-test assumes.
 *   - With one run per side, the per-interval samples of each run (e.g.
 *     per-second throughput) are autocorrelated: a slow second tends to be
 *     followed by another, so treating them as independent makes the
 *     interval far too narrow. sb_batch_means groups each series into
 *     consecutive batches whose means are close to independent, and Welch's
 *     test is run on those batch means.
 *
 * sb_pct_of restates the result relative to A's mean, as reports print it.
 *
 * Everything here is pure computation over the caller's data: no global
 * state, no allocation, libc + libm only. All functions are reentrant and
 * thread-safe.
 */
#ifndef SB_COMPARE_STATS_H
#define SB_COMPARE_STATS_H

/* Summary of one sample: the only things Welch's test needs. */
typedef struct {
  unsigned n;      /* number of observations */
  double mean;
  double var;      /* unbiased sample variance (n-1 denominator); 0 when n < 2 */
} sb_sample_t;

/* Result of sb_welch: B minus A, in the units of the observations
   (df and p are unitless). */
typedef struct {
  double diff;     /* b.mean - a.mean */
  double lo, hi;   /* confidence interval for diff at the requested level */
  double df;       /* Welch-Satterthwaite degrees of freedom (non-integer) */
  double p;        /* two-sided p-value of H0: equal means */
} sb_welch_t;

/* Mean and unbiased variance of x[0..n).
   x:   the observations, any unit (the results are in that unit, and that
        unit squared for var); may be NULL when n == 0.
   n:   number of observations; 0 gives n = mean = var = 0, 1 gives var = 0.
   out: receives the summary (must not be NULL).
   Errors: none. Non-finite inputs propagate into mean/var.
   Thread-safety: reentrant (reads x, writes only *out).
   Source: NIST/SEMATECH e-Handbook of Statistical Methods, 1.3.5.1
   (mean) and 1.3.5.6 (variance, n-1 denominator); computed by the
   "corrected two-pass algorithm" of Chan, Golub & LeVeque (1983),
   "Algorithms for computing the sample variance", The American
   Statistician 37(3), which stays accurate when the mean is large against
   the spread (e.g. throughput 50000 +- 5). */
void sb_sample_of(const double *x, unsigned n, sb_sample_t *out);

/* Two-sided critical value of Student's t distribution: the t > 0 with
   P(|T| <= t) = level for df degrees of freedom.
   level: confidence level in (0,1), e.g. 0.95.
   df:    degrees of freedom, > 0, may be non-integer (Welch's is); may be
          INFINITY (the normal distribution).
   Returns t (unitless), e.g. 12.706 for df = 1, 2.0860 for df = 20, and
   1.95996 as df -> infinity at level 0.95. The contract is 1e-4 relative;
   measured on a grid against 40-digit references the error is < 1e-11 for
   df <= 1e4, < 1e-9 up to df = 1e6, < 3e-7 beyond (lgamma cancellation,
   then the normal limit used above df = 1e7). INFINITY when the quantile
   exceeds the double range (only for df far below 1; Welch's df is
   always >= 1). NAN when level is outside (0,1) or df <= 0 or either is
   NaN.
   Thread-safety: reentrant (pure function).
   Source: the t CDF via the regularized incomplete beta function (see
   sb_t_pvalue), inverted by bisection on the bracket [0, 1e6], which
   always converges because the CDF is monotone in t; the quantile
   definition is NIST/SEMATECH e-Handbook 1.3.6.6.4 and Abramowitz &
   Stegun, Handbook of Mathematical Functions, 26.7 (Student's
   t-distribution). */
double sb_t_critical(double level, double df);

/* Two-sided p-value P(|T| >= |t|) of a t statistic with df degrees of
   freedom.
   t:  the statistic (unitless; its sign does not matter); +-INFINITY
       gives 0.
   df: degrees of freedom, > 0, may be non-integer; INFINITY gives the
       normal distribution's p-value.
   Returns p in [0,1]. The contract is 1e-4 absolute; the error measured
   on a grid of t and df is < 2e-12 for df <= 1e4, < 1e-9 up to df = 1e6
   and < 2e-8 beyond (as for sb_t_critical). NAN when df <= 0 or t or df is NaN.
   Thread-safety: reentrant (pure function).
   Source: Abramowitz & Stegun 26.7 with its relation to the incomplete
   beta function, p = I_x(df/2, 1/2) with x = df / (df + t^2); I_x is
   evaluated by its continued fraction with the modified Lentz algorithm
   as described in Press et al., Numerical Recipes, 6.4 (and 5.2 for
   Lentz's method); lgamma from libm for the beta function prefactor. */
double sb_t_pvalue(double t, double df);

/* Welch's unequal-variance comparison of the means of b and a.
   a, b:  the two samples' summaries (sb_sample_of or sb_batch_means), in
          the same unit.
   level: confidence level of the interval, in (0,1), e.g. 0.95.
   out:   receives diff = b.mean - a.mean and its interval [lo, hi] (unit
          of the observations), the Welch-Satterthwaite df and the
          two-sided p-value.
   When both variances are 0 (t undefined): lo = hi = diff,
   df = a.n + b.n - 2, p = (diff == 0 ? 1 : 0).
   Returns 0, or -1 (outputs untouched) when a side has fewer than 2
   observations, when level is not in (0,1), or when a pointer is NULL.
   Thread-safety: reentrant (reads *a and *b, writes only *out).
   Source: Welch (1947), "The generalization of 'Student's' problem when
   several different population variances are involved", Biometrika 34;
   the Welch-Satterthwaite degrees of freedom, Satterthwaite (1946),
   Biometrics Bulletin 2; as given in NIST/SEMATECH e-Handbook 1.3.5.3
   (two-sample t-test for equal means, unequal variances). */
int sb_welch(const sb_sample_t *a, const sb_sample_t *b, double level,
             sb_welch_t *out);

/* Batch means for one autocorrelated series x[0..n) (e.g. the per-second
   throughput of one run).
   x:        the series, oldest first, any unit.
   n:        its length.
   nbatches: number of batches; 0 = choose: the largest k <= 20 with at
             least 5 observations per batch, but at least 2 batches. An
             explicit count larger than n is lowered to n (batches of one
             observation); an explicit 1 is an error (one batch mean has
             no variance).
   out:      receives the sample of the batch means (n = batches used).
   The series is split into k consecutive batches of floor(n / k)
   observations; the first n % k observations (the oldest, i.e. warm-up)
   are dropped.
   Returns k, the number of batches used, or -1 (*out untouched) when
   fewer than 2 batches of at least 1 observation are possible (n < 2),
   when nbatches == 1, or when x or out is NULL.
   Thread-safety: reentrant (reads x, writes only *out; no allocation).
   Source: the method of (non-overlapping) batch means, Law & Kelton,
   Simulation Modeling and Analysis, ch. 9 (steady-state output
   analysis), which recommends 10 to 30 batches; the mean and variance of
   the batch means as in sb_sample_of. */
int sb_batch_means(const double *x, unsigned n, unsigned nbatches,
                   sb_sample_t *out);

/* The Welch result relative to a's mean, in percent:
   pct = 100 * diff / a_mean, lo_pct and hi_pct the interval scaled the
   same way (swapped if a_mean < 0, so that lo_pct <= hi_pct).
   w:      the result of sb_welch.
   a_mean: A's mean (the baseline), the unit of the observations.
   pct, lo_pct, hi_pct: receive the percentages.
   Returns 0, or -1 (outputs untouched) when a_mean is 0 or NaN, or when
   a pointer is NULL.
   Thread-safety: reentrant (reads *w, writes only the three outputs).
   Source: plain rescaling that treats a_mean as an exact constant, so
   the interval ignores A's own sampling error; that is adequate when
   a_mean's standard error is small against a_mean (Fieller (1954), JRSS B
   16, gives the exact interval for a ratio of means, not implemented). */
int sb_pct_of(const sb_welch_t *w, double a_mean, double *pct,
              double *lo_pct, double *hi_pct);

#endif /* SB_COMPARE_STATS_H */
