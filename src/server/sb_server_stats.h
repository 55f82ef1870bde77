/*
 * Results reconciled with the server (docs/results.md).
 *
 * Around the measured run bmk reads the server's own counters through the
 * script's driver on a separate connection, so the report can put the
 * server's transactions and queries per second beside the client's:
 *   MariaDB/MySQL: SHOW GLOBAL STATUS  Com_commit, Com_rollback, Questions,
 *                  Innodb_rows_* (MariaDB 10.5+: Rows_read, Handler_*)
 *   PostgreSQL:    pg_stat_database (current database) xact_commit,
 *                  xact_rollback, tup_*; autovacuum/autoanalyze runs
 * and the write side of the server, for load tests:
 *   MariaDB/MySQL: Innodb_os_log_written, Innodb_log_writes,
 *                  Innodb_os_log_fsyncs (MySQL; MariaDB 10.8+ has none),
 *                  Innodb_data_written, Innodb_data_writes
 *   PostgreSQL 14+: pg_stat_wal wal_bytes, wal_write, wal_sync and, when
 *                  track_wal_io_timing is on, wal_write_time/wal_sync_time;
 *                  data writes from pg_stat_io (16+) or pg_stat_bgwriter
 *                  (buffers_checkpoint + buffers_clean + buffers_backend)
 * It also reads the server version and the settings that matter for a
 * benchmark (buffer pool / shared buffers, durability, connections) for
 * the results file's manifest.
 *
 * What is and is not excluded (docs/results.md): the sampler's own
 * statements are subtracted (MySQL: its SHOW counts in Questions);
 * the counters are server-wide (MySQL) or database-wide (PostgreSQL), so
 * other clients' work is included. The samples are taken while the
 * workers wait at the engine's start line (after thread_init) and end
 * line (after their last event, before thread_done). On PostgreSQL 15+
 * each parked worker connection is asked to publish its statistics
 * (pg_stat_force_next_flush), because a backend reports at most once a
 * second; those requests are subtracted, and the sampler reads inside one
 * transaction that commits after the end sample.
 *
 * Failure to connect or to read counters (e.g. no privilege) is a
 * warning; the run's own results are unaffected. --db-server-stats=off
 * turns all of this off. Called from the main thread only.
 */
#ifndef SB_SERVER_STATS_H
#define SB_SERVER_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/sb_counter.h"

#define SB_SRV_MAX_SETTINGS 16

typedef enum {
  SB_SRV_COMMITS, SB_SRV_ROLLBACKS, SB_SRV_QUERIES,
  SB_SRV_ROWS_READ, SB_SRV_ROWS_FETCHED, SB_SRV_ROWS_INSERTED,
  SB_SRV_ROWS_UPDATED, SB_SRV_ROWS_DELETED,
  SB_SRV_AUTOVACUUM,              /* PostgreSQL: autovacuum + autoanalyze runs */
  /* redo / WAL and data-file writes (DBL table; present only when the
     server has them, see has[]) */
  SB_SRV_REDO_BYTES,              /* Innodb_os_log_written / wal_bytes */
  SB_SRV_REDO_WRITES,             /* Innodb_log_writes / wal_write */
  SB_SRV_REDO_SYNCS,              /* Innodb_os_log_fsyncs (MySQL) / wal_sync */
  SB_SRV_REDO_WRITE_US,           /* wal_write_time (track_wal_io_timing), us */
  SB_SRV_REDO_SYNC_US,            /* wal_sync_time, us */
  SB_SRV_DATA_BYTES,              /* Innodb_data_written / pg_stat_io or
                                     pg_stat_bgwriter blocks x block_size */
  SB_SRV_DATA_WRITES,             /* Innodb_data_writes / writes of those */
  SB_SRV_XACT_ALL,                /* PostgreSQL: xact_commit + xact_rollback of
                                     all databases (tpcc's TPM scope "all") */
  SB_SRV_NCOUNTERS
} sb_srv_counter_t;

/* Everything the report and the results file need. */
typedef struct {
  bool have_info;                 /* version and settings were read */
  char driver[16];                /* "mysql" / "pgsql" */
  char version[128];              /* server version string */
  unsigned nsettings;
  char setting_name[SB_SRV_MAX_SETTINGS][64];
  char setting_value[SB_SRV_MAX_SETTINGS][128];

  bool have_delta;                /* both samples succeeded */
  double window_s;                /* seconds between the samples */
  bool has[SB_SRV_NCOUNTERS];     /* the server reported this counter */
  int wal_timing;                 /* PostgreSQL 14+: track_wal_io_timing
                                     1 on, 0 off (no WAL times); -1 n/a */
  const char *counter_source[SB_SRV_NCOUNTERS]; /* server's counter names */
  uint64_t delta[SB_SRV_NCOUNTERS];
  sb_counters_t client;           /* client counters over the same window */
  uint64_t client_statements;     /* reads + writes + other + ignored errors:
                                     a failed statement reached the server */
  bool reconnected;               /* the sampler's connection was lost in the
                                     window and opened again for the end
                                     sample */
  bool counters_restarted;        /* ... and the server's counters had gone
                                     back (it restarted): the deltas are the
                                     end sample's values, i.e. since then */
  double since_restart_s;         /* then: seconds from the restart to the
                                     end sample (window_s is set to it) */
} sb_srv_stats_t;

/*
 * Opens the sampling connection with the driver the script used, reads
 * the version and settings, and takes the start sample together with a
 * snapshot of the client counters. Does nothing when no SQL driver is in
 * use or `enabled` is false. Warnings only; never fails the run.
 */
void sb_server_stats_begin(bool enabled);

/* True between a successful begin and close: the engine then holds the
   workers at an end line so the end sample sees exactly the run. */
bool sb_server_stats_active(void);

/* Takes the end sample (every worker is parked after its last event,
   before thread_done) and fills the deltas. On PostgreSQL 15+ each worker
   connection is first asked to report its statistics (the workers are
   parked, so the main thread may use their connections). No-op when begin
   did not succeed. */
void sb_server_stats_end(void);

/* The numbers so far (never NULL; fields false/zero when unavailable). */
const sb_srv_stats_t *sb_server_stats(void);

/* Prints the "Server-side statistics" block after the final report when
   deltas are available. `out` is stdout in practice. */
void sb_server_stats_print(void);

/* Closes the sampling connection. */
void sb_server_stats_close(void);

/*
 * The server's transaction counter, for workloads that report
 * transactions per minute from it (tpcc's TPM, as HammerDB's): MySQL
 * Com_commit + Com_rollback (server-wide); PostgreSQL xact_commit +
 * xact_rollback of all databases (all_dbs) or of the current one.
 * which = 0 reads it now on the sampler's connection (PostgreSQL's
 * statistics lag by up to about a second while backends are busy);
 * which = 1 gives its value at the end sample (the engine's end line).
 * Returns 0 and *out, or -1 when the sampler is not active, the read
 * failed or there is no end sample. Thread-safe (the sampler's
 * connection is used under a mutex), exported for FFI.
 */
int sb_server_stats_xacts(int which, bool all_dbs, uint64_t *out);

/* Server version string read at begin ("" when unknown). Exported for
   FFI. */
const char *sb_server_stats_version(void);

#endif
