#!/usr/bin/env python3
"""The firewall tests' client: connects to ADDRESS:PORT and prints
"connected" or the error's name. With --hold, it then waits up to SECONDS
for the connection to end and prints how: "cut: ERROR" when something
destroyed it, "closed" when the peer closed it, "open" when it outlived the
wait.

usage: tcp_client.py ADDRESS PORT [--hold SECONDS]
"""
import errno
import socket
import sys


def main():
    address, port = sys.argv[1], int(sys.argv[2])
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    client = socket.socket(family, socket.SOCK_STREAM)
    client.settimeout(3)
    try:
        client.connect((address, port))
    except OSError as error:
        print(errno.errorcode.get(error.errno, "timeout") if error.errno else "timeout", flush=True)
        return
    print("connected", flush=True)
    if len(sys.argv) > 4 and sys.argv[3] == "--hold":
        client.settimeout(float(sys.argv[4]))
        try:
            data = client.recv(1)
            print("closed" if not data else "data", flush=True)
        except socket.timeout:
            print("open", flush=True)
        except OSError as error:
            print("cut: " + errno.errorcode.get(error.errno, str(error.errno)), flush=True)


if __name__ == "__main__":
    main()
