#!/usr/bin/env bash
# Exhibit mode: press → the clip's first sample at the device, median and worst of 100 presses made
# at random moments while the attract loop plays (the real player, library and engine on the paced
# "none" device; the figure includes the engine's reaction, not a sound card's buffer).
set -euo pipefail
# BUILD: the build directory holding kiosk-player and kiosk-bench (default .build/release; a binary in it works too).
build=${1:-.build/release}
[ -f "$build" ] && build=$(dirname "$build")
kbench=$build/kiosk-bench
"$kbench" exhibit --presses 100 2>/dev/null
