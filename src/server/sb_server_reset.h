/*
 * --db-checkpoint (bmk series --reset=checkpoint): before the measured
 * run, make the server write its dirty pages, so every run of a series
 * starts from the same state instead of paying for the previous run's
 * writes.
 *  - PostgreSQL: CHECKPOINT (a superuser, or the pg_checkpoint role on
 *    PostgreSQL 15+).
 *  - MariaDB/MySQL: FLUSH TABLES, then innodb_max_dirty_pages_pct = 0
 *    until Innodb_buffer_pool_pages_dirty is 0 and the redo checkpoint has
 *    caught up (Innodb_checkpoint_age, where the server has it, at most
 *    64 KiB), then the setting is put back (RELOAD and SUPER privileges).
 *    At most 300 s; after that a warning and the run goes on.
 * It runs on a connection of its own, not counted in the client's
 * statistics, after the workers' thread_init and before the SYNC-file
 * barrier and the server-statistics start sample.
 */
#ifndef SB_SERVER_RESET_H
#define SB_SERVER_RESET_H

/* Checkpoints the server of the workload's driver (db_last_driver()).
   Prints one "=> checkpoint: ..." line. Returns 0 (also when the workload
   uses no database: a warning), or -1 after a FATAL line saying what
   failed and which privilege it needs (or that a signal interrupted the
   wait). Main thread, while the workers are parked. */
int sb_server_checkpoint(void);

#endif
