#!/bin/bash
# Smoke: the ALSA loopback carries a decoded FLAC bit-exactly, in real time.
# aplay plays the decoded testbench file to hw:Loopback,0 while arecord captures hw:Loopback,1;
# the whole track must appear in the capture bit-exactly (alignment search), and aplay must take
# about the track's duration (snd-aloop is paced by a timer, unlike ALSA's null/file PCMs).
# Also records the first-PCM figure with aplay as the "player": the harness's own latency.
# timeout: 60
# shellcheck source=../lib.sh
source "$SYSTEST_REPO/Tests/System/lib.sh"
SYSTEST_PCM_GAPS=0  # aplay's 0.5 s buffer: the frames must arrive unbroken too
require_infra snd-aloop
require_command aplay arecord flac

if source_flac=$(testbench_file "01 - blocksize 4096.flac"); then
    log "source: testbench $(basename "$source_flac")"
else
    source_flac=$SYSTEST_WORK/generated.flac
    must "generate a 4 s test FLAC" make_tone_flac "$source_flac" 4 1
fi
reference=$SYSTEST_WORK/reference.raw
must "decode $(basename "$source_flac") with flac -d" audio_reference "$source_flac" "$reference"
ref_frames=$(pcm-match frames "$reference")
ref_first=$(pcm-match first-sound "$reference")
log "reference: $ref_frames frames ($((ref_frames * 1000 / SYSTEST_RATE)) ms), first sound at frame $ref_first"

must "arecord captures $SYSTEST_CAPTURE_PCM" capture_start "$SYSTEST_WORK/capture.raw"
aplay_start=$(now_us)
must "aplay plays to $SYSTEST_PLAYBACK_PCM" aplay -D "$SYSTEST_PLAYBACK_PCM" -t raw -f S16_LE -c 2 -r 44100 "$reference"
aplay_ms=$(( ($(now_us) - aplay_start) / 1000 ))
# aplay drained its last frames into the loopback; let arecord read them out before stopping it
must "the capture runs on past the end of the track" wait_capture_frames $(( $(capture_frame_at_us "$(now_us)") + SYSTEST_RATE / 2 ))
check "arecord lost no frames" capture_stop
figure aplay_ms "$aplay_ms"

track_ms=$((ref_frames * 1000 / SYSTEST_RATE))
check "aplay took the track's duration (${track_ms} ms) or longer: real-time pacing" test "$aplay_ms" -ge $((track_ms * 9 / 10))
# every frame from the reference's first sound to 50 ms before its end, bit-exact. When a
# playback stream stops, snd-aloop drops the frames of its last timer period: measured 177 of
# 308700 frames (4 ms, one tick at HZ=250) on a quiet host, 493 (11 ms) on a busy one.
tail_frames=$((SYSTEST_RATE / 20))
must "the whole track but its last 50 ms is in the capture bit-exactly" \
    pcm_locate "$reference" --frames $((ref_frames - ref_first - tail_frames))
whole=$(pcm-match locate "$CAPTURE_FILE" "$reference" --frames $((ref_frames - ref_first)))
longest=$(echo "$whole" | sed -n 's/.* \([0-9]*\) frames bit-exact, then .*/\1/p')
figure tail_lost_frames $((ref_frames - ref_first - ${longest:-$((ref_frames - ref_first))}))
check "the capture's first sound is the track's first sound" test "$PCM_REFERENCE_FRAME" = "$ref_first"
check "nothing but silence before the track in the capture" pcm_silent 0 "$PCM_CAPTURE_FRAME"
# the first-PCM measurement machinery, with aplay as the "player": exec → first frame captured
PLAYER_START_US=$aplay_start first_pcm_figure "$PCM_TRACK_START"
finish
