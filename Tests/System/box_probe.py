#!/usr/bin/env python3
"""Helpers the systemd-box suite runs inside the box (Tests/System/systemd-box-suite.sh).

  box_probe.py client ADDR NAME OUT STOP [AFTER_SOCKET]
      As the blocked user: every 20 ms, connect to ADDR on 443 and 80 and ask
      the system resolver for NAME; count the connections that succeeded
      (leaked) and the lookups that gave ADDR (hosts block missing). Stops
      when the file STOP exists, or AFTER_SOCKET seconds after the service's
      socket first answered; writes key=value lines to OUT.
  box_probe.py disrupt restart|kill ADDR NAME
      As root: runs `client` as uid 1000 and polls the service's socket every
      5 ms; restarts the service (systemctl restart) or SIGKILLs its main pid;
      prints the socket's longest silence (gap) and the client's counts.
  box_probe.py sockwatch OUT
      At boot: polls the socket every 5 ms until it answers; writes the
      CLOCK_MONOTONIC instant of that answer to OUT.
"""
import os
import socket
import subprocess
import sys
import threading
import time

SOCKET = "/run/retime/shield.sock"


def socket_answers(timeout=1.0):
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(timeout)
            s.connect(SOCKET)
            s.sendall(b'{"version":1,"op":"status"}\n')
            data = b""
            while not data.endswith(b"\n"):
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
            return data.startswith(b"{")
    except OSError:
        return False


def connects(addr, port):
    try:
        with socket.create_connection((addr, port), timeout=0.2):
            return True
    except OSError:
        return False


def client(addr, name, out, stop, after_socket=None):
    attempts = leaked = lookups = resolved_real = 0
    answered_at = None
    first_leak = None
    start = time.monotonic()
    while True:
        now = time.monotonic()
        if stop != "-" and os.path.exists(stop):
            break
        if after_socket is not None:
            if answered_at is None and socket_answers(0.2):
                answered_at = time.monotonic()
            if answered_at is not None and now - answered_at >= after_socket:
                break
            if now - start > 60:
                break
        for port in (443, 80):
            attempts += 1
            if connects(addr, port):
                leaked += 1
                first_leak = first_leak or round(now - start, 3)
        lookups += 1
        try:
            if any(info[4][0] == addr for info in socket.getaddrinfo(name, 443, socket.AF_INET, socket.SOCK_STREAM)):
                resolved_real += 1
        except OSError:
            pass
        time.sleep(max(0.0, 0.02 - (time.monotonic() - now)))
    with open(out + ".tmp", "w") as f:
        f.write(f"attempts={attempts}\nleaked={leaked}\nlookups={lookups}\nresolved_real={resolved_real}\n")
        f.write(f"first_leak_s={first_leak}\nstarted_monotonic={start:.6f}\n")
        if answered_at is not None:
            f.write(f"socket_answered_monotonic={answered_at:.6f}\n")
    os.rename(out + ".tmp", out)


def disrupt(kind, addr, name):
    out, stop = "/var/tmp/box-client.out", "/var/tmp/box-client.stop"
    for path in (out, stop):
        if os.path.exists(path):
            os.remove(path)
    probe = subprocess.Popen(["setpriv", "--reuid=1000", "--regid=1000", "--init-groups", sys.executable,
                              os.path.abspath(__file__), "client", addr, name, out, stop])
    samples = []
    done = threading.Event()

    def watch():
        while not done.is_set():
            samples.append((time.monotonic(), socket_answers(1.0)))
            time.sleep(0.005)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        time.sleep(0.5)
        t0 = time.monotonic()
        if kind == "restart":
            subprocess.run(["systemctl", "restart", "retime-shield.service"])
        else:
            pid = subprocess.run(["systemctl", "show", "-p", "MainPID", "--value", "retime-shield.service"],
                                 capture_output=True, text=True).stdout.strip()
            if pid.isdigit() and int(pid) > 1:   # never kill(0): that is our own process group
                os.kill(int(pid), 9)
            else:
                print(f"no_main_pid={pid!r}")
        # Until the socket has answered again after a silence (at most 10 s), then 2 s more.
        while time.monotonic() < t0 + 10:
            after = [s for s in samples if s[0] >= t0]
            silent = [s for s in after if not s[1]]
            if silent and any(s[1] and s[0] > silent[0][0] for s in after):
                break
            if not silent and time.monotonic() - t0 > 3:
                break   # never silent
            time.sleep(0.01)
        time.sleep(2)
    finally:
        done.set()
        watcher.join()
        open(stop, "w").close()
        probe.wait(timeout=10)
    # The longest silence: from the last answer before it to the first after
    # (or to the end, when it never answered again).
    gap, last_ok, silent_since = 0.0, None, None
    for at, ok in samples:
        if ok:
            if silent_since is not None and last_ok is not None:
                gap = max(gap, at - last_ok)
            last_ok, silent_since = at, None
        elif silent_since is None:
            silent_since = at
    recovered = bool(samples) and samples[-1][1]
    if not recovered and last_ok is not None:
        gap = max(gap, samples[-1][0] - last_ok)
    print(f"gap_s={gap:.3f}")
    print(f"recovered={'yes' if recovered else 'no'}")
    print(f"socket_polls={len(samples)}")
    with open(out) as f:
        sys.stdout.write(f.read())


def sockwatch(out):
    start = time.monotonic()
    while time.monotonic() - start < 60:
        if socket_answers(0.5):
            break
        time.sleep(0.005)
    with open(out + ".tmp", "w") as f:
        f.write(f"watch_started_monotonic={start:.6f}\nsocket_answered_monotonic={time.monotonic():.6f}\n")
    os.rename(out + ".tmp", out)


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "client":
        client(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], float(sys.argv[6]) if len(sys.argv) > 6 else None)
    elif mode == "disrupt":
        disrupt(sys.argv[2], sys.argv[3], sys.argv[4])
    elif mode == "sockwatch":
        sockwatch(sys.argv[2])
    else:
        sys.exit(__doc__)
