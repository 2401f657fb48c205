#!/usr/bin/env bash
# SPI panels of the board profiles (Pirate Audio ST7789, Waveshare 1.44" ST7735S, PiTFT ILI9341):
# bytes, transfers and bus time per full frame, per now-playing tick and per progress-bar step,
# plus the CPU time of the RGB565 conversion (loop thread) and of sending (worker thread).
set -euo pipefail
# BUILD: the build directory holding kiosk-player and kiosk-bench (default .build/release; a binary in it works too).
build=${1:-.build/release}
[ -f "$build" ] && build=$(dirname "$build")
kbench=$build/kiosk-bench
"$kbench" spi
