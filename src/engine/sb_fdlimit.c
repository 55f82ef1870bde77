/* The open-files budget of a run (one connection per virtual user); see
   eng_fd_budget in sb_engine_priv.h. */
#include <sys/resource.h>

#include <ck_pr.h>

#include "core/sb_logger.h"
#include "drivers/db_driver.h"
#include "engine/sb_engine_priv.h"
#include "engine/sb_vuplan.h"

static struct rlimit fd_limit;
static int fd_refused;

/* Refuses connections when the open-files limit cannot hold one per VU
   (db_set_connect_check): the first attempt says why, once. */
static int check_fds(void)
{
  if (ck_pr_fas_int(&fd_refused, 1) == 0)
    log_text(LOG_FATAL, "cannot open a connection for each of the %u virtual users: the "
             "open-files limit is %llu (ulimit -n; hard limit %llu) and bmk needs %llu; "
             "raise it (ulimit -n %llu, which above the hard limit needs root) or lower "
             "--threads", eng_cfg.threads, (unsigned long long) fd_limit.rlim_cur,
             (unsigned long long) fd_limit.rlim_max,
             (unsigned long long) sb_plan_fds_needed(eng_cfg.threads),
             (unsigned long long) sb_plan_fds_needed(eng_cfg.threads));
  return -1;
}

/* Raises RLIMIT_NOFILE towards what the VUs need, up to the hard limit;
   when that is not enough, connections are refused with a message before
   any is opened (the script may not connect at all). */
void eng_fd_budget(void)
{
  uint64_t need = sb_plan_fds_needed(eng_cfg.threads);
  db_set_connect_check(NULL);
  if (getrlimit(RLIMIT_NOFILE, &fd_limit) != 0 || fd_limit.rlim_cur == RLIM_INFINITY ||
      fd_limit.rlim_cur >= need)
    return;
  struct rlimit want = fd_limit;
  want.rlim_cur = fd_limit.rlim_max == RLIM_INFINITY || fd_limit.rlim_max >= need
    ? (rlim_t) need : fd_limit.rlim_max;
  if (setrlimit(RLIMIT_NOFILE, &want) == 0)
    fd_limit.rlim_cur = want.rlim_cur;
  if (fd_limit.rlim_cur < need)
    db_set_connect_check(check_fds);
}

