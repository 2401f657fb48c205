#!/usr/bin/env python3
"""What a player's state directory holds, read independently of the player (the power-cut test
runs it before each start). Prints one JSON object:

  resume: the valid records of resume.state (region, slot, sequence) and the state they make:
          the newest valid state record, with the newest valid position record naming it
          (the format of Sources/KioskCore/ResumeStore.swift and Sources/KioskSystem/SlotFile.swift);
  legacy: whether an old resume.json is there and parses;
  bookmarks: whether bookmarks.json is there and parses; bookmarksNewest: its newest bookmark
          (the last in the file) as [relativePath, positionFrames, finished];
  indexes: each library/*.sqlite: PRAGMA integrity_check on a copy (database + WAL), rows.

  state-check.py STATE_DIR
"""
import json
import os
import shutil
import sqlite3
import struct
import sys
import tempfile
import zlib

REGIONS = {"position": (b"KPRP", 0, 512), "state": (b"KPRS", 4096, 16384)}


def decode(slot, magic):
    if len(slot) < 20 or slot[:4] != magic:
        return None
    sequence, length, crc = struct.unpack_from("<QII", slot, 4)
    if length > len(slot) - 20:
        return None
    payload = slot[20:20 + length]
    if zlib.crc32(payload, zlib.crc32(slot[:16])) != crc:
        return None
    return sequence, payload


def resume(path):
    if not os.path.exists(path):
        return None
    data = open(path, "rb").read()
    found = {"size": len(data), "records": []}
    records = {}
    for name, (magic, offset, size) in REGIONS.items():
        records[name] = []
        for slot in (0, 1):
            start = offset + slot * size
            record = decode(data[start:start + size], magic)
            if record:
                records[name].append((record[0], slot, record[1]))
                found["records"].append({"region": name, "slot": slot, "sequence": record[0]})
        records[name].sort(reverse=True)
    for sequence, slot, payload in records["state"]:
        try:
            state = json.loads(payload)
        except ValueError:
            continue
        found.update(stateSequence=sequence, stateSlot=slot, positionSequence=None)
        for psequence, pslot, p in records["position"]:
            if psequence <= sequence or len(p) != 21:
                continue
            base, frames, flags, sleep = struct.unpack("<QqBI", p)
            if base != sequence:
                continue
            state["positionFrames"] = frames
            state["playing"] = bool(flags & 1)
            found.update(positionSequence=psequence, positionSlot=pslot)
            break
        found["state"] = {k: state.get(k) for k in ("relativePath", "positionFrames", "sampleRate", "playing",
                                                     "queueIndex", "queueCount", "volumePercent")}
        found["effectiveSequence"] = max(sequence, found["positionSequence"] or 0)
        break
    return found


def parses(path):
    if not os.path.exists(path):
        return None
    try:
        json.load(open(path))
        return True
    except ValueError as error:
        return str(error)


def index(path):
    with tempfile.TemporaryDirectory() as scratch:
        copy = os.path.join(scratch, "index.sqlite")
        for suffix in ("", "-wal"):
            if os.path.exists(path + suffix):
                shutil.copyfile(path + suffix, copy + suffix)
        try:
            db = sqlite3.connect(copy)
            check = db.execute("PRAGMA integrity_check").fetchall()
            rows = db.execute("SELECT count(*) FROM files").fetchone()[0]
            db.close()
            return {"integrity": "; ".join(r[0] for r in check), "rows": rows}
        except sqlite3.Error as error:
            return {"integrity": "error: %s" % error, "rows": None}


def newest_bookmark(path):
    try:
        marks = json.load(open(path)).get("bookmarks") or []
    except (OSError, ValueError, AttributeError):
        return None
    if not marks:
        return None
    last = marks[-1]
    return [last.get("relativePath"), int(last.get("positionFrames", 0)), bool(last.get("finished"))]


def main():
    state = sys.argv[1]
    library = os.path.join(state, "library")
    indexes = {}
    if os.path.isdir(library):
        for name in sorted(os.listdir(library)):
            if name.endswith(".sqlite"):
                indexes[name] = index(os.path.join(library, name))
    print(json.dumps({
        "resume": resume(os.path.join(state, "resume.state")),
        "legacy": parses(os.path.join(state, "resume.json")),
        "bookmarks": parses(os.path.join(state, "bookmarks.json")),
        "bookmarksBad": os.path.exists(os.path.join(state, "bookmarks.json.bad")),
        "bookmarksNewest": newest_bookmark(os.path.join(state, "bookmarks.json")),
        "indexes": indexes,
    }))


main()
