#!/bin/bash
# Tests for `kiosk-player boards --check` (the player's own loader, plus BoardLint's rules for the
# profiles we ship): each broken profile must be rejected with a message that names the file, the
# key path and the problem; the repository's profiles must pass. Needs a built kiosk-player
# ($KIOSK_PLAYER, or .build/debug or .build/release); skips without one.
# Prints "test-check-boards: N passed, N failed".
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
repo=$(cd "$here/.." && pwd)
work=$(mktemp -d /tmp/check-boards-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
# shellcheck source=harness.sh
source "$here/tests/harness.sh"
player=$(built_player)
if [ -z "$player" ]; then
    skip "kiosk-player boards --check" "no built kiosk-player (swift build first, or KIOSK_PLAYER=path)"
    harness_end
    exit
fi
mkdir "$work/boards"

# rejects NAME JSON EXPECTED...: the profile NAME.json with JSON fails `boards --check`, and its
# line contains the file's path and every EXPECTED string.
rejects() {
    local name=$1 json=$2 out e ok=1
    shift 2
    printf '%s\n' "$json" >"$work/boards/$name.json"
    if out=$(KIOSK_BOARDS_DIR=/nonexistent "$player" boards --check --dir "$work/boards" 2>&1); then ok=0; fi
    out=$(printf '%s\n' "$out" | grep "^$name ")
    for e in "$@" "$work/boards/$name.json"; do case "$out" in *"$e"*) ;; *) ok=0 ;; esac; done
    if [ $ok = 1 ]; then pass "rejects $name"; else fail "rejects $name: wanted: $*" "$out"; fi
    rm -f "$work/boards/$name.json"
}

rejects two-buttons-one-line '{"name": "two-buttons-one-line", "buttons": [
  {"name": "a", "line": 5, "press": "play"}, {"name": "b", "line": 5, "press": "stop"}]}' \
  'buttons[1].line: line 5 is already used by button a (buttons[0].line)'
rejects button-on-reserved '{"name": "button-on-reserved", "reservedLines": [{"line": 18, "use": "I2S BCLK"}],
  "buttons": [{"name": "a", "line": 18, "press": "play"}]}' \
  'GPIO line 18 is used twice: by I2S BCLK and by button a'
rejects encoder-on-panel '{"name": "encoder-on-panel", "encoders": [{"name": "k", "a": 9, "b": 10,
  "clockwise": "up", "counterClockwise": "down"}], "screen": {"type": "spi", "panel": {"controller": "st7789",
  "width": 240, "height": 240, "spiBus": 0, "spiCS": 1, "dc": 9}}}' 'GPIO line 9 is used twice: by encoder k A and by screen panel dc'
rejects reader-reset-on-button '{"name": "reader-reset-on-button", "buttons": [{"name": "a", "line": 25, "press": "play"}],
  "cardReaders": [{"type": "rc522", "reset": 25}]}' \
  'cardReaders[0].reset: line 25 is already used by button a'
rejects reader-of-no-type '{"name": "reader-of-no-type", "cardReaders": [{"type": "nfc"}]}' \
  'cardReaders[0].type: expected one of "usb", "rc522", got "nfc"'
rejects unknown-action '{"name": "unknown-action", "buttons": [{"name": "a", "line": 1, "press": "paly"}]}' \
  'buttons[0].press: unknown action "paly"; actions are: play-pause'
rejects hold-and-long '{"name": "hold-and-long", "buttons": [{"name": "a", "line": 1, "hold": "up", "longPress": "down"}]}' \
  'buttons[0].hold: a button has either "hold" or "longPress", not both'
rejects unknown-key '{"name": "unknown-key", "buttons": [{"name": "a", "line": 1, "press": "up", "pin": 3}]}' \
  'buttons[0].pin: unknown key'
rejects missing-line '{"name": "missing-line", "buttons": [{"name": "a", "press": "up"}]}' 'buttons[0].line: required'
rejects name-mismatch '{"name": "other"}' 'name: "other" does not match the file name "name-mismatch.json"'
rejects duplicate-names '{"name": "duplicate-names", "buttons": [{"name": "a", "line": 1, "press": "up"},
  {"name": "a", "line": 2, "press": "down"}]}' 'buttons[1].name: duplicate name "a"'
rejects chord-unknown '{"name": "chord-unknown", "buttons": [{"name": "a", "line": 1, "press": "up"}],
  "chords": [{"buttons": ["a", "zz"], "action": "shutdown"}]}' 'chords[0].buttons[1]: no button named "zz"'
rejects debounce-range '{"name": "debounce-range", "buttons": [{"name": "a", "line": 1, "press": "up", "debounceMs": 500}]}' \
  'buttons[0].debounceMs: expected an integer 0…100, got 500'
rejects bad-bias '{"name": "bad-bias", "buttons": [{"name": "a", "line": 1, "press": "up", "bias": "up"}]}' \
  'buttons[0].bias: expected one of "pull-up"'
rejects bad-steps '{"name": "bad-steps", "encoders": [{"name": "k", "a": 1, "b": 2, "stepsPerDetent": 3,
  "clockwise": "up", "counterClockwise": "down"}]}' 'encoders[0].stepsPerDetent: expected 1, 2 or 4, got 3'
rejects bad-rotation '{"name": "bad-rotation", "screen": {"type": "framebuffer", "rotation": 45}}' 'screen.rotation: expected 0, 90, 180 or 270, got 45'
rejects spi-without-panel '{"name": "spi-without-panel", "screen": {"type": "spi"}}' 'screen.panel: required for a screen of type "spi"'
rejects evdev-bad-action '{"name": "evdev-bad-action", "evdev": [{"device": "x", "keys": {"KEY_A": "jump"}}]}' \
  'evdev[0].keys.KEY_A: unknown action "jump"'
rejects pi5-chip-number '{"name": "pi5-chip-number", "gpioChip": ["pinctrl-rp1", "gpiochip0"]}' \
  'gpioChip[1]: "gpiochip0" is a chip number, and on a Raspberry Pi 5 numbers move with the kernel'
rejects default-card '{"name": "default-card", "audio": {"device": "hdmi:CARD=vc4hdmi0,DEV=0", "fallbackDevices": ["default"]}}' \
  'audio.fallbackDevices[0]: "default" is whichever card probed first'
rejects wrong-type '{"name": "wrong-type", "test": "yes"}' 'test: expected true or false, got "yes"'
rejects config-txt-not-a-line '{"name": "config-txt-not-a-line", "configTxt": ["dtoverlay hifiberry-dac"]}' \
  'configTxt[0]: expected a config.txt line like "dtparam=spi=on"'
rejects negative-line '{"name": "negative-line", "buttons": [{"name": "a", "line": -1, "press": "up"}]}' 'buttons[0].line: expected an integer 0…4095, got -1'
rejects duplicate-key '{"name": "duplicate-key", "name": "duplicate-key"}' 'name: duplicate key'
rejects not-json '{"name": "not-json", // comments are not JSON
}' 'not valid JSON'

rejects no-gesture '{"name": "no-gesture", "buttons": [{"name": "a", "line": 1}]}' \
  'buttons[0]: a button needs at least one of press, longPress, hold'
rejects key-no-gesture '{"name": "key-no-gesture", "evdev": [{"device": "x", "keys": {"KEY_A": {}}}]}' \
  'evdev[0].keys.KEY_A: needs at least one of press, longPress, hold'
rejects bad-init '{"name": "bad-init", "screen": {"type": "spi", "panel": {"controller": "st7789", "width": 240,
  "height": 240, "spiBus": 0, "spiCS": 1, "dc": 9, "init": ["zz"]}}}' 'screen.panel.init[0]: "zz" is not a hex byte'

out=$(KIOSK_BOARDS_DIR=/nonexistent "$player" boards --check --dir "$repo/boards" 2>&1)
result "the repository's profiles pass ($(printf '%s\n' "$out" | tail -n 1))" $? "$out"

harness_end
