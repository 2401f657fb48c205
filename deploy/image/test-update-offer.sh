#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# kiosk-update's offer and its confirmation, on this machine (no QEMU, no root, a few seconds):
# the stick is a directory, RAUC a script that reads a bundle's version from the file and records
# what it installs, and the player's part is played by this script writing the confirmation file
# as Player.apply(.confirmUpdate) does ("install <sha256>"). Each check names the behaviour it
# specifies. The player's side is tested in Tests/KioskCoreTests/UpdateOfferTests.swift.
#
#   deploy/image/test-update-offer.sh
set -euo pipefail
export LC_ALL=C
update=$(cd "$(dirname "$0")" && pwd)/rootfs/usr/lib/kiosk-image/kiosk-update
t=$(mktemp -d)
scan_pid=''
cleanup() { [ -z "$scan_pid" ] || kill "$scan_pid" 2>/dev/null || true; rm -rf "$t"; }
trap cleanup EXIT
mkdir -p "$t/bin" "$t/player"
cat >"$t/bin/rauc" <<'RAUC'
#!/bin/bash
# A RAUC for tests: `info` prints the version the bundle's first line names ("bad": a bad
# signature); `install` records the file.
case "$1" in
    info)
        read -r first <"$3"
        [ "$first" != bad ] || { echo "signature verification failed: bad signature" >&2; exit 1; }
        echo "RAUC_MF_VERSION='${first#version=}'"
        echo "RAUC_MF_COMPATIBLE='kiosk-player-arm64'" ;;
    install) echo "$2" >>"$KIOSK_TEST_INSTALLED"; echo "installing: 100% done" ;;
    *) exit 2 ;;
esac
RAUC
chmod +x "$t/bin/rauc"
echo 1.0 >"$t/version"
export KIOSK_MEDIA_ROOT=$t/media KIOSK_UPDATE_RUN=$t/run KIOSK_UPDATE_LOG_DIR=$t/log \
    KIOSK_IMAGE_VERSION_FILE=$t/version KIOSK_RAUC=$t/bin/rauc KIOSK_UPDATE_CONFIRM=$t/player/update-confirm \
    KIOSK_UPDATE_OFFER_SECONDS=3 KIOSK_UPDATE_POLL_SECONDS=0.1 KIOSK_UPDATE_SETTLE_SECONDS=0 \
    KIOSK_PLAYER_USER=$(id -un) KIOSK_TEST_INSTALLED=$t/installed
failures=0
check() {   # check WHAT EXPECTED ACTUAL
    if [ "$2" = "$3" ]; then echo "  ok    $1"; else echo "  FAIL  $1: expected '$2', got '$3'"; failures=$((failures + 1)); fi
}

# fresh VERSION: a new box state and a stick holding one bundle of VERSION.
fresh() {
    wait_scan
    rm -rf "$t/media" "$t/run" "$t/log" "$t/installed" "$t/player"/*
    mkdir -p "$t/media/STICK"
    printf 'version=%s\n%s\n' "$1" "$RANDOM$RANDOM" >"$t/media/STICK/kiosk-player_$1_arm64.raucb"
}
bundle() { echo "$t/media/STICK/kiosk-player_$1_arm64.raucb"; }
start_scan() { "$update" scan 2>>"$t/stderr" & scan_pid=$!; }
# wait_scan: the scan's end (at most 30 s, so that a hang fails the test instead of stalling it).
wait_scan() {
    [ -n "$scan_pid" ] || return 0
    local i
    for i in $(seq 300); do kill -0 "$scan_pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$scan_pid" 2>/dev/null; then
        kill "$scan_pid"; echo "  FAIL  kiosk-update scan did not end"; failures=$((failures + 1))
    fi
    wait "$scan_pid" 2>/dev/null || true
    scan_pid=''
}
# wait_kind KIND: until the notice's first line is KIND (at most 30 s).
wait_kind() {
    local i
    for i in $(seq 300); do [ "$(head -n 1 "$t/run/notice" 2>/dev/null)" = "$1" ] && return 0; sleep 0.1; done
    return 0
}
field() { sed -n "s/^$1=//p" "$t/run/notice"; }
installed() { cat "$t/installed" 2>/dev/null | wc -l | tr -d ' '; }
confirm() { printf '%s\n' "$1" >"$t/player/update-confirm.new"; mv "$t/player/update-confirm.new" "$t/player/update-confirm"; }
# The notice's lines as one.
notice() { paste -sd'|' "$t/run/notice" 2>/dev/null; }

echo "test-update-offer: kiosk-update's offer and its confirmation"

fresh 2.0
start_scan
wait_kind offer
hash=$(sha256sum <"$(bundle 2.0)" | cut -d' ' -f1)
check "a newer bundle is offered with its version, its SHA-256 and the time kiosk-update waits" \
    "offer|Update to version 2.0 found|Hold Select to install|version=2.0|sha256=$hash|seconds=3" "$(notice)"
check "and nothing is installed before the player confirms" 0 "$(installed)"
confirm "install $hash"
wait_scan
check "the player's confirmation of that bundle installs it" 1 "$(installed)"
check "and the box is told when it takes effect" "info|Update 2.0 installed|It starts at the next power-on" "$(notice)"
check "the confirmation is used up" no "$([ -e "$t/player/update-confirm" ] && echo yes || echo no)"

fresh 2.1
start_scan
wait_kind offer
confirm "install $(printf '0%.0s' $(seq 64))"
wait_scan
check "a confirmation of another bundle installs nothing" 0 "$(installed)"
check "and when the time is up the offer is withdrawn" "withdrawn|Update 2.1 not installed|Nobody held Select within 3 s|sha256=$(sha256sum <"$(bundle 2.1)" | cut -d' ' -f1)" "$(notice)"
start_scan
wait_kind offer
check "the same stick is offered again at the next scan (it was not answered)" offer "$(head -n 1 "$t/run/notice")"
wait_scan

fresh 2.2
start_scan
wait_kind offer
hash=$(field sha256)
rm "$(bundle 2.2)"
wait_scan
check "the stick removed while the offer waits: withdrawn, and said" \
    "withdrawn|The update stick was removed||sha256=$hash" "$(notice)"
check "and nothing installed" 0 "$(installed)"

fresh 2.3
start_scan
wait_kind offer
hash=$(field sha256)
echo "install $hash" >"$t/elsewhere"
ln -s "$t/elsewhere" "$t/player/update-confirm"
wait_scan
check "a confirmation that is a symbolic link is not followed: nothing installed" 0 "$(installed)"

fresh 2.4
start_scan
wait_kind offer
mkfifo "$t/player/update-confirm"
wait_scan
check "a FIFO as the confirmation neither hangs kiosk-update nor installs" "0|withdrawn" "$(installed)|$(head -n 1 "$t/run/notice")"

fresh 2.5
start_scan
wait_kind offer
hash=$(field sha256)
echo changed >>"$(bundle 2.5)"
confirm "install $hash"
wait_scan
check "a bundle changed after it was offered is refused, its confirmation notwithstanding" \
    "error|Update 2.5 refused|the file changed after it was offered; nothing changed" "$(notice)"
check "and nothing installed" 0 "$(installed)"

fresh 0.9
start_scan
wait_scan
check "an older bundle is refused without an offer" "error|Update kiosk-player_0.9_arm64.raucb refused|version 0.9 is older than 1.0; nothing changed" "$(notice)"
fresh 1.0
start_scan
wait_scan
check "the version running is neither offered nor said" "" "$(notice)"
fresh 3.0
echo bad >"$(bundle 3.0)"
start_scan
wait_scan
check "a bundle RAUC refuses is not offered" "error|Update kiosk-player_3.0_arm64.raucb refused|signature verification failed: bad signature; nothing changed" "$(notice)"

if [ "$failures" -gt 0 ]; then echo "test-update-offer: $failures FAILED"; sed 's/^/  stderr: /' "$t/stderr" | tail -n 20; exit 1; fi
echo "test-update-offer: all checks passed"
