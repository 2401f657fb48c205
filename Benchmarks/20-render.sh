#!/usr/bin/env bash
# Display: full now-playing redraw at 320x240, RGB565/XRGB8888 framebuffer copy, the once-a-second
# update, and decode + scale of a 1500x1500 cover (JPEG baseline/progressive, PNG).
set -euo pipefail
bin=${1:-.build/release/kiosk-player}
"$bin" bench render
