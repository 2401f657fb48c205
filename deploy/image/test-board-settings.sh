#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# What the settings file's board does to the firmware's settings, checked inside the image's tree
# (build-image.sh runs it there, after the overlays are on the boot partition), with the image's own
# kiosk-settings, jq, board profiles and `kiosk-player check-config`; the host name, services and the
# boot partition's remount are recorded instead of done:
#   1. a new card whose settings name pirate-audio: kiosk-board.txt gets its overlays
#      (spi0-2cs with no_miso, hifiberry-dac) and gpio line, and the box restarts once;
#   2. the next start with the same settings: nothing written, no restart;
#   3. the board changed to rpi3: its overlays gone from the file, one restart;
#   4. the board changed to rpi4 (its only line, dtparam=audio=on, the same as rpi3's, and one the
#      firmware ignores on these device trees): the file is rewritten, no restart;
#   5. the settings add a HAT ("hat": "hifiberry-dac") to rpi4: its overlay is written, one restart;
#   6. a settings file with an error: the last good board and HAT stay, no restart;
#   7. every stock profile's dtoverlay= lines name an overlay the boot partition has, or are comments.
# Exit 1 on the first failure.
set -eu
fail() { echo "test-board-settings: FAIL: $*" >&2; exit 1; }
ok() { echo "test-board-settings: ok    $*"; }
sandbox=$(mktemp -d /tmp/board-settings.XXXXXX)
trap 'rm -rf "$sandbox"' EXIT
mkdir -p "$sandbox/boot" "$sandbox/state" "$sandbox/run"
cp -r /boot/firmware/overlays "$sandbox/boot/overlays"
cp /boot/firmware/kiosk-board.txt "$sandbox/boot/kiosk-board.txt"
log=$sandbox/actions
apply() {
    KIOSK_SETTINGS=$sandbox/boot/kiosk-settings.json KIOSK_SETTINGS_STATE=$sandbox/state \
        KIOSK_SETTINGS_RUN=$sandbox/run KIOSK_SETTINGS_HOSTNAME=true \
        KIOSK_SETTINGS_SYSTEMCTL="echo systemctl" KIOSK_SETTINGS_REMOUNT="echo remount" \
        /usr/lib/kiosk-image/kiosk-settings apply >"$log" 2>&1 || { cat "$log"; fail "kiosk-settings apply failed"; }
}
settings() {
    jq --arg b "$1" --arg h "${2:-}" '.board = $b | if $h == "" then . else .hat = $h end' \
        /boot/firmware/kiosk-settings.json >"$sandbox/boot/kiosk-settings.json"
}
restarts() { grep -c '^systemctl reboot' "$log" || true; }

settings pirate-audio
apply
board=$sandbox/boot/kiosk-board.txt
grep -qx 'dtoverlay=spi0-2cs,no_miso' "$board" && grep -qx 'dtoverlay=hifiberry-dac' "$board" &&
    grep -qx 'gpio=25=op,dh' "$board" || { cat "$board"; fail "pirate-audio: kiosk-board.txt lacks its lines"; }
[ "$(restarts)" = 1 ] || { cat "$log"; fail "pirate-audio: expected one restart"; }
grep -qx 'remount rw' "$log" && grep -qx 'remount ro' "$log" || fail "pirate-audio: the boot partition was not made writable and read-only again"
ok "pirate-audio on a new card: $(grep -v '^#' "$board" | tr '\n' ' ')and one restart"

apply
[ "$(restarts)" = 0 ] && ! grep -q '^remount' "$log" || { cat "$log"; fail "the same settings again: expected no write and no restart"; }
ok "the same settings at the next start: nothing written, no restart"

settings rpi3
apply
grep -q '"rpi3"' "$board" && ! grep -q '^dtoverlay=' "$board" || { cat "$board"; fail "rpi3: kiosk-board.txt not rewritten"; }
[ "$(restarts)" = 1 ] || { cat "$log"; fail "pirate-audio → rpi3: overlays removed, expected one restart"; }
ok "pirate-audio → rpi3: rewritten ($(grep -v '^#' "$board" | tr '\n' ' ')), one restart"

settings rpi4
apply
grep -q '"rpi4"' "$board" || { cat "$board"; fail "rpi4: kiosk-board.txt not rewritten"; }
[ "$(restarts)" = 0 ] || { cat "$log"; fail "rpi3 → rpi4: only ignored lines, expected no restart"; }
ok "rpi3 → rpi4: rewritten, no restart (the firmware's lines are the same)"

settings rpi4 hifiberry-dac
apply
grep -qx 'dtoverlay=hifiberry-dac' "$board" || { cat "$board"; fail "rpi4 with the HAT hifiberry-dac: its overlay is missing"; }
[ "$(restarts)" = 1 ] || { cat "$log"; fail "rpi4 + hifiberry-dac: a new overlay, expected one restart"; }
ok "rpi4 with \"hat\": \"hifiberry-dac\": $(grep -v '^#' "$board" | tr '\n' ' ')and one restart"

echo '{"board": "pirate-audio", ' >"$sandbox/boot/kiosk-settings.json"
apply
[ "$(cat "$sandbox/run/status")" = error ] && grep -q '"rpi4"' "$board" && grep -qx 'dtoverlay=hifiberry-dac' "$board" &&
    [ "$(restarts)" = 0 ] ||
    { cat "$log" "$board"; fail "a broken settings file: expected the last good board (rpi4 + hifiberry-dac) and no restart"; }
ok "a broken settings file: rpi4 with hifiberry-dac stays in force, no restart"

for profile in /usr/share/kiosk-player/boards/*.json; do
    name=$(basename "$profile" .json)
    KIOSK_SETTINGS=$sandbox/boot/kiosk-settings.json /usr/lib/kiosk-image/kiosk-settings board-config "$name" >"$sandbox/one"
    for overlay in $(sed -n 's/^dtoverlay=\([^,]*\).*/\1/p' "$sandbox/one"); do
        [ -f "$sandbox/boot/overlays/$overlay.dtbo" ] || fail "$name: dtoverlay=$overlay but no overlays/$overlay.dtbo"
    done
    echo "test-board-settings:       $name: $(grep -v '^# [WE]' "$sandbox/one" | tr '\n' ' ')"
done
ok "every stock profile names only overlays the boot partition has"
