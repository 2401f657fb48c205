#!/bin/bash
# Player 1: boot with a library mounted, play, next, pause, stop.
#
# A FAT image holding two albums (Alpha: 3 tracks with a magenta cover.png, Beta: 2 tracks, no
# cover) is loop-mounted read-only under the media root, then `kiosk-player run --config` starts
# as systemd would start it (board qemu-gpio-sim: buttons on gpio-sim lines, /dev/fb0, hw:Loopback,0).
#   1. within 30 s the screen shows the album list with the first album selected, pixel for pixel
#      as `kiosk-player render browse` draws that state (with or without Alpha's cover.png as the
#      thumbnail yet: scenario 12 checks that the thumbnail comes);
#   2. play (line 0) → the capture holds Alpha track 1 from its first frame, bit-exact over 1 s;
#      first_pcm_ms = player exec → that first frame captured;
#   3. next (line 2) → Alpha track 2 starts from its beginning, bit-exact over 1 s;
#   4. play-pause → silence within 1 s; 2 s later the capture is still silent; play-pause again →
#      track 2 continues where it stopped (within 250 ms either way: the output buffer may be
#      dropped or replayed);
#   5. stop (line 1) → silence; play → the current track again from its first frame (stop rewinds;
#      track 3 when track 2 ran out before the stop took effect, as it can under TCG);
#   5b. when the board profile maps the uinput keyboard "kiosk-systest-keys" (an "evdev" entry):
#      KEY_NEXTSONG injected through uinput → Alpha track 3 from its start (silence, the queue's
#      end, when step 5 restarted track 3);
#   6. SIGTERM → exit status 0 within 10 s. CPU time and peak RSS are read from /proc before.
# timeout: 150
# shellcheck source=../lib.sh
source "$SYSTEST_REPO/Tests/System/lib.sh"
require_infra snd-aloop fb gpio-sim loop
require_command flac arecord
require_player_run
use_fixture two-albums  # fixtures.sh: Alpha 3 × 12 s (magenta cover), Beta 2 × 4 s (no cover)

library=$FIXTURE/library
track_references "$library" "Artist A" Alpha 3
must "the FAT stick mounted read-only; a valid config" player_stick "$FIXTURE/stick.img" KIOSKLIB
black_screen

board_file=$(sed -n 's/.*"boardFile": *"\([^"]*\)".*/\1/p' "$SYSTEST_WORK/check-config.log")
keys=0
if grep -q kiosk-systest-keys "$board_file" 2>/dev/null; then
    must "create the uinput keyboard before the player starts" uinput_start kiosk-systest-keys
    keys=1
fi

player_start_captured

# 1. the first album on screen
must "the player draws and the screen settles within 30 s" fb_settle 30 "$SYSTEST_WORK/browse.raw" "$SYSTEST_WORK/black.raw"
fb_screenshot 1-browse > /dev/null
check "the player is running" player_alive
browse='{"categoryLabel":"Albums","selectedIndex":0,"items":[{"title":"Alpha","subtitle":"Artist A · 3 tracks","artworkKey":"alpha"},{"title":"Beta","subtitle":"Artist B · 2 tracks"}]}'
with_cover=$(render_expected browse-alpha-cover browse "$browse" --artwork "$FIXTURE/library/Artist A/Alpha/cover.png")
without_cover=$(render_expected browse-alpha browse "${browse/,\"artworkKey\":\"alpha\"/}")
screen_is_list() { fb_matches "$with_cover" || fb_matches "$without_cover"; }
check "the album list with Alpha selected, as kiosk-player render draws it" wait_for 10 "the album list" screen_is_list

# 2. play → track 1 from its start
press_frame=$(capture_search_start)
press_us=$(now_us)
button_press "$LINE_PLAY"
must "play: Alpha track 1 plays from its start, bit-exact for 1 s" \
    wait_pcm 15 find "$ref1" --from "$press_frame" --frames 44100
check "the first sound after play is track 1's first frame" test "$PCM_REFERENCE_FRAME" = "$(pcm-match first-sound "$ref1")"
first_pcm_figure "$PCM_TRACK_START"
figure press_to_pcm_ms $(( ($(capture_frame_us "$PCM_TRACK_START") - press_us) / 1000 ))
fb_screenshot 2-playing > /dev/null
wait_capture_frames $((PCM_TRACK_START + 2 * SYSTEST_RATE))

# 3. next → track 2 from its start
press_frame=$(capture_search_start)
button_press "$LINE_NEXT"
must "next: Alpha track 2 plays from its start, bit-exact for 1 s" \
    wait_pcm 15 find "$ref2" --from "$press_frame" --frames 44100
track2_start=$PCM_TRACK_START
fb_screenshot 3-next > /dev/null
wait_capture_frames $((track2_start + 3 * SYSTEST_RATE))

# 4. pause → silence, the position holds; resume continues
button_press "$LINE_PLAY"
must "pause: silence within 1 s" wait_for 10 "silence after pause" \
    pcm_silent_tail $((SYSTEST_RATE / 2))
silent_from=$(capture_now)
snooze 2
wait_capture_frames $((silent_from + 2 * SYSTEST_RATE))
check "paused: still silent 2 s later" pcm_silent "$silent_from" $((2 * SYSTEST_RATE))
# the last frame played before the pause, as a frame of track 2: where the trace of track 2 from its
# start ends its last bit-exact stretch. Underrun silence and snd-aloop's replayed laps since the
# track's start move the capture's frames against the track's, so neither the last sound's capture
# frame minus track2_start nor the 100 ms before it located alone gives the track's frame.
last_sound=$(pcm-match last-sound "$CAPTURE_FILE" --before "$silent_from")
last_match=$(pcm-match trace "$CAPTURE_FILE" "$ref2" --gaps --from "$track2_start" | grep '^match' | tail -n 1 || true)
# "match capture C0..C1 = reference R0..R1 (N frames)": the stretch's ends, exclusive
read -r stretch_end reference_end < <(echo "$last_match" |
    sed -n 's/^match capture [0-9]*\.\.\([0-9]*\) = reference [0-9]*\.\.\([0-9]*\) .*/\1 \2/p') || true
must "the last sound before the pause ends a stretch of track 2 ($last_match)" \
    test "${stretch_end:-}" = $((last_sound + 1))
paused_at=$((reference_end - 1))
log "paused after capture frame $last_sound = track 2 frame $paused_at ($((last_sound - track2_start - paused_at)) frames of underrun silence and replay since its start)"
fb_screenshot 4-paused > /dev/null
resume_frame=$(capture_now)
button_press "$LINE_PLAY"
must "resume: track 2 plays again" wait_pcm 15 locate "$ref2" --from "$resume_frame" --frames 22050
resumed_at=$PCM_REFERENCE_FRAME
gap=$((resumed_at - paused_at - 1))  # 0 = seamless; < 0 = frames heard twice; > 0 = frames skipped
figure pause_resume_gap_frames "$gap"
check "resume continues where it paused (gap $gap frames, at most 250 ms either way)" \
    test "${gap#-}" -le $((SYSTEST_RATE / 4))

# 5. stop → silence; play → the current track from its start. Stop is pressed at once (under TCG a
#    press takes a second or two to act and every pcm-match costs seconds): if track 2 still ran out
#    first, track 3 is the current track when the stop lands, and play must start that one.
button_press "$LINE_STOP"
must "stop: silence within 1 s" wait_for 10 "silence after stop" pcm_silent_tail $((SYSTEST_RATE / 2))
fb_screenshot 5-stopped > /dev/null
press_frame=$(capture_now)
stop_last=$(pcm-match last-sound "$CAPTURE_FILE" --before "$press_frame")
current_ref=$ref2
current="track 2"
if ! pcm_locate "$ref2" --from $((stop_last - 440)) --frames 441 > /dev/null 2>&1 &&
    pcm_locate "$ref3" --from $((stop_last - 440)) --frames 441 > /dev/null 2>&1; then
    current_ref=$ref3
    current="track 3 (track 2 ended before the stop took effect)"
fi
log "stopped in $current"
button_press "$LINE_PLAY"
must "play after stop: $current again from its first frame" \
    wait_pcm 15 find "$current_ref" --from "$press_frame" --frames 44100
check "it restarted at the track's first frame" test "$PCM_REFERENCE_FRAME" = "$(pcm-match first-sound "$current_ref")"

# 5b. a key through uinput
if [ "$keys" = 1 ]; then
    wait_capture_frames $((PCM_CAPTURE_FRAME + SYSTEST_RATE))
    press_frame=$(capture_search_start)
    key_tap KEY_NEXTSONG 80
    if [ "$current_ref" = "$ref2" ]; then
        check "KEY_NEXTSONG (uinput): Alpha track 3 from its start" \
            wait_pcm 15 find "$ref3" --from "$press_frame" --frames 44100
    else
        # Step 5 restarted track 3, the album's last: next ends the queue (a slow CI machine got here).
        check "KEY_NEXTSONG (uinput) on the album's last track: the queue ends in silence" \
            wait_for 6 "silence after next on the last track (it would sound 10 s more)" pcm_silent_tail $((SYSTEST_RATE / 2))
    fi
else
    log "the board profile ($board_file) has no evdev entry for kiosk-systest-keys: no uinput step"
fi

# 6. clean exit
check "SIGTERM: exits 0 within 10 s" player_stop
check "arecord lost no frames" capture_stop
finish
