#!/usr/bin/env bash
# Audio: FLAC decode CPU per minute of audio vs `flac -d` (goal ≤ 1.1×), engine playback CPU and RSS,
# real-time playback CPU % and context switches vs MPD (goal ≤ MPD's), and the audio threads'
# steady-state allocator/lock calls and page faults (LD_PRELOAD counter, must be 0).
set -euo pipefail
# BUILD: the build directory holding kiosk-player and kiosk-bench (default .build/release; a binary in it works too).
build=${1:-.build/release}
[ -f "$build" ] && build=$(dirname "$build")
kbench=$build/kiosk-bench
bench=${KIOSK_FLAC_TESTBENCH:-../shared/flac-testbench/subset}
scratch=$(mktemp -d /tmp/kiosk-bench-audio-XXXXXX)
trap 'rm -rf "$scratch"' EXIT
if [ -d "$bench" ]; then
    cd16="$bench/01 - blocksize 4096.flac"
    hires="$bench/28 - high resolution audio, default settings.flac"
else
    # No testbench: 20 s of generated noise in each format.
    head -c $((44100 * 4 * 20)) /dev/urandom > "$scratch/cd.raw"
    head -c $((96000 * 6 * 20)) /dev/urandom > "$scratch/hires.raw"
    flac -s --force-raw-format --endian=little --sign=signed --channels=2 --bps=16 --sample-rate=44100 \
        -o "$scratch/cd.flac" "$scratch/cd.raw"
    flac -s --force-raw-format --endian=little --sign=signed --channels=2 --bps=24 --sample-rate=96000 \
        -o "$scratch/hires.flac" "$scratch/hires.raw"
    cd16="$scratch/cd.flac"
    hires="$scratch/hires.flac"
fi
"$kbench" decode "$cd16"
"$kbench" decode "$hires"
"$kbench" play "$cd16"
"$kbench" play "$hires"
"$kbench" realtime "$cd16" --seconds 30
if command -v cc >/dev/null; then
    cc -O2 -shared -fPIC -o "$scratch/libcounter.so" "$(dirname "$0")/kiosk_alloc_counter.c" -ldl
    # ALSA's own per-PCM mutex (plugins such as null/file; the hw plugin has none) is turned off so
    # that any lock counted is ours.
    LD_PRELOAD="$scratch/libcounter.so" LIBASOUND_THREAD_SAFE=0 \
        "$kbench" play "$cd16" "$hires" --no-compare | grep -E "bench play|steady state"
    LD_PRELOAD="$scratch/libcounter.so" \
        "$kbench" play "$cd16" --device none --seconds 5 --no-compare | grep -E "bench play|steady state|CPU"
fi
