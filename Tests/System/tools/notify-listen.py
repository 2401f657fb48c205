#!/usr/bin/env python3
"""systemd's side of sd_notify for a service started by hand (system test 21).

  notify-listen.py SOCKET LOG

Binds the datagram socket SOCKET (give it to the service as $NOTIFY_SOCKET) and appends one line
per message to LOG: the monotonic time in milliseconds, then the message with its newlines as `|`
(`12345 WATCHDOG=1`, `12001 READY=1|STATUS=…`). Runs until killed.

  notify-listen.py --gaps LOG

Prints what systemd's watchdog would judge: `pings=N`, `max_gap_ms=…` (the longest time between
READY=1 or a WATCHDOG=1 and the next WATCHDOG=1, or the end of the log's last line's time).
"""
import os
import socket
import sys
import time


def listen(path, log):
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(path)
    with open(log, "a", buffering=1) as out:
        while True:
            data = s.recv(65536)
            now = int(time.monotonic() * 1000)
            out.write(f"{now} {data.decode(errors='replace').replace(chr(10), '|')}\n")


def gaps(log, until_ms):
    last = None
    pings = 0
    longest = 0
    with open(log) as f:
        for line in f:
            stamp, _, message = line.rstrip("\n").partition(" ")
            t = int(stamp)
            fields = message.split("|")
            if "READY=1" in fields and last is None:
                last = t
            elif "WATCHDOG=1" in fields and last is not None:
                pings += 1
                longest = max(longest, t - last)
                last = t
    if last is not None and until_ms is not None:
        longest = max(longest, until_ms - last)
    print(f"pings={pings}")
    print(f"max_gap_ms={longest if last is not None else -1}")


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "--gaps":
        gaps(sys.argv[2], int(time.monotonic() * 1000))
    elif len(sys.argv) == 3:
        listen(sys.argv[1], sys.argv[2])
    else:
        sys.exit(__doc__)
