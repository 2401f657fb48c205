#!/bin/bash
# Player 8: the sleep timer, set by a button, faded out in the engine, then stopped.
#
# The two-albums stick, the queue on repeat, "sleepMinutes": [1] and the category button (line 4)
# remapped to "sleep" through inputs.keymap, as a parent would set it up:
#   1. play (line 0) → sound;
#   2. the sleep button → the timer runs (the log says so);
#   3. 30 s before the end the fade starts: the loudness of the capture, in 2 s windows, falls
#      from window to window, the last one under a tenth of the level before the fade;
#   4. the timer's end: silence that lasts; the player is still running (stopped, not gone);
#      SIGTERM → exit status 0.
# timeout: 240
# shellcheck source=../lib.sh
source "$SYSTEST_REPO/Tests/System/lib.sh"
require_infra snd-aloop fb gpio-sim loop
require_command arecord python3
require_player_run
use_fixture two-albums  # fixtures.sh: Alpha 3 × 12 s, Beta 2 × 4 s

must "the FAT stick mounted read-only; a valid config" player_stick "$FIXTURE/stick.img" KIOSKLIB
player_config "$CONFIG" "$MEDIA_ROOT" "$STATE_DIR" '"repeat": true, "sleepMinutes": [1]' \
    '"keymap": {"category": {"press": "sleep"}}, "longPressMs": 1500'
# longPressMs 1500: the category button keeps a long press (previous category), so its press acts on
# release; a 120 ms press stretched past 600 ms by a stalling emulator (the press and release are two
# runs of gpio-bounce) would be that long press. Once, with 29 VM stalls in the scenario, the press
# set no timer; this was the likely cause, not a proven one (the player's log does not name presses).
must "the sleep config is valid" "$SYSTEST_PLAYER" check-config "$CONFIG"

must "capture $SYSTEST_CAPTURE_PCM" capture_start "$SYSTEST_WORK/capture.raw"
player_start "$CONFIG"
must "the player has scanned the stick within 30 s" \
    wait_for 30 "the scan" grep -q "scanned" "$SYSTEST_WORK/player.log"
snooze 2

# 1. play
button_press "$LINE_PLAY"
must "play: sound within 15 s" wait_for 15 "sound" pcm-match first-sound "$CAPTURE_FILE"

# 2. the sleep button
button_press "$LINE_CATEGORY"
must "the sleep button sets the timer" \
    wait_for 10 "the sleep timer" grep -q "sleep timer: 1 min" "$SYSTEST_WORK/player.log"
fb_screenshot 2-sleep-set > /dev/null

# 3. the fade: from the log line that starts it to the one that ends the timer
must "the fade starts within 40 s" \
    wait_for 40 "the fade" grep -q "sleep timer: fading out" "$SYSTEST_WORK/player.log"
fade_from=$(capture_now)
fb_screenshot 3-fading > /dev/null
must "the timer ends within 40 s" \
    wait_for 40 "the timer's end" grep -q "sleep timer ended: stopping" "$SYSTEST_WORK/player.log"
fade_to=$(capture_now)
log "fade heard from capture frame $fade_from to $fade_to"
check "the fade lasted about 30 s (27-34 s of capture)" \
    test $((fade_to - fade_from)) -ge $((27 * SYSTEST_RATE)) -a $((fade_to - fade_from)) -le $((34 * SYSTEST_RATE))
window=$((2 * SYSTEST_RATE))
before_from=$((fade_from - 3 * window))
[ "$before_from" -ge 0 ] || before_from=0
levels="$(capture_rms "$before_from" $((fade_from - window))) $(capture_rms $((fade_from + SYSTEST_RATE / 2)) "$fade_to" "$window")" ||
    fail "measure the capture's loudness"
log "loudness before the fade, then per 2 s window: $levels"
read -r before first rest <<< "$levels"
check "the loudness falls from window to window (5 % slack for the music's own changes)" levels_fall $first $rest
last=${levels##* }
check "the last window is under a tenth of the level before the fade ($last vs $before)" \
    awk -v a="$last" -v b="$before" 'BEGIN { exit !(a < b / 10) }'

# 4. stopped, silent, still running
wait_capture_frames $((fade_to + 4 * SYSTEST_RATE))
check "silent after the timer's end" pcm_silent $((fade_to + 2 * SYSTEST_RATE)) $((2 * SYSTEST_RATE))
check "the player is still running (stopped)" player_alive
check "SIGTERM: exits 0 within 10 s" player_stop
check "arecord lost no frames" capture_stop
finish
