/*
 * Endpoints and routing (--endpoints=FILE, docs/endpoints.md): the
 * database servers a run talks to, each with its own address and
 * credentials and a role ("primary", "replica" or a free label), and the
 * routes that say which endpoint a connection opened for a purpose
 * ("default", "read", "write", an event type's name) goes to.
 *
 * The file is read once in the main thread before anything runs
 * (sb_endpoints_load); afterwards the table is read-only, except for the
 * per-endpoint counters and the round-robin cursors, which are atomic.
 * With no file loaded every function here reports "no endpoints" and the
 * drivers use their own options.
 */
#ifndef SB_ENDPOINTS_H
#define SB_ENDPOINTS_H

#include <stdbool.h>
#include <stdint.h>

/* How a route picks one endpoint among those of a role. */
typedef enum {
  SB_EP_FIRST = 0,      /* always the first endpoint of the role (file order) */
  SB_EP_ROUND_ROBIN,    /* the next one at each connection, over all VUs */
  SB_EP_RANDOM,         /* a random one at each connection */
  SB_EP_STICKY,         /* the same one for a VU: its id modulo the count */
  SB_EP_LEAST_LAG       /* the one with the smallest latest lag sample
                           (sb_endpoint_lag); round robin among equal ones,
                           and over all when none has a sample */
} sb_ep_choice_t;

/* What a VU's lost connection does when its endpoint does not answer
   (--on-endpoint-failure). */
typedef enum {
  SB_EP_FAIL_RECONNECT = 0, /* retry the same endpoint until it is back */
  SB_EP_FAIL_NEXT           /* the next endpoint of its role, then the
                               default route's (the primary) */
} sb_ep_failure_t;

/* Per-endpoint counters (atomic; summed over every connection to it). */
typedef enum {
  SB_EPC_CONNECTS = 0,  /* connections opened (reconnects included) */
  SB_EPC_READS,         /* statements that returned a result set */
  SB_EPC_WRITES,        /* statements that changed rows */
  SB_EPC_OTHER,         /* other statements (BEGIN, COMMIT, ...) */
  SB_EPC_ERRORS,        /* ignored errors, lost connections included
                           (the report counts a loss as a reconnect only) */
  SB_EPC_RECONNECTS,    /* connections rebuilt after a loss (counted on
                           the endpoint they were rebuilt to) */
  SB_EPC_FAILOVERS,     /* connections moved away from this endpoint after
                           a loss (--on-endpoint-failure=next) */
  SB_EPC_XACTS,         /* transactions the routed statements ended, as the
                           server counts them (db_endpoint_after_stmt:
                           PostgreSQL xact_commit + xact_rollback, MySQL
                           Com_commit + Com_rollback) */
  SB_EPC_OWN_STMTS,     /* statements of bmk's own connections (samplers,
                           the statistics flush), counted nowhere else */
  SB_EPC_OWN_XACTS,     /* transactions those ended, counted as XACTS */
  SB_EPC_MAX
} sb_ep_counter_t;

typedef struct {
  char *name;           /* unique */
  char *driver;         /* "mysql" or "pgsql" (the same for every endpoint) */
  char *host;           /* NULL: the driver's default */
  unsigned port;        /* 0: the driver's default */
  char *socket;         /* unix socket (mysql) / socket directory (pgsql) */
  char *user;
  char *password;       /* from password_env or password_file; NULL: none */
  char *database;
  char *role;           /* "primary" when the file names none */
  char *tls_mode;       /* the driver's --<db>-ssl / sslmode value, or NULL */
  char *tls_ca, *tls_cert, *tls_key;
  char *standby_name;   /* PostgreSQL: the standby's application_name in
                           the primary's pg_stat_replication; NULL: none */
  uint64_t counters[SB_EPC_MAX];   /* atomic */
  /* the measured window (sb_endpoints_window_begin / _end, main thread) */
  uint64_t start[SB_EPC_MAX], window[SB_EPC_MAX];
  bool has_window;
  int64_t lag_us;       /* last replica lag sample, microseconds; -1 none
                           (atomic; set by the lag sampler) */
  int64_t lag_at_ns;    /* when it was taken (CLOCK_MONOTONIC; atomic) */
  int64_t lag_max_us;   /* the largest sample in the window, -1 none */
  int64_t behind;       /* last position sample: how far the replica's applied
                           position is behind the primary's (MariaDB: GTID
                           transactions; PostgreSQL: WAL bytes); -1 none
                           (atomic; set by the lag sampler) */
  int64_t behind_at_ns; /* when it was taken (CLOCK_MONOTONIC; atomic) */
  int64_t behind_max;   /* the largest of the window, -1 none */
  /* statement latencies: of connections freed (or moved away) since the
     window began (sb_endpoint_latency_retire, locked), and the window's
     (sb_endpoints_window_end + sb_endpoint_latency_add_window) */
  struct sb_hdr *lat_retired, *lat_window;
} sb_endpoint_t;

/* Reads and checks the endpoints file `path` (JSON). Returns 0 with the
   table loaded, or 1 after printing one FATAL line that names the file
   and the offending key (a path like endpoints[1].password) or the JSON
   syntax error's line and column; nothing is kept then. Main thread,
   before any connection; not thread-safe. */
int sb_endpoints_load(const char *path);

/* Frees the table (at exit). Main thread only. */
void sb_endpoints_free(void);

/* Number of endpoints loaded (0 without --endpoints). Thread-safe once
   loaded. */
unsigned sb_endpoints_count(void);

/* Endpoint i (0-based, i < sb_endpoints_count()), or NULL. Thread-safe. */
sb_endpoint_t *sb_endpoint_get(unsigned i);

/* The name of endpoint i (file order), or NULL when i >= the count; for
   Lua through the FFI. Thread-safe once loaded. */
const char *sb_endpoints_name(unsigned i);

/* The role of endpoint i ("primary" when the file names none), or NULL
   when i >= the count; for Lua through the FFI. Thread-safe once loaded. */
const char *sb_endpoints_role(unsigned i);

/* True when endpoint i is a replica (sb_endpoint_is_replica); false when
   i >= the count. Thread-safe once loaded. */
bool sb_endpoints_replica(unsigned i);

/* The latest lag sample of endpoint i in seconds (sb_endpoint_lag: -1
   when there is none, it is older than 5 s, or i >= the count or endpoint
   i is no replica); for Lua through the FFI: what least_lag sees when a
   connection is opened now. Thread-safe (the lag sampler writes). */
double sb_endpoints_replica_lag(unsigned i);

/* The driver every endpoint uses, or NULL without endpoints. */
const char *sb_endpoints_driver(void);

/* Picks the endpoint for a connection opened for `what` by VU or thread
   `who` (>= 0; used by the sticky choice). `what` is a route's name
   ("default", "read", "write", an event type given under "types"), an
   endpoint's name or a role; NULL or "" is "default". Returns the
   endpoint, or NULL when no endpoints are loaded or `what` names nothing
   (then *known is false; it is true whenever endpoints are loaded and
   the name was found). Thread-safe. */
sb_endpoint_t *sb_endpoints_pick(const char *what, int who, bool *known);

/* True when the endpoints file has a route named `key` ("default",
   "read", "write", or one given under routing.types, e.g. a TPC-C
   transaction type); false without --endpoints. Lets a workload open a
   connection of its own only for the types the file routes. Thread-safe
   once loaded. */
bool sb_endpoints_has_route(const char *key);

/* Sets the failure policy from its name ("reconnect" or "next"). Returns
   0, or -1 for an unknown name (nothing changed). Main thread, before the
   run. */
int sb_endpoints_set_failure(const char *name);

/* The failure policy (SB_EP_FAIL_RECONNECT unless set). Thread-safe. */
sb_ep_failure_t sb_endpoints_failure(void);

/* The default route's first endpoint (file order; the primary), without
   moving the route's round-robin cursor; NULL without endpoints.
   Thread-safe once loaded. */
sb_endpoint_t *sb_endpoints_default_first(void);

/* The k-th (0-based) endpoint a connection to `from` may move to under
   --on-endpoint-failure=next: the other endpoints of from's role in file
   order, starting after `from` and wrapping, then the default route's
   first endpoint when it is not among them. NULL when k is past the
   last (or without endpoints). Thread-safe. */
sb_endpoint_t *sb_endpoints_failover(const sb_endpoint_t *from, unsigned k);

/* Adds `n` to counter `c` of endpoint `ep` (NULL: nothing). Thread-safe
   (relaxed atomic add). */
void sb_endpoint_count(sb_endpoint_t *ep, sb_ep_counter_t c, uint64_t n);

/* Reads counter `c` of endpoint `ep`. Thread-safe. */
uint64_t sb_endpoint_counter(const sb_endpoint_t *ep, sb_ep_counter_t c);

/* The measured window's edges (the endpoint probe, main thread, workers
   parked): begin takes every endpoint's counters as the baseline and
   forgets the lag samples, end stores the window's counts in
   ep->window and sets ep->has_window. */
void sb_endpoints_window_begin(void);
void sb_endpoints_window_end(void);

/* Per-endpoint statement latency (docs/endpoints.md): each connection
   records its statements in a histogram of its own (single writer: the
   connection's thread); a connection freed or moved to another endpoint
   hands its histogram over with sb_endpoint_latency_retire (thread-safe,
   a mutex); at the window's end (main thread, workers parked) the endpoint
   probe adds each live connection's histogram with
   sb_endpoint_latency_add_window after sb_endpoints_window_end has put
   the retired ones in ep->lat_window. */
void sb_endpoint_latency_retire(sb_endpoint_t *ep, const struct sb_hdr *h);
void sb_endpoint_latency_add_window(sb_endpoint_t *ep, const struct sb_hdr *h);

/* The window's statement latency of `ep`: the count (0: none timed) and
   the value at percentile `pct` (0..100] in nanoseconds (0 when none).
   Main thread, after the window's end. */
uint64_t sb_endpoint_latency_count(const sb_endpoint_t *ep);
uint64_t sb_endpoint_latency_pct(const sb_endpoint_t *ep, double pct);

/* True for the endpoints whose replication lag is sampled: every role
   but "primary". */
bool sb_endpoint_is_replica(const sb_endpoint_t *ep);

/* True when the file gives endpoint `ep` a "tls" object: its settings then
   replace the driver's --<db>-ssl* options for the endpoint's
   connections (a mode it leaves out is the option's). Thread-safe (reads
   what sb_endpoints_load wrote). */
bool sb_endpoint_has_tls(const sb_endpoint_t *ep);

/* Stores a lag sample of `ep` in seconds (< 0: none: not replicating,
   the sample failed). Thread-safe (the reporter thread writes, outputs
   read). */
void sb_endpoint_set_lag(sb_endpoint_t *ep, double seconds);

/* The last lag sample of `ep` in seconds, or -1 when there is none or it
   is older than 5 s (the sampler is held by a replica that does not
   answer: an old sample would show a lag that is not known). */
double sb_endpoint_lag(const sb_endpoint_t *ep);

/* The largest lag sample of the window in seconds, or -1. */
double sb_endpoint_lag_max(const sb_endpoint_t *ep);

/* Stores a position sample of `ep`: how far its applied position is
   behind the primary's, in transactions (MariaDB/MySQL GTIDs) or WAL
   bytes (PostgreSQL); < 0: none. Thread-safe (the lag sampler writes,
   outputs read). */
void sb_endpoint_set_behind(sb_endpoint_t *ep, int64_t behind);

/* The last position sample of `ep`, or -1 when there is none or it is
   older than 5 s. */
int64_t sb_endpoint_behind(const sb_endpoint_t *ep);

/* The largest position sample of the window, or -1. */
int64_t sb_endpoint_behind_max(const sb_endpoint_t *ep);

/* The unit of the position samples: "trx" (MariaDB/MySQL) or "bytes"
   (PostgreSQL WAL). */
const char *sb_endpoints_behind_unit(void);

/* True when some endpoint is a replica (lag lines and fields are shown). */
bool sb_endpoints_have_replicas(void);

#endif
