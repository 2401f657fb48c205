#!/bin/bash
# Player 6: underruns and a stalled machine lose no frame and keep the device.
#
#   1. play a 60 s track; 2 s in, stop the player (SIGSTOP) for 150 ms, four times, a second apart:
#      each stop runs the device dry. Every frame from the track's start to past the last stop
#      must still come, bit-exact and in order, with nothing but digital silence between (the
#      device silences what it played, so an underrun cannot replay the buffer's previous lap);
#      the silence itself must be there (the stops did make it underrun), and the player logged
#      the underruns (its engine counts each write the device refused for having run dry);
#   2. the host stops the whole emulator for 250 ms, four times (vm_stall: a loaded host): the
#      player keeps its device (a write the kernel timed out on while the clock stood still is not
#      a lost device: no "audio device lost", no gap while it reopens), stall-watch saw the
#      stalls, and every frame comes — apart from what snd-aloop itself does when its timer runs
#      that late (frames of the ring heard twice, and as many never coming, at the recorded
#      stalls only: see Tests/System/README.md, "Facts worth knowing");
#   3. SIGTERM → exit 0.
# timeout: 150
# shellcheck source=../lib.sh
source "$SYSTEST_REPO/Tests/System/lib.sh"
require_infra snd-aloop fb gpio-sim loop stall-watch
require_command flac arecord
require_player_run
use_fixture resume  # fixtures.sh: Delta: 60 s + 5 s

resume_fixture_play
first_pcm_figure "$track_start"

# 1. the player stopped: underruns
wait_capture_frames $((track_start + 2 * SYSTEST_RATE)) 30
for i in 1 2 3 4; do
    kill -STOP "$PLAYER_PID"
    snooze 0.15
    kill -CONT "$PLAYER_PID"
    snooze 1
done
# the reference frames heard so far (the silence pushed them later), then half a second more
heard=$(( $(capture_now) - track_start - SYSTEST_RATE ))
wait_capture_frames $(( $(capture_now) + SYSTEST_RATE / 2 )) 30
must "every frame through the four stops, bit-exact and in order, only silence between" \
    pcm_find "$ref1" --from "$press_frame" --frames "$heard"
figure stop_silence_frames "${PCM_GAP_FRAMES:-0}"
check "the stops ran the device dry (silence inserted: ${PCM_GAP_FRAMES:-0} frames)" test "${PCM_GAP_FRAMES:-0}" -gt 0
logged=$(grep -c 'ran out of audio (underrun)' "$SYSTEST_WORK/player.log" || true)
figure underruns_logged "$logged"
check "the player logged the underruns ($logged lines)" test "${logged:-0}" -gt 0
pcm_trace "$ref1" --from "$press_frame" > /dev/null

# 2. the whole machine stalled
stalls_from=$(now_us)
stall_frame=$(capture_now)
for i in 1 2 3 4; do
    must "the host stalls the VM for 250 ms ($i)" vm_stall 250
    snooze 1
done
check "stall-watch saw the four stalls (timers ≥ 200 ms late: $(stalls_since "$stalls_from" | tr '\n' ' '))" \
    test "$(stalls_since "$stalls_from" | awk '$1 >= 200' | wc -l)" -ge 4
wait_capture_frames $(( $(capture_now) + SYSTEST_RATE )) 30
check "the player kept its audio device" not player_log_has "audio device lost"
check "the player is running" player_alive
# from a second before the first stall to a second after the last one
resume_frame=$((stall_frame - SYSTEST_RATE))
window=$(( $(capture_now) - resume_frame - 2 * SYSTEST_RATE ))
check "every frame through the four stalls, bit-exact and in order (snd-aloop's stall artefacts excused)" \
    pcm_locate "$ref1" --from "$resume_frame" --frames "$window"
pcm_trace "$ref1" --from "$resume_frame" > /dev/null

# 3.
check "SIGTERM: exits 0" player_stop
check "arecord lost no frames" capture_stop
finish
