#!/bin/bash
# Tests for deploy/check-boards.py: each broken profile must be rejected with a message that
# names the file, the key path and the problem; the repository's profiles must pass.
# Prints "test-check-boards: N passed, N failed".
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
checker="$here/check-boards.py"
work=$(mktemp -d /tmp/check-boards-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
passed=0
failed=0

# rejects NAME JSON EXPECTED...: the profile NAME.json with JSON fails, and the output contains
# every EXPECTED string.
rejects() {
    local name=$1 json=$2 out e ok=1
    shift 2
    printf '%s\n' "$json" >"$work/$name.json"
    if out=$(python3 "$checker" "$work/$name.json" 2>&1); then ok=0; fi
    for e in "$@"; do case "$out" in *"$e"*) ;; *) ok=0 ;; esac; done
    case "$out" in *"$work/$name.json"*) ;; *) ok=0 ;; esac
    if [ $ok = 1 ]; then passed=$((passed + 1)); echo "  ok    rejects $name"
    else failed=$((failed + 1)); echo "  FAIL  rejects $name: wanted: $*"; echo "$out" | sed 's/^/        /'; fi
    rm -f "$work/$name.json"
}

rejects two-buttons-one-line '{"name": "two-buttons-one-line", "buttons": [
  {"name": "a", "line": 5, "press": "play"}, {"name": "b", "line": 5, "press": "stop"}]}' \
  'buttons[1].line: line 5 (button b) is already used by button a at buttons[0].line'
rejects button-on-reserved '{"name": "button-on-reserved", "reservedLines": [{"line": 18, "use": "I2S BCLK"}],
  "buttons": [{"name": "a", "line": 18, "press": "play"}]}' \
  'buttons[0].line: line 18 (button a) is already used by reserved: I2S BCLK'
rejects encoder-on-panel '{"name": "encoder-on-panel", "encoders": [{"name": "k", "a": 9, "b": 10,
  "clockwise": "up", "counterClockwise": "down"}], "screen": {"type": "spi", "panel": {"controller": "st7789",
  "width": 240, "height": 240, "spiBus": 0, "spiCS": 1, "dc": 9}}}' 'screen.panel.dc: line 9 (panel DC) is already used by encoder k A'
rejects reader-reset-on-button '{"name": "reader-reset-on-button", "buttons": [{"name": "a", "line": 25, "press": "play"}],
  "cardReaders": [{"type": "rc522", "reset": 25}]}' \
  'cardReaders[0].reset: line 25 (rc522 reset) is already used by button a'
rejects reader-of-no-type '{"name": "reader-of-no-type", "cardReaders": [{"type": "nfc"}]}' \
  'cardReaders[0].type: required'
rejects unknown-action '{"name": "unknown-action", "buttons": [{"name": "a", "line": 1, "press": "paly"}]}' \
  'buttons[0].press: unknown action "paly"; actions are: play-pause'
rejects hold-and-long '{"name": "hold-and-long", "buttons": [{"name": "a", "line": 1, "hold": "up", "longPress": "down"}]}' \
  'buttons[0]: a button has either "hold" or "longPress", not both'
rejects unknown-key '{"name": "unknown-key", "buttons": [{"name": "a", "line": 1, "press": "up", "pin": 3}]}' \
  'buttons[0].pin: unknown key'
rejects missing-line '{"name": "missing-line", "buttons": [{"name": "a", "press": "up"}]}' 'buttons[0].line: required key is missing'
rejects name-mismatch '{"name": "other"}' 'name: "other" must equal the file name "name-mismatch"'
rejects duplicate-names '{"name": "duplicate-names", "buttons": [{"name": "a", "line": 1, "press": "up"},
  {"name": "a", "line": 2, "press": "down"}]}' 'buttons[1].name: button name "a" is used twice'
rejects chord-unknown '{"name": "chord-unknown", "buttons": [{"name": "a", "line": 1, "press": "up"}],
  "chords": [{"buttons": ["a", "zz"], "action": "shutdown"}]}' 'chords[0].buttons[1]: no button named "zz"'
rejects debounce-range '{"name": "debounce-range", "buttons": [{"name": "a", "line": 1, "press": "up", "debounceMs": 500}]}' \
  'buttons[0].debounceMs: 500 is out of range 0…100'
rejects bad-bias '{"name": "bad-bias", "buttons": [{"name": "a", "line": 1, "press": "up", "bias": "up"}]}' \
  'buttons[0].bias: "up" is not allowed; expected one of: "pull-up"'
rejects bad-steps '{"name": "bad-steps", "encoders": [{"name": "k", "a": 1, "b": 2, "stepsPerDetent": 3,
  "clockwise": "up", "counterClockwise": "down"}]}' 'encoders[0].stepsPerDetent: 3 is not allowed'
rejects bad-rotation '{"name": "bad-rotation", "screen": {"type": "framebuffer", "rotation": 45}}' 'screen.rotation: 45 is not allowed'
rejects spi-without-panel '{"name": "spi-without-panel", "screen": {"type": "spi"}}' 'screen: type "spi" needs a "panel" object'
rejects evdev-bad-action '{"name": "evdev-bad-action", "evdev": [{"device": "x", "keys": {"KEY_A": "jump"}}]}' \
  'evdev[0].keys.KEY_A: unknown action "jump"'
rejects pi5-chip-number '{"name": "pi5-chip-number", "gpioChip": ["pinctrl-rp1", "gpiochip0"]}' \
  'gpioChip[1]: "gpiochip0" is a chip number, and on a Raspberry Pi 5 numbers move with the kernel'
rejects default-card '{"name": "default-card", "audio": {"device": "hdmi:CARD=vc4hdmi0,DEV=0", "fallbackDevices": ["default"]}}' \
  'audio.fallbackDevices[0]: "default" is whichever card probed first'
rejects wrong-type '{"name": "wrong-type", "test": "yes"}' 'test: expected true or false, found the string "yes"'
rejects config-txt-not-a-line '{"name": "config-txt-not-a-line", "configTxt": ["dtoverlay hifiberry-dac"]}' \
  'configTxt[0]: expected a config.txt line like "dtparam=spi=on"'
rejects negative-line '{"name": "negative-line", "buttons": [{"name": "a", "line": -1, "press": "up"}]}' 'buttons[0].line: -1 is out of range'
rejects duplicate-key '{"name": "duplicate-key", "name": "duplicate-key"}' 'invalid JSON: duplicate key "name"'
rejects not-json '{"name": "not-json", // comments are not JSON
}' 'invalid JSON'

out=$(python3 "$checker" "$here/../boards" 2>&1)
if [ $? = 0 ]; then passed=$((passed + 1)); echo "  ok    the repository's profiles pass ($(echo "$out" | tail -n 1))"
else failed=$((failed + 1)); echo "  FAIL  the repository's profiles pass"; echo "$out" | sed 's/^/        /'; fi

echo "test-check-boards: $passed passed, $failed failed"
[ "$failed" = 0 ]
