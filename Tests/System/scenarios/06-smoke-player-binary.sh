#!/bin/bash
# Smoke: the player binary built on the host runs in the guest (Swift runtime and C libraries
# through the 9p root): `kiosk-player --help` exits 0 and lists its commands.
# timeout: 60
# shellcheck source=../lib.sh
source "$SYSTEST_REPO/Tests/System/lib.sh"
require_player

start=$(now_us)
output=$("$SYSTEST_PLAYER" --help 2>&1)
status=$?
figure help_ms $(( ($(now_us) - start) / 1000 ))
echo "$output" | head -n 20
check "kiosk-player --help exits 0" test "$status" = 0
check "the help lists commands" sh -c "echo \"\$1\" | grep -qi 'command'" _ "$output"
if "$SYSTEST_PLAYER" run --help > /dev/null 2>&1; then
    log "kiosk-player run exists: the player scenarios will run"
else
    log "kiosk-player has no 'run' command yet: the player scenarios will skip"
fi
finish
