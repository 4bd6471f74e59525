#!/usr/bin/env python3
"""A DNS responder for the firewall tests: answers A and AAAA questions from
a JSON file of {name: [address, ...]} read again whenever it changes (so a
test can change an answer while a block is up), with the time-to-live given on the
command line; names it does not hold get NXDOMAIN. Answers over UDP and,
on the same port, over TCP (each message after its two-byte length).
Writes "ready" to stdout once it listens.

usage: dns_responder.py ADDRESS PORT RECORDS.json TTL
"""
import ipaddress
import json
import os
import socket
import struct
import sys
import threading


def answer(query, records, ttl):
    if len(query) < 12:
        return None
    ident, flags, qdcount = struct.unpack("!HHH", query[:6])
    offset, labels = 12, []
    while offset < len(query) and query[offset] != 0:
        length = query[offset]
        labels.append(query[offset + 1:offset + 1 + length].decode("ascii", "replace"))
        offset += 1 + length
    offset += 1
    if offset + 4 > len(query):
        return None
    qtype, _ = struct.unpack("!HH", query[offset:offset + 4])
    question = query[12:offset + 4]
    name = ".".join(labels).lower()
    if name not in records:
        return struct.pack("!HHHHHH", ident, 0x8183, 1, 0, 0, 0) + question
    rdatas = []
    for text in records[name]:
        address = ipaddress.ip_address(text)
        if qtype == 1 and address.version == 4 or qtype == 28 and address.version == 6:
            rdatas.append(address.packed)
    body = b"".join(struct.pack("!HHHIH", 0xC00C, qtype, 1, ttl, len(r)) + r for r in rdatas)
    return struct.pack("!HHHHHH", ident, 0x8180, 1, len(rdatas), 0, 0) + question + body


def load(path):
    with open(path) as file:
        return {k.lower(): v for k, v in json.load(file).items()}


def serve_tcp(listener, path, ttl):
    while True:
        connection, _ = listener.accept()
        with connection:
            try:
                data = b""
                while True:
                    chunk = connection.recv(4096)
                    if not chunk:
                        break
                    data += chunk
                    while len(data) >= 2 and len(data) >= 2 + struct.unpack("!H", data[:2])[0]:
                        length = struct.unpack("!H", data[:2])[0]
                        query, data = data[2:2 + length], data[2 + length:]
                        reply = answer(query, load(path), ttl)
                        if reply:
                            connection.sendall(struct.pack("!H", len(reply)) + reply)
            except OSError:
                pass


def main():
    address, port, path, ttl = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    server = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    server.bind((address, port))
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((address, port))
    listener.listen(16)
    threading.Thread(target=serve_tcp, args=(listener, path, ttl), daemon=True).start()
    print("ready", flush=True)
    records, seen = {}, None
    while True:
        query, peer = server.recvfrom(4096)
        stamp = os.stat(path).st_mtime_ns
        if stamp != seen:
            records = load(path)
            seen = stamp
        reply = answer(query, records, ttl)
        if reply:
            server.sendto(reply, peer)


if __name__ == "__main__":
    main()
