"""Times a command: `time_runs.py RUNS SETUP WORD...` runs `bash -c
"WORD..."` RUNS times, running SETUP (a shell command, untimed; "" for
none) before each, and prints "median ms | p90 ms" for a markdown table.
Shared by the scripts in bench/.

With `--direct` before the words, no shell runs: the words are split at
`&&` into commands, each started directly (fork and exec, as hyperfine's
`-N` does) and required to succeed. In direct mode `{from}` and `{to}` in a
word become the run's own minute-long interval in the year 2000, for
Timewarrior, which refuses to stop an interval in the second it started."""
import datetime
import subprocess
import sys
import time

runs, setup, words = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
direct = bool(words) and words[0] == "--direct"
if direct:
    words = words[1:]
    commands = [[]]
    for word in words:
        if word == "&&":
            commands.append([])
        else:
            commands[-1].append(word)


def run_once(index):
    if not direct:
        subprocess.run(["bash", "-c", " ".join(words)], check=True, stdout=subprocess.DEVNULL)
        return
    start = datetime.datetime(2000, 1, 1) + datetime.timedelta(minutes=2 * index)
    fill = {"{from}": start.isoformat(), "{to}": (start + datetime.timedelta(minutes=1)).isoformat()}
    for command in commands:
        argv = [fill.get(word, word) for word in command]
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


samples = []
for index in range(runs):
    if setup:
        subprocess.run(["bash", "-c", setup], check=True, stdout=subprocess.DEVNULL)
    start = time.perf_counter()
    run_once(index)
    samples.append((time.perf_counter() - start) * 1000)
samples.sort()
print(f"{samples[len(samples) // 2]:.2f} ms | {samples[int(len(samples) * 0.9)]:.2f} ms")
