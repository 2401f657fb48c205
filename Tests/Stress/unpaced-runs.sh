#!/usr/bin/env bash
# `kiosk-player play` on an unpaced device (ALSA's file plugin into /dev/null), RUNS times for a
# 5-minute WAV and RUNS times for a 1-second MP3: every run must exit, with status 0, within 5 s
# (issue 30: a lost wake-up left 3 runs in 6 waiting forever). Prints the longest run and the event
# loop's longest stall (a 10 ms timer's lateness, `play --loop-stall`) while the file decoded.
#   bash Tests/Stress/unpaced-runs.sh [BINARY] [RUNS]     (default .build/debug/kiosk-player, 200)
set -euo pipefail
bin=${1:-.build/debug/kiosk-player}
runs=${2:-200}
work=$(mktemp -d /tmp/kiosk-unpaced.XXXXXX)
trap 'rm -rf "$work"' EXIT
sox -n -r 44100 -c 2 -b 16 "$work/five-minutes.wav" synth 300 sine 440
sox -n -r 44100 -c 2 -b 16 "$work/one-second.wav" synth 1 sine 440
lame --quiet -V2 "$work/one-second.wav" "$work/one-second.mp3"
failed=0
for file in five-minutes.wav one-second.mp3; do
    longest=0
    stall=0
    for i in $(seq 1 "$runs"); do
        start=$(date +%s%N)
        status=0
        out=$(timeout 5 "$bin" play --loop-stall --device "file:'/dev/null',raw" "$work/$file" 2>&1) || status=$?
        ms=$(( ($(date +%s%N) - start) / 1000000 ))
        (( ms > longest )) && longest=$ms
        s=$(sed -n 's/^loop: longest stall \([0-9]*\) ms.*/\1/p' <<<"$out")
        [ -n "$s" ] && (( s > stall )) && stall=$s
        if [ "$status" != 0 ]; then
            echo "$file run $i: exit status $status after $ms ms"
            failed=$((failed + 1))
        fi
    done
    echo "$file: $runs runs, longest $longest ms, loop's longest stall $stall ms"
done
[ "$failed" = 0 ] || { echo "$failed runs failed"; exit 1; }
echo "all runs exited within 5 s"
