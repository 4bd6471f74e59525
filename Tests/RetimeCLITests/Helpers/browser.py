#!/usr/bin/env python3
"""Drives one headless Chromium for the browser tests, over its DevTools
pipe (--remote-debugging-pipe: commands on fd 3, answers on fd 4), so the
same browser, with its DNS cache and open connections, loads page after
page. Reads commands on stdin, one a line, and answers each with a line:

  load URL                    -> "loaded TEXT" (the page's text) or "failed ERROR" (net::ERR_..., or
                                 "cut: ..." when the page stopped loading unfinished)
  until failed|loaded URL S   -> polls loads of URL until one fails (loads), at most S seconds:
                                 the last answer, then " after N loads"; "timeout: LAST" if none did

A load that neither fails nor loads within 10 s answers "timeout". A load
failed with ERR_NETWORK_CHANGED (Chromium aborts what is under way when it
hears the hosts file changed) is tried again, up to 3 times, as a user
would reload.
Prints "ready" once the browser is up, and stops with it or at end of input.

usage: browser.py CHROMIUM PROFILE-DIR [CHROMIUM-FLAG...]
"""
import ctypes
import json
import os
import queue
import subprocess
import sys
import threading
import time

LOAD_SECONDS = 10


class Browser:
    def __init__(self, chromium, profile, flags):
        to_browser, self.commands = os.pipe()
        self.answers, from_browser = os.pipe()

        def pipes():
            # Chromium dies with this script (PR_SET_PDEATHSIG, SIGKILL).
            ctypes.CDLL(None).prctl(1, 9)
            # Above 4 first, so that neither lands on the other's number.
            a, b = os.dup(to_browser), os.dup(from_browser)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.process = subprocess.Popen(
            [chromium, "--headless=new", "--remote-debugging-pipe", "--user-data-dir=" + profile,
             "--no-first-run", "--disable-features=HttpsUpgrades", "about:blank"] + flags,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=pipes, pass_fds=(3, 4))
        os.close(to_browser)
        os.close(from_browser)
        self.next_id, self.replies, self.events, self.network_changed = 0, {}, queue.Queue(), 0
        self.lock = threading.Condition()
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        buffer = b""
        while True:
            chunk = os.read(self.answers, 1 << 16)
            if not chunk:
                with self.lock:
                    self.replies[None] = "closed"
                    self.lock.notify_all()
                return
            buffer += chunk
            while b"\0" in buffer:
                message, buffer = buffer.split(b"\0", 1)
                message = json.loads(message)
                with self.lock:
                    if "id" in message:
                        self.replies[message["id"]] = message
                        self.lock.notify_all()
                    else:
                        self.events.put(message)

    def send(self, method, params=None, session=None, seconds=10):
        """The command's result, or None if it did not answer in time."""
        with self.lock:
            self.next_id += 1
            ident = self.next_id
        message = {"id": ident, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.commands, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + seconds
        with self.lock:
            while ident not in self.replies and None not in self.replies:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.lock.wait(left)
            reply = self.replies.pop(ident, None)
        if reply is None:
            raise SystemExit("the browser went away")
        if "error" in reply:
            raise RuntimeError("%s: %s" % (method, reply["error"]))
        return reply.get("result", {})

    def attach(self):
        targets = self.send("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.send("Target.attachToTarget", {"targetId": page["targetId"], "flatten": True})["sessionId"]
        self.send("Page.enable", session=self.session)
        self.send("Page.setLifecycleEventsEnabled", {"enabled": True}, self.session)

    def load(self, url):
        for _ in range(3):
            result = self.load_once(url)
            if result != "failed net::ERR_NETWORK_CHANGED":
                break
            self.network_changed += 1
        return result

    def load_once(self, url):
        """Navigates, then waits for the "load" lifecycle event of that
        navigation's own document (never the previous one's), or for the
        frame stopping with that document unfinished (a connection cut after
        the response's head: a blank page)."""
        deadline = time.monotonic() + LOAD_SECONDS
        while not self.events.empty():
            self.events.get_nowait()
        navigated = self.send("Page.navigate", {"url": url}, self.session, LOAD_SECONDS)
        if navigated is None:
            self.send("Page.stopLoading", session=self.session)
            return "timeout"
        if navigated.get("errorText"):
            return "failed " + navigated["errorText"]
        loader, frame = navigated.get("loaderId"), navigated.get("frameId")
        committed = False
        while True:
            try:
                event = self.events.get(timeout=max(0, deadline - time.monotonic()))
            except queue.Empty:
                self.send("Page.stopLoading", session=self.session)
                return "timeout"
            method, params = event.get("method"), event.get("params", {})
            if method == "Page.lifecycleEvent" and params.get("loaderId") == loader and params.get("frameId") == frame:
                committed = committed or params.get("name") == "init"
                if params.get("name") == "load":
                    break
            # Late events of the navigation before are told apart by their
            # loader: this one stops only once its own document began.
            if method == "Page.frameStoppedLoading" and params.get("frameId") == frame and committed:
                break
        page = self.send("Runtime.evaluate", {
            "expression": "[location.href, document.readyState, document.body ? document.body.innerText : '']",
            "returnByValue": True}, self.session, max(0.1, deadline - time.monotonic()))
        if page is None:
            return "timeout"
        href, state, text = page.get("result", {}).get("value", ["", "", ""])
        if href != url:
            return "failed: the browser shows %s" % href
        if state != "complete":
            return "failed cut: the page stopped loading unfinished (%s, %s)" % (state, href)
        return "loaded " + " ".join(str(text).split())


def main():
    browser = Browser(sys.argv[1], sys.argv[2], sys.argv[3:])
    browser.attach()
    print("ready", flush=True)
    for line in sys.stdin:
        words = line.split()
        if words[:1] == ["load"]:
            print(browser.load(words[1]), flush=True)
        elif words[:1] == ["until"]:
            wanted, url, deadline = words[1], words[2], time.monotonic() + float(words[3])
            loads, last, browser.network_changed = 0, "", 0
            while True:
                last, loads = browser.load(url), loads + 1
                if last.startswith(wanted):
                    retried = " (%d retried after ERR_NETWORK_CHANGED)" % browser.network_changed if browser.network_changed else ""
                    print("%s after %d loads%s" % (last, loads, retried), flush=True)
                    break
                if time.monotonic() > deadline:
                    print("timeout: " + last, flush=True)
                    break
        else:
            print("unknown command", flush=True)
    browser.process.terminate()
    browser.process.wait(10)


if __name__ == "__main__":
    main()
