"""Notes each time a hosts file starts or stops blocking example.com, polled
every millisecond for SECONDS: one line per change, "TIME UP" (Unix time,
1 when the block went up, 0 when it came down), written to OUT at the end.
Usage: python3 bench/lib/hosts_changes.py HOSTS OUT SECONDS"""
import sys, time

path, out, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])

def blocked():
    with open(path) as f:
        return "example.com" in f.read()

state, seen, end = blocked(), [], time.time() + seconds
while time.time() < end:
    now = blocked()
    if now != state:
        seen.append((time.time(), now))
        state = now
    time.sleep(0.001)
with open(out, "w") as f:
    for at, up in seen:
        f.write(f"{at:.6f} {int(up)}\n")
