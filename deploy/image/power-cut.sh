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
# the one the previous verified boot read. Cuts before READY count as cuts too; the boot after is the
# verification. Writes .build/image/power-cut.log. Needs root (mtools only), qemu-system-arm, mtools.
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
[ -n "$image" ] || image=$(ls -t "$repo"/.build/image/kiosk-player_*_arm64.img 2>/dev/null | head -n 1) || true
[ -f "$image" ] || die "no image (make image, or give its path; the .img, not the .xz)"
RANDOM=$seed
timeout_s=${POWER_CUT_TIMEOUT:-900}
work=$(mktemp -d /tmp/kiosk-power-cut.XXXXXX)
qemu_pid=''
cleanup() { [ -z "$qemu_pid" ] || kill -9 "$qemu_pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
card=$work/card.img
cp --sparse=always "$image" "$card"
truncate -s 4G "$card"
boot_start=$(sfdisk --dump "$card" | awk '/^.*1 : start=/ { sub(/,/, "", $4); print $4; exit }')
fat="$card@@$((boot_start * 512))"
export MTOOLS_SKIP_CHECK=1
mdir -b -i "$fat" :: >"$work/boot.list"
kernel=$(grep -o 'vmlinuz-[^ /]*' "$work/boot.list" | sort -V | tail -n 1)
initrd=$(grep -o 'initrd.img-[^ /]*' "$work/boot.list" | sort -V | tail -n 1)
for f in "$kernel" "$initrd" cmdline.txt kiosk-settings.json; do mcopy -n -i "$fat" "::$f" "$work/$f"; done
cmdline=$(tr -d '\n' <"$work/cmdline.txt")

cat >"$work/probe.sh" <<'PROBE'
exec >/dev/ttyAMA0 2>&1
u=kiosk-player.service
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
echo "CHECK resume=$(journalctl -b -u "$u" -o cat --no-pager | sed -n 's/.*state record \([0-9]*\).*/\1/p' | tail -n 1)"
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
    sed "s/\"volumeMax\": [0-9]*/\"volumeMax\": 6$((settings_variant + 1))/" "$work/kiosk-settings.json" >"$work/s.json"
    mcopy -o -i "$fat" "$work/s.json" ::kiosk-settings.json
    expected_volume=6$((settings_variant + 1))
}
expected_volume=100
log_all=${POWER_CUT_LOG:-$repo/.build/image/power-cut.log}
: >"$log_all"
n=0 verified=0 failures=0 last_resume=0 ready_sum=0
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
    local resume=${v[resume]:-0}
    [ "${resume:-0}" -ge "$last_resume" ] || { ok=0; why+=" resume record $resume older than $last_resume"; }
    last_resume=${resume:-0}
    verified=$((verified + 1))
    [ "$ok" = 1 ] || failures=$((failures + 1))
    echo "boot $1: $([ "$ok" = 1 ] && echo ok || echo FAIL) ${v[ready]:-} in $(($(date +%s) - start)) s; settings ${v[settings]:-?}, volumeMax ${v[volumeMax]:-?}; resume record ${resume:-none}; fsck: ${v[fsck]:-}$why" | tee -a "$log_all"
    [ "$ok" = 1 ] || tail -n 30 "$log" >>"$log_all"
    local wait=$((RANDOM % 21))
    sleep "$wait"
    cut
    n=$((n + 1))
    echo "cut $n: $wait s after the probe (the player running)" | tee -a "$log_all"
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
