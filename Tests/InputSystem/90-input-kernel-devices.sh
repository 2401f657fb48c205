#!/bin/bash
# KioskInput on real kernel devices: the test binary's uinput → evdev backend test (hot-plug
# included) and its gpio-sim → GPIO backend test (debounce, encoder, busy and missing lines).
# Both skip on machines without uinput/gpio-sim; here they must run. A scenario for
# Tests/System/scenarios/ (needs `swift build --build-tests` on the host first).
# timeout: 300
source "$SYSTEST_REPO/Tests/System/lib.sh"
require_infra uinput gpio-sim
# The test bundle is built next to the player binary.
bin=${SYSTEST_PLAYER%/*}/KioskPlayerPackageTests.xctest
[ -x "$bin" ] || skip "no $bin (run swift build --build-tests first)"
"$bin" --testing-library swift-testing --filter "UInputEvdevTests|GPIOSimTests" > "$SYSTEST_ARTIFACTS/input-tests.log" 2>&1
status=$?
sed 's/\x1b\[[0-9;]*m//g' "$SYSTEST_ARTIFACTS/input-tests.log" | grep -v '^◇' | while read -r line; do log "$line"; done
check "KioskInput kernel-device tests pass" test $status = 0
check "none of them skipped" sh -c "! grep -q skipped $SYSTEST_ARTIFACTS/input-tests.log"
finish
