#!/bin/bash
# Player 14: the screenless family box: spoken prompts, the status light while linking, the
# button lock.
#
# The qemu-gpio-sim board with `"screen": {"type": "none"}` (speech then defaults to "prompts"),
# a USB card reader (uinput kiosk-systest-rfid, as scenario 18), the two-albums stick.
#   1. the player starts without a screen and says it speaks prompts;
#   2. play (line 0) → Alpha track 1 from its start, bit-exact for 1 s;
#   3. an unknown card mid-track → the spoken link prompt on the loopback, between the track's
#      frames: the track breaks off, speech plays (its length and loudness measured: 1–10 s,
#      RMS above -40 dBFS, no sample at full scale), and the track goes on with the frame after the
#      last one before the prompt (within 50 ms: underrun silence allowed); meanwhile the status
#      light (line 8) blinks fast (linking: 4 Hz; at least 6 changes in 2 s, where 1 Hz gives 4);
#   4. the link gesture (play+push held 1 s, while the prompt shows) → the card is linked to Alpha
#      (the log; "Card linked" is said after the first prompt);
#   5. stop, then the card again → Alpha from the start of the track stop rewound to, bit-exact for 1 s;
#   6. the lock chord (stop+previous held 3.5 s) → "inputs locked"; a stop press is ignored: the
#      sound goes on; the chord again → "inputs unlocked"; stop → silence within 1 s.
# timeout: 240
# shellcheck source=../lib.sh
source "$SYSTEST_REPO/Tests/System/lib.sh"
require_infra snd-aloop gpio-sim loop uinput
require_command flac arecord python3
require_player_run
use_fixture two-albums  # fixtures.sh: Alpha 3 × 12 s (magenta cover), Beta 2 × 4 s (no cover)

library=$FIXTURE/library
track_references "$library" "Artist A" Alpha 3
must "the FAT stick mounted read-only" player_stick "$FIXTURE/stick.img" KIOSKLIB
player_config "$CONFIG" "$MEDIA_ROOT" "$STATE_DIR" \
    '"cards": {"readers": [{"type": "usb", "device": "kiosk-systest-rfid"}]}'
# No screen: the board's framebuffer is not used.
sed -i 's|"screen": {[^}]*}|"screen": { "type": "none" }|' "$CONFIG"
must "a valid config without a screen" "$SYSTEST_PLAYER" check-config "$CONFIG"

# sounding_tail FRAMES : the last FRAMES frames captured are not all silence.
sounding_tail() { ! pcm_silent_tail "$1"; }

# chord_hold MS LINE… : presses the lines together, holds them MS, releases them.
chord_hold() {
    local ms=$1 line
    shift
    for line in "$@"; do gpio_pull "$line" down; done
    snooze "$(awk -v ms="$ms" 'BEGIN { printf "%.3f", ms / 1000 }')"
    for line in "$@"; do gpio_pull "$line" up; done
}

must "the uinput card reader exists before the player starts" uinput_start kiosk-systest-rfid
must "capture $SYSTEST_CAPTURE_PCM" capture_start "$SYSTEST_WORK/capture.raw"
player_start "$CONFIG"

# 1.
must "the player has scanned the stick within 30 s" \
    wait_for 30 "the scan" grep -q "scanned" "$SYSTEST_WORK/player.log"
check "no screen: the player speaks its prompts" player_log_has "speech: prompts"

# 2.
press_frame=$(capture_search_start)
button_press "$LINE_PLAY"
must "play: Alpha track 1 from its start, bit-exact for 1 s" \
    wait_pcm 15 find "$ref1" --from "$press_frame" --frames 44100
track_start=$PCM_TRACK_START
wait_capture_frames $((track_start + 2 * SYSTEST_RATE))

# 3.
card_swipe 1111
check "an unknown card is offered for linking" \
    wait_for 10 "the new-card offer" player_log_has "card 1111: not linked; offering Alpha"
linking=$(gpio_samples "$LINE_STATUS_LIGHT" 2)
n=$(level_changes "$linking")
log "linking: $linking ($n changes)"
figure linking_blink_changes_2s "$n"
check "linking: the status light blinks fast (at least 6 changes in 2 s; 1 Hz gives 4)" test "$n" -ge 6

# 4. (while the link prompt shows)
chord_hold 1500 "$LINE_PLAY" "$LINE_ENC_PUSH"
check "the link gesture links the card to Alpha" \
    wait_for 10 "the link" player_log_has 'card 1111 linked to album "Alpha"'

# 3. (continued) the prompts are over and the album has gone on for a while: looked for after 10 s
# of capture, then every 5 s more (up to 30 s in all) while the album has not come back after them.
wait_capture_frames $(($(capture_frames) + 10 * SYSTEST_RATE)) 60
for more in 1 2 3 4 5; do
    result=$(prompt_between "$CAPTURE_FILE" "$track_start" "$ref1" "$ref2" "$ref3") && break
    log "prompt, not yet back after it: $result"
    [ "$more" = 5 ] || wait_capture_frames $(($(capture_frames) + 5 * SYSTEST_RATE)) 60
done
log "prompt: $result"
check "the track breaks off for the prompt and comes back" test -n "$(echo "$result" | grep -o 'resumed_at=[0-9]*')"
eval "$(echo "$result" | tr ' ' '\n' | grep -E '^(resumed_at|expected|prompt_ms|rms_db|peak)=' | sed 's/^/p_/')"
# The link offer and then "Card linked" (said after it): one stretch of speech.
figure prompt_ms "${p_prompt_ms:-0}"
figure prompt_rms_dbfs "${p_rms_db:-0}"
check "the spoken prompt lasts 1-10 s (${p_prompt_ms:-?} ms)" test "${p_prompt_ms:-0}" -ge 1000 -a "${p_prompt_ms:-0}" -le 10000
check "the prompt is loud enough (RMS ${p_rms_db:-?} dBFS > -40)" \
    awk -v d="${p_rms_db:--99}" 'BEGIN { exit !(d > -40) }'
check "the prompt does not clip (peak ${p_peak:-?})" test "${p_peak:-32767}" -lt 32767
check "the track goes on where it broke off (reference frame ${p_resumed_at:-?} after ${p_expected:-?}, at most 50 ms later)" \
    test "${p_resumed_at:--1}" -ge "${p_expected:-0}" -a "${p_resumed_at:--1}" -le $((${p_expected:-0} + 2205))

# 5.
button_press "$LINE_STOP"
must "stop: silence within 2 s" wait_for 10 "silence after stop" pcm_silent_tail $((SYSTEST_RATE / 2))
press_frame=$(capture_now)
card_swipe 1111
must "the linked card plays: sound within 15 s" wait_sound 15 "$press_frame"
wait_capture_frames $((SOUND_FRAME + 2 * SYSTEST_RATE))
# Alpha, from the start of the track the stop rewound to (which one depends on how long the
# prompts took: Alpha's tracks are 12 s): its first second follows the swipe, bit-exact.
found=""
for n in 1 2 3; do
    ref_var=ref$n
    if out=$(_pcm_polling=1 pcm_find "${!ref_var}" --from "$press_frame" --frames 44100); then found="track $n: $out"; break; fi
done
log "the card plays ${found:-none of the album tracks from its start}"
check "the linked card plays a track of Alpha from its start, bit-exact for 1 s" test -n "$found"

# 6.
chord_hold 3500 "$LINE_STOP" "$LINE_PREVIOUS"
must "the lock chord locks the buttons" wait_for 10 "the lock" player_log_has "inputs locked"
snooze 3
button_press "$LINE_STOP"
snooze 1.5
check "locked: stop is ignored, the sound goes on" sounding_tail $((SYSTEST_RATE / 2))
chord_hold 3500 "$LINE_STOP" "$LINE_PREVIOUS"
must "the chord again unlocks" wait_for 10 "the unlock" player_log_has "inputs unlocked"
# "Unlocked" shows (and is said) for 3 s; a press meanwhile only dismisses it.
snooze 4
button_press "$LINE_STOP"
check "unlocked: stop stops (silence within 2 s)" wait_for 10 "silence after stop" pcm_silent_tail $((SYSTEST_RATE / 2))

check "the player is running" player_alive
check "SIGTERM: exits 0 within 10 s" player_stop
check "arecord lost no frames" capture_stop
uinput_stop
finish
