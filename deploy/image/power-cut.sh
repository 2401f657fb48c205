#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Pulls the plug on the SD-card image, again and again (not for CI: minutes per cut):
#
#   deploy/image/power-cut.sh [--cuts N] [--seed S] [IMAGE]
#
# The image's own kernel and initramfs boot its card under qemu-system-aarch64 -M virt (TCG, the card
# as a virtio disk: the same partitions, fstab by PARTUUID, read-only root, data partition), and QEMU
# is killed with SIGKILL (no flush, no shutdown: a power cut) at random instants:
#   - during the first boot (the data partition's entry grown, the restart, systemd-growfs);
#   - during a boot that applies a changed kiosk-settings.json (the settings alternate between two
#     valid files, volumeMax 61 and 62, written on the host between boots);
#   - a random time after READY (the player running, its journal and state on /data).
# After each cut the next boot runs to READY and a probe (systemd.run=, as in boot-raspi.sh) reports;
# every such boot must show: kiosk-player active (Type=notify: READY sent), no failed unit, `/`
# read-only, /data mounted read-write (fsck repaired what the cut left), the settings status
# applied or unchanged and the player's volumeMax the one of the file on the card (never half a
# file, never the older one once applied), and the resume record the player read never older than
# the last one a boot before it reported written. For that the test's copy of the card (not the
# image) gets a two-minute FLAC in the data partition's music folder, settings that open the MPD
# socket and use the silent sink, and a drop-in that runs the player with --verbose: every boot's
# probe streams the player's "resume: record N written" lines to the console as they come (a cut
# can only lose the last ones: the check is against a lower bound) and starts playback (repeat on)
# when the player did not resume it. Cuts before READY count as cuts too; the boot after is the
# verification. Writes .build/image/power-cut.log. Needs root (mtools and debugfs only),
# qemu-system-arm, mtools, e2fsprogs, sox, flac.
set -euo pipefail
export LC_ALL=C
repo=$(cd "$(dirname "$0")/../.." && pwd)
say() { echo "power-cut: $*"; }
die() { echo "power-cut: $*" >&2; exit 1; }
cuts=10
seed=$$
image=''
while [ $# -gt 0 ]; do
    case "$1" in
        --cuts) cuts=$2; shift ;;
        --seed) seed=$2; shift ;;
        *) image=$1 ;;
    esac
    shift
done
# shellcheck source=deploy/image/card.sh
source "$repo/deploy/image/card.sh"
image=$(card_image "$image")
RANDOM=$seed
timeout_s=${POWER_CUT_TIMEOUT:-900}
work=$(mktemp -d /tmp/kiosk-power-cut.XXXXXX)
qemu_pid=''
cleanup() { [ -z "$qemu_pid" ] || kill -9 "$qemu_pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
card=$work/card.img
card_copy "$image" "$card" 4G
card_boot "$card" cmdline.txt kiosk-settings.json
cmdline=$(tr -d '\n' <"$work/cmdline.txt")

# Music in the data partition (/data/music, a library folder of the image), written with debugfs at
# the partition's offset; and, on the root slot, a drop-in for the player's debug lines.
data_fs="$card?offset=$(($(card_part_start "$card" 4) * 512))"
root_fs="$card?offset=$(($(card_part_start "$card" 2) * 512))"
sox -n -r 44100 -c 2 -b 16 "$work/tone.wav" synth 120 sine 440 vol 0.3 2>/dev/null
flac -s --best -o "$work/tone.flac" "$work/tone.wav"
debugfs -w -R "write $work/tone.flac music/power-cut-tone.flac" "$data_fs" >/dev/null 2>&1
debugfs -R "stat music/power-cut-tone.flac" "$data_fs" 2>/dev/null | grep -q 'Size: [1-9]' || die "could not write the music into the data partition"
printf '[Service]\nExecStart=\nExecStart=/usr/bin/kiosk-player --verbose run --config /etc/kiosk-player/config.json\n' >"$work/verbose.conf"
debugfs -w -R "mkdir /etc/systemd/system/kiosk-player.service.d" "$root_fs" >/dev/null 2>&1 || true
debugfs -w -R "write $work/verbose.conf /etc/systemd/system/kiosk-player.service.d/power-cut-verbose.conf" "$root_fs" >/dev/null 2>&1
debugfs -R "cat /etc/systemd/system/kiosk-player.service.d/power-cut-verbose.conf" "$root_fs" 2>/dev/null | grep -q -- --verbose ||
    die "could not write the player's drop-in into the root slot"
# The settings the cuts alternate: the card's own with the MPD socket and the silent sink.
jq '. + {mpd: {socket: "default"}, audio: {device: "none"}}' "$work/kiosk-settings.json" >"$work/settings-base.json"

cat >"$work/probe.sh" <<'PROBE'
exec >/dev/ttyAMA0 2>&1
u=kiosk-player.service
# Every record the player reports written in this boot, as it comes (from the boot's start).
journalctl -b -f -u "$u" -o cat --no-pager | sed -u -n 's/.*resume: record \([0-9]*\) written.*/WRITTEN \1/p' &
i=0
while [ $i -lt 900 ]; do
    state=$(systemctl show -P ActiveState "$u")
    case $state in active | failed) break ;; esac
    sleep 1; i=$((i + 1))
done
echo "CHECK ready=$(systemctl show -P ActiveState "$u")/$(systemctl show -P SubState "$u") $(($(systemctl show -P ActiveEnterTimestampMonotonic "$u") / 1000)) ms"
echo "CHECK root=$(findmnt -n -o OPTIONS / | cut -d, -f1)"
echo "CHECK data=$(findmnt -n -o OPTIONS /data | cut -d, -f1)"
echo "CHECK settings=$(cat /run/kiosk-settings/status 2>/dev/null)"
echo "CHECK volumeMax=$(jq -r .volumeMax /etc/kiosk-player/config.json)"
sleep 3
echo "CHECK failed=$(systemctl --failed --no-legend --plain | cut -d' ' -f1 | tr '\n' ' ')"
# why a unit failed: its last journal lines (a failure under load is told from a real one)
for f in $(systemctl --failed --no-legend --plain | cut -d' ' -f1); do
    echo "CHECK why.$f=$(journalctl -b -u "$f" -o cat --no-pager | tail -n 4 | tr '\n' ' ' | cut -c1-300)"
done
echo "CHECK fsck=$(journalctl -b -o cat --no-pager -t systemd-fsck | tr '\n' ' ' | cut -c1-200)"
# The record read at start: its state record, or the position record that extends it (the newer).
echo "CHECK resume=$(journalctl -b -u "$u" -o cat --no-pager | sed -n 's/.*state record \([0-9]*\)\(, position record \([0-9]*\)\)\{0,1\}.*/\1 \3/p' | tail -n 1 | tr ' ' '\n' | sort -n | tail -n 1)"
# Playback, unless the player resumed it: the music in /data/music, repeated, through the MPD socket.
python3 - <<'PY'
import socket, time
def talk(s, line):
    s.sendall((line + "\n").encode())
    out = b""
    while not (out.endswith(b"OK\n") or b"ACK" in out):
        out += s.recv(65536)
    return out.decode(errors="replace")
for _ in range(60):
    try:
        s = socket.socket(socket.AF_UNIX); s.connect("/run/kiosk-player/mpd.socket"); s.recv(64); break
    except OSError:
        time.sleep(1)
else:
    print("CHECK play=no MPD socket"); raise SystemExit
state = "stop"
for _ in range(60):
    status = talk(s, "status")
    state = next((l.split(": ", 1)[1] for l in status.splitlines() if l.startswith("state: ")), "stop")
    files = [l[6:] for l in talk(s, "listall").splitlines() if l.startswith("file: ")]
    if state == "play" or files:
        break
    time.sleep(1)
if state != "play":
    talk(s, "clear"); talk(s, 'add "%s"' % files[0]); talk(s, "repeat 1"); talk(s, "play")
    time.sleep(2)
    state = next((l.split(": ", 1)[1] for l in talk(s, "status").splitlines() if l.startswith("state: ")), "?")
    print("CHECK play=started: " + state)
else:
    print("CHECK play=resumed: play")
PY
echo "PROBE-DONE"
sleep 100000
PROBE
mcopy -o -i "$fat" "$work/probe.sh" ::kiosk-probe.sh

append="$cmdline console=ttyAMA0 loglevel=6 systemd.show_status=1 systemd.default_device_timeout_sec=600"
append+=' systemd.wants=multi-user.target systemd.run="/bin/sh /boot/firmware/kiosk-probe.sh"'
boot() {   # boot LOG: starts QEMU in the background on the card
    # QEMU through the project's one launcher, which execs it: $! is QEMU's process id.
    bash "$repo/deploy/qemu-launch.sh" --arch aarch64 --machine virt --cpu cortex-a53 --smp 2 --memory 1024 --accel tcg \
        --kernel "$work/$kernel" --initrd "$work/$initrd" --append "$append" -- \
        -drive "file=$card,if=virtio,format=raw,cache=unsafe" \
        -serial "file:$1" -display none -no-reboot &
    qemu_pid=$!
}
# cut: SIGKILL, as a power cut; cache=unsafe above means what the guest had not flushed is lost
# only as far as QEMU had not written it: the cut is at the host's write-back, the closest QEMU has.
cut() { kill -9 "$qemu_pid" 2>/dev/null || true; wait "$qemu_pid" 2>/dev/null || true; qemu_pid=''; }
settings_variant=0
write_settings() {   # the card's settings file with volumeMax 61 or 62
    settings_variant=$((1 - settings_variant))
    jq --argjson v "6$((settings_variant + 1))" '.volumeMax = $v' "$work/settings-base.json" >"$work/s.json"
    mcopy -o -i "$fat" "$work/s.json" ::kiosk-settings.json
    expected_volume=6$((settings_variant + 1))
}
expected_volume=100
log_all=${POWER_CUT_LOG:-$repo/.build/image/power-cut.log}
: >"$log_all"
n=0 verified=0 failures=0 last_written=0 ready_sum=0
# written LOG: last_written raised to the newest record LOG's boot reported written.
written() {
    local w
    w=$(sed -n 's/^WRITTEN \([0-9]*\).*/\1/p' "$1" 2>/dev/null | sort -n | tail -n 1)
    if [ -n "$w" ] && [ "$w" -gt "$last_written" ]; then last_written=$w; fi
}
# verify N: a boot to the probe's end; judged; then a cut a random 0-20 s later (the player running).
verify() {
    local log=$work/boot-$1.log start restarts=0
    start=$(date +%s)
    # A boot that restarts on purpose (the grow's restart) ends QEMU (-no-reboot): booted again.
    while [ "$restarts" -lt 3 ]; do
        boot "$log"
        while ! grep -q PROBE-DONE "$log" 2>/dev/null; do
            kill -0 "$qemu_pid" 2>/dev/null || break
            [ $(($(date +%s) - start)) -lt "$timeout_s" ] || break
            sleep 2
        done
        grep -q PROBE-DONE "$log" 2>/dev/null && break
        kill -0 "$qemu_pid" 2>/dev/null && break
        wait "$qemu_pid" 2>/dev/null || true
        restarts=$((restarts + 1))
        echo "boot $1: the guest restarted itself (restart $restarts)" | tee -a "$log_all"
    done
    declare -A v=()
    while IFS='=' read -r key value; do v[${key#CHECK }]=${value%$'\r'}; done < <(grep -a '^CHECK ' "$log" || true)
    local ok=1 why=''
    [[ ${v[ready]:-} == active/running* ]] || { ok=0; why+=" not READY (${v[ready]:-no probe})"; }
    [ "${v[root]:-}" = ro ] || { ok=0; why+=" / ${v[root]:-?}"; }
    [ "${v[data]:-}" = rw ] || { ok=0; why+=" /data ${v[data]:-?}"; }
    case ${v[settings]:-} in applied | unchanged) ;; *) ok=0; why+=" settings ${v[settings]:-?}" ;; esac
    [ "${v[volumeMax]:-}" = "$expected_volume" ] || { ok=0; why+=" volumeMax ${v[volumeMax]:-?} (file: $expected_volume)"; }
    [ -z "${v[failed]// /}" ] || { ok=0; why+=" failed units: ${v[failed]}"; for k in "${!v[@]}"; do [[ $k == why.* ]] && why+=" [${k#why.}: ${v[$k]}]"; done; }
    [[ ${v[play]:-} == *": play" ]] || { ok=0; why+=" not playing (${v[play]:-no probe})"; }
    local resume=${v[resume]:-0}
    [ "${resume:-0}" -ge "$last_written" ] || { ok=0; why+=" resume record $resume older than $last_written, reported written before the cut"; }
    verified=$((verified + 1))
    [ "$ok" = 1 ] || failures=$((failures + 1))
    echo "boot $1: $([ "$ok" = 1 ] && echo ok || echo FAIL) ${v[ready]:-} in $(($(date +%s) - start)) s; settings ${v[settings]:-?}, volumeMax ${v[volumeMax]:-?}; ${v[play]:-}; resume record ${resume:-none} read (last written before: $last_written); fsck: ${v[fsck]:-}$why" | tee -a "$log_all"
    [ "$ok" = 1 ] || tail -n 30 "$log" >>"$log_all"
    local wait=$((RANDOM % 21))
    sleep "$wait"
    cut
    n=$((n + 1))
    written "$log"
    echo "cut $n: $wait s after the probe (the player running; last record written: $last_written)" | tee -a "$log_all"
}
# cut_after N PATTERN MAX WHAT: boot N killed a random 0..MAX s after PATTERN shows on its console
# (systemd's "Starting <unit>" line): the cut lands in that unit's work whatever the machine's load.
cut_after() {
    local log=$work/boot-$1.log start wait
    boot "$log"; start=$(date +%s)
    until grep -a -q -- "$2" "$log" 2>/dev/null; do
        if ! kill -0 "$qemu_pid" 2>/dev/null || [ $(($(date +%s) - start)) -ge "$timeout_s" ]; then
            echo "boot $1: \"$2\" never showed (the guest $(kill -0 "$qemu_pid" 2>/dev/null && echo is still running || echo exited))" | tee -a "$log_all"
            break
        fi
        sleep 0.2
    done
    wait=$((RANDOM % ($3 * 10 + 1)))
    sleep "$((wait / 10)).$((wait % 10))"
    cut
    n=$((n + 1))
    written "$log"
    echo "cut $n: $((wait / 10)).$((wait % 10)) s after \"$2\" in boot $1 ($4)" | tee -a "$log_all"
}
say "image $(basename "$image"), $cuts cuts, seed $seed; log: $log_all"
write_settings
# The first boot: the grow and its restart (QEMU exits at the restart: -no-reboot), cut at random.
cut_after 0 'Starting.*kiosk-grow-data' 8 "first boot: the grow"
b=1
while [ "$n" -lt "$cuts" ]; do
    verify $b; b=$((b + 1))
    [ "$n" -lt "$cuts" ] || break
    write_settings
    cut_after $b 'Starting.*kiosk-settings' 6 "a changed settings file being applied"; b=$((b + 1))
done
verify $b
say "$n cuts, $verified verified boots, $failures failed"
[ "$failures" = 0 ]
