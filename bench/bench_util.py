"""Helpers shared by the Python parts of the bench/ scripts."""
import os
import sys
import time


def run_measured(cmd, cwd=None, out_path="/tmp/bmk-bench-run.out"):
    """Runs `cmd` (argv list) in `cwd` with stdin from /dev/null and
    stdout+stderr to `out_path`. Returns (output text, client CPU seconds =
    user+system time of the process and its children from wait4's rusage,
    wall seconds). Exits the bench with the tail of the output when the
    command fails."""
    start = time.time()
    pid = os.fork()
    if pid == 0:
        if cwd:
            os.chdir(cwd)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        fd = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.execvp(cmd[0], cmd)
    _, status, ru = os.wait4(pid, 0)
    with open(out_path) as f:
        out = f.read()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), out[-3000:]))
    return out, ru.ru_utime + ru.ru_stime, time.time() - start


def conn_args(db):
    """The connection options of bmk and sysbench for the bench's own
    server (bench/server_configs.sh: BMK_MYSQL_PORT / BMK_PGSQL_PORT, user
    and database sbtest, password BMK_SANDBOX_PASSWORD or sbtest)."""
    pw = os.environ.get("BMK_SANDBOX_PASSWORD", "sbtest")
    if db == "mysql":
        return ["--db-driver=mysql", "--mysql-host=127.0.0.1",
                "--mysql-port=" + os.environ["BMK_MYSQL_PORT"], "--mysql-user=sbtest",
                "--mysql-password=" + pw, "--mysql-db=sbtest"]
    return ["--db-driver=pgsql", "--pgsql-host=127.0.0.1",
            "--pgsql-port=" + os.environ["BMK_PGSQL_PORT"], "--pgsql-user=sbtest",
            "--pgsql-password=" + pw, "--pgsql-db=sbtest"]
