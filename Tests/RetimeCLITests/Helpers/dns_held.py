#!/usr/bin/env python3
"""Asks a DNS question twice over sockets it keeps open, as a program with a
long-lived resolver socket does: a UDP socket connected to SERVER:53 and a
TCP connection to it. It asks once, prints the two answers, waits until the
file GO exists, asks again on the same two sockets and prints those answers.
A name layer that let such a flow past the redirect would answer the second
question as the first.

usage: dns_held.py SERVER NAME GO
prints: "udp ANSWER" and "tcp ANSWER" lines, ANSWER as dns_query.py prints it
"""
import errno
import os
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dns_query import CODES, addresses, exchange_tcp, query  # noqa: E402


def answer(reply):
    return " ".join([CODES.get(reply[3] & 0x0F, str(reply[3] & 0x0F))] + addresses(reply))


def ask_udp(sock, name, ident):
    try:
        sock.send(query(name, ident))
        return answer(sock.recv(4096))
    except socket.timeout:
        return "timeout"
    except OSError as error:
        return errno.errorcode.get(error.errno, "error")


def ask_tcp(sock, name, ident):
    try:
        return answer(exchange_tcp(sock, query(name, ident)))
    except socket.timeout:
        return "timeout"
    except OSError as error:
        return errno.errorcode.get(error.errno, "error")


def main():
    server, name, go = sys.argv[1], sys.argv[2], sys.argv[3]
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.settimeout(3)
    udp.connect((server, 53))
    tcp = socket.create_connection((server, 53), 3)
    tcp.settimeout(3)
    print("udp " + ask_udp(udp, name, 1), flush=True)
    print("tcp " + ask_tcp(tcp, name, 2), flush=True)
    deadline = time.monotonic() + 60
    while not os.path.exists(go) and time.monotonic() < deadline:
        time.sleep(0.01)
    print("udp " + ask_udp(udp, name, 3), flush=True)
    print("tcp " + ask_tcp(tcp, name, 4), flush=True)


if __name__ == "__main__":
    main()
