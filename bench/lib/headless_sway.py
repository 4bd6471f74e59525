"""A sway of a benchmark's own, headless, in a runtime folder of its own
(never the machine's display); as nobody when run as root, since sway
refuses root. Imported by bench/wayland-*.sh (run from the repository's root)."""
import os, subprocess


class HeadlessSway:
    def __init__(self, work):
        """Makes `work`/runtime (the folder sway listens in) and its config; starts nothing."""
        self.runtime = work + "/runtime"
        os.mkdir(self.runtime, 0o700)
        self.config = work + "/sway.conf"
        open(self.config, "w").write("output * resolution 640x480\n")
        self.env = dict(PATH="/usr/bin:/bin", HOME=self.runtime, XDG_RUNTIME_DIR=self.runtime, WLR_BACKENDS="headless",
                        WLR_LIBINPUT_NO_DEVICES="1", WLR_RENDERER="pixman")
        self.launcher = []
        if os.getuid() == 0:
            os.chown(self.runtime, 65534, 65534)
            os.chmod(work, 0o755)
            self.launcher = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]

    def start(self):
        """Starts sway (not waiting for it); returns its process."""
        return subprocess.Popen(self.launcher + ["sway", "-c", self.config], env=self.env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
