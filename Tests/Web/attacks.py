#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Attack tests against the real running phone page (kiosk-web on libmicrohttpd, talking to a real
kiosk-player demo): no session refused on every route, CSRF refused, code guessing bounded,
oversize requests refused, 1000 connections and a slowloris client leaving a paired phone working.
Prints one line per check and the measured figures; exits 1 if any check failed.
Usage: Tests/Web/attacks.py   (after `swift build`; WEB_TEST_BUILD=DIR for another build)"""
import json
import os
import re
import socket
import sys
import threading
import time
from urllib.parse import quote

sys.path.insert(0, os.path.dirname(__file__))
from box import Box  # noqa: E402

failures = []


def check(name, ok, detail=""):
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else "  -- " + str(detail)))
    if not ok:
        failures.append(name)


ROUTES = [("GET", "/api/session"), ("GET", "/api/status"), ("GET", "/api/cards"),
          ("GET", "/api/collections?category=album"), ("GET", "/api/events"), ("POST", "/api/control"),
          ("POST", "/api/volume"), ("POST", "/api/cards/link"), ("POST", "/api/cards/unlink"), ("POST", "/api/cards/rename"),
          ("POST", "/api/logout"), ("GET", "/api/unknown"), ("PUT", "/api/status"), ("GET", "/api/../api/status"),
          ("GET", "/api/music"), ("POST", "/api/music/upload"), ("PUT", "/api/music/upload?id=0-1&path=a.flac&offset=0"),
          ("POST", "/api/music/delete"), ("GET", "/api/settings"), ("POST", "/api/settings"),
          ("GET", "/api/problems"), ("GET", "/api/set"), ("POST", "/api/set/check"), ("POST", "/api/set/import")]


def main():
    box = Box()
    try:
        run(box)
    finally:
        box.close()
    print(f"attacks: {len(failures)} failed" if failures else "attacks: all passed")
    return 1 if failures else 0


def run(box):
    # 1. Without a session: refused everywhere; with a made-up cookie too.
    for method, path in ROUTES:
        status, _, _ = box.request(method, path, {} if method != "GET" else None)
        check(f"no session: {method} {path} refused (401)", status == 401, status)
        status, _, _ = box.request(method, path, {} if method != "GET" else None,
                                   session={"token": "ab" * 32, "csrf": "cd" * 32})
        check(f"made-up session: {method} {path} refused (401)", status == 401, status)
    status, headers, body = box.request("GET", "/")
    check("the page itself is served (no data in it) with its security policy",
          status == 200 and "frame-ancestors 'none'" in headers.get("Content-Security-Policy", ""), headers)

    # 2. Guessing codes, from another machine (127.0.0.4): 5 wrong end the code; codes come at most
    # one per 10 s; the guesser is locked out after 10 wrong.
    status, _, _ = box.request("POST", "/api/pair", {"code": "123456"}, source="127.0.0.4")
    check("a code typed while none shows is refused", status == 403, status)
    status, _, _ = box.request("POST", "/api/pair/code", {}, source="127.0.0.4")
    code = box.code()
    wrong = "000000" if code != "000000" else "111111"
    answers = [box.request("POST", "/api/pair", {"code": wrong}, source="127.0.0.4")[0] for _ in range(5)]
    status, _, _ = box.request("POST", "/api/pair", {"code": code}, source="127.0.0.4")
    check("five wrong codes end the code: the right one is refused after them", answers == [403] * 5 and status == 403,
          (answers, status))
    status, headers, _ = box.request("POST", "/api/pair/code", {}, source="127.0.0.4")
    check("a new code at once is refused (429, Retry-After)", status == 429 and "Retry-After" in headers, status)
    check("the guesses are logged with the address", "127.0.0.4: wrong pairing code" in box.weblog())

    # 3. A paired phone (127.0.0.1), after the code interval.
    time.sleep(10.5)
    phone = box.pair()
    status, _, body = box.request("GET", "/api/status", session=phone)
    check("the paired phone reads the status", status == 200 and "volume" in body, (status, body))
    volume = int(box.mpd("status")["volume"])
    target = 33 if volume != 33 else 34

    # 4. CSRF: a change without the token, with another token, as a form, or from another site.
    no_csrf = dict(phone, csrf=None)
    status, _, _ = box.request("POST", "/api/volume", {"volume": target}, session=no_csrf)
    check("a change without its CSRF token is refused (403)", status == 403, status)
    status, _, _ = box.request("POST", "/api/volume", {"volume": target}, session=phone,
                               headers={"X-CSRF-Token": "0" * 64})
    check("a change with a wrong CSRF token is refused (403)", status == 403, status)
    status, _, _ = box.request("POST", "/api/volume", "volume=%d" % target, session=phone,
                               headers={"Content-Type": "application/x-www-form-urlencoded"})
    check("a change sent as a form (what a cross-site form can send) is refused (415)", status == 415, status)
    status, _, _ = box.request("POST", "/api/volume", {"volume": target}, session=phone,
                               headers={"Origin": "http://evil.example", "Host": f"127.0.0.1:{box.port}"})
    check("a change from another site's page is refused (403)", status == 403, status)
    check("none of them changed the volume", int(box.mpd("status")["volume"]) == volume)
    status, _, body = box.request("POST", "/api/volume", {"volume": target}, session=phone)
    check("with its token the change is made", status == 200 and int(box.mpd("status")["volume"]) == target,
          (status, body))
    check("the change is logged with its session", f"session {phone['id']} (127.0.0.1): volume {target}" in box.weblog())

    # 5. Oversize: a declared body over 4 KiB, a chunked one, huge headers.
    status, _, _ = box.request("POST", "/api/volume", b"x" * 100_000, session=phone)
    check("a 100 kB body is refused (413)", status == 413, status)
    with socket.create_connection(("127.0.0.1", box.port), timeout=10) as s:
        s.sendall(f"POST /api/volume HTTP/1.1\r\nHost: x\r\nCookie: kiosk_session={phone['token']}\r\n"
                  f"X-CSRF-Token: {phone['csrf']}\r\nContent-Type: application/json\r\n"
                  "Transfer-Encoding: chunked\r\n\r\n".encode())
        for _ in range(10):
            s.sendall(b"400\r\n" + b" " * 1024 + b"\r\n")
        s.sendall(b"0\r\n\r\n")
        reply = s.recv(200).decode(errors="replace")
    check("a chunked body over 4 KiB is refused (413)", reply.startswith("HTTP/1.1 413"), reply[:40])
    with socket.create_connection(("127.0.0.1", box.port), timeout=10) as s:
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 200_000 + b"\r\n\r\n")
        try:
            reply = s.recv(200).decode(errors="replace")
        except ConnectionResetError:
            reply = "reset"
    check("200 kB of headers are refused", reply == "reset" or reply == "" or reply.startswith("HTTP/1.1 4"), reply[:40])

    # 6. 1000 connections from one machine (127.0.0.2), a slowloris from another (127.0.0.3): the
    # phone's page still works, and the server's RSS stays bounded.
    rss_before = box.rss_kb(box.web)
    held, refused = [], 0
    for _ in range(1000):
        try:
            s = socket.create_connection(("127.0.0.1", box.port), timeout=2, source_address=("127.0.0.2", 0))
            held.append(s)
        except OSError:
            refused += 1
    stop = threading.Event()
    loris = []

    def slowloris():
        for _ in range(8):
            try:
                s = socket.create_connection(("127.0.0.1", box.port), timeout=2, source_address=("127.0.0.3", 0))
                s.sendall(b"GET / HTTP/1.1\r\n")
                loris.append(s)
            except OSError:
                pass
        while not stop.wait(2):
            for s in list(loris):
                try:
                    s.sendall(b"X-a: b\r\n")
                except OSError:
                    loris.remove(s)

    thread = threading.Thread(target=slowloris)
    thread.start()
    time.sleep(1)
    # Of the 1000, libmicrohttpd keeps 8 (per address) and closes the rest at accept.
    alive = 0
    for s in held:
        s.setblocking(False)
        try:
            data = s.recv(1)
            alive += 0 if data == b"" else 1
        except BlockingIOError:
            alive += 1
        except OSError:
            pass
    ok = []
    for i in range(5):
        status, _, body = box.request("GET", "/api/status", session=phone)
        ok.append(status)
        status, _, _ = box.request("POST", "/api/volume", {"volume": 40 + i}, session=phone)
        ok.append(status)
        time.sleep(0.5)
    check("with 1000 connections and a slowloris, the phone's page answers every request", ok == [200] * 10, ok)
    check("the flood holds at most 8 connections (per-address limit)", alive <= 8, alive)
    check("the player obeyed the phone meanwhile", int(box.mpd("status")["volume"]) == 44)
    rss_during = box.rss_kb(box.web)
    # The slowloris keeps sending: libmicrohttpd closes connections idle 10 s, and the flood's 4
    # sit idle: they are gone after it.
    time.sleep(12)
    gone = 0
    for s in held:
        try:
            s.setblocking(True)
            s.settimeout(0.2)
            if s.recv(1) == b"":
                gone += 1
        except socket.timeout:
            pass
        except OSError:
            gone += 1
    check("idle connections are closed after the 10 s timeout", gone == len(held), (gone, len(held)))
    stop.set()
    thread.join()
    for s in held + loris:
        s.close()
    print(f"figures: flood {len(held)} accepted by the kernel, {refused} refused at connect, "
          f"{alive} kept by the server; kiosk-web RSS {rss_before} kB before, {rss_during} kB during")

    uploads(box, phone)
    settings(box, phone)
    sets(box, phone)
    for body, why in (({"card": "0000000031", "name": ""}, "an empty name"),
                      ({"card": "0000000031", "name": "x" * 101}, "a name over 100 bytes"),
                      ({"card": "0000000099", "name": "New"}, "a card not linked"),
                      ({"card": "../../etc", "name": "New"}, "not a card number")):
        status, _, answer = box.request("POST", "/api/cards/rename", body, session=phone)
        check(f"rename refused: {why} (400, with the reason)", status == 400 and answer.get("error"), (status, answer))

    # 7. After the abuse: the phone still works; logout ends the session.
    status, _, _ = box.request("GET", "/api/cards", session=phone)
    check("after the flood the phone's page still answers", status == 200, status)
    status, _, _ = box.request("POST", "/api/logout", {}, session=phone)
    status2, _, _ = box.request("GET", "/api/status", session=phone)
    check("logout ends the session", status == 200 and status2 == 401, (status, status2))
    check("the player is still running", box.player.poll() is None and box.web.poll() is None)


def settings(box, phone):
    """9. Settings: checked by the player's config parser; a refused one changes nothing."""
    status, _, problems = box.request("GET", "/api/problems", session=phone)
    check("the box check is read (the demo runs no check at start)",
          status == 200 and problems.get("checked") is False and problems.get("problems") == []
          and problems.get("lines") == [], (status, problems))
    status, _, before = box.request("GET", "/api/settings", session=phone)
    check("the settings are read", status == 200 and before.get("volumeMax") == 100, (status, before))
    for body, why in (({"volumeMax": 0}, "a volume limit of 0"), ({"volumeMin": 101}, "a lowest volume over 100"),
                      ({"board": "pirate-audio"}, "a key of the box's hardware"),
                      ({"speech": {"mode": "shout"}}, "an unknown speech mode"),
                      ({"idlePowerOffMinutes": "10; rm -rf /"}, "a string for a number"),
                      ({"bedtime": {"windows": "always"}}, "bedtime windows that are not a list"),
                      ({"bedtime": {"wake": "25:00"}}, "a wake time of 25:00"),
                      ({"bedtime": {"dailyMinutes": 10 ** 19}}, "a daily budget near 2^63")):
        status, _, answer = box.request("POST", "/api/settings", body, session=phone)
        check(f"settings refused: {why} (400, with the reason)", status == 400 and answer.get("error"), (status, answer))
    status, _, after = box.request("GET", "/api/settings", session=phone)
    check("the refused settings changed nothing", after == before, (before, after))
    check("nothing was kept for the next start", not os.path.exists(os.path.join(box.dir, "state", "imported-settings.json")))
    status, _, answer = box.request("POST", "/api/settings", {"volumeMax": 90, "speech": {"mode": "off"}}, session=phone)
    check("a valid change is taken; speech from the next start", status == 200 and answer.get("volumeMax") == 90
          and answer.get("now") == ["volumeMax"] and answer.get("nextStart") == ["speech"], (status, answer))
    check("the change is logged with its session",
          re.search(r"settings volumeMax, speech changed by session [0-9a-f]{8}", box.log()) is not None)


def sets(box, phone):
    """10. The box's set saved to the phone and given back: checked whole by the stick's parser,
    nothing changed by a check or a refused file, an oversize one refused by the server."""
    status, headers, saved = box.request("GET", "/api/set", session=phone)
    check("the box's set is saved as kiosk-set.json", status == 200 and saved.get("format") == "kiosk-player-set"
          and 'filename="kiosk-set.json"' in headers.get("Content-Disposition", ""), (status, headers, saved))
    cards_before = box.mpd("kioskcards")
    wanted = {"format": "kiosk-player-set", "version": 1, "bookmarks": [],
              "cards": {"0000000031": {"action": "stop"}, "0000000032": {"action": "next"}}}
    text = json.dumps(wanted, indent=2)
    status, _, _ = box.request("POST", "/api/set/import", text, session={"token": phone["token"]})
    check("an import without the CSRF token is refused (403)", status == 403, status)
    status, _, _ = box.request("POST", "/api/set/import", text, session=phone,
                               headers={"Content-Type": "text/plain"})
    check("an import sent as text (what a cross-site form can send) is refused (415)", status == 415, status)
    for body, why, says in (
            ("{", "a file cut short", "the set from the phone"),
            (json.dumps({"format": "something-else", "version": 1}), "another program's file", "not a kiosk-player set"),
            (json.dumps({"format": "kiosk-player-set", "version": 9}), "a newer version", "this box reads version 1"),
            (json.dumps(dict(wanted, cards={"0000000031": {"action": "rm -rf /"}})), "an unknown action", "unknown action"),
            (json.dumps({"format": "kiosk-player-set", "version": 1, "bookmarks": [
                {"volumeID": "A", "category": "folder", "key": "k", "relativePath": "../../etc/shadow"}]}),
             "a bookmark leading out of its stick", "'..'"),
            (json.dumps({"format": "kiosk-player-set", "version": 1, "settings": {"stateDirectory": "/etc"}}),
             "a setting of the box's paths", "belongs to the box"),
            (b"\x00\xff" * 1000, "binary bytes", "the set from the phone")):
        status, _, answer = box.request("POST", "/api/set/import", body, session=phone)
        error = answer.get("error", "") if isinstance(answer, dict) else ""
        check(f"set refused: {why} (400, saying {says!r})", status == 400 and says in error, (status, answer))
    status, _, _ = box.request("POST", "/api/set/import", b" " * (300 << 10), session=phone)
    check("a set over 256 KiB is refused by the server (413)", status == 413, status)
    status, _, answer = box.request("POST", "/api/set/check", text, session=phone)
    check("a check says what the file holds", status == 200 and answer.get("summary") == "2 cards, 0 bookmarks"
          and answer.get("imported") is False, (status, answer))
    check("neither the check nor the refusals changed the cards", box.mpd("kioskcards") == cards_before)
    status, _, answer = box.request("POST", "/api/set/import", text, session=phone)
    cards = box.mpd_list("kioskcards")
    check("the import replaces the box's cards", status == 200 and answer.get("imported") is True
          and [v for k, v in cards if k == "card"] == ["0000000031", "0000000032"], (status, answer, cards))
    check("the import is logged with its session",
          re.search(r"imported a set \(2 cards, 0 bookmarks\)", box.weblog()) is not None
          and f"session {phone['id']}" in box.log())
    # The player's state writer keeps it on its own thread: waited for, not expected at once.
    before = os.path.join(box.dir, "state", "kiosk-set.before-import.json")
    try:
        Box.wait_for(lambda: os.path.exists(before), 10, "the state before the import")
    except AssertionError:
        pass
    check("the state before it is kept for one undo", os.path.exists(before))


def uploads(box, phone):
    """8. Music from the phone: a real FLAC arrives whole and plays; hostile uploads are refused with
    a clear message, nothing lands outside the music folder, and the box plays on meanwhile."""
    source, flac = box.demo_flac()
    box.mpd("clear")
    box.mpd('add "%s"' % os.path.relpath(source, box.dir))
    box.mpd("repeat 1")
    box.mpd("play")
    before = set(os.listdir(box.dir))

    def refused(path, size, expect, why):
        status, _, body = box.request("POST", "/api/music/upload", {"path": path, "size": size}, session=phone)
        check(f"upload refused: {why} ({expect})", status == expect and "error" in body, (status, body))

    refused("../../escape.flac", 100, 400, "a path leading out of the music folder")
    refused("a/../../escape.flac", 100, 400, "'..' inside the path")
    refused(".hidden.flac", 100, 400, "a hidden name")
    refused("notes.txt", 100, 415, "a file the player does not play")
    refused("huge.flac", 65 << 20, 413, "larger than web.maxUploadMB")
    refused("huge.flac", (1 << 63) - 1, 400, "a size near 2^63")
    refused("1/2/3/4/5/deep.flac", 100, 400, "too deep")
    # A piece without the CSRF token, of another upload id, over the piece limit.
    status, _, body = box.request("POST", "/api/music/upload", {"path": "Phone/x.flac", "size": 1000}, session=phone)
    uid = body.get("id", "")
    status, _, _ = box.request("PUT", f"/api/music/upload?id={uid}&path=Phone/x.flac&offset=0", b"fLaC",
                               session=dict(phone, csrf=None), headers={"Content-Type": "application/octet-stream"})
    check("a piece without the CSRF token is refused (403)", status == 403, status)
    status, _, _ = box.request("PUT", f"/api/music/upload?id={uid}&path=Phone/other.flac&offset=0", b"fLaC",
                               session=phone, headers={"Content-Type": "application/octet-stream"})
    check("a piece for another path than its upload's is refused (404)", status == 404, status)
    status, _, _ = box.request("PUT", f"/api/music/upload?id={uid}&path=Phone/x.flac&offset=0", b"\0" * (300 << 10),
                               session=phone, headers={"Content-Type": "application/octet-stream"})
    check("a piece over 256 KiB is refused (413)", status == 413, status)
    # A name that says FLAC on bytes that are not: refused once whole, nothing kept.
    status, body = box.upload("Phone/fake.flac", b"MZ" + b"\0" * 5000, phone)
    check("a .flac that is not FLAC is refused when whole (415)", status == 415 and "not a music file" in body.get("error", ""),
          (status, body))
    check("nothing of it is kept", not os.path.exists(os.path.join(box.music, "Phone", "fake.flac")))

    # A slow upload: a piece that stops arriving is closed by the server's timeout; the page and the
    # box go on.
    status, _, body = box.request("POST", "/api/music/upload", {"path": "Phone/slow.flac", "size": len(flac)},
                                  session=phone)
    slow = socket.create_connection(("127.0.0.1", box.port), timeout=20, source_address=("127.0.0.5", 0))
    slow.sendall(f"PUT /api/music/upload?id={body['id']}&path=Phone/slow.flac&offset=0 HTTP/1.1\r\nHost: x\r\n"
                 f"Cookie: kiosk_session={phone['token']}\r\nX-CSRF-Token: {phone['csrf']}\r\n"
                 f"Content-Type: application/octet-stream\r\nContent-Length: 200000\r\n\r\n".encode() + flac[:1000])
    status, _, _ = box.request("GET", "/api/status", session=phone)
    check("while a piece stalls, the page answers", status == 200, status)

    # A real FLAC in pieces, with a piece lost on the way (the page resumes where the box says).
    path = "Phone/Lullaby from the phone.flac"
    status, _, body = box.request("POST", "/api/music/upload", {"path": path, "size": len(flac)}, session=phone)
    uid = body["id"]
    status, _, body = box.request("PUT", f"/api/music/upload?id={uid}&path={quote(path)}&offset=0", flac[:100_000],
                                  session=phone, headers={"Content-Type": "application/octet-stream"})
    status, _, body = box.request("PUT", f"/api/music/upload?id={uid}&path={quote(path)}&offset=200000",
                                  flac[200_000:300_000], session=phone,
                                  headers={"Content-Type": "application/octet-stream"})
    check("a piece after a gap is refused with where the file ends (409)", status == 409 and body.get("received") == 100_000,
          (status, body))
    status, body = box.upload(path, flac, phone, piece=100_000)
    target = os.path.join(box.music, "Phone", "Lullaby from the phone.flac")
    same = os.path.exists(target) and open(target, "rb").read() == flac
    check("the FLAC arrives whole, byte for byte, under its name", status == 200 and body.get("complete") and same,
          (status, body))
    check("the upload is logged with its session",
          f"session {phone['id']} (127.0.0.1): uploaded Phone/Lullaby from the phone.flac" in box.weblog())
    # The player names a library folder's files under the folder's name (MPD's lsinfo shows "music/").
    rel = "music/Phone/Lullaby from the phone.flac"
    song = box.play_upload(rel)
    check("the player plays the uploaded file", song.get("file") == rel, song)
    slow.close()
    check("nothing was written outside the music folder", set(os.listdir(box.dir)) == before,
          set(os.listdir(box.dir)) ^ before)
    status, _, listing = box.request("GET", "/api/music?folder=Phone", session=phone)
    names = [e["name"] for e in listing.get("entries", [])]
    check("the folder lists the upload and hides the unfinished parts", names == ["Lullaby from the phone.flac"], listing)
    # Deleting: a file outside by '..', then the upload itself.
    status, _, _ = box.request("POST", "/api/music/delete", {"path": "../web.json"}, session=phone)
    check("a deletion leading out of the folder is refused", status == 400 and os.path.exists(box.config), status)
    box.mpd("stop")
    status, _, _ = box.request("POST", "/api/music/delete", {"path": "Phone/Lullaby from the phone.flac"}, session=phone)
    check("the upload is deleted", status == 200 and not os.path.exists(target), status)
    Box.wait_for(lambda: "file" not in box.mpd(f'lsinfo "{rel}"'), 30, "the player's library to drop the file")
    check("the player's library drops it", True)


if __name__ == "__main__":
    sys.exit(main())
