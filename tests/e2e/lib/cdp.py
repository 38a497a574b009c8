# SPDX-License-Identifier: MIT
"""cdp.py: a headless Chromium driven over the DevTools protocol, through
--remote-debugging-pipe (fd 3 in, fd 4 out, messages ended by NUL): no
websocket, no npm package, the standard library only. For the html page's
tests (tests/e2e/html.sh); not a test itself.

    with Browser() as b:
        page = b.page("file:///tmp/x.html")
        page.wait("window.ssReport && window.ssReport.ready")
        page.eval("1 + 1")            # -> 2
        page.mouse("mouseMoved", 100, 200)
        page.screenshot("/tmp/x.png")
        page.errors                   # exceptions and console errors seen
"""
import base64
import json
import os
import shutil
import subprocess
import tempfile
import time

CHROMIUM = os.environ.get("SS_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


class Browser:
    def __init__(self, width=1400, height=900):
        if not CHROMIUM:
            raise FileNotFoundError("no chromium")
        self.dir = tempfile.mkdtemp(prefix="ss-cdp-")
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()

        def fds():
            # chromium reads fd 3 and writes fd 4; a pipe made with these
            # numbers already is close-on-exec, and dup2 onto itself keeps that
            for fd, want in ((to_chrome_r, 3), (from_chrome_w, 4)):
                if fd == want:
                    os.set_inheritable(fd, True)
                else:
                    os.dup2(fd, want)

        self.proc = subprocess.Popen(
            [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--disable-extensions", "--remote-debugging-pipe",
             "--user-data-dir=" + self.dir, "--window-size=%d,%d" % (width, height),
             "about:blank"],
            preexec_fn=fds, close_fds=False,
            stdout=subprocess.DEVNULL, stderr=open(os.path.join(self.dir, "stderr"), "w"))
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buf = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None, timeout=30):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.to_chrome, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            m = self.read(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            self.events.append(m)

    def read(self, deadline):
        while b"\0" not in self.buf:
            if time.monotonic() > deadline:
                raise TimeoutError("no answer from chromium")
            chunk = os.read(self.from_chrome, 1 << 16)
            if not chunk:
                raise EOFError("chromium closed its pipe")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\0", 1)
        return json.loads(line)

    def page(self, url):
        t = self.send("Target.createTarget", {"url": "about:blank"})
        s = self.send("Target.attachToTarget", {"targetId": t["targetId"], "flatten": True})
        p = Page(self, s["sessionId"])
        for d in ("Runtime.enable", "Page.enable", "Log.enable"):
            p.send(d)
        p.send("Page.navigate", {"url": url})
        return p

    def close(self):
        try:
            self.send("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.close()


class Page:
    def __init__(self, browser, session):
        self.b = browser
        self.session = session

    def send(self, method, params=None, timeout=30):
        return self.b.send(method, params, self.session, timeout)

    @property
    def errors(self):
        """Exceptions thrown in the page, console errors, log errors."""
        out = []
        for e in self.b.events:
            if e.get("sessionId") != self.session:
                continue
            m, p = e.get("method"), e.get("params", {})
            if m == "Runtime.exceptionThrown":
                d = p.get("exceptionDetails", {})
                out.append("exception: " + str(d.get("exception", {}).get("description") or d.get("text")))
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append("console.%s: %s" % (p["type"], " ".join(
                    str(a.get("value", a.get("description"))) for a in p.get("args", []))))
            elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                out.append("log: " + p["entry"].get("text", ""))
        return out

    def eval(self, expr, timeout=30):
        r = self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                           "awaitPromise": True}, timeout)
        if "exceptionDetails" in r:
            raise RuntimeError("eval %r: %s" % (expr, r["exceptionDetails"].get("text")))
        return r["result"].get("value")

    def wait(self, expr, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if self.eval(expr):
                    return True
            except RuntimeError:
                pass
            time.sleep(0.1)
        raise TimeoutError("page: %s never true" % expr)

    def mouse(self, kind, x, y, button="none", buttons=0, clicks=0):
        self.send("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": button,
                                               "buttons": buttons, "clickCount": clicks})

    def screenshot(self, path, full=True):
        params = {"format": "png"}
        if full:
            params["captureBeyondViewport"] = True
        r = self.send("Page.captureScreenshot", params, timeout=60)
        with open(path, "wb") as f:
            f.write(base64.b64decode(r["data"]))
