"""Ctrl-C at a known moment: runs COMMAND with its output in OUTFILE,
waits until PATTERN appears in it (at most 60 s), half a second more,
then sends SIGINT as a terminal's Ctrl-C does (the child keeps SIGINT's
default disposition) and prints COMMAND's exit status (waits at most 60 s).

Usage: python3 interrupt.py OUTFILE PATTERN COMMAND...
"""
import os
import signal
import subprocess
import sys
import time

out, pattern, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
with open(out, "w") as f:
    p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    for _ in range(1200):
        if pattern in open(out).read():
            break
        time.sleep(0.05)
    time.sleep(0.5)
    os.kill(p.pid, signal.SIGINT)
    print(p.wait(60))
