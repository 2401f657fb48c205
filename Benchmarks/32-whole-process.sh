#!/usr/bin/env bash
# Whole process against whole process (issue 52): `kiosk-player play FILE` to ALSA's unpaced "null"
# device against each format's reference decoder writing to /dev/null, at its fairest settings:
# `flac -d`, `mpg123 -s` (raw, no resampling), `oggdec -R`, `opusdec --float` (no dither; opusdec
# dithers by default), `ffmpeg -f null` (AAC, ALAC), `sox -D` (WAV). CPU from wait4 (every thread,
# start-up and exit included), runs alternated A B / B A, ratios pair by pair (Benchmarks/versus.py).
# The music: 60 s of pink noise under a chord, as 31-formats.sh makes it.
set -euo pipefail
# BUILD: the build directory holding kiosk-player and kiosk-bench (default .build/release; a binary in it works too).
build=${1:-.build/release}
[ -f "$build" ] && build=$(dirname "$build")
player=$build/kiosk-player
here=$(cd "$(dirname "$0")" && pwd)
rounds=${KIOSK_BENCH_ROUNDS:-6}
scratch=$(mktemp -d /tmp/kiosk-bench-versus-XXXXXX)
trap 'rm -rf "$scratch"' EXIT
for tool in sox flac lame ffmpeg opusenc opusdec oggenc oggdec mpg123 python3; do
    command -v "$tool" >/dev/null || { echo "whole-process: $tool is not installed (deploy/install-deps.sh)"; exit 0; }
done
sox -D -n -r 44100 -c 2 -b 16 "$scratch/music.wav" synth 60 pinknoise synth 60 sine mix 220 synth 60 sine mix 277 \
    synth 60 sine mix 330 vol 0.5
sox -D "$scratch/music.wav" -r 48000 "$scratch/music48.wav"
flac -s -o "$scratch/cd.flac" "$scratch/music.wav"
lame --quiet -V2 "$scratch/music.wav" "$scratch/v2.mp3"
oggenc -Q -q 5 -o "$scratch/q5.ogg" "$scratch/music.wav"
opusenc --quiet --bitrate 128 "$scratch/music48.wav" "$scratch/opus128.opus"
ffmpeg -v error -y -i "$scratch/music.wav" -c:a aac -b:a 256k "$scratch/aac256.m4a"
ffmpeg -v error -y -i "$scratch/music.wav" -c:a alac "$scratch/alac.m4a"
play() { echo "$player" play "$1" --device null --realtime off; }
versus() { python3 "$here/versus.py" "$@"; }
echo "whole process, CPU per 60 s file, $rounds pairs alternated ($(date -u +%F), $(nproc) CPUs)"
# shellcheck disable=SC2046 # the command's words
versus "FLAC 44.1/16" 0.8 "$rounds" -- $(play "$scratch/cd.flac") -- flac -d -s -c "$scratch/cd.flac"
versus "MP3 V2" 1.0 "$rounds" -- $(play "$scratch/v2.mp3") -- mpg123 -q -s "$scratch/v2.mp3"
versus "Vorbis q5" 1.0 "$rounds" -- $(play "$scratch/q5.ogg") -- oggdec -Q -R -o - "$scratch/q5.ogg"
versus "Opus 128k" 1.0 "$rounds" -- $(play "$scratch/opus128.opus") -- opusdec --quiet --float "$scratch/opus128.opus" -
versus "AAC 256k" 0.9 "$rounds" -- $(play "$scratch/aac256.m4a") -- ffmpeg -v error -nostdin -i "$scratch/aac256.m4a" -f null -
versus "ALAC" 0.9 "$rounds" -- $(play "$scratch/alac.m4a") -- ffmpeg -v error -nostdin -i "$scratch/alac.m4a" -f null -
versus "WAV 44.1/16" 0.5 "$rounds" -- $(play "$scratch/music.wav") -- sox -D "$scratch/music.wav" -t raw -
