#!/usr/bin/env bash
# Exhibit mode: press → the clip's first sample at the device, median and worst of 100 presses made
# at random moments while the attract loop plays (the real player, library and engine on the paced
# "none" device; the figure includes the engine's reaction, not a sound card's buffer).
set -euo pipefail
bin=${1:-.build/release/kiosk-player}
"$bin" bench exhibit --presses 100 2>/dev/null
