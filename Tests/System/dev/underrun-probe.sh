#!/bin/bash
# Evidence gathering (not part of make system-test): what does the loopback capture hold when the
# player underruns? Plays a generated track with `kiosk-player play` (and `aplay` for comparison)
# to hw:Loopback,0 while the player is stopped (SIGSTOP) for 100 ms several times, or while the
# host stalls the whole VM (vm_stall), then prints `pcm-match trace` for each capture (with the
# stall log) and keeps the captures:
#   bash Tests/System/run.sh Tests/System/dev/underrun-probe.sh
# timeout: 400
source "$SYSTEST_REPO/Tests/System/lib.sh"
require_infra snd-aloop
ref_flac=$SYSTEST_WORK/tone.flac
make_tone_flac "$ref_flac" 14 77 || fail "tone"
ref=$(track_reference "$ref_flac")

probe() { # NAME DISTURB(stop|host:MS|none) COMMAND...
    local name=$1 disturb=$2 pid i
    shift 2
    must "capture $name" capture_start "$SYSTEST_WORK/$name.raw"
    echo "$name epoch_us=$CAPTURE_EPOCH_US" >> "$SYSTEST_ARTIFACTS/epochs.txt"
    spawn "$name" "$@"
    pid=$SPAWNED_PID
    snooze 2
    case $disturb in
        stop)
            for i in 1 2 3 4 5 6 7 8; do
                echo "$name stop $(now_us)" >> "$SYSTEST_ARTIFACTS/events.txt"
                kill -STOP "$pid"; snooze 0.1; kill -CONT "$pid"; snooze 0.9
            done ;;
        host:*)
            for i in 1 2 3 4 5 6; do
                echo "$name vm_stall $(now_us)" >> "$SYSTEST_ARTIFACTS/events.txt"
                vm_stall "${disturb#host:}"; snooze 1.2
            done ;;
        stopmany)
            for i in $(seq 1 70); do
                kill -STOP "$pid"; snooze 0.07; kill -CONT "$pid"; snooze 0.08
            done ;;
        hog)
            local hogs=() h
            for h in 1 2; do nice -n -20 sh -c 'while :; do :; done' & hogs+=($!); done
            snooze 8
            kill "${hogs[@]}" ;;
        *) snooze 8 ;;
    esac
    kill -TERM "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
    snooze 0.3
    capture_stop
    log "---- $name ($disturb): $*"
    pcm-match trace "$CAPTURE_FILE" "$ref" --stalls "$SYSTEST_OUT/stalls.txt" --epoch-us "$CAPTURE_EPOCH_US" > "$SYSTEST_ARTIFACTS/$name.trace"
    grep -v '^match\|^silence\|^replay' "$SYSTEST_ARTIFACTS/$name.trace" | head -n 40 | while read -r l; do log "$l"; done
    log "$(grep -c '^replay' "$SYSTEST_ARTIFACTS/$name.trace") replays, $(grep -c '^silence' "$SYSTEST_ARTIFACTS/$name.trace") silences"
    log "$(grep -c '^match' "$SYSTEST_ARTIFACTS/$name.trace") match runs"
    log "player log: $(tail -n 5 "$SYSTEST_WORK/$name.log" | tr '\n' ' ')"
    cp "$CAPTURE_FILE" "$SYSTEST_ARTIFACTS/"
}

# a writer that delivers 90 % of real time in bursts, so aplay keeps running dry
slow_feed() {
    local bytes i
    bytes=$(stat -c %s "$ref")
    for ((i = 0; i * 15876 < bytes && i < 80; i++)); do
        dd if="$ref" bs=15876 skip="$i" count=1 status=none
        snooze 0.1
    done
}
aplay_slow() { slow_feed | aplay -q -D "$SYSTEST_PLAYBACK_PCM" -f S16_LE -r 44100 -c 2 -t raw --buffer-time=60000 --period-time=15000 -; }

engine() { echo "$SYSTEST_PLAYER" play "$ref_flac" --device "$SYSTEST_PLAYBACK_PCM" "$@"; }
aplay_cmd=(aplay -q -D "$SYSTEST_PLAYBACK_PCM" -f S16_LE -r 44100 -c 2 -t raw --buffer-time=60000 --period-time=15000 "$ref")
aplay40=(aplay -q -D "$SYSTEST_PLAYBACK_PCM" -f S16_LE -r 44100 -c 2 -t raw --buffer-time=40000 --period-time=10000 "$ref")
for p in ${SYSTEST_PROBES:-engine-stop-60 aplay-stop engine-stopmany aplay-stopmany engine-host-150 aplay40-host-35 engine40-host-35}; do
    case $p in
        engine-stop-*) probe "$p" stop $(engine --buffer-ms "${p##*-}") ;;
        engine-host-*) probe "$p" "host:${p##*-}" $(engine) ;;
        engine-quiet) probe "$p" none $(engine) ;;
        aplay-stop) probe "$p" stop "${aplay_cmd[@]}" ;;
        aplay-slow) probe "$p" none aplay_slow ;;
        aplay-stopmany) probe "$p" stopmany "${aplay_cmd[@]}" ;;
        engine-stopmany) probe "$p" stopmany $(engine) ;;
        engine-hog) probe "$p" hog $(engine) ;;
        aplay-host-*) probe "$p" "host:${p##*-}" "${aplay_cmd[@]}" ;;
        aplay40-host-*) probe "$p" "host:${p##*-}" "${aplay40[@]}" ;;
        engine40-host-*) probe "$p" "host:${p##*-}" $(engine --buffer-ms 40) ;;
    esac
done
cp "$ref" "$SYSTEST_ARTIFACTS/reference.raw"
finish
