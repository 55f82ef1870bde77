/*
 * Server cost per transaction (docs/capacity.md).
 *
 * Over the engine's measured window (from the start line, where the
 * workers wait after thread_init, to the end line after their last event;
 * the same window as the server-statistics sampler) bmk reads:
 *   - the database server's CPU time, user and system: from /proc for the
 *     server's process(es) and all their descendants (--server-pid, or
 *     found automatically: MySQL/MariaDB @@pid_file, PostgreSQL
 *     data_directory/postmaster.pid, only when that file is readable here
 *     and names a live process that started when the server did), or from
 *     a cgroup v2 cpu.stat (--server-cgroup);
 *   - the server's user-space instructions (instructions:u) where
 *     perf_event_open permits it (sb_perf_count.h), or one line saying why
 *     not and how to allow it;
 *   - bmk's own CPU (getrusage) and the host's CPU busy % (/proc/stat);
 *   - the client's events (transactions) and statements (queries) in the
 *     window, to divide by.
 * Printed as a "Server cost" block after the Server-side statistics (bmk
 * persona only: not when invoked as `sysbench`) and written as
 * `server.cost` in the --results JSON (docs/results.md).
 *
 * The same measurement is offered to scripts (bmk.cost, docs/lua-api.md):
 * sb_cost_locate / sb_cost_start / sb_cost_read / sb_cost_free, used by
 * the bundled dml_cost workload.
 *
 * Bad options (a pid that does not exist, a path that is not a cgroup v2
 * directory) are FATAL before the run starts; anything that fails later
 * is reported in the block and never affects the run. The engine hooks
 * and the target are main-thread only; a measurement object belongs to
 * the thread that started it.
 */
#ifndef SB_SERVER_COST_H
#define SB_SERVER_COST_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "drivers/db_driver.h"

/* At most this many --server-pid values. */
#define SB_COST_MAX_PIDS 64

/*
 * Reads --server-cost, --server-pid and --server-cgroup and checks them:
 * every pid must name a process on this host, the cgroup must be a cgroup
 * v2 directory (a path relative to the v2 mount point is accepted). Prints
 * one FATAL line and returns -1 on bad input; 0 otherwise. Call once,
 * after the options are parsed and before the run.
 */
int sb_server_cost_configure(void);

/*
 * Engine hook at the start line (workers parked after thread_init), called
 * just before the server-statistics sampler's start sample. Finds the
 * server when no target was given (through a parked worker connection, so
 * no extra connection is opened and the sampler's window never sees the
 * queries), says in one line which pid(s) or cgroup are measured (or why
 * the server is not), and takes the start sample. Does nothing when
 * --server-cost=off, or when no SQL driver is in use and no target was
 * given.
 */
void sb_server_cost_begin(void);

/* True between a begin that measures something and the end sample: the
   engine then holds the workers at its end line. */
bool sb_server_cost_active(void);

/* Engine hook at the end line (every worker parked after its last event),
   called just before the sampler's end sample: takes the end sample. */
void sb_server_cost_end(void);

/* Prints the "Server cost" block (bmk persona only) when begin ran. */
void sb_server_cost_print(void);

/* The `server.cost` object for the results file (new reference), or NULL
   when begin measured nothing. */
json_t *sb_server_cost_json(void);

/* ---- measurements for scripts (exported for LuaJIT FFI) -------------------- */

typedef struct sb_cost_meas sb_cost_meas_t;

/* A measurement so far. Times in seconds; -1 where not measured. */
typedef struct {
  double elapsed_s;            /* wall clock since sb_cost_start */
  int has_server_cpu;          /* 1 when the server's CPU was measured */
  double server_user_s, server_system_s;
  int has_counter;             /* 1 when the hardware counter counted */
  double counter;              /* events counted (instructions:u, or task-clock
                                  ns with BMK_COST_PERF_EVENT=task-clock);
                                  exact up to 2^53 */
  double client_user_s, client_system_s;   /* bmk itself (getrusage) */
  double host_busy_pct;        /* host CPU busy %, -1 when unknown */
  int host_cpus;               /* online CPUs */
} sb_cost_reading_t;

/*
 * Finds the server to measure: the --server-pid / --server-cgroup target
 * when given, otherwise the local server behind connection `con` (may be
 * NULL: then only an explicit target is found). Writes one line into
 * `buf` (len bytes): what is measured ("pid 123 (mariadbd, @@pid_file
 * ...) and its child processes") or why nothing is. Returns 1 when a
 * target is found, 0 when not. Runs two small queries on `con` (counted
 * nowhere). Main thread; the result is kept for sb_cost_start.
 */
int sb_cost_locate(db_conn_t *con, char *buf, size_t len);

/* Starts a measurement of the located target (server CPU and counter
   when available; bmk's CPU and the host's always). Returns NULL only
   when out of memory. */
sb_cost_meas_t *sb_cost_start(void);

/* Fills `out` with what was measured since sb_cost_start. Returns 0. */
int sb_cost_read(sb_cost_meas_t *m, sb_cost_reading_t *out);

/* One line about the hardware counter of `m`: its event name when it
   counts ("instructions:u"), else why it does not and how to allow it. */
const char *sb_cost_counter_note(const sb_cost_meas_t *m);

/* Stops and frees the measurement (closes its counters). NULL is fine. */
void sb_cost_free(sb_cost_meas_t *m);

#endif
