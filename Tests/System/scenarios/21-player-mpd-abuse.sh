#!/bin/bash
# Player 11: 63 abusive MPD clients neither stall the loop nor keep a fresh client waiting (issue 31).
#
# The player runs as its unit runs it, with systemd's side of the notify protocol played here
# (tools/notify-listen.py on $NOTIFY_SOCKET; the guest has no systemd as PID 1): READY=1, then
# WATCHDOG=1 pings at half of $WATCHDOG_USEC. The watchdog is set to 4 s, five times stricter than
# the unit's WatchdogSec=20s, so a stall of the loop that the unit would survive still shows.
# The same abuse under the real systemd and the installed unit: deploy/tests/boot-time-qemu.sh --mpd-abuse.
#   1. the two-albums stick, `mpd.socket` with maxClients 64 (the config's most); READY=1 arrives;
#   2. a client queues the stick and plays; then tools/mpd-abuse.py opens 63 clients at once:
#      16 send `command_list_begin` and 4000 `add`s and never end the list, 16 wait in `idle`,
#      16 trickle one byte of `status` a second, 15 pipeline `listallinfo` and never read;
#      for 20 s a fresh client connects 100 ms after the last one was answered and times `status`
#      from connect to OK (at least 30 of them):
#      every one answered, the median within 500 ms, at most one over 3 s. The probe is a Python
#      client on the same emulated CPUs as the 63 Python abusers, scheduled by the guest: on a quiet
#      host the median was 6–11 ms and the slowest 215–763 ms (p99 up to 462 ms) in four runs, so
#      250 ms for every probe is not a bound this guest can judge; the median tells the fix (322 ms
#      with per-client turns only, seconds before any fix), the 4 s watchdog below the loop's stalls.
#      Every probe within 250 ms is judged under the real systemd, where the probe is C on a FIFO
#      thread: deploy/tests/boot-time-qemu.sh --mpd-abuse (slowest 35–90 ms);
#   3. the real idle clients are all still connected at the end (MPD keeps them too);
#   4. no watchdog ping later than the 4 s a systemd would wait; the player is the process started
#      in 1 (no crash, no restart: what NRestarts=0 says under systemd); SIGTERM → exit 0.
# timeout: 120
# shellcheck source=../lib.sh
source "$SYSTEST_REPO/Tests/System/lib.sh"
require_infra snd-aloop fb gpio-sim loop
require_command python3
require_player_run
use_fixture two-albums  # fixtures.sh: Alpha 3 × 12 s, Beta 2 × 4 s

tools=$SYSTEST_REPO/Tests/System/tools
watchdog_usec=4000000
calm_seconds=8
abuse_seconds=20

# 1.
must "the FAT stick mounted read-only; a valid config" player_stick "$FIXTURE/stick.img" KIOSKLIB
socket=$SYSTEST_WORK/mpd.socket
player_config "$CONFIG" "$MEDIA_ROOT" "$STATE_DIR" "\"mpd\": { \"socket\": \"$socket\", \"maxClients\": 64 }"
"$SYSTEST_PLAYER" check-config "$CONFIG" > "$SYSTEST_WORK/check-config.log" 2>&1 ||
    fail "the config with mpd.socket is not valid: $(cat "$SYSTEST_WORK/check-config.log")"
spawn notify python3 "$tools/notify-listen.py" "$SYSTEST_WORK/notify.sock" "$SYSTEST_WORK/notify.log"
must "the notify socket is bound" wait_for 10 "notify socket" test -S "$SYSTEST_WORK/notify.sock"
NOTIFY_SOCKET=$SYSTEST_WORK/notify.sock WATCHDOG_USEC=$watchdog_usec player_start "$CONFIG"
started_pid=$PLAYER_PID
ready() { grep -q 'READY=1' "$SYSTEST_WORK/notify.log"; }
must "READY=1 on the notify socket" wait_for 60 "READY=1" ready
must "the MPD socket is listening" wait_for 10 "mpd.socket" test -S "$socket"

# 2. (first the same probes with no abuser: what a fresh client waits for here anyway)
python3 "$tools/mpd-abuse.py" "$socket" --seconds "$calm_seconds" --setup 'add KIOSKLIB' --setup 'play' \
    --lists 0 --idle 0 --trickle 0 --deaf 0 --probes "$SYSTEST_ARTIFACTS/calm-probes.txt" > "$SYSTEST_WORK/calm.txt" 2>&1
log "mpd-abuse.py without abusers: $(tr '\n' ' ' < "$SYSTEST_WORK/calm.txt")"
figure mpd_status_max_ms_calm "$(sed -n 's/^max_ms=//p' "$SYSTEST_WORK/calm.txt")"
figure mpd_status_p50_ms_calm "$(sed -n 's/^p50_ms=//p' "$SYSTEST_WORK/calm.txt")"
# Where the guest's CPU goes during the abuse: the player's threads (clock ticks, by name) and the
# guest as a whole (busy and idle ticks of /proc/stat), logged; mpd-abuse.py gives its own CPU. On
# the 2-core build machine (four runs): the player 1.8-2.7 s over the 20 s (its loop 1.4-2.2 s), the
# driver 0.9-1.1 s, the guest's two CPUs 15.5-18.8 s busy of 40 s; the slow probes came in the first
# 12 s. Not the player's CPU, nor a guest with no CPU to spare: what else is busy is still unknown.
thread_ticks() {
    for stat in /proc/"$PLAYER_PID"/task/*/stat; do
        sed 's/^[0-9]* (\(.*\)) \S* \(.*\)/\1 \2/' "$stat" 2>/dev/null | awk '{ print $1, $13 + $14 }'
    done | awk '{ t[$1] += $2 } END { for (n in t) print n, t[n] }' | sort
}
guest_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $5 + $6 }' /proc/stat; }
thread_ticks > "$SYSTEST_WORK/threads-before.txt"
read -r busy_before idle_before <<< "$(guest_ticks)"
out=$SYSTEST_WORK/abuse.txt
python3 "$tools/mpd-abuse.py" "$socket" --seconds "$abuse_seconds" --lists 16 --idle 16 --trickle 16 --deaf 15 --probes "$SYSTEST_ARTIFACTS/probes.txt" > "$out" 2>&1
status=$?
read -r busy_after idle_after <<< "$(guest_ticks)"
thread_ticks > "$SYSTEST_WORK/threads-after.txt"
hz=$(getconf CLK_TCK 2>/dev/null || echo 100)
player_cpu=$(awk -v hz="$hz" 'FNR == NR { before[$1] = $2; next }
    { d = $2 - before[$1]; total += d; if (d > 0) printf "%s %d ms, ", $1, d * 1000 / hz }
    END { printf "all %d ms", total * 1000 / hz }' "$SYSTEST_WORK/threads-before.txt" "$SYSTEST_WORK/threads-after.txt")
log "during the abuse: player threads: $player_cpu; the guest busy $(((busy_after - busy_before) * 1000 / hz)) ms, idle $(((idle_after - idle_before) * 1000 / hz)) ms (all CPUs)"
figure player_cpu_ms_during_abuse "$(sed 's/.*all \([0-9]*\) ms$/\1/' <<< "$player_cpu")"
log "mpd-abuse.py: $(tr '\n' ' ' < "$out")"
check "the abuse driver ran to its end (status $status)" test "$status" = 0
value() { sed -n "s/^$1=//p" "$out"; }
probes=$(value probes) failures=$(value failures) max_ms=$(value max_ms)
figure mpd_status_probes "${probes:-0}"
figure mpd_status_max_ms "${max_ms:-none}"
figure mpd_status_p50_ms "$(value p50_ms)"
check "the setup queued the stick and played" grep -q '^setup: play: OK' "$SYSTEST_WORK/calm.txt"
check "all 63 abusers connected" test "$(value abusers)" = 63
check "the 16 unterminated lists were taken whole" test "$(value lists_taken)" = 16
# A probe waits for its answer before the next is due 100 ms later, so the count follows the
# latency the median judges below; this only asks for a sample worth judging.
check "at least $((abuse_seconds * 3 / 2)) fresh clients asked (${probes:-0})" test "${probes:-0}" -ge $((abuse_seconds * 3 / 2))
check "every fresh client was answered (${failures:-?} failed)" test "${failures:-1}" = 0
# A probe that overlaps a stall of the whole VM (stall-watch: the guest's timers ran late, the host
# did not run it) measures the host, not the player: those are counted apart.
stalls=$SYSTEST_OUT/stalls.txt
[ -f "$stalls" ] || stalls=/dev/null
judge_probes() {
    : >"$SYSTEST_WORK/judged.txt"
    awk -v stall_ms=100 -v judged_file="$SYSTEST_WORK/judged.txt" '
        FILENAME == ARGV[1] { split($2, s, "="); split($3, l, "=")
            if (l[2] >= stall_ms * 1000) { n++; from[n] = s[2]; to[n] = s[2] + l[2] } next }
        { start = $1; end = $1 + $2 * 1000; stalled = 0
          for (i = 1; i <= n; i++) if (from[i] < end && to[i] > start) { stalled = 1; break }
          if (stalled) { skipped++; if ($2 > worst_stalled) worst_stalled = $2 }
          else { judged++; if ($2 > worst) worst = $2; print $2 > judged_file } }
        END { printf "judged=%d\nworst_ms=%.1f\nduring_stalls=%d\nworst_during_stalls_ms=%.1f\n",
              judged, worst, skipped, worst_stalled }' "$stalls" "$SYSTEST_ARTIFACTS/probes.txt"
}
judged=$(judge_probes)
log "probes outside VM stalls ≥ 100 ms: ${judged//$'\n'/ }"
judged_count=$(sed -n 's/^judged=//p' <<< "$judged") worst=$(sed -n 's/^worst_ms=//p' <<< "$judged")
figure mpd_status_max_ms_outside_vm_stalls "$worst"
figure mpd_status_probes_during_vm_stalls "$(sed -n 's/^during_stalls=//p' <<< "$judged")"
check "at least half the probes outside VM stalls to judge by (${judged_count:-0})" test "${judged_count:-0}" -ge $((${probes:-0} / 2))
p50=$(sort -n "$SYSTEST_WORK/judged.txt" | awk '{ v[NR] = $1 } END { i = int(NR * 0.5 + 0.999); if (i < 1) i = 1; print (NR ? v[i] : -1) }')
p99=$(sort -n "$SYSTEST_WORK/judged.txt" | awk '{ v[NR] = $1 } END { i = int(NR * 0.99 + 0.999); if (i < 1) i = 1; print (NR ? v[i] : -1) }')
figure mpd_status_p99_ms_outside_vm_stalls "$p99"
# Under 500 ms: on the 2-core build machine the median was 16-47 ms at 8f01656 (three runs) and
# 47-267 ms at the later builds tried (thirteen runs, 1-4 VM stalls each; natively the player's CPU
# for this abuse is the same at both, 0.3-0.5 s, and MPDFairnessTests judge the fairness natively:
# the loop never stalls 250 ms, a fresh status is answered at once). The TCG guest's spread covers
# the 322 ms of per-client turns alone, so this guest tells only a loop that starves fresh clients
# outright (seconds before any fix, caught by this and the 3 s bound); the median stays a figure.
check "half the statuses outside VM stalls took under 500 ms (median ${p50:-none} ms)" \
    awk -v m="${p50:--1}" 'BEGIN { exit !(m >= 0 && m < 500) }'
# At most one probe of 3 s or more (none reaches the probe's 8 s timeout: every one was answered,
# above). The clean-clone run on 8258d2c had one of 4.3 s at 6 s into the abuse, the rest under
# 0.8 s, with the loop turning throughout (watchdog gaps 2039 ms at a 2 s interval) and the player
# at 2.2 s of CPU; the other twenty runs here had none over 1.8 s. Each slow probe is logged with
# when its connect and greeting came, to find where it waited.
over=$(awk '$1 >= 3000' "$SYSTEST_WORK/judged.txt" | wc -l)
log "probes of 1 s or more (start µs, ms, ms to connect and greeting): $(awk '$2 >= 1000' "$SYSTEST_ARTIFACTS/probes.txt" | tr '\n' ';')"
figure mpd_status_probes_over_3s "$over"
check "at most one status outside VM stalls took 3 s or more ($over; the slowest ${worst:-none} ms, ${max_ms:-none} ms with VM stalls)" \
    test "$over" -le 1

# 3.
check "the 16 clients waiting in idle are still connected" test "$(value kept_idle)" = 16

# 4.
gaps=$(python3 "$tools/notify-listen.py" --gaps "$SYSTEST_WORK/notify.log")
log "watchdog: ${gaps//$'\n'/ }"
pings=$(sed -n 's/^pings=//p' <<< "$gaps") gap=$(sed -n 's/^max_gap_ms=//p' <<< "$gaps")
figure watchdog_pings "${pings:-0}"
figure watchdog_max_gap_ms "${gap:-none}"
check "the watchdog was pinged throughout (${pings:-0} pings)" test "${pings:-0}" -ge $((abuse_seconds * 1000000 / watchdog_usec))
check "no ping later than WATCHDOG_USEC (longest gap ${gap:-none} ms)" test "${gap:-99999}" -lt $((watchdog_usec / 1000))
check "the player is the process started (no crash, no restart)" test "$PLAYER_PID" = "$started_pid"
check "the player is running" player_alive
check "SIGTERM: exits 0" player_stop
finish
