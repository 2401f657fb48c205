#!/usr/bin/env python3
"""Abusive MPD clients and a fresh client's `status` latency while they run (system test 21).

  mpd-abuse.py SOCKET --seconds S [--setup COMMAND]... [--lists N] [--idle N] [--trickle N] [--silent N] [--deaf N]

Sends each --setup command on a client of its own first (e.g. `add KIOSKLIB`, `play`), then opens
the abusers on the player's Unix socket, all at once:
  lists:   `command_list_begin` and 4000 `add` commands, never ended (the tester's client);
  idle:    `idle` (a real idle client, which MPD keeps);
  trickle: one byte of `status` a second, never a whole line;
  silent:  connects and says nothing;
  deaf:    pipelines `listallinfo` and `status` and never reads its answers.
Then, for S seconds, connects a fresh client every 100 ms and times `status` from connect to OK.
Prints `key=value` figures: probes, failures, max_ms, p50_ms, the abusers still connected at the end;
--probes FILE also writes each probe's start (epoch µs) and milliseconds.
Exit status 0 unless the setup failed (the scenario judges the figures).
"""
import argparse
import resource
import select
import socket
import sys
import time


def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(path)
    return s


def read_greeting(s):
    data = b""
    while not data.endswith(b"\n"):
        chunk = s.recv(256)
        if not chunk:
            raise OSError("closed before the greeting")
        data += chunk
    return data


def command(s, line):
    """Sends one command line; returns the answer up to its OK or ACK."""
    s.sendall(line + b"\n")
    data = b""
    while not (data.endswith(b"OK\n") or b"ACK " in data):
        chunk = s.recv(65536)
        if not chunk:
            raise OSError("closed before the answer to " + line.decode(errors="replace"))
        data += chunk
    return data


def fresh_status(path, timeout):
    """Milliseconds from connect to the status's OK, and how long the connect and the greeting took
    of them (where a slow probe waited)."""
    start = time.monotonic()
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        s.connect(path)
        connected = time.monotonic()
        read_greeting(s)
        greeted = time.monotonic()
        data = command(s, b"status")
        if b"ACK " in data:
            raise OSError("status failed: " + data.decode(errors="replace"))
    finally:
        s.close()
    ms = lambda t: (t - start) * 1000
    return ms(time.monotonic()), ms(connected), ms(greeted)


def still_open(s):
    """Whether the server kept this connection (no EOF or reset waiting)."""
    s.setblocking(False)
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                return False
    except BlockingIOError:
        return True
    except OSError:
        return False


def main():
    p = argparse.ArgumentParser()
    p.add_argument("socket")
    p.add_argument("--seconds", type=float, default=20)
    p.add_argument("--lists", type=int, default=16)
    p.add_argument("--idle", type=int, default=16)
    p.add_argument("--trickle", type=int, default=16)
    p.add_argument("--silent", type=int, default=0)
    p.add_argument("--deaf", type=int, default=15)
    p.add_argument("--setup", action="append", default=[])
    p.add_argument("--probes", help="file for one line per probe: its start (epoch µs) and its ms")
    a = p.parse_args()

    if a.setup:
        s = connect(a.socket)
        read_greeting(s)
        for command_text in a.setup:
            data = command(s, command_text.encode())
            print(f"setup: {command_text}: {data.decode(errors='replace').strip().splitlines()[-1]}", flush=True)
        s.close()

    kinds = ["lists"] * a.lists + ["idle"] * a.idle + ["trickle"] * a.trickle + ["silent"] * a.silent
    kinds += ["deaf"] * a.deaf
    abusers = []
    for kind in kinds:
        s = connect(a.socket)
        read_greeting(s)
        if kind == "deaf":
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        abusers.append((kind, s))
    print(f"abusers={len(abusers)}", flush=True)

    list_bytes = b"command_list_begin\n" + b'add "x/y.flac"\n' * 4000
    deaf_bytes = b"listallinfo\nstatus\n" * 2000
    trickle_text = b"status"
    for kind, s in abusers:
        s.setblocking(False)
        try:
            if kind == "idle":
                s.send(b"idle\n")
            elif kind == "deaf":
                s.send(deaf_bytes)
        except BlockingIOError:
            pass

    latencies = []
    failures = []
    probe_log = open(a.probes, "w", buffering=1) if a.probes else None
    started = time.monotonic()
    next_trickle = started
    next_probe = started
    trickle_at = 0
    sent_lists = {s.fileno(): 0 for kind, s in abusers if kind == "lists"}
    lists = [s for kind, s in abusers if kind == "lists"]
    lists_done = None
    while time.monotonic() - started < a.seconds:
        # Sleep until a list socket takes more or the next trickle or probe is due (little CPU of
        # the guest's own: it is shared with the player).
        waiting = [s for s in lists if sent_lists[s.fileno()] < len(list_bytes)]
        if not waiting and lists_done is None:
            lists_done = time.monotonic()
        timeout = max(0, min(next_trickle, next_probe) - time.monotonic())
        if waiting:
            _, writable, _ = select.select([], waiting, [], timeout)
        else:
            time.sleep(timeout)
            writable = []
        for s in writable:
            try:
                sent_lists[s.fileno()] += s.send(list_bytes[sent_lists[s.fileno()]:])
            except BlockingIOError:
                pass
            except OSError:
                sent_lists[s.fileno()] = len(list_bytes)
        now = time.monotonic()
        if now >= next_trickle:
            byte = trickle_text[trickle_at % len(trickle_text):][:1]
            trickle_at += 1
            for kind, s in abusers:
                if kind == "trickle":
                    try:
                        s.send(byte)
                    except OSError:
                        pass
            next_trickle += 1.0
        if now >= next_probe:
            start_us = int(time.time() * 1e6)
            try:
                ms, connected_ms, greeted_ms = fresh_status(a.socket, 8)
                latencies.append(ms)
                if probe_log:
                    probe_log.write(f"{start_us} {ms:.1f} connected={connected_ms:.1f} greeted={greeted_ms:.1f}\n")
            except OSError as e:
                failures.append(str(e))
            next_probe = time.monotonic() + 0.1

    kept = {}
    for kind, s in abusers:
        kept[kind] = kept.get(kind, 0) + (1 if still_open(s) else 0)
    latencies.sort()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    # The driver's own CPU, and when the last list was taken: on an emulated CPU the driver is a
    # large share of what the probes wait for.
    print(f"driver_cpu_ms={(usage.ru_utime + usage.ru_stime) * 1000:.0f}")
    print(f"lists_done_s={lists_done - started:.1f}" if lists_done else "lists_done_s=-1")
    print(f"probes={len(latencies)}")
    print(f"failures={len(failures)}")
    for f in failures[:5]:
        print(f"failure: {f}")
    print(f"max_ms={latencies[-1] if latencies else -1:.1f}")
    print(f"p50_ms={latencies[len(latencies) // 2] if latencies else -1:.1f}")
    print(f"lists_taken={sum(1 for v in sent_lists.values() if v >= len(list_bytes))}")
    for kind in ["lists", "idle", "trickle", "silent", "deaf"]:
        if kind in kept:
            print(f"kept_{kind}={kept[kind]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
