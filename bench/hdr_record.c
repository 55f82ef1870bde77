/*
 * Cost of recording one latency sample, per thread.
 *
 * Each thread records N pseudo-random latencies (log-uniform over 10 us ..
 * 100 ms, the range OLTP events fall in) into its own HDR histogram, the
 * way workers do, then into its own per-event-type statistics (what
 * sb_event_stop adds when a script names event types). Prints ns per
 * record for 1..T threads. Single-writer histograms share nothing, so the
 * per-thread cost should not grow with the thread count (up to the cores).
 *
 * Build and run: make bench/hdr_record && ./bench/hdr_record [N] [T]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "results/sb_evtype.h"
#include "core/sb_histogram.h"

static unsigned long n_records = 20000000;

static uint64_t now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

typedef struct {
  pthread_t th;
  unsigned seed;
  double hdr_ns, type_ns;
} job_t;

/* Latencies precomputed so the generator is not measured: 64K values,
   log-uniform between 10 us and 100 ms. */
static uint64_t values[65536];

static void *run(void *arg)
{
  job_t *j = arg;
  sb_hdr_t *h = sb_hdr_new();
  sb_evtype_stat_t *t = sb_evtype_stats_new();
  unsigned off = j->seed * 7919u;
  uint64_t t0 = now_ns();
  for (unsigned long i = 0; i < n_records; i++)
    sb_hdr_record(h, values[(i + off) & 65535]);
  uint64_t t1 = now_ns();
  for (unsigned long i = 0; i < n_records; i++)
    sb_evtype_record(t, (int) (i & 1) + 1, values[(i + off) & 65535], 0, 0);
  uint64_t t2 = now_ns();
  j->hdr_ns = (double) (t1 - t0) / (double) n_records;
  j->type_ns = (double) (t2 - t1) / (double) n_records;
  if (h->total != n_records)
    fprintf(stderr, "lost records: %lu of %lu\n", (unsigned long) h->total, n_records);
  sb_hdr_free(h);
  sb_evtype_stats_free(t);
  return NULL;
}

int main(int argc, char **argv)
{
  unsigned max_threads = 2;
  if (argc > 1)
    n_records = strtoul(argv[1], NULL, 10);
  if (argc > 2)
    max_threads = (unsigned) atoi(argv[2]);
  srand(42);
  for (unsigned i = 0; i < 65536; i++)
  {
    double u = (double) rand() / RAND_MAX;
    values[i] = (uint64_t) (1e4 * __builtin_pow(1e4, u));   /* 10 us .. 100 ms */
  }
  /* Two named types exist, as in a script that calls event_type(). */
  sb_evtype_register("a");
  sb_evtype_register("b");
  printf("records per thread: %lu\n", n_records);
  printf("%8s %22s %26s\n", "threads", "hdr record (ns/rec)", "type record (ns/rec)");
  for (unsigned n = 1; n <= max_threads; n *= 2)
  {
    job_t *jobs = calloc(n, sizeof(*jobs));
    for (unsigned i = 0; i < n; i++)
    {
      jobs[i].seed = i;
      pthread_create(&jobs[i].th, NULL, run, &jobs[i]);
    }
    double hs = 0, ts = 0;
    for (unsigned i = 0; i < n; i++)
    {
      pthread_join(jobs[i].th, NULL);
      hs += jobs[i].hdr_ns;
      ts += jobs[i].type_ns;
    }
    printf("%8u %22.2f %26.2f\n", n, hs / n, ts / n);
    free(jobs);
  }
  return 0;
}
