# SPDX-License-Identifier: GPL-3.0-or-later
"""A box for the phone page's tests: `kiosk-player demo` (its generated library, no sound card, the
screen as a PNG) with an event script that shows a card at a set time, and `kiosk-web` talking to
it through its MPD socket, both the real programs of .build. Requests go through http.client from a
chosen loopback source address (127.0.0.2, 127.0.0.3, ... stand for other machines on the LAN:
libmicrohttpd's per-address limit counts them apart)."""
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from urllib.parse import quote

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Box:
    def __init__(self, card_at_ms=None, again_at_ms=None, card="04A2B3C4D5", build=None):
        self.build = build or os.environ.get("WEB_TEST_BUILD", os.path.join(REPO, ".build", "debug"))
        self.dir = tempfile.mkdtemp(prefix="kiosk-web-test.")
        self.port = free_port()
        self.card = card
        script = os.path.join(self.dir, "script.jsonl")
        with open(script, "w") as f:
            if card_at_ms is not None:
                f.write(json.dumps({"t": card_at_ms, "card": card}) + "\n")
                f.write(json.dumps({"t": card_at_ms + 500, "cardRemoved": card}) + "\n")
            if again_at_ms is not None:
                f.write(json.dumps({"t": again_at_ms, "card": card}) + "\n")
        self.player_log = open(os.path.join(self.dir, "player.log"), "w+")
        args = [os.path.join(self.build, "kiosk-player"), "demo", "--dir", self.dir, "--device", "none",
                "--screen", "png"]
        if card_at_ms is not None:
            args += ["--script", script]
        self.player = subprocess.Popen(args, stdout=self.player_log, stderr=subprocess.STDOUT,
                                       stdin=subprocess.DEVNULL)
        self.socket = os.path.join(self.dir, "mpd.socket")
        # The demo writes its library first; the event script's clock starts with the appliance, when
        # its MPD socket appears.
        self.wait_for(lambda: os.path.exists(self.socket), 120, "the player's start")
        self.started = time.monotonic()
        self.wait_for(lambda: "scanned" in self.log(), 60, "the player's scan")
        self.config = os.path.join(self.dir, "web.json")
        with open(self.config, "w") as f:
            # Uploads go to the demo's library folder, which the player scans.
            self.music = os.path.join(self.dir, "music")
            json.dump({"web": {"enabled": True, "port": self.port, "musicFolder": self.music, "maxUploadMB": 64},
                       "mpd": {"socket": self.socket}}, f)
        self.web_log = open(os.path.join(self.dir, "web.log"), "w+")
        self.web = subprocess.Popen([os.path.join(self.build, "kiosk-web"), "--config", self.config],
                                    stdout=self.web_log, stderr=subprocess.STDOUT)
        self.wait_for(self.answers, 20, "kiosk-web listening")

    def log(self):
        with open(os.path.join(self.dir, "player.log")) as f:
            return f.read()

    def weblog(self):
        with open(os.path.join(self.dir, "web.log")) as f:
            return f.read()

    def answers(self):
        try:
            self.request("GET", "/")
            return True
        except OSError:
            return False

    @staticmethod
    def wait_for(predicate, seconds, what):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if predicate():
                return
            time.sleep(0.1)
        raise AssertionError("timed out waiting for " + what)

    def request(self, method, path, body=None, headers=None, source="127.0.0.1", session=None, timeout=10):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout, source_address=(source, 0))
        h = dict(headers or {})
        if session is not None:
            h["Cookie"] = "kiosk_session=" + session["token"]
            if method in ("POST", "PUT") and "X-CSRF-Token" not in h and session.get("csrf"):
                h["X-CSRF-Token"] = session["csrf"]
        data = None
        if body is not None:
            data = body if isinstance(body, (bytes, str)) else json.dumps(body)
            h.setdefault("Content-Type", "application/json")
        conn.request(method, path, body=data, headers=h)
        r = conn.getresponse()
        payload = r.read()
        conn.close()
        try:
            parsed = json.loads(payload) if payload else {}
        except ValueError:
            parsed = payload
        return r.status, dict(r.getheaders()), parsed

    def code(self, after=0):
        """The pairing code the box shows and says, from the player's journal (its log here)."""
        found = []
        def seen():
            found[:] = re.findall(r"pairing code (\d{6}) shown", self.log())[after:]
            return bool(found)
        self.wait_for(seen, 10, "a pairing code on the box")
        return found[-1]

    def pair(self, source="127.0.0.1"):
        codes = len(re.findall(r"pairing code (\d{6}) shown", self.log()))
        status, _, _ = self.request("POST", "/api/pair/code", {}, source=source)
        assert status == 200, status
        code = self.code(after=codes)
        status, headers, body = self.request("POST", "/api/pair", {"code": code}, source=source)
        assert status == 200, (status, body)
        cookie = headers["Set-Cookie"]
        for attribute in ("HttpOnly", "SameSite=Strict", "Max-Age=", "Path=/"):
            assert attribute in cookie, cookie
        token = re.match(r"kiosk_session=([0-9a-f]{64});", cookie).group(1)
        return {"token": token, "csrf": body["csrf"], "id": body["session"]}

    def mpd(self, command):
        """The player's answer to `command`, each name's first value."""
        out = {}
        for name, value in self.mpd_list(command):
            out.setdefault(name, value)
        return out

    def mpd_list(self, command):
        """The player's answer to `command`, every (name, value) in order."""
        with socket.socket(socket.AF_UNIX) as s:
            s.connect(self.socket)
            f = s.makefile("rwb")
            f.readline()
            f.write(command.encode() + b"\n")
            f.flush()
            out = []
            while True:
                line = f.readline().decode().rstrip("\n")
                if line == "OK" or line.startswith("ACK"):
                    return out
                name, _, value = line.partition(": ")
                out.append((name, value))

    def upload(self, path, data, session, piece=256 * 1024, source="127.0.0.1"):
        """Uploads `data` as the page does: begin, then pieces from where the box has the file.
        Returns the last answer (status, body)."""
        status, _, body = self.request("POST", "/api/music/upload", {"path": path, "size": len(data)},
                                       session=session, source=source)
        if status != 200:
            return status, body
        uid, received = body["id"], body["received"]
        while received < len(data):
            status, _, body = self.request(
                "PUT", "/api/music/upload?id=%s&path=%s&offset=%d" % (uid, quote(path), received),
                data[received:received + piece], session=session,
                headers={"Content-Type": "application/octet-stream"}, source=source)
            if status != 200:
                return status, body
            received = body["received"]
        return status, body

    def play_upload(self, uri):
        """Waits for the player's library to hold `uri` (an upload: "music/…", the library folder's
        name first), then plays it alone; returns the player's current song."""
        Box.wait_for(lambda: self.mpd(f'lsinfo "{uri}"').get("file") == uri, 30, "the player's library to hold the upload")
        self.mpd("clear")
        self.mpd(f'add "{uri}"')
        self.mpd("play")
        Box.wait_for(lambda: self.mpd("status").get("state") == "play", 10, "the upload playing")
        return self.mpd("currentsong")

    def demo_flac(self):
        """A FLAC of the demo library (written by libFLAC's encoder), its path and bytes."""
        for root, _, files in sorted(os.walk(self.music)):
            for name in sorted(files):
                if name.endswith(".flac"):
                    with open(os.path.join(root, name), "rb") as f:
                        return os.path.join(root, name), f.read()
        raise AssertionError("no FLAC in the demo library")

    def rss_kb(self, process):
        with open(f"/proc/{process.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])

    def close(self):
        for p in (self.web, self.player):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
        if os.environ.get("WEB_TEST_KEEP"):
            print("kept:", self.dir)
        else:
            shutil.rmtree(self.dir, ignore_errors=True)
