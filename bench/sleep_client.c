/* Minimal reference client for bench/latency_truth.sh: runs one statement
   N times on one connection with the client library's blocking calls and
   prints the exact p50, p95 and p99 (milliseconds, from the sorted
   samples, nearest rank) of the wall time of each round trip (send to
   the last row read, CLOCK_MONOTONIC). No bmk code is involved: this is
   what "the database's latency" means for the statement when nothing
   else runs in the client.

   Compiled by the script itself with cc against Debian's libmariadb-dev
   and libpq-dev (not a noinst program of Makefile.am: a bench tool that
   the build, `make distcheck` and the static binary need not know about).

   Usage: sleep_client mysql|pgsql HOST PORT USER PASSWORD DB N SQL
   Prints:  n=N p50_ms=X p95_ms=Y p99_ms=Z
   Exit codes: 0 done, 1 bad arguments, 2 connect or query failure. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <mysql.h>
#include <libpq-fe.h>

/* Monotonic time in nanoseconds. */
static double now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec * 1e9 + (double) ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* Nearest-rank percentile of n sorted samples. */
static double pct(const double *s, int n, double p)
{
  int rank = (int) (p / 100.0 * n + 0.999999);
  if (rank < 1)
    rank = 1;
  return s[rank - 1];
}

/* Runs `sql` n times on MariaDB/MySQL; samples in ns. 0 or -1. */
static int run_mysql(char **a, int n, const char *sql, double *lat)
{
  MYSQL *m = mysql_init(NULL);
  if (!mysql_real_connect(m, a[2], a[4], a[5], a[6], (unsigned) atoi(a[3]), NULL, 0))
  {
    fprintf(stderr, "sleep_client: connect: %s\n", mysql_error(m));
    return -1;
  }
  for (int i = 0; i < n; i++)
  {
    double t0 = now_ns();
    if (mysql_real_query(m, sql, strlen(sql)))
    {
      fprintf(stderr, "sleep_client: query: %s\n", mysql_error(m));
      return -1;
    }
    MYSQL_RES *r = mysql_store_result(m);
    lat[i] = now_ns() - t0;
    mysql_free_result(r);
  }
  mysql_close(m);
  return 0;
}

/* Runs `sql` n times on PostgreSQL; samples in ns. 0 or -1. */
static int run_pgsql(char **a, int n, const char *sql, double *lat)
{
  const char *k[] = { "host", "port", "user", "password", "dbname", NULL };
  const char *v[] = { a[2], a[3], a[4], a[5], a[6], NULL };
  PGconn *c = PQconnectdbParams(k, v, 0);
  if (PQstatus(c) != CONNECTION_OK)
  {
    fprintf(stderr, "sleep_client: connect: %s", PQerrorMessage(c));
    return -1;
  }
  for (int i = 0; i < n; i++)
  {
    double t0 = now_ns();
    PGresult *r = PQexec(c, sql);
    lat[i] = now_ns() - t0;
    if (PQresultStatus(r) != PGRES_TUPLES_OK)
    {
      fprintf(stderr, "sleep_client: query: %s", PQerrorMessage(c));
      return -1;
    }
    PQclear(r);
  }
  PQfinish(c);
  return 0;
}

int main(int argc, char **argv)
{
  if (argc != 9 || atoi(argv[7]) < 1
      || (strcmp(argv[1], "mysql") != 0 && strcmp(argv[1], "pgsql") != 0))
  {
    fprintf(stderr, "usage: sleep_client mysql|pgsql HOST PORT USER PASSWORD DB N SQL\n");
    return 1;
  }
  int n = atoi(argv[7]);
  double *lat = calloc((size_t) n, sizeof *lat);
  if (lat == NULL)
    return 2;
  int rc = argv[1][0] == 'm' ? run_mysql(argv, n, argv[8], lat)
                             : run_pgsql(argv, n, argv[8], lat);
  if (rc != 0)
    return 2;
  qsort(lat, (size_t) n, sizeof *lat, cmp_double);
  printf("n=%d p50_ms=%.4f p95_ms=%.4f p99_ms=%.4f\n", n, pct(lat, n, 50) / 1e6,
         pct(lat, n, 95) / 1e6, pct(lat, n, 99) / 1e6);
  free(lat);
  return 0;
}
