/* `bmk cluster run`'s copies to the load hosts: the static binary
   (--copy-bmk) and the workload script with the Lua files beside it
   (--copy-script, implied by --copy-bmk); see cli/sb_cluster_priv.h.
   Main thread. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands/cluster/sb_cluster_priv.h"
#include "commands/cluster/sb_cluster_proc.h"
#include "core/sb_logger.h"
#include "core/sb_version.h"

extern char **environ;

/* A script's directory may hold a whole kit of modules, not a data set. */
#define SCRIPT_FILES_MAX 256
#define SCRIPT_BYTES_MAX (32u << 20)

static const char *cache_dir(const cl_t *c)
{
  return c->o.remote_cache && *c->o.remote_cache ? c->o.remote_cache : ".cache/bmk";
}

/* Runs `words` through the launcher once per host (its slot 0), all hosts
   in parallel, each with `input` on stdin; a host where it fails is named
   with `what` and the last line of its output. 0, or 1. */
static int on_every_host(cl_t *c, char *const *words, int nwords, const char *input,
                         const char *what)
{
  pid_t *pids = calloc(c->n, sizeof(pid_t));
  if (pids == NULL)
    return 1;
  for (unsigned i = 0; i < c->n; i++)
  {
    pids[i] = -1;
    if (c->p[i].slot != 0)
      continue;                /* one copy per host */
    char log[4200];
    snprintf(log, sizeof(log), "%s/copy-%s.log", c->dir, c->p[i].host);
    char **argv = cluster_opts_launch_argv(c, c->p[i].host, words, nwords);
    pids[i] = argv ? cluster_proc_spawn_input(argv, input, log) : -1;
    cluster_opts_free_argv(argv);
    if (pids[i] < 0)
      pids[i] = 0;             /* failed to start: reported below */
  }
  int rc = 0;
  for (unsigned i = 0; i < c->n; i++)
  {
    if (pids[i] < 0)
      continue;
    int ex = pids[i] > 0 ? cluster_proc_wait_exit(pids[i], 300000) : -1;
    if (ex != 0)
    {
      cluster_proc_t q = { 0 };
      char last[300];
      snprintf(q.log, sizeof(q.log), "%s/copy-%s.log", c->dir, c->p[i].host);
      cluster_proc_last_log_line(&q, last, sizeof(last));
      log_text(LOG_FATAL, "cluster: host %s: cannot copy %s (exit %d%s%s)", c->p[i].host,
               what, ex, last[0] ? ": " : "", last);
      rc = 1;
    }
  }
  free(pids);
  return rc;
}

int cluster_files_copy_bmk(cl_t *c)
{
  static char remote[4096];
  snprintf(remote, sizeof(remote), "%s/bmk-%s", cache_dir(c), sb_bmk_release());
  char script[512];
  snprintf(script, sizeof(script), "f=\"$1/bmk-%s\"; [ -x \"$f\" ] && exit 0; "
           "mkdir -p \"$1\" && cat > \"$f.tmp$$\" && chmod 755 \"$f.tmp$$\" && "
           "mv \"$f.tmp$$\" \"$f\"", sb_bmk_release());
  char *words[] = { "sh", "-c", script, "sh", (char *) cache_dir(c) };
  char what[4300];
  snprintf(what, sizeof(what), "%s to %s there", c->o.copy_bmk, remote);
  if (on_every_host(c, words, 5, c->o.copy_bmk, what) != 0)
    return 1;
  c->o.remote_bmk = remote;
  return 0;
}

/* ---- the workload script ---------------------------------------------------- */

/* The index of the test argument (the first that is not an option) when
   it names a script file here: a path with a '/' or a name ending in
   ".lua" that is a regular file. -1 otherwise (a bundled workload). */
static int script_arg(const cl_opts_t *o)
{
  for (int i = 0; i < o->nargs; i++)
  {
    const char *a = o->args[i];
    if (a[0] == '-')
      continue;
    size_t len = strlen(a);
    struct stat st;
    bool looks = strchr(a, '/') || (len > 4 && strcmp(a + len - 4, ".lua") == 0);
    return looks && stat(a, &st) == 0 && S_ISREG(st.st_mode) ? i : -1;
  }
  return -1;
}

static int cmp_str(const void *a, const void *b)
{
  return strcmp(*(char *const *) a, *(char *const *) b);
}

/* FNV-1a, 64 bits, over `len` bytes into *h. */
static void fnv1a(uint64_t *h, const void *data, size_t len)
{
  const unsigned char *p = data;
  for (size_t i = 0; i < len; i++)
  {
    *h ^= p[i];
    *h *= 1099511628211ull;
  }
}

/* Adds file `dir`/`name` to the hash (its name and its bytes) and its size
   to *total. 0, or 1 (FATAL printed). */
static int hash_file(const char *dir, const char *name, uint64_t *h, size_t *total)
{
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  FILE *f = fopen(path, "rb");
  if (f == NULL)
  {
    log_text(LOG_FATAL, "cluster: cannot read %s: %s", path, strerror(errno));
    return 1;
  }
  fnv1a(h, name, strlen(name) + 1);
  char buf[8192];
  size_t got;
  while ((got = fread(buf, 1, sizeof(buf), f)) > 0)
  {
    fnv1a(h, buf, got);
    *total += got;
  }
  fclose(f);
  if (*total > SCRIPT_BYTES_MAX)
  {
    log_text(LOG_FATAL, "cluster: the .lua files beside the script in %s are over %u MiB: "
             "put the script in a directory of its own", dir, SCRIPT_BYTES_MAX >> 20);
    return 1;
  }
  return 0;
}

/* The names to copy from `dir`: `base` and every other *.lua file there
   (the modules the script may require), sorted, into names (caller frees
   each and the array). Returns the count, or -1 (FATAL printed). */
static int list_files(const char *dir, const char *base, char ***names)
{
  DIR *d = opendir(dir);
  if (d == NULL)
  {
    log_text(LOG_FATAL, "cluster: cannot list %s: %s", dir, strerror(errno));
    return -1;
  }
  char **v = calloc(SCRIPT_FILES_MAX + 1, sizeof(char *));
  int n = 0, rc = v ? 0 : -1;
  if (v)
    v[n++] = strdup(base);
  struct dirent *e;
  while (rc == 0 && (e = readdir(d)) != NULL)
  {
    size_t len = strlen(e->d_name);
    char path[4096];
    struct stat st;
    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
    if (len <= 4 || strcmp(e->d_name + len - 4, ".lua") != 0 || strcmp(e->d_name, base) == 0 ||
        stat(path, &st) != 0 || !S_ISREG(st.st_mode))
      continue;
    if (n == SCRIPT_FILES_MAX)
    {
      log_text(LOG_FATAL, "cluster: more than %d .lua files beside the script in %s: put the "
               "script in a directory of its own", SCRIPT_FILES_MAX, dir);
      rc = -1;
    }
    else
      v[n++] = strdup(e->d_name);
  }
  closedir(d);
  for (int i = 0; rc == 0 && i < n; i++)
    if (v[i] == NULL)
      rc = -1;
  if (rc != 0)
  {
    for (int i = 0; v && i < n; i++)
      free(v[i]);
    free(v);
    return -1;
  }
  qsort(v, (size_t) n, sizeof(char *), cmp_str);
  *names = v;
  return n;
}

/* tar -cf `out` -C `dir` -- names... (Debian's tar). 0, or 1 (FATAL). */
static int make_tar(const char *out, const char *dir, char **names, int n)
{
  char **argv = calloc((size_t) n + 7, sizeof(char *));
  if (argv == NULL)
    return 1;
  int k = 0;
  argv[k++] = "tar";
  argv[k++] = "-cf";
  argv[k++] = (char *) out;
  argv[k++] = "-C";
  argv[k++] = (char *) dir;
  argv[k++] = "--";
  for (int i = 0; i < n; i++)
    argv[k++] = names[i];
  pid_t pid;
  int st = 0, err = posix_spawnp(&pid, "tar", NULL, NULL, argv, environ);
  free(argv);
  if (err == 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0)
    return 0;
  log_text(LOG_FATAL, "cluster: cannot pack the script's files from %s with tar (%s)", dir,
           err ? strerror(err) : "tar failed");
  return 1;
}

int cluster_files_copy_script(cl_t *c)
{
  int k = script_arg(&c->o);
  if (k < 0)
    return 0;
  char *path = strdup(c->o.args[k]);
  if (path == NULL)
    return 1;
  char *slash = strrchr(path, '/');
  const char *dir = slash ? (slash == path ? "/" : path) : ".";
  const char *base = slash ? slash + 1 : path;
  if (slash)
    *slash = '\0';
  char **names = NULL;
  int n = list_files(dir, base, &names);
  int rc = n < 0 ? 1 : 0;
  uint64_t h = 14695981039346656037ull;
  size_t total = 0;
  for (int i = 0; rc == 0 && i < n; i++)
    rc = hash_file(dir, names[i], &h, &total);
  char tar[300], hash[17];
  snprintf(tar, sizeof(tar), "%s/script.tar", c->dir);
  snprintf(hash, sizeof(hash), "%016llx", (unsigned long long) h);
  if (rc == 0)
    rc = make_tar(tar, dir, names, n);
  /* the copy is named by its content: an edited script gets a new one */
  static const char sh[] =
    "d=\"$1/scripts/$2\"; [ -f \"$d/$3\" ] && exit 0; mkdir -p \"$d.tmp$$\" && "
    "tar -xf - -C \"$d.tmp$$\" && mv \"$d.tmp$$\" \"$d\" || { rm -rf \"$d.tmp$$\"; "
    "[ -f \"$d/$3\" ]; }";
  char *words[] = { "sh", "-c", (char *) sh, "sh", (char *) cache_dir(c), hash, (char *) base };
  char what[4400];
  snprintf(what, sizeof(what), "the script %s (%d file%s) to %s/scripts/%s there",
           c->o.args[k], n, n == 1 ? "" : "s", cache_dir(c), hash);
  if (rc == 0)
    rc = on_every_host(c, words, 7, tar, what);
  if (rc == 0)
  {
    size_t len = strlen(cache_dir(c)) + strlen(base) + 40;
    c->script_arg = malloc(len);
    c->lua_path = malloc(len);
    if (c->script_arg == NULL || c->lua_path == NULL)
      rc = 1;
    else
    {
      snprintf(c->script_arg, len, "%s/scripts/%s/%s", cache_dir(c), hash, base);
      snprintf(c->lua_path, len, "LUA_PATH=%s/scripts/%s/?.lua;;", cache_dir(c), hash);
      log_text(LOG_NOTICE, "cluster: %s and the %d other .lua file%s beside it copied to "
               "each host: the processes run %s", base, n - 1, n == 2 ? "" : "s",
               c->script_arg);
      if (c->o.kit_argv)
      {
        /* the arguments are the kit plan's words, which own their strings */
        free(c->o.args[k]);
        c->o.args[k] = c->script_arg;
        c->script_arg = NULL;
      }
      else
        c->o.args[k] = c->script_arg;
    }
  }
  unlink(tar);
  for (int i = 0; i < n; i++)
    free(names[i]);
  free(names);
  free(path);
  return rc;
}
