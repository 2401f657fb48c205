#!/bin/bash
# KioskInput on real kernel devices: the test bundle's uinput → evdev backend tests (hot-plug
# included) and its gpio-sim → GPIO backend tests (debounce, encoder, busy and missing lines,
# output lines). They skip on machines without uinput/gpio-sim; here every one of them must run.
# The bundle is the host's `swift build --build-tests` output next to the player binary.
# timeout: 240
# shellcheck source=../lib.sh
source "$SYSTEST_REPO/Tests/System/lib.sh"
require_infra uinput gpio-sim
bin=${SYSTEST_PLAYER%/*}/KioskPlayerPackageTests.xctest
[ -x "$bin" ] || skip "no $bin (run swift build --build-tests first)"
"$bin" --testing-library swift-testing --filter "UInputEvdevTests|UInputAnyKeypadTests|UInputHeadsetButtonsTests|UInputCardReaderTests|GPIOSimTests" \
    > "$SYSTEST_ARTIFACTS/input-tests.log" 2>&1
status=$?
sed 's/\x1b\[[0-9;]*m//g' "$SYSTEST_ARTIFACTS/input-tests.log" | grep -v '^◇' | while read -r line; do log "$line"; done
check "KioskInput kernel-device tests pass" test $status = 0
check "some ran" grep -q 'passed after' "$SYSTEST_ARTIFACTS/input-tests.log"
check "none of them skipped" sh -c "! grep -q skipped '$SYSTEST_ARTIFACTS/input-tests.log'"
finish
