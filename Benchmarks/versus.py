#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Whole process against whole process: runs two commands alternately (A B, then B A, ...), each to
its end with its output thrown away, and prints the CPU (user + system, from wait4's rusage: every
thread, start-up and exit included) of each and the ratio of each pair, min / median / max.

    versus.py NAME GOAL ROUNDS -- OUR COMMAND... -- REFERENCE COMMAND...

GOAL is the ratio the pair must stay at or under (printed beside the figures, e.g. 0.8)."""
import os
import statistics
import subprocess
import sys


def cpu_seconds(command):
    """The CPU time of one run of `command` (stdout to /dev/null), and its exit status."""
    with open(os.devnull, "wb") as null:
        child = subprocess.Popen(command, stdout=null, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime, child.returncode


def main(argv):
    if len(argv) < 6 or argv[3] != "--" or argv[4:].count("--") != 1:
        sys.exit(__doc__)
    name, goal, rounds = argv[0], float(argv[1]), int(argv[2])
    split = argv.index("--", 4)
    ours, reference = argv[4:split], argv[split + 1:]
    mine, theirs, ratios = [], [], []
    for round_ in range(rounds):
        order = [(ours, mine), (reference, theirs)]
        if round_ % 2:
            order.reverse()
        for command, times in order:
            seconds, status = cpu_seconds(command)
            if status != 0:
                sys.exit(f"versus: {name}: {command[0]} exited with {status}")
            times.append(seconds)
        ratios.append(mine[-1] / max(theirs[-1], 1e-6))
    median = statistics.median(ratios)
    verdict = "met" if median <= goal else "NOT met"
    print(
        f"{name:<28} ours {statistics.median(mine) * 1000:8.1f} ms  ref {statistics.median(theirs) * 1000:8.1f} ms"
        f"  ratio min {min(ratios):.2f} median {median:.2f} max {max(ratios):.2f}"
        f"  (goal ≤ {goal:.2f}: {verdict}; {os.path.basename(reference[0])})"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
