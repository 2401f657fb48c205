#!/bin/bash
# Player 4: kill -9 mid-track, start again → it resumes the same track within 5 s of where it was.
#
#   1. play a 60 s track; after about 12 s of it, note the track position being heard and kill -9
#      the player (no chance to save anything then: only the periodic resume state counts);
#   2. start the player again with the same config and state directory; if it does not play by
#      itself within 15 s, press play-pause once;
#   3. the first audio after the restart is the same track (bit-exact over 1 s), starting within
#      5 s of the position heard at the kill. first_pcm_ms here = restart exec → first frame.
# timeout: 180
# shellcheck source=../lib.sh
source "$SYSTEST_REPO/Tests/System/lib.sh"
require_infra snd-aloop fb gpio-sim loop
require_command flac arecord
require_player_run
use_fixture resume  # fixtures.sh: Delta: 60 s + 5 s

resume_fixture_play
wait_capture_frames $((track_start + 12 * SYSTEST_RATE)) 60

# 1. kill, then take the last frame heard as the position in the track
player_kill9
wait_capture_frames $(( $(capture_now) + SYSTEST_RATE / 2 ))
kill_frame=$(pcm-match last-sound "$CAPTURE_FILE")
must "audio before the kill" test -n "$kill_frame"
check "the last second before the kill is Delta 1 continuing (bit-exact)" \
    pcm_locate "$ref1" --from $((kill_frame - SYSTEST_RATE)) --frames $((SYSTEST_RATE / 2))
position_at_kill=$((kill_frame - track_start))
log "killed at track position $((position_at_kill * 1000 / SYSTEST_RATE)) ms"
check "a resume state was saved in the state directory" sh -c "ls '$STATE_DIR' | grep -q resume"

# 2.
restart_frame=$(capture_now)
player_start "$CONFIG"
if ! wait_sound 15 "$restart_frame" > /dev/null; then
    log "no sound within 15 s of the restart: pressing play-pause"
    button_press "$LINE_PLAY"
fi

# 3.
must "after the restart Delta 1 plays again, bit-exact over 1 s" \
    wait_pcm 20 locate "$ref1" --from "$restart_frame" --frames 44100
resumed_at=$PCM_REFERENCE_FRAME
difference_ms=$(( (resumed_at - position_at_kill) * 1000 / SYSTEST_RATE ))
figure resume_difference_ms "$difference_ms"
check "it resumed within 5 s of where it was killed (${difference_ms} ms)" test "${difference_ms#-}" -le 5000
first_pcm_figure "$PCM_CAPTURE_FRAME"
check "SIGTERM: exits 0" player_stop
check "arecord lost no frames" capture_stop
finish
