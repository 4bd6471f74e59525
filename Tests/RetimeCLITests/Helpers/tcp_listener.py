#!/usr/bin/env python3
"""Stands in for websites in the firewall tests: listens on port PORT of
every ADDRESS given, accepts every connection and keeps it open (a client's
connection ends only when something cuts it). Prints "ready" once listening.

usage: tcp_listener.py PORT ADDRESS...
"""
import selectors
import socket
import sys


def main():
    port, addresses = int(sys.argv[1]), sys.argv[2:]
    selector = selectors.DefaultSelector()
    for address in addresses:
        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        server = socket.socket(family, socket.SOCK_STREAM)
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind((address, port))
        server.listen(128)
        selector.register(server, selectors.EVENT_READ)
    print("ready", flush=True)
    kept = []
    while True:
        for key, _ in selector.select():
            connection, _ = key.fileobj.accept()
            kept.append(connection)


if __name__ == "__main__":
    main()
