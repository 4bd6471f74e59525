#!/usr/bin/env python3
"""Asks one DNS question, as the name layer's tests need it: over UDP or
TCP, to a server and port, and prints the answer's code (NOERROR, NXDOMAIN,
...) and its addresses, or "timeout" / the error's name.

usage: dns_query.py udp|tcp SERVER PORT NAME [COUNT]
COUNT > 1 sends that many questions as fast as it can over UDP (a flood)
and prints how many were answered within a second of the last.
"""
import errno
import random
import socket
import struct
import sys

CODES = {0: "NOERROR", 2: "SERVFAIL", 3: "NXDOMAIN", 5: "REFUSED"}


def query(name, ident):
    body = b"".join(bytes([len(label)]) + label.encode() for label in name.rstrip(".").split(".")) + b"\0"
    return struct.pack("!HHHHHH", ident, 0x0100, 1, 0, 0, 0) + body + struct.pack("!HH", 1, 1)


def addresses(reply):
    count = struct.unpack("!H", reply[6:8])[0]
    offset = 12
    while reply[offset] != 0:
        offset += 1 + reply[offset]
    offset += 5
    found = []
    for _ in range(count):
        offset += 2 if reply[offset] & 0xC0 == 0xC0 else 0
        rtype, _, _, length = struct.unpack("!HHIH", reply[offset:offset + 10])
        if rtype == 1:
            found.append(socket.inet_ntoa(reply[offset + 10:offset + 14]))
        offset += 10 + length
    return found


def exchange_tcp(sock, message):
    """One question over a TCP DNS stream (a length before each message)."""
    sock.sendall(struct.pack("!H", len(message)) + message)
    data = b""
    while len(data) < 2 or len(data) < 2 + struct.unpack("!H", data[:2])[0]:
        chunk = sock.recv(4096)
        if not chunk:
            raise ConnectionResetError()
        data += chunk
    return data[2:]


def main():
    proto, server, port, name = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    count = int(sys.argv[5]) if len(sys.argv) > 5 else 1
    family = socket.AF_INET6 if ":" in server else socket.AF_INET
    ident = random.randrange(65536)
    try:
        if proto == "tcp":
            sock = socket.socket(family, socket.SOCK_STREAM)
            sock.settimeout(3)
            sock.connect((server, port))
            reply = exchange_tcp(sock, query(name, ident))
        else:
            sock = socket.socket(family, socket.SOCK_DGRAM)
            sock.settimeout(3 if count == 1 else 1)
            for index in range(count):
                sock.sendto(query(name, (ident + index) % 65536), (server, port))
            answered = 0
            reply = None
            try:
                while answered < count:
                    reply, _ = sock.recvfrom(4096)
                    answered += 1
            except socket.timeout:
                if count == 1:
                    raise
            if count > 1:
                print("answered %d" % answered)
                return
    except socket.timeout:
        print("timeout")
        return
    except OSError as error:
        print(errno.errorcode.get(error.errno, "error"))
        return
    code = CODES.get(reply[3] & 0x0F, str(reply[3] & 0x0F))
    print(" ".join([code] + addresses(reply)))


if __name__ == "__main__":
    main()
