#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The image's settings script (deploy/image/rootfs/usr/lib/kiosk-image/kiosk-settings) on this
# machine, with the player built here doing its check-config: a good file is applied; each kind of
# error (bad JSON, an unknown key, an unknown board) is named with its file and line in the error
# file the player shows, and the settings applied before stay in force, byte for byte.
#
#   deploy/image/test-settings.sh [PLAYER]     (default: .build/debug/kiosk-player)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
player=${1:-$repo/.build/debug/kiosk-player}
[ -x "$player" ] || { echo "test-settings: no $player (swift build)" >&2; exit 1; }
command -v jq >/dev/null || { echo "test-settings: jq is missing" >&2; exit 1; }
work=$(mktemp -d /tmp/kiosk-test-settings.XXXXXX)
trap 'rm -rf "$work"' EXIT
export KIOSK_SETTINGS=$work/boot/kiosk-settings.json KIOSK_SETTINGS_STATE=$work/data/settings
export KIOSK_SETTINGS_RUN=$work/run KIOSK_PLAYER=$player KIOSK_SETTINGS_HOSTNAME=true KIOSK_SETTINGS_SYSTEMCTL=true
export KIOSK_SETTINGS_BASE=$repo/deploy/image/rootfs/usr/share/kiosk-image/config-base.json
mkdir -p "$work/boot"
failures=0
check() {   # check WHAT CONDITION...
    local what=$1
    shift
    if "$@"; then echo "  ok    $what"; else echo "  FAIL  $what"; failures=$((failures + 1)); fi
}
apply() { sh "$repo/deploy/image/rootfs/usr/lib/kiosk-image/kiosk-settings" apply >"$work/apply.log" 2>&1; }

sed -e 's/"board": "auto"/"board": "rpi3"/' -e 's/"volumeMax": 100/"volumeMax": 80/' \
    "$repo/deploy/image/kiosk-settings.json" >"$work/good.json"
cp "$work/good.json" "$KIOSK_SETTINGS"
apply
check "a good file is applied" [ "$(cat "$work/run/status")" = applied ]
check "its values are the player's config" [ "$(jq -r '.board + " " + (.volumeMax | tostring)' "$work/data/settings/config.json")" = "rpi3 80" ]
cp "$work/data/settings/config.json" "$work/last-good.json"

# bad JSON (the comma missing at the end of line 3: jq names line 4, where its next key stands), an
# unknown key on line 4, an unknown board on line 2
sed 's/"volumeMax": 80,/"volumeMax": 80/' "$work/good.json" >"$work/bad-json.json"
sed 's/"volumeMax": 80,/"volumeMax": 80,\n  "volumeMaximum": 60,/' "$work/good.json" >"$work/unknown-key.json"
sed 's/"board": "rpi3"/"board": "rpi7"/' "$work/good.json" >"$work/unknown-board.json"
for case in "bad-json:line 4:parse error" "unknown-key:line 4:volumeMaximum: unknown key" \
    "unknown-board:line 2:no board profile \"rpi7\""; do
    name=${case%%:*} rest=${case#*:}
    line=${rest%%:*} what=${rest#*:}
    cp "$work/$name.json" "$KIOSK_SETTINGS"
    apply
    error=$(cat "$work/run/error" 2>/dev/null || true)
    echo "  $name: $error"
    check "$name: status error" [ "$(cat "$work/run/status")" = error ]
    check "$name: the error names the file and $line" grep -q "^kiosk-settings.json.*$line" "$work/run/error"
    check "$name: and what is wrong ($what)" grep -qF "$what" "$work/run/error"
    check "$name: the last good settings stay in force" cmp -s "$work/last-good.json" "$work/data/settings/config.json"
done
cp "$work/good.json" "$KIOSK_SETTINGS"
apply
# the same bytes as the file last applied: not parsed again
check "the good file again: in force, the error gone" test "$(cat "$work/run/status")" = unchanged -a ! -e "$work/run/error"
if [ "$failures" -gt 0 ]; then echo "test-settings: $failures check(s) FAILED"; exit 1; fi
echo "test-settings: all checks passed"
