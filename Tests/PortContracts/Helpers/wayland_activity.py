#!/usr/bin/env python3
"""User activity on a compositor with no virtual keyboard (KWin 5.27):
KDE's org_kde_kwin_idle_timeout.simulate_user_activity, which KWin hands to
every idle detector it has (ext-idle-notify's too), as a key would. Speaks
the Wayland wire protocol itself (no client library for Python here): the
socket is $XDG_RUNTIME_DIR/$WAYLAND_DISPLAY. Exits 0 once the compositor
has answered a sync after the request."""
import os
import socket
import struct
import sys


def message(obj, opcode, payload=b""):
    return struct.pack("<II", obj, ((8 + len(payload)) << 16) | opcode) + payload


def string(text):
    data = text.encode() + b"\0"
    return struct.pack("<I", len(data)) + data + b"\0" * (-len(data) % 4)


class Connection:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(10)
        self.sock.connect(path)
        self.buffer = b""

    def send(self, data):
        self.sock.sendall(data)

    def events(self):
        while True:
            while len(self.buffer) >= 8:
                obj, word = struct.unpack_from("<II", self.buffer)
                size = word >> 16
                if len(self.buffer) < size:
                    break
                payload, self.buffer = self.buffer[8:size], self.buffer[size:]
                yield obj, word & 0xFFFF, payload
            chunk = self.sock.recv(4096)
            if not chunk:
                raise SystemExit("the compositor closed the connection")
            self.buffer += chunk

    def sync(self, callback, globals_=None):
        self.send(message(1, 0, struct.pack("<I", callback)))  # wl_display.sync
        for obj, opcode, payload in self.events():
            if obj == 1 and opcode == 0:  # wl_display.error
                raise SystemExit("protocol error: %r" % payload)
            if obj == 2 and opcode == 0 and globals_ is not None:  # wl_registry.global
                name, length = struct.unpack_from("<II", payload)
                globals_[payload[8:8 + length - 1].decode()] = name
            if obj == callback and opcode == 0:
                return


def main():
    path = os.path.join(os.environ["XDG_RUNTIME_DIR"], os.environ["WAYLAND_DISPLAY"])
    wayland = Connection(path)
    wayland.send(message(1, 1, struct.pack("<I", 2)))  # get_registry -> 2
    globals_ = {}
    wayland.sync(3, globals_)
    if "org_kde_kwin_idle" not in globals_ or "wl_seat" not in globals_:
        raise SystemExit("no org_kde_kwin_idle or wl_seat: %s" % sorted(globals_))
    bind = lambda name, interface, new: message(2, 0, struct.pack("<I", globals_[name]) + string(interface) + struct.pack("<II", 1, new))
    wayland.send(bind("wl_seat", "wl_seat", 4) + bind("org_kde_kwin_idle", "org_kde_kwin_idle", 5))
    wayland.send(message(5, 0, struct.pack("<III", 6, 4, 60000)))  # get_idle_timeout(6, seat, 60 s)
    wayland.send(message(6, 1))  # simulate_user_activity
    wayland.sync(7)
    return 0


if __name__ == "__main__":
    sys.exit(main())
