#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs a test command (`swift test …`) with its whole output in a file and prints what a person needs:
# each failure with its details and the player's log lines from that test's run, the skipped and
# cancelled tests, then the summaries, last. The suite's own output (a line per test, the player's log
# of every test: ~3 500 lines) stays in the file.
#
#   Tests/quiet.sh COMMAND…        KIOSK_TEST_VERBOSE=1: everything, as it comes
#
# The exit status is the command's.
set -uo pipefail
log=${KIOSK_TEST_OUTPUT:-.build/test-output.log}
mkdir -p "$(dirname "$log")"
if [ "${KIOSK_TEST_VERBOSE:-0}" = 1 ]; then
    "$@" 2>&1 | tee "$log"
    exit "${PIPESTATUS[0]}"
fi
echo "tests: running (the whole output goes to $log; KIOSK_TEST_VERBOSE=1 shows it as it comes)"
"$@" >"$log" 2>&1
status=$?
# swift-testing marks a test's start "◇ Test NAME started." and its failure "✘ Test NAME failed
# after …"; an issue is "✘ Test NAME recorded an issue at FILE:LINE: …" followed by indented lines.
# The player's log lines start "<N>" (a syslog level). Tests run in parallel, so a failed test's log
# lines are those between its start and its end: other tests' lines may be among them.
awk '
    function name_of(line, verb,    rest) {
        rest = line
        sub(/^[^ ]+ Test /, "", rest)
        sub(" " verb ".*", "", rest)
        return rest
    }
    { lines[NR] = $0 }
    /^◇ Test .* started\.$/ { started[name_of($0, "started")] = NR }
    /^✘ Test .* failed after/ && !/^✘ Test run with/ {
        failed[name_of($0, "failed")] = NR
        order[++failures] = name_of($0, "failed")
    }
    /^[^ <]+ Test .* (skipped: |was cancelled|cancelled after)|Executed [0-9]+ tests|^(✘|✔|━) Test run|: error: / {
        summary[++summaries] = NR
    }
    END {
        for (i = 1; i <= failures; i++) {
            name = order[i]
            from = (name in started) ? started[name] : failed[name]
            print ""
            print "=== failed: " name
            shown = 0
            for (n = from; n <= failed[name]; n++) {
                line = lines[n]
                if (line ~ /^✘ Test / && index(line, name) > 0) {
                    print line
                    # The issue details: indented lines after it.
                    for (m = n + 1; m <= failed[name] && lines[m] ~ /^[ \t]/; m++) print lines[m]
                } else if (line ~ /^<[0-9]>/ && shown < 80) {
                    print "  log: " line
                    shown++
                }
            }
            if (shown == 80) print "  log: … (more in the whole output)"
        }
        if (failures > 0) print ""
        for (i = 1; i <= summaries; i++) print lines[summary[i]]
    }
' "$log"
if [ "$status" != 0 ]; then
    echo "tests: FAILED (exit status $status); the whole output: $log"
else
    echo "tests: passed; the whole output: $log"
fi
exit "$status"
