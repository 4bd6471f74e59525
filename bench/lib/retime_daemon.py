"""The daemon under measure, for bench/wayland-*.sh (run from the repository's root)."""
import os, subprocess, time


def start_daemon(binary, data, env):
    """Starts `retime daemon run` on `data` and returns its process once `daemon status` answers."""
    daemon = subprocess.Popen([binary, "--data-dir", data, "daemon", "run"], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(300):
        if subprocess.run([binary, "--data-dir", data, "daemon", "status"], env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0: break
        time.sleep(0.05)
    return daemon


def cpu(pid):
    """utime + stime of the whole process (threads that ended included), in ms."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")
