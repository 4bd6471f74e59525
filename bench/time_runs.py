"""Times a shell command: `time_runs.py RUNS SETUP WORD...` runs `bash -c
"WORD..."` RUNS times, running SETUP (a shell command, untimed; "" for
none) before each, and prints "median ms | p90 ms" for a markdown table.
Shared by the scripts in bench/."""
import subprocess
import sys
import time

runs, setup, command = int(sys.argv[1]), sys.argv[2], " ".join(sys.argv[3:])
samples = []
for _ in range(runs):
    if setup:
        subprocess.run(["bash", "-c", setup], check=True, stdout=subprocess.DEVNULL)
    start = time.perf_counter()
    subprocess.run(["bash", "-c", command], check=True, stdout=subprocess.DEVNULL)
    samples.append((time.perf_counter() - start) * 1000)
samples.sort()
print(f"{samples[len(samples) // 2]:.2f} ms | {samples[int(len(samples) * 0.9)]:.2f} ms")
