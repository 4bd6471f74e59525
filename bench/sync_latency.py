#!/usr/bin/env python3
"""Sync-to-visible latency of a data folder shared by Syncthing (issue 31).

Starts two Syncthing instances on 127.0.0.1 (homes of their own, no
discovery, relays, NAT or reports; the folder shared both ways with the
file watcher at its shortest delay, 1 s), runs retime on each copy with an
identity of its own, and times RUNS sessions tracked on A until B's
`retime log --json` lists them. Prints one markdown row for
docs/performance.md. Usage: sync_latency.py RETIME RUNS
"""
import json, os, re, shutil, signal, socket, statistics, subprocess, sys, tempfile, time, urllib.request, uuid

retime, runs = sys.argv[1], int(sys.argv[2])
root = tempfile.mkdtemp(prefix="retime-sync-bench-")
procs = []


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def env_for(home):
    env = dict(os.environ, HOME=home, STMONITORED="1", STNORESTART="1", STNOUPGRADE="1", STNOBROWSER="1")
    return env


class Instance:
    def __init__(self, name):
        self.name, self.home = name, f"{root}/{name}/syncthing"
        self.folder = f"{root}/{name}/data"
        os.makedirs(self.folder + "/.stfolder")
        with open(self.folder + "/.stignore", "w") as f:
            f.write("/device-id\n/device-id.*\n")
        subprocess.run(["syncthing", "generate", f"--home={self.home}", "--no-default-folder", "--skip-port-probing"],
                       env=env_for(self.home), check=True, capture_output=True)
        text = open(self.home + "/config.xml").read()
        self.id = re.search(r'<device id="([A-Z0-9-]{63})"', text).group(1)
        self.version = re.search(r'<configuration version="(\d+)"', text).group(1)
        self.key = "bench-" + uuid.uuid4().hex
        self.gui, self.listen = free_port(), free_port()

    def configure(self, peer):
        devices = "".join(f'<device id="{d.id}" name="{d.name}"><address>{a}</address></device>'
                          for d, a in ((self, "dynamic"), (peer, f"tcp://127.0.0.1:{peer.listen}")))
        members = "".join(f'<device id="{d.id}"></device>' for d in (self, peer))
        open(self.home + "/config.xml", "w").write(f"""<configuration version="{self.version}">
<folder id="retime" path="{self.folder}" type="sendreceive" rescanIntervalS="5" fsWatcherEnabled="true" fsWatcherDelayS="1">{members}
<minDiskFree unit="%">0</minDiskFree></folder>{devices}
<gui enabled="true" tls="false"><address>127.0.0.1:{self.gui}</address><apikey>{self.key}</apikey></gui>
<options><listenAddress>tcp://127.0.0.1:{self.listen}</listenAddress><globalAnnounceEnabled>false</globalAnnounceEnabled>
<localAnnounceEnabled>false</localAnnounceEnabled><relaysEnabled>false</relaysEnabled><natEnabled>false</natEnabled>
<stunKeepaliveStartS>0</stunKeepaliveStartS><urAccepted>-1</urAccepted><crashReportingEnabled>false</crashReportingEnabled>
<autoUpgradeIntervalH>0</autoUpgradeIntervalH><startBrowser>false</startBrowser><announceLANAddresses>false</announceLANAddresses>
<reconnectionIntervalS>1</reconnectionIntervalS><setLowPriority>false</setLowPriority><minHomeDiskFree unit="%">0</minHomeDiskFree></options>
</configuration>""")

    def start(self):
        log = open(self.home + "/syncthing.log", "w")
        procs.append(subprocess.Popen(["syncthing", "serve", f"--home={self.home}", "--no-browser"], env=env_for(self.home),
                                      stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL))

    def rest(self, path):
        request = urllib.request.Request(f"http://127.0.0.1:{self.gui}{path}", headers={"X-API-Key": self.key})
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.load(response)

    def retime(self, *args):
        env = dict(os.environ, HOME=self.folder + "-home", XDG_STATE_HOME=self.folder + "-home/.local/state", TZ="UTC")
        env.pop("RETIME_HOME", None)
        return subprocess.run([retime, "--data-dir", self.folder, *args], env=env, check=True, capture_output=True, text=True).stdout


def until(what, condition, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if condition():
                return
        except Exception:
            pass
        time.sleep(0.05)
    sys.exit(f"not within {seconds} s: {what}")


try:
    a, b = Instance("a"), Instance("b")
    a.configure(b)
    b.configure(a)
    for side in (a, b):
        os.makedirs(side.folder + "-home/.local/state/retime")
        ident = str(uuid.uuid4())
        for path in (side.folder + "-home/.local/state/retime/device-id", side.folder + "/device-id"):
            open(path, "w").write(ident + "\n")
        side.start()
    until("both connected", lambda: a.rest("/rest/system/connections")["connections"][b.id]["connected"]
          and b.rest("/rest/system/connections")["connections"][a.id]["connected"])
    a.retime("group", "create", "focus")
    until("the group on b", lambda: "focus" in b.retime("group", "list"))
    latencies = []
    for i in range(runs):
        start = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(1768464000 + i * 180))
        end = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(1768464000 + i * 180 + 120))
        note = f"bench-{i}"
        a.retime("track", "focus", "--from", start, "--to", end, "--note", note)
        written = time.monotonic()
        until(f"{note} on b", lambda: f'"note":"{note}"' in b.retime("log", "--json"))
        latencies.append(time.monotonic() - written)
    median, worst = statistics.median(latencies), max(latencies)
    version = subprocess.run(["syncthing", "--version"], capture_output=True, text=True).stdout.split()[1]
    print("| what | median | max | runs |")
    print("|---|---|---|---|")
    print(f"| a session tracked on A shown by `log` on B (Syncthing {version}, watcher delay 1 s) | {median * 1000:.0f} ms | {worst * 1000:.0f} ms | {runs} |")
finally:
    for p in procs:
        p.send_signal(signal.SIGTERM)
    for p in procs:
        try:
            p.wait(timeout=15)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    shutil.rmtree(root, ignore_errors=True)
