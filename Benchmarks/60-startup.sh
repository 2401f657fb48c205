#!/usr/bin/env bash
# Start-up and memory of the appliance on a 10 000-track library with a cached index, resuming a
# track that was playing (`kiosk-bench startup`: exec → first PCM frame (goal ≤ 150 ms) and
# → first screen frame, RSS), then MPD on the same library for comparison (goal: our RSS under half
# of MPD's), when mpd(1) and python3 are installed. MPD runs with a private config in a temporary
# directory (null output, paced in real time like our "none" device), on a Unix socket, and is
# stopped at the end.
#
# Then both as a remote client sees them start (index / database cached): exec → the MPD socket's
# first answer, and → `stats` reporting every song, alternating ours and mpd's runs
# (KIOSK_BENCH_VISIBLE_RUNS, default 5); medians and the ratio.
set -euo pipefail
# BUILD: the build directory holding kiosk-player and kiosk-bench (default .build/release; a binary in it works too).
build=${1:-.build/release}
[ -f "$build" ] && build=$(dirname "$build")
kbench=$build/kiosk-bench
bin=$build/kiosk-player
library=${KIOSK_BENCH_LIBRARY:-/var/tmp/kiosk-player-bench-library-10000}
out=$("$kbench" startup --library "$library" 2>&1 || "$kbench" startup 2>&1)
echo "$out"
ours_playing=$(sed -n 's/.*RSS with screen none: playing \([0-9]*\) KiB.*/\1/p' <<<"$out")
ours_idle=$(sed -n 's/.*RSS with screen none: playing [0-9]* KiB, after the queue ended \([0-9]*\) KiB.*/\1/p' <<<"$out")
if ! command -v mpd >/dev/null || ! command -v python3 >/dev/null; then
    echo "startup: no comparison with MPD (needs mpd and python3: apt-get install mpd python3)"
    exit 0
fi
scratch=$(mktemp -d /tmp/kiosk-bench-mpd-XXXXXX)
mpd_pid=
stop_mpd() {
    if [ -n "$mpd_pid" ]; then kill "$mpd_pid" 2>/dev/null || true; wait "$mpd_pid" 2>/dev/null || true; fi
    mpd_pid=
}
trap 'stop_mpd; rm -rf "$scratch"' EXIT
cat > "$scratch/mpd.conf" <<CONF
music_directory "$library"
db_file "$scratch/database"
state_file "$scratch/state"
pid_file "$scratch/pid"
log_file "$scratch/log"
bind_to_address "$scratch/socket"
auto_update "no"
audio_output {
    type "null"
    name "null"
    mixer_type "none"
}
CONF
# A tiny MPD client: sends the commands, prints the responses.
mpc() {
    python3 - "$scratch/socket" "$@" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
f = s.makefile("rwb")
f.readline()
for command in sys.argv[2:]:
    f.write((command + "\n").encode()); f.flush()
    while True:
        line = f.readline().decode()
        if not line or line == "OK\n" or line.startswith("ACK"):
            if line.startswith("ACK"): print(line.strip(), file=sys.stderr)
            break
        print(line, end="")
PY
}
wait_socket() { for _ in $(seq 1 600); do [ -S "$scratch/socket" ] && mpc ping >/dev/null 2>&1 && return 0; sleep 0.1; done; return 1; }
rss() { awk '/^VmRSS:/ {print $2}' /proc/"$mpd_pid"/status; }
hwm() { awk '/^VmHWM:/ {print $2}' /proc/"$mpd_pid"/status; }

# 1. Build MPD's database once (its first start scans the library), then stop it.
mpd --no-daemon "$scratch/mpd.conf" 2>>"$scratch/log" & mpd_pid=$!
wait_socket || { echo "startup: mpd did not start: $(tail -5 "$scratch/log")"; exit 1; }
mpc update >/dev/null
for _ in $(seq 1 1200); do mpc status | grep -q '^updating_db' || break; sleep 0.25; done
songs=$(mpc stats | sed -n 's/^songs: //p')
stop_mpd
rm -f "$scratch/socket"

# 2. Start it again with the database cached; play the folder kiosk-player resumes in.
folder=$(cd "$library" && ls -d */ | sort | sed -n "$(( $(ls -d "$library"/*/ | wc -l) / 2 + 1 ))p" | tr -d /)
album=$(cd "$library/$folder" && ls -d */ | sort | head -1 | tr -d /)
mpd --no-daemon "$scratch/mpd.conf" 2>>"$scratch/log" & mpd_pid=$!
wait_socket || { echo "startup: mpd did not start again"; exit 1; }
sleep 0.5
mpd_idle=$(rss)
mpc clear "add \"$folder/$album\"" play >/dev/null
sleep 1.5
mpd_playing=$(rss)
mpd_peak=$(hwm)
stop_mpd
echo "startup: MPD $(mpd --version | head -1 | awk '{print $4}') on the same library ($songs songs, database cached): RSS after start $mpd_idle KiB, playing $mpd_playing KiB, peak $mpd_peak KiB"
if [ -n "$ours_playing" ] && [ "$mpd_playing" -gt 0 ]; then
    awk -v o="$ours_playing" -v oi="$ours_idle" -v m="$mpd_playing" -v mi="$mpd_idle" 'BEGIN {
        printf "startup: kiosk-player (no screen) / MPD RSS: playing %.0f %% (%d / %d KiB), idle %.0f %% (%d / %d KiB) (goal < 50 %%)\n",
            100 * o / m, o, m, 100 * oi / mi, oi, mi }'
fi

# 3. Songs visible to a client: exec → socket answers → `stats` counts every song.
visible() {  # $1 = socket, $2 = songs, then the command; prints "answered_ms visible_ms"
    python3 - "$@" <<'PY'
import os, socket, subprocess, sys, time
path, want, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
try: os.unlink(path)
except FileNotFoundError: pass
start = time.monotonic()
child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
answered = None
deadline = start + 60
while time.monotonic() < deadline:
    try:
        s = socket.socket(socket.AF_UNIX); s.connect(path); f = s.makefile("rwb"); f.readline()
        answered = answered or time.monotonic() - start
        songs = 0
        while songs < want and time.monotonic() < deadline:
            f.write(b"stats\n"); f.flush()
            while True:
                line = f.readline().decode()
                if line.startswith("songs: "): songs = int(line[7:])
                if not line or line == "OK\n" or line.startswith("ACK"): break
            if songs < want: time.sleep(0.002)
        break
    except OSError:
        time.sleep(0.002)
seen = time.monotonic() - start
child.terminate(); child.wait()
print("%.1f %.1f" % (1000 * (answered or 0), 1000 * seen))
PY
}
ours="$scratch/ours"
mkdir -p "$ours/boards" "$ours/state"
echo '{"name": "bench", "description": "startup benchmark", "screen": {"type": "none"}}' > "$ours/boards/bench.json"
cat > "$ours/config.json" <<CONF
{"board": "bench", "boardsDirectory": "$ours/boards", "mediaRoots": [], "stateDirectory": "$ours/state",
 "audio": {"device": "none", "realtimePriority": 0}, "screen": {"type": "none"}, "inputs": {"keyboard": false},
 "mpd": {"socket": "$ours/socket"}}
CONF
run_ours=("$bin" --verbose run --config "$ours/config.json" --library "$library")
# The first start scans into the index and checks every first frame; the timed starts find it.
"${run_ours[@]}" > "$ours/first.log" 2>&1 & first=$!
for _ in $(seq 1 1200); do grep -q "library: decoded the first frame" "$ours/first.log" && break; sleep 0.1; done
kill "$first"; wait "$first" 2>/dev/null || true
ours_times=() mpd_times=()
for _ in $(seq 1 "${KIOSK_BENCH_VISIBLE_RUNS:-5}"); do
    ours_times+=("$(visible "$ours/socket" "$songs" "${run_ours[@]}")")
    mpd_times+=("$(visible "$scratch/socket" "$songs" mpd --no-daemon "$scratch/mpd.conf")")
done
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
oa=$(printf '%s\n' "${ours_times[@]}" | awk '{print $1}' | median)
ov=$(printf '%s\n' "${ours_times[@]}" | awk '{print $2}' | median)
ma=$(printf '%s\n' "${mpd_times[@]}" | awk '{print $1}' | median)
mv=$(printf '%s\n' "${mpd_times[@]}" | awk '{print $2}' | median)
echo "startup: exec → MPD socket answers: kiosk-player $oa ms, mpd $ma ms (medians of ${#ours_times[@]})"
awk -v o="$ov" -v m="$mv" -v n="$songs" -v runs="${ours_times[*]}" -v mruns="${mpd_times[*]}" 'BEGIN {
    printf "startup: exec → all %d songs visible to a client: kiosk-player %s ms, mpd %s ms (%.2f×; runs (answer, visible): ours %s / mpd %s)\n",
        n, o, m, o / m, runs, mruns }'
