#!/usr/bin/env python3
"""A stand-in 'server' process tree whose CPU use is known exactly
(test_cost.sh). bmk measures it with --server-pid or --server-cgroup while
a workload script of the test signals the start and waits for the end, so
all of the burning happens inside bmk's measured window by construction,
however slow or busy the machine is.

  busy_tree.py DIR BURN_S [SMALL_N SMALL_S]

At start one thread already exists that will burn (counters must be
attached to existing threads). When DIR/go appears, the process starts a
second thread and forks two child processes (counted only through
inheritance, as new backends and connection threads are), and all four burn
BURN_S seconds of their own CPU each, measured with the kernel's precise
per-thread / per-process clocks (the same runtime that task-clock counts).
Children are reaped before DIR/done is written with the sum of the four
measured burns, and DIR/switches with the context switches the four made
while burning (getrusage: voluntary and involuntary). On SIGTERM it writes DIR/total: its whole life's CPU
(itself and reaped children, getrusage), an upper bound of anything that
counted it, then exits.

With SMALL_N, it also forks SMALL_N single-threaded processes at the go
that each burn SMALL_S seconds (below a clock tick, as a database backend
does between two samples) and then stay alive, unreaped, until SIGTERM:
their CPU counts only if each process's own time is read finer than a
tick. Their burns are in the sum written to DIR/done.
"""
import os
import resource
import signal
import sys
import threading
import time

d, burn = sys.argv[1], float(sys.argv[2])
small_n = int(sys.argv[3]) if len(sys.argv) > 3 else 0
small_s = float(sys.argv[4]) if len(sys.argv) > 4 else 0.0
go = threading.Event()
small = []                      # pids of the small processes


def spin(clock, secs=None):
    secs = burn if secs is None else secs
    t0 = clock()
    while clock() - t0 < secs:
        pass
    return clock() - t0


def nswitches(who):
    r = resource.getrusage(who)
    return r.ru_nvcsw + r.ru_nivcsw


results = []
switches = []


def thread_body():
    go.wait()
    n0 = nswitches(resource.RUSAGE_THREAD)
    results.append(spin(time.thread_time))
    switches.append(nswitches(resource.RUSAGE_THREAD) - n0)


def write(name, text):
    with open(os.path.join(d, name + ".tmp"), "w") as f:
        f.write(text)
    os.rename(os.path.join(d, name + ".tmp"), os.path.join(d, name))


def on_term(*_):
    for pid in small:           # reaped, so their CPU is in the total
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    s = resource.getrusage(resource.RUSAGE_SELF)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    write("total", "%.6f\n" % (s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime))
    os._exit(0)


signal.signal(signal.SIGTERM, on_term)
t1 = threading.Thread(target=thread_body)
t1.start()
write("ready", "%d\n" % os.getpid())
while not os.path.exists(os.path.join(d, "go")):
    time.sleep(0.01)

children = []
for i in range(2):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        n0 = nswitches(resource.RUSAGE_SELF)
        v = spin(time.process_time)
        n = nswitches(resource.RUSAGE_SELF) - n0
        os.write(w, ("%.6f %d" % (v, n)).encode())
        os._exit(0)
    os.close(w)
    children.append((pid, r))
for i in range(small_n):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.close(r)
        v = spin(time.process_time, small_s)
        os.write(w, ("%.6f" % v).encode())
        os.close(w)
        while True:             # blocked: the kernel's figure is up to date
            signal.pause()
    os.close(w)
    results.append(float(os.read(r, 64).decode()))
    os.close(r)
    small.append(pid)
t2 = threading.Thread(target=thread_body)
t2.start()
go.set()
t1.join()
t2.join()
for pid, r in children:
    v, n = os.read(r, 64).decode().split()
    results.append(float(v))
    switches.append(int(n))
    os.close(r)
    os.waitpid(pid, 0)
write("switches", "%d\n" % sum(switches))
write("done", "%.6f\n" % sum(results))
while True:
    time.sleep(1)
