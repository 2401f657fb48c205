#!/usr/bin/env python3
"""Judges a power-cut run (powercut.sh): for each boot after a cut, what the state disk held
against what the player had written before the cut, and prints the figures.

  analyze.py OUT_DIR CYCLES       exit status 1 when any check failed

Per cut (cycle N, judged at boot N+1, from cycle N's player.log, whose lines reached the host
as they were written, and boot N+1's found.json, read before the player started):
  - where the cut landed: mid-save (a "resume: writing record K" without "record K written"),
    mid-scan of the new stick (no "library: scanned" for it yet), or between saves;
  - the state found: "new" (the record being written when the power went, or the last one
    written when none was being written) or "old" (the last one written before the record the cut
    interrupted); anything else (an older record, no state, a state without its queue) fails;
  - the player's own reading (its "resume: resume.state: state record S[, position record P]"
    line) must match; "ignoring saved state" fails;
  - bookmarks.json must parse and never be set aside, and its newest bookmark must be that of the
    save being written when the power went or of the last one written (the player logs each save
    with its newest bookmark); e2fsck -p must not find errors it cannot fix;
  - each index must pass PRAGMA integrity_check, and the player's scan of the new stick says
    whether it opened it (how many files it read again) or rebuilt it.
"""
import json
import os
import re
import sys

out, cycles = sys.argv[1], int(sys.argv[2])
WRITING = re.compile(r"resume: writing record (\d+) \((\w+), slot (\d)\)")
WRITTEN = re.compile(r"resume: record (\d+) written")
READ = re.compile(r"resume: resume\.state: state record (\d+)(?:, position record (\d+))?")
VOLUME = re.compile(r"library: volume (\S+) at (\S+)")
BOOKMARKS_WRITING = re.compile(r"bookmarks: writing save (\d+): newest (.*) at frame (-?\d+)( finished)?$", re.M)
BOOKMARKS_WRITTEN = re.compile(r"bookmarks: save (\d+) written")
SCANNED = re.compile(r"library: scanned (\S+) in [0-9.]+ s: (\d+) tracks, (\d+) files read")


def cycle_dir(n):
    return os.path.join(out, "cycle-%03d" % n)


def text(n, name):
    path = os.path.join(cycle_dir(n), name)
    return open(path, errors="replace").read() if os.path.exists(path) else ""


def load_json(n, name):
    try:
        return json.loads(text(n, name))
    except ValueError:
        return None


def variants():
    result = {}
    path = os.path.join(out, "cycles.tsv")
    for line in (open(path).read().splitlines()[1:] if os.path.exists(path) else []):
        fields = line.split("\t")
        result[int(fields[0])] = (int(fields[1]), fields[2])
    return result


def scan_of_new_stick(log):
    volumes = {m.group(1): m.group(2) for m in VOLUME.finditer(log)}
    for m in SCANNED.finditer(log):
        if volumes.get(m.group(1), "").endswith("KIOSKNEW"):
            return int(m.group(3))
    return None


failures = []
rows = []
counts = {}


def count(key):
    counts[key] = counts.get(key, 0) + 1


stick = variants()
last_written = None  # the last record the player wrote (carried over cycles that wrote none)
ever_played = False
last_bookmark = None  # the newest bookmark of the last bookmarks.json the player wrote
indexed = None  # the new stick's file set the index last held in full (the last scan that ended)
for n in range(1, cycles + 1):
    log = text(n, "player.log")
    written = [int(m.group(1)) for m in WRITTEN.finditer(log)]
    writing = [(int(m.group(1)), m.group(2)) for m in WRITING.finditer(log)]
    in_flight = [(k, kind) for k, kind in writing if k not in written and (not written or k > max(written))]
    if written:
        last_written = max(written)
    mid_save = in_flight[-1] if in_flight else None
    scanned = scan_of_new_stick(log)
    if scanned is not None:
        indexed = stick.get(n, (None,))[0]
    where = ("mid-save (%s record %d)" % (mid_save[1], mid_save[0])) if mid_save else "between saves"
    if scanned is None and os.path.exists(os.path.join(cycle_dir(n), "armed")):
        where += ", mid-scan"
    saves = {int(m.group(1)): [m.group(2), int(m.group(3)), bool(m.group(4))] for m in BOOKMARKS_WRITING.finditer(log)}
    saved = [int(m.group(1)) for m in BOOKMARKS_WRITTEN.finditer(log)]
    bookmark_in_flight = None
    if saves:
        newest_save = max(saves)
        if newest_save in saved:
            last_bookmark = saves[newest_save]
        else:
            bookmark_in_flight = saves[newest_save]
            if saved:
                last_bookmark = saves[max(saved)]
    if bookmark_in_flight:
        where += ", mid-bookmarks-save"
        count("cut mid-bookmarks-save")
    count("cut " + ("mid-save" if mid_save else "between saves"))
    if scanned is None:
        count("cut mid-scan of the new stick")

    # boot n+1: what the disk held
    nxt = n + 1
    found = load_json(nxt, "found.json")
    nlog = text(nxt, "player.log")
    problems = []
    if found is None:
        problems.append("boot %d: no state check (the guest did not get that far: %s)" % (nxt, text(nxt, "guest.log")[-200:]))
        rows.append((n, stick.get(n, (0, "?"))[1], where, "-", "-", "-", "; ".join(problems)))
        failures += problems
        continue
    resume = found.get("resume") or {}
    effective = resume.get("effectiveSequence")
    expected_new = mid_save[0] if mid_save else last_written
    if last_written is None and mid_save is None:
        outcome = "none yet" if effective is None else "record %d" % effective
    elif effective is None:
        outcome = "LOST"
        problems.append("boot %d: no valid state (last written %s, in flight %s)" % (nxt, last_written, mid_save))
    elif effective == expected_new:
        outcome = "new"
    elif mid_save and effective == last_written:
        outcome = "old"
    else:
        outcome = "WRONG (record %d)" % effective
        problems.append("boot %d: state record %s, expected %s%s" % (
            nxt, effective, expected_new, " or %s" % last_written if mid_save else ""))
    count("state " + outcome.split(" (")[0])
    if outcome in ("new", "old"):
        # what boot n+1 starts from: an interrupted write that made it is the newest state now
        last_written = effective
    state = resume.get("state") or {}
    if ever_played and not state.get("relativePath"):
        problems.append("boot %d: the state forgot the queue" % nxt)
    ever_played = ever_played or bool(state.get("relativePath"))
    m = READ.search(nlog)
    if m and effective is not None:
        player_read = max(int(m.group(1)), int(m.group(2) or 0))
        if player_read != effective:
            problems.append("boot %d: the player read record %d, the checker %d" % (nxt, player_read, effective))
    if "ignoring saved state" in nlog:
        problems.append("boot %d: %s" % (nxt, [l for l in nlog.splitlines() if "ignoring saved state" in l][0]))
    if "resuming " in nlog:
        count("resumed playing" if state.get("playing") else "resumed paused or stopped")
    if isinstance(found.get("bookmarks"), str) or found.get("bookmarksBad"):
        problems.append("boot %d: bookmarks.json damaged: %s" % (nxt, found.get("bookmarks")))
    elif last_bookmark or bookmark_in_flight:
        newest = found.get("bookmarksNewest")
        if bookmark_in_flight and newest == bookmark_in_flight:
            count("bookmarks new")
            last_bookmark = newest
        elif newest == last_bookmark:
            count("bookmarks new" if not bookmark_in_flight else "bookmarks old")
        else:
            problems.append("boot %d: bookmarks.json's newest bookmark is %s, expected %s%s" % (
                nxt, newest, last_bookmark, " or %s" % bookmark_in_flight if bookmark_in_flight else ""))
    fsck = text(nxt, "found.env")
    fm = re.search(r"fsck_status=(\d+)", fsck)
    if fm and int(fm.group(1)) >= 2:
        problems.append("boot %d: e2fsck -p status %s: %s" % (nxt, fm.group(1), text(nxt, "fsck.txt")[:300]))
    # the indexes
    index_note = []
    for name, result in (found.get("indexes") or {}).items():
        if result.get("integrity") != "ok":
            index_note.append("%s damaged (%s)" % (name, result.get("integrity")))
            if "damaged and was rebuilt" not in nlog and "cannot be used" not in nlog:
                problems.append("boot %d: index %s fails integrity_check and the player did not rebuild it" % (nxt, name))
    rebuilt = "damaged and was rebuilt" in nlog
    read_again = scan_of_new_stick(nlog)
    if rebuilt:
        index_verdict = "rebuilt"
    elif read_again is None:
        index_verdict = "not scanned before the next cut"
    elif stick.get(nxt, (None,))[0] != indexed:
        index_verdict = "opened, updated (other files: %d read)" % read_again
    elif read_again == 0:
        index_verdict = "opened, nothing to read"
    else:
        index_verdict = "opened, %d files read again" % read_again
    count("index " + index_verdict.split(" (")[0].split(",")[0] if not rebuilt else "index rebuilt")
    if index_note:
        index_verdict += "; " + ", ".join(index_note)
    rows.append((n, stick.get(n, (0, "?"))[1], where, outcome, "%s/%s" % (resume.get("stateSequence"), resume.get("positionSequence")),
                 index_verdict, "; ".join(problems)))
    failures += problems

print()
print("| cut | when | landed | state found | state/position record | new stick's index at the next boot | problem |")
print("|---|---|---|---|---|---|---|")
for row in rows:
    print("| %s |" % " | ".join(str(c) for c in row))
print()
print("figures: %d cuts; %s" % (cycles, ", ".join("%s %d" % (k, v) for k, v in sorted(counts.items()))))
if failures:
    print("FAILED: %d problem(s):" % len(failures))
    for f in failures:
        print("  " + f)
    sys.exit(1)
print("PASS: every boot found the state the player wrote last or was writing, and opened or rebuilt its index")
