/* The processes of `bmk cluster run`: launching through the launcher
   template, their stream's lines, stopping and reaping (docs/cluster.md).
   Main thread only. */
#ifndef SB_CLUSTER_PROC_H
#define SB_CLUSTER_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct {
  char name[96];               /* "HOST#SLOT" */
  char host[64];
  unsigned slot;               /* the slot on its host */
  pid_t pid;                   /* the launcher (its own process group) */
  int in_fd, out_fd;           /* its stdin (write), its stdout (read) */
  char *buf;                   /* unread stream bytes */
  size_t len, cap;
  bool ready, eof, finished, ended, reaped;
  int status;                  /* waitpid status once reaped */
  long remote_pid;             /* the bmk's pid on its host */
  double offset_ms, rtt_ms;    /* clock offset (child - coordinator), RTT */
  unsigned long long pong_us;  /* the last pong's time, 0 = none yet */
  double last_seen;            /* when its stream last said something, Unix s */
  char log[4096];              /* its stderr */
  char last_out[300];          /* its last non-empty stdout line outside the stream */
} cluster_proc_t;

/* Starts `argv` (NULL-terminated) as process `p` in its own process
   group, stdin and stdout piped (non-blocking stdout), stderr to p->log.
   Returns 0, or -1 with an ERROR printed. */
int cluster_proc_launch(cluster_proc_t *p, char *const *argv);

/* Reads what is available on p's stdout. Returns the bytes read, 0 at the
   end of the stream (p->eof set), -1 when nothing is available. */
int cluster_proc_fill(cluster_proc_t *p);

/* The next complete line buffered (NUL-terminated, without '\n'), valid
   until the next cluster_proc_fill or cluster_proc_next_line on p; NULL when none. */
char *cluster_proc_next_line(cluster_proc_t *p);

/* Writes `s` to p's stdin (ignored when its stdin is closed or gone). */
void cluster_proc_send(cluster_proc_t *p, const char *s);

/* Closes p's stdin (the child sees the end of its input). */
void cluster_proc_close_in(cluster_proc_t *p);

/* Reaps p when it has exited, waiting up to `wait_ms`; true when reaped. */
bool cluster_proc_reap(cluster_proc_t *p, int wait_ms);

/* Signals p's process group (the launcher and what it started here). */
void cluster_proc_kill(cluster_proc_t *p, int sig);

/* The first two "FATAL: " lines of p's stderr log (joined by "; "),
   else its last non-empty line, in buf (size bytes); "" when none. */
void cluster_proc_last_log_line(const cluster_proc_t *p, char *buf, size_t size);

/* Starts `argv` in its own process group with stdin from `in_path` and
   stdout and stderr to `log`. Returns its pid, or -1 with an ERROR
   printed. */
pid_t cluster_proc_spawn_input(char *const *argv, const char *in_path, const char *log);

/* Waits until `pid` (from cluster_proc_spawn_input) exits, at most `wait_ms`
   (then its process group is killed). Returns its exit code, or -1 when
   it was killed or timed out. */
int cluster_proc_wait_exit(pid_t pid, int wait_ms);

/* Words of `s` shell-quoted for a POSIX shell into a malloc'd string
   ('...' with ' as '\''), NULL on OOM. */
char *cluster_proc_shell_quote(const char *s);

#endif
