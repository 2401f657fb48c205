#!/bin/bash
# `kiosk-player doctor --board qemu-gpio-sim` in the guest: the snd-aloop card is found and opened
# (its formats, channels and rates listed), the gpio-sim chip "kiosk-sim" is found by label with
# every line the profile uses free, and the vfb framebuffer ("Virtual FB") is found by name. The
# guest is no Raspberry Pi, so config.txt, power and the service user stay – or ✗ with their fixes;
# the whole output is in log.txt.
# timeout: 120
# shellcheck source=../lib.sh
source "$SYSTEST_REPO/Tests/System/lib.sh"
require_infra snd-aloop gpio-sim fb
require_player
"$SYSTEST_PLAYER" doctor --help > /dev/null 2>&1 || skip "kiosk-player has no doctor command"

mkdir -p "$SYSTEST_WORK/state"
printf '{"board": "qemu-gpio-sim", "stateDirectory": "%s", "mediaRoots": ["%s"]}\n' \
    "$SYSTEST_WORK/state" "$SYSTEST_WORK/media" > "$SYSTEST_WORK/config.json"
start=$(now_us)
output=$("$SYSTEST_PLAYER" doctor --config "$SYSTEST_WORK/config.json" 2>&1)
status=$?
figure doctor_ms $(( ($(now_us) - start) / 1000 ))
echo "$output"
echo "(exit status $status)"
# check runs its command apart from this shell: the output goes in as an argument.
has() { check "$1" sh -c 'printf "%s\n" "$1" | grep -qF -- "$2"' _ "$output" "$2"; }
has "the board is the one named" '✓ board:      qemu-gpio-sim: named by the config'
has "the Loopback card is listed" 'Loopback (Loopback)'
has "the device is opened and what it takes listed" '✓ sound:      device hw:Loopback,0 takes'
has "the gpio-sim chip is found by label" '[kiosk-sim], 16 lines'
has "every line the profile uses is free" '✓ gpio:       lines 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 free'
has "the outputs are listed" 'outputs: status light line 8 (playing steady, paused slow, stopped off, linking fast, error fast, lowPower fast, ready slow, closed off, sleepSoon slow, batteryLow fast), power latch line 9'
has "the vfb framebuffer is found by name" '✓ screen:     framebuffer "Virtual FB" is /dev/fb'
has "the state directory is writable" '✓ state:      state directory'
check "the JSON form parses" sh -c "\"\$1\" doctor --config \"\$2\" --json | python3 -c 'import json,sys; json.load(sys.stdin)'" \
    _ "$SYSTEST_PLAYER" "$SYSTEST_WORK/config.json"

# The doctor's GPIO check against a real chip: a line another program holds is a ✗ naming that
# program, and free once released (DoctorGPIOTests in the host's test bundle; it skips without gpio-sim).
bin=${SYSTEST_PLAYER%/*}/KioskPlayerPackageTests.xctest
if [ -x "$bin" ]; then
    "$bin" --testing-library swift-testing --filter "DoctorGPIOTests" > "$SYSTEST_ARTIFACTS/doctor-tests.log" 2>&1
    status=$?
    sed 's/\x1b\[[0-9;]*m//g' "$SYSTEST_ARTIFACTS/doctor-tests.log" | grep -v '^◇' | while read -r line; do log "$line"; done
    check "the doctor's GPIO tests pass on gpio-sim" test $status = 0
    check "none of them skipped" sh -c "! grep -q skipped '$SYSTEST_ARTIFACTS/doctor-tests.log'"
else
    log "no $bin: the doctor's GPIO tests did not run (swift build --build-tests first)"
fi
finish
