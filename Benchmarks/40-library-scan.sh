#!/usr/bin/env bash
# Library scan of a synthetic 10 000-track library (500 albums x 20, generated once under
# /var/tmp): kiosk-player's full scan, no-change rescan and 1 %-changed rescan, then MPD's
# `update` on the same library for comparison when mpd and mpc are installed (a private config in
# a temporary directory; the daemon is stopped afterwards). Warm page cache for both, unless
# KIOSK_BENCH_COLD=1 (root): then the page cache is dropped before every scan and update, which is
# closer to a freshly plugged USB stick. KIOSK_BENCH_RUNS=N repeats both N times (the machine may
# be shared: compare ranges, and CPU as well as wall time).
#
# Like with like: kiosk-player's "full scan" is scan + catalog build into an empty index (walk,
# tags, each file's first audio frame decoded, SQLite index written); MPD's full `update` is walk +
# tags into an empty database, saved to disk (MPD decodes no audio). The no-change rescan is given
# the previous scan's result, as MPD's `update` has its database in memory; the bench also prints
# the rescan from the index alone (after a restart). The 1 % change: kiosk-player's files are
# rewritten with new tags; for MPD the same share of files is touched (mtime), so MPD reads them again.
#
# The full scan checks FLAC, MP3, M4A, Ogg Vorbis and Opus files by their headers (as the player's
# library does) and the bench then times the background playability pass that decodes their first
# frames at idle priority; KIOSK_BENCH_DECODE_IN_SCAN=1 decodes them in the scan instead (the way
# before 2026-12-05).
#
# KIOSK_BENCH_MIXED=1: the library of the formats issue instead of all FLAC: half FLAC, 30 % MP3,
# 10 % M4A, 10 % Ogg Vorbis/Opus (made once with flac, lame, ffmpeg, oggenc and opusenc).
set -euo pipefail
# BUILD: the build directory holding kiosk-player and kiosk-bench (default .build/release; a binary in it works too).
build=${1:-.build/release}
[ -f "$build" ] && build=$(dirname "$build")
kbench=$build/kiosk-bench
mixed=${KIOSK_BENCH_MIXED:-0}
flags=()
if [ "$mixed" = 1 ]; then
    flags+=(--mixed)
    library=${KIOSK_BENCH_LIBRARY:-/var/tmp/kiosk-player-bench-library-mixed-10000}
else
    library=${KIOSK_BENCH_LIBRARY:-/var/tmp/kiosk-player-bench-library-10000}
fi
cold=${KIOSK_BENCH_COLD:-0}
runs=${KIOSK_BENCH_RUNS:-1}
[ "$cold" = 1 ] && flags+=(--cold)
[ "${KIOSK_BENCH_DECODE_IN_SCAN:-0}" = 1 ] && flags+=(--decode-in-scan)
for _ in $(seq 1 "$runs"); do
    "$kbench" scan --library "$library" "${flags[@]}"
done

if ! command -v mpd >/dev/null || ! command -v mpc >/dev/null; then
    echo "library-scan: mpd or mpc is not installed: no MPD comparison (apt-get install mpd mpc)"
    exit 0
fi
tmp=$(mktemp -d /tmp/kiosk-bench-mpd-XXXXXX)
pid=
cleanup() {
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill "$pid"; wait "$pid" 2>/dev/null || true; fi
    rm -rf "$tmp"
}
trap cleanup EXIT
mkdir "$tmp/empty" "$tmp/playlists"
write_config() {  # $1 = music directory
    cat > "$tmp/mpd.conf" <<CONF
music_directory    "$1"
playlist_directory "$tmp/playlists"
db_file            "$tmp/database"
log_file           "$tmp/log"
pid_file           "$tmp/pid"
state_file         "$tmp/state"
bind_to_address    "$tmp/socket"
auto_update        "no"
zeroconf_enabled   "no"
audio_output {
    type "null"
    name "null"
}
CONF
}
start_mpd() {
    mpd --no-daemon "$tmp/mpd.conf" 2>>"$tmp/stderr" &
    pid=$!
    for _ in $(seq 1 200); do
        [ -S "$tmp/socket" ] && mpc --host="$tmp/socket" status >/dev/null 2>&1 && return 0
        sleep 0.05
    done
    echo "library-scan: mpd did not start:"; cat "$tmp/stderr" "$tmp/log" 2>/dev/null | tail -5; exit 1
}
stop_mpd() {
    kill "$pid"; wait "$pid" 2>/dev/null || true; pid=
    rm -f "$tmp/socket"
}
cpu_ms() {  # utime + stime of the mpd process, in ms
    awk -v tick="$(getconf CLK_TCK)" '{ print int(($14 + $15) * 1000 / tick) }' "/proc/$pid/stat"
}
timed_update() {  # prints "WALL_MS CPU_MS"
    local start end cpu0 cpu1
    if [ "$cold" = 1 ]; then sync; echo 3 > /proc/sys/vm/drop_caches; fi
    cpu0=$(cpu_ms)
    start=$(date +%s%N)
    mpc --host="$tmp/socket" --wait update >/dev/null
    end=$(date +%s%N)
    cpu1=$(cpu_ms)
    echo "$(( (end - start) / 1000000 )) $(( cpu1 - cpu0 ))"
}
version=$(mpd --version | head -1 | awk '{print $4}')
[ "$cold" = 1 ] && cache="cold page cache" || cache="warm page cache"
for _ in $(seq 1 "$runs"); do
    # An empty database each time, so that the first timed update is the whole work.
    rm -f "$tmp/database"
    write_config "$tmp/empty"
    start_mpd
    for _ in $(seq 1 100); do [ -s "$tmp/database" ] && break; sleep 0.05; done
    stop_mpd
    [ -s "$tmp/database" ] || { echo "library-scan: mpd wrote no empty database"; exit 1; }
    write_config "$library"
    start_mpd
    read -r full full_cpu < <(timed_update)
    songs=$(mpc --host="$tmp/socket" stats | awk '/Songs:/ {print $2}')
    read -r unchanged unchanged_cpu < <(timed_update)
    find "$library" -type f \( -name '*.flac' -o -name '*.mp3' -o -name '*.m4a' -o -name '*.ogg' -o -name '*.opus' \) \
        | sort | awk 'NR % 100 == 51' | xargs -d '\n' touch
    read -r changed changed_cpu < <(timed_update)
    stop_mpd
    echo "library-scan: MPD $version update (mpc update --wait; wall / mpd CPU; $cache): full ${full} / ${full_cpu} ms (${songs} songs), no-change ${unchanged} / ${unchanged_cpu} ms, after touching 1 % ${changed} / ${changed_cpu} ms"
done
