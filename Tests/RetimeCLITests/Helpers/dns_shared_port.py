#!/usr/bin/env python3
"""Asks DNS questions from source ports a blocked user has just used, as
another user and as root do by chance on a busy machine: the kernel tracks
flows by their addresses and ports, not by user, so a redirect made for the
blocked user's flow must not capture theirs. Runs as root; each round, on
its own source port, a child as BLOCKED asks BLOCKED_NAME, then a child as
OTHER and this process (root) ask OPEN_NAME from that same port.

usage: dns_shared_port.py SERVER BLOCKED OTHER BLOCKED_NAME OPEN_NAME ROUNDS FIRST_PORT
prints: "other ANSWERED/ROUNDS root ANSWERED/ROUNDS blocked ANSWERED/ROUNDS"
and then, one a line, the first few failures (who, port, what happened)
"""
import errno
import os
import random
import socket
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dns_query import CODES, addresses, query  # noqa: E402


def ask(server, port, name):
    """One question from source `port`; its answer, or the error's name."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.settimeout(3)
    try:
        sock.bind(("0.0.0.0", port))
        sock.connect((server, 53))
        sock.send(query(name, random.randrange(65536)))
        reply = sock.recv(4096)
        return " ".join([CODES.get(reply[3] & 0x0F, str(reply[3] & 0x0F))] + addresses(reply))
    except socket.timeout:
        return "timeout"
    except OSError as error:
        return errno.errorcode.get(error.errno, "error")
    finally:
        sock.close()


def ask_as(uid, server, port, name):
    """The same question from a child running as `uid`."""
    read, write = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(read)
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
        os.write(write, ask(server, port, name).encode())
        os._exit(0)
    os.close(write)
    said = b""
    while True:
        chunk = os.read(read, 4096)
        if not chunk:
            break
        said += chunk
    os.close(read)
    os.waitpid(child, 0)
    return said.decode()


def main():
    server, blocked, other, blocked_name, open_name = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
    rounds, first = int(sys.argv[6]), int(sys.argv[7])
    counts = {"other": 0, "root": 0, "blocked": 0}
    failures = []
    for index in range(rounds):
        port = first + index
        # The blocked user's question: refused (NXDOMAIN) by its resolver.
        if ask_as(blocked, server, port, blocked_name).startswith("NXDOMAIN"):
            counts["blocked"] += 1
        for who, said in (("other", ask_as(other, server, port, open_name)), ("root", ask(server, port, open_name))):
            if said.startswith("NOERROR"):
                counts[who] += 1
            elif len(failures) < 5:
                failures.append("%s port %d: %s" % (who, port, said))
    print("other %d/%d root %d/%d blocked %d/%d" % (counts["other"], rounds, counts["root"], rounds, counts["blocked"], rounds))
    for failure in failures:
        print(failure)


if __name__ == "__main__":
    main()
