#!/bin/bash
# Smoke: a key injected through uinput arrives on the evdev node, found by device name.
# timeout: 40
# shellcheck source=../lib.sh
source "$SYSTEST_REPO/Tests/System/lib.sh"
require_infra uinput

must "create the uinput keyboard" uinput_start kiosk-systest-keys
log "uinput device at $UINPUT_NODE"
spawn evdev-read evdev-read --name kiosk-systest-keys --count 4 --timeout-ms 15000
reader=$SPAWNED_PID
must "the reader opened the device by name" wait_for 10 "evdev-read opened the device" \
    grep -q '^evdev-read: reading' "$SYSTEST_WORK/evdev-read.log"
key_tap KEY_PLAYPAUSE 80
key_tap KEY_NEXTSONG 40
wait "$reader"
reader_status=$?
check "the reader saw 4 events" test "$reader_status" = 0
events=$(grep -E '^KEY ' "$SYSTEST_WORK/evdev-read.log" | tr '\n' ',')
log "events: $events"
check "press and release of KEY_PLAYPAUSE then KEY_NEXTSONG, in order" \
    test "$events" = "KEY KEY_PLAYPAUSE 1,KEY KEY_PLAYPAUSE 0,KEY KEY_NEXTSONG 1,KEY KEY_NEXTSONG 0,"
uinput_stop
finish
