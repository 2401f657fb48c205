#!/bin/bash
# A crude imitation of `kiosk-player run`, only for checking the player scenarios' own plumbing
# (capture, alignment, button presses, screen grabs, mounts) before the real player exists:
#   SYSTEST_PLAYER=$PWD/Tests/System/dev/stand-in-player.sh bash Tests/System/run.sh 10 12 13
# It is not a test of anything and is never run by `make system-test`. Delete it once
# `kiosk-player run` works.
#
# What it does: albums = folders holding .flac files under the first media root, sorted; the
# screen is filled with the selected album's cover colour; gpio-sim line 0 play/pause (SIGSTOP /
# SIGCONT of aplay), 1 stop, 2 next; the position is saved to STATE/resume every second and
# restored (playing) at start; a vanished mount stops playback and greys the screen.
# `check-config` is passed to the real binary; there is no `scan`.
set -u
real=${SYSTEST_REAL_PLAYER:-$(dirname "$0")/../../../.build/debug/kiosk-player}
case "${1:-}" in
    run) [ "${2:-}" = --help ] && { echo "usage: stand-in run --config FILE"; exit 0; } ;;
    check-config) exec "$real" "$@" ;;
    --help) echo "stand-in player; commands: run check-config"; exit 0 ;;
    *) echo "stand-in: no command '${1:-}'" >&2; exit 2 ;;
esac
config=$3
root=$(sed -n 's/.*"mediaRoots": *\["\([^"]*\)".*/\1/p' "$config")
state=$(sed -n 's/.*"stateDirectory": *"\([^"]*\)".*/\1/p' "$config")
device=$(sed -n 's/.*"device": *"\(hw:[^"]*\)".*/\1/p' "$config")
mkdir -p "$state"
chip=$(gpiodetect | awk '$2 == "[kiosk-sim]" { print $1 }')

last_tick=0 albums=() tracks=() selected=0 track=0 playing=0 paused=0 aplay_pid="" started_us=0 offset_s=0
scan() { mapfile -t albums < <(find "$root" -name '*.flac' -printf '%h\n' 2>/dev/null | sort -u); }
draw() {
    local colour=808080
    [ ${#albums[@]} -gt 0 ] && [ -f "${albums[$selected]}/cover.png" ] && colour=$(fbtool pixel "${albums[$selected]}/cover.png" 0 0)
    [ "${1:-}" = gone ] && colour=404040
    fbtool fill /dev/fb0 "$colour"
}
stop_audio() { [ -n "$aplay_pid" ] && { kill -CONT "$aplay_pid"; kill "$aplay_pid"; wait "$aplay_pid"; } 2>/dev/null; aplay_pid=""; }
play() {  # play TRACK_INDEX OFFSET_SECONDS
    stop_audio
    mapfile -t tracks < <(ls "${albums[$selected]}"/*.flac | sort)
    track=$1 offset_s=$2 playing=1 paused=0 started_us=${EPOCHREALTIME/./}
    # --pdeathsig: a kill -9 of the stand-in silences it, as it would the real (single) process
    setpriv --pdeathsig KILL flac -d -s -c --skip="$(awk -v s="$2" 'BEGIN { printf "%d:%06.3f", s / 60, s % 60 }')" \
        "${tracks[$track]}" 2>/dev/null | setpriv --pdeathsig KILL aplay -q -D "$device" -t wav 2>/dev/null &
    aplay_pid=$!
}
position() { awk -v a="$started_us" -v b="${EPOCHREALTIME/./}" -v o="$offset_s" 'BEGIN { printf "%.2f", o + (b - a) / 1e6 }'; }

trap 'stop_audio; exit 0' TERM
scan; draw
if [ -f "$state/resume" ]; then read -r r_album r_track r_pos < "$state/resume"; selected=$r_album; play "$r_track" "$r_pos"; fi
exec {events}< <(setpriv --pdeathsig KILL gpiomon -b -B pull-up -F '%o %e %s %n' "$chip" 0 1 2)
# debounce by the kernel's event timestamps: a level counts once it held 20 ms (the next edge
# came 20 ms later, or none came); a press is a counted low after a counted high
pending=(1 1 1) since=(0 0 0) stable=(1 1 1)
commit() {
    local line=$1
    [ "${pending[$line]}" = "${stable[$line]}" ] && return
    stable[$line]=${pending[$line]}
    [ "${stable[$line]}" = 0 ] || return
    echo "stand-in: press on line $line (playing=$playing paused=$paused)" >&2
    case $line in
        0) if [ "$playing" = 0 ]; then play "$track" 0
           elif [ "$paused" = 0 ]; then kill -STOP "$aplay_pid"; paused=1; offset_s=$(position)
           else kill -CONT "$aplay_pid"; paused=0; started_us=${EPOCHREALTIME/./}; fi ;;
        1) stop_audio; playing=0 ;;
        2) [ $((track + 1)) -lt ${#tracks[@]} ] && play $((track + 1)) 0 ;;
    esac
}
while true; do
    now=${EPOCHREALTIME/./}
    if read -r -t 0.03 -u "$events" line edge sec nsec; then
        [[ "$sec" =~ ^[0-9]+$ && "$nsec" =~ ^[0-9]+$ ]] || continue
        ts=$((sec * 1000000000 + 10#$nsec))
        [ $((ts - since[line])) -ge 20000000 ] && commit "$line"
        pending[$line]=$edge since[$line]=$ts
        continue
    fi
    for line in 0 1 2; do commit "$line"; done
    [ $((now - last_tick)) -lt 500000 ] && continue
    last_tick=$now
    if ! awk -v r="$root" 'index($5, r) == 1 { found = 1 } END { exit !found }' /proc/self/mountinfo; then
        if [ ${#albums[@]} -gt 0 ]; then stop_audio; playing=0; albums=(); draw gone; fi
    elif [ ${#albums[@]} -eq 0 ]; then
        scan; selected=0; draw
    fi
    [ "$playing" = 1 ] && [ "$paused" = 0 ] && echo "$selected $track $(position)" > "$state/resume"
done
