#!/usr/bin/env bash
# Formats: decode CPU per minute of audio for FLAC (44.1 kHz/16-bit), MP3 (LAME V2 and 320 kbit/s),
# AAC 256 kbit/s (M4A), Opus 128 kbit/s and Ogg Vorbis q5, then the whole engine playing each
# (unpaced), each against its reference command-line decoder (flac -d, mpg123, ffmpeg, opusdec,
# oggdec) in the same run, with the ratio. The music: 60 s of pink noise under a chord (stereo,
# 44.1 kHz; 48 kHz for Opus), so the encoders spend bits as on real recordings.
set -euo pipefail
# BUILD: the build directory holding kiosk-player and kiosk-bench (default .build/release; a binary in it works too).
build=${1:-.build/release}
[ -f "$build" ] && build=$(dirname "$build")
kbench=$build/kiosk-bench
scratch=$(mktemp -d /tmp/kiosk-bench-formats-XXXXXX)
trap 'rm -rf "$scratch"' EXIT
for tool in sox flac lame ffmpeg opusenc oggenc; do
    command -v "$tool" >/dev/null || { echo "formats: $tool is not installed (deploy/install-deps.sh)"; exit 0; }
done
sox -D -n -r 44100 -c 2 -b 16 "$scratch/music.wav" synth 60 pinknoise synth 60 sine mix 220 synth 60 sine mix 277 \
    synth 60 sine mix 330 vol 0.5
sox -D "$scratch/music.wav" -r 48000 "$scratch/music48.wav"
lame --quiet -V2 "$scratch/music.wav" "$scratch/v2.mp3"
lame --quiet -b 320 "$scratch/music.wav" "$scratch/320.mp3"
ffmpeg -v error -y -i "$scratch/music.wav" -c:a aac -b:a 256k "$scratch/aac256.m4a"
opusenc --quiet --bitrate 128 "$scratch/music48.wav" "$scratch/opus128.opus"
oggenc -Q -q 5 -o "$scratch/q5.ogg" "$scratch/music.wav"
flac -s -o "$scratch/cd.flac" "$scratch/music.wav"
seconds=${KIOSK_BENCH_SECONDS:-60}
for f in cd.flac v2.mp3 320.mp3 aac256.m4a opus128.opus q5.ogg; do
    "$kbench" decode "$scratch/$f" --seconds "$seconds"
done
for f in cd.flac v2.mp3 aac256.m4a opus128.opus q5.ogg; do
    "$kbench" play "$scratch/$f" --seconds "$seconds"
done
