/* `bmk cluster run`: one workload from many processes and hosts
   (docs/cluster.md). */
#ifndef SB_CLUSTER_CMD_H
#define SB_CLUSTER_CMD_H

/*
 * `bmk cluster run --hosts=FILE [options] -- <bmk run arguments>`
 * (argv[1] is "cluster"): starts one `bmk ... --cluster-stream` per slot
 * of the hosts file through the launcher, waits for them all, checks
 * their clock offsets, starts them together, prints the exact merge.
 * Returns the exit code (docs/cluster.md "Exit codes"): 0; 1 usage, bad
 * hosts file, a process that failed before the start, clocks too far
 * apart; 4 a process failed during the run; 130/143 interrupted; else
 * the highest non-zero exit code of the processes. Main thread; once.
 */
int sb_cluster_main(int argc, char **argv);

#endif
