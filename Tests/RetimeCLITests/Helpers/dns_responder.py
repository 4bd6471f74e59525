#!/usr/bin/env python3
"""A DNS responder for the firewall tests: answers A and AAAA questions from
a JSON file of {name: [address, ...]} read again whenever it changes (so a
test can change an answer while a block is up), with the time-to-live given on the
command line; names it does not hold get NXDOMAIN. Writes "ready" to stdout
once it listens.

usage: dns_responder.py ADDRESS PORT RECORDS.json TTL
"""
import ipaddress
import json
import os
import socket
import struct
import sys


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


def main():
    address, port, path, ttl = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    server = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    server.bind((address, port))
    print("ready", flush=True)
    records, seen = {}, None
    while True:
        query, peer = server.recvfrom(4096)
        stamp = os.stat(path).st_mtime_ns
        if stamp != seen:
            with open(path) as file:
                records = {k.lower(): v for k, v in json.load(file).items()}
            seen = stamp
        reply = answer(query, records, ttl)
        if reply:
            server.sendto(reply, peer)


if __name__ == "__main__":
    main()
