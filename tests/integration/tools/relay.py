#!/usr/bin/env python3
"""A TCP relay of the test's own, to make a server stop answering
(test_faults.sh):

  relay.py PORTFILE TARGET_HOST TARGET_PORT

Listens on 127.0.0.1 (a free port, written to PORTFILE once listening) and
copies bytes both ways between each client and a new connection to the
target. `kill -STOP` on it freezes every connection: the kernel still
accepts what the client sends, nothing comes back, and neither side sees
the connection close — what a network partition, a hung server or a full
disk on the server looks like to a client. `kill -CONT` lets it go on.
"""
import os
import socket
import sys
import threading

portfile, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])


def pump(src, dst):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    for s in (src, dst):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def serve(client):
    try:
        upstream = socket.create_connection((host, port))
    except OSError:
        client.close()
        return
    for a, b in ((client, upstream), (upstream, client)):
        threading.Thread(target=pump, args=(a, b), daemon=True).start()


lsn = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
lsn.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
lsn.bind(("127.0.0.1", 0))
lsn.listen(256)
with open(portfile + ".tmp", "w") as f:
    f.write("%d\n" % lsn.getsockname()[1])
os.rename(portfile + ".tmp", portfile)
while True:
    c, _ = lsn.accept()
    serve(c)
