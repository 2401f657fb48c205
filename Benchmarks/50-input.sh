#!/usr/bin/env bash
# Input figures: CPU per edge through the gesture engine and the InputManager path, and the CPU of
# `kiosk-player inputs` following an encoder turned quickly for 3 s (an event script of 1500 edges
# replayed on the loop's timers, printing every detent).
set -euo pipefail
# BUILD: the build directory holding kiosk-player and kiosk-bench (default .build/release; a binary in it works too).
build=${1:-.build/release}
[ -f "$build" ] && build=$(dirname "$build")
kbench=$build/kiosk-bench
bin=$build/kiosk-player
"$kbench" gestures
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/box.json" <<'JSON'
{"gpioChip": ["kiosk-bench-absent"],
 "encoders": [{"name": "knob", "a": 17, "b": 27, "clockwise": "volume-up", "counterClockwise": "volume-down"}]}
JSON
awk 'BEGIN { t = 0; for (d = 0; d < 375; d++) {
    printf "{\"t\": %d, \"line\": \"knob.a\", \"value\": 1}\n", t; t += 2
    printf "{\"t\": %d, \"line\": \"knob.b\", \"value\": 1}\n", t; t += 2
    printf "{\"t\": %d, \"line\": \"knob.a\", \"value\": 0}\n", t; t += 2
    printf "{\"t\": %d, \"line\": \"knob.b\", \"value\": 0}\n", t; t += 2 } }' > "$work/turn.jsonl"
TIMEFORMAT='%U %S %R'
times=$( { time "$bin" inputs --profile "$work/box.json" --script "$work/turn.jsonl" --no-evdev > "$work/out" 2>/dev/null; } 2>&1 )
read -r user sys real <<< "$times"
detents=$(grep -c ' → ' "$work/out" || true)
base=$( { time "$bin" inputs --profile "$work/box.json" --list > /dev/null 2>&1; } 2>&1 )
read -r base_user base_sys _ <<< "$base"
cpu_ms=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.0f", (u + s) * 1000 }')
base_ms=$(awk -v u="$base_user" -v s="$base_sys" 'BEGIN { printf "%.0f", (u + s) * 1000 }')
echo "input-script: 1500 encoder edges in 3 s through kiosk-player inputs: $detents detents printed, ${cpu_ms} ms CPU over ${real} s (start-up and listing alone: ${base_ms} ms)"
