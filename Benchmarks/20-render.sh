#!/usr/bin/env bash
# Display: full now-playing redraw at 320x240, RGB565/XRGB8888 framebuffer copy, the once-a-second
# update, and decode + scale of a 1500x1500 cover (JPEG baseline/progressive, PNG).
set -euo pipefail
# BUILD: the build directory holding kiosk-player and kiosk-bench (default .build/release; a binary in it works too).
build=${1:-.build/release}
[ -f "$build" ] && build=$(dirname "$build")
kbench=$build/kiosk-bench
"$kbench" render
