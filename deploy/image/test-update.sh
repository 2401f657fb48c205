#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Updates end to end on QEMU's -M virt, with the image's own RAUC, kiosk-ab and kiosk-update
# (`make image-update-test`; docs/updates.md, docs/testing.md):
#
#   deploy/image/test-update.sh [IMAGE]    (default: the newest .build/image/kiosk-player_*_arm64.img)
#
# Bundles made here by update-bundle.sh from the image itself:
#   good        the image's root, version <image>+u1 (newer than what runs)
#   broken      the same root with /usr/bin/kiosk-player replaced by `exit 1`, version <image>+u2
#   foreign     signed by a CA made here (not the box's keyring)
#   truncated   the good bundle cut to its first half
#   older       version 0.0.1, signed with the development key
# (foreign and older carry a small root: they are refused before any byte is written.)
#
# What is emulated, and what is real: QEMU -M virt has no Raspberry Pi firmware, so this script does
# the firmware's part between boots (firmware_pick): it reads config.txt and kiosk-slot.txt from the
# card's boot partition as the firmware would (the last kernel=/initramfs lines; os_prefix used only
# when the prefix's kernel and Pi 3 device tree exist; raspberrypi/documentation
# computers/config_txt/boot.adoc) and boots that kernel, initramfs and cmdline.txt. Everything on
# the card is real and unchanged: RAUC 1.13 from Debian, its D-Bus service, system.conf, kiosk-ab,
# kiosk-update, the units, the player and doctor. The stick is a USB mass-storage device the
# image's automount mounts.
#
# Stages (one QEMU boot each, started again after a restart; -no-reboot):
#   1 on slot A: stick 1 (foreign, truncated, older) → three refusals, slot B and the A/B state
#     unchanged; stick 2 (good) → installed into slot B
#   2 on slot B (its one try): the health check marks it good; stick 3 (broken) → installed into A
#   3 on slot A (its one try): the player cannot start → the health check marks it bad, restarts
#   4 back on slot B: "did not start" said, B still the good slot
#
# Needs root, qemu-system-aarch64, mtools, dosfstools, e2fsprogs, rauc, squashfs-tools, openssl,
# python3 (the monitor). ≈ 30 min on this 2-core machine, loaded (TCG; the four bundles ≈ 1 min).
set -euo pipefail
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
say() { echo "test-update: $*"; }
die() { echo "test-update: $*" >&2; exit 1; }
# shellcheck source=deploy/image/card.sh
source "$repo/deploy/image/card.sh"   # card_monitor

image=${1:-}
[ -n "$image" ] || image=$(ls -t "$repo"/.build/image/kiosk-player_*_arm64.img 2>/dev/null | head -n 1) || true
[ -f "$image" ] || die "no image (make image IMAGE_OPTIONS=--no-xz, or give the .img)"
for tool in qemu-system-aarch64 mcopy mkfs.vfat debugfs sfdisk rauc mksquashfs openssl python3; do
    command -v "$tool" >/dev/null || die "$tool is missing (deploy/install-deps.sh --image)"
done
timeout_s=${TEST_UPDATE_TIMEOUT:-2400}
work=${TEST_UPDATE_WORK:-$(mktemp -d /tmp/kiosk-test-update.XXXXXX)}
mkdir -p "$work"
qemu_pid=''
cleanup() {
    [ -z "$qemu_pid" ] || kill "$qemu_pid" 2>/dev/null || true
    if [ "${TEST_UPDATE_KEEP:-0}" = 1 ]; then echo "test-update: kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
start_all=$(date +%s)
version=$(basename "$image"); version=${version#kiosk-player_}; version=${version%_arm64.img}

# --- the bundles ---
bundles=$work/bundles
mkdir -p "$bundles"
# Uncompressed squashfs: the bundles stay on this machine, and compressing 700 MiB costs minutes.
bundle() { KIOSK_UPDATE_MKSQUASHFS_ARGS="-noI -noD -noF -noX" nice -n 19 bash "$here/update-bundle.sh" --image "$image" "$@" >/dev/null; }
if [ ! -s "$bundles/good.raucb" ]; then
    say "bundles (update-bundle.sh)"
    t_bundles=$(date +%s)
    bundle --version "$version+u1" --out "$bundles/good.raucb"
    p2_start=$(sfdisk --dump "$image" | sed -n 's/^[^ ]*2 : start= *\([0-9]*\),.*/\1/p')
    p2_size=$(sfdisk --dump "$image" | sed -n 's/^[^ ]*2 : start= *[0-9]*, size= *\([0-9]*\),.*/\1/p')
    dd if="$image" of="$work/broken.ext4" bs=512 skip="$p2_start" count="$p2_size" conv=sparse status=none
    printf '#!/bin/sh\necho "kiosk-player: broken on purpose (test-update.sh)" >&2\nexit 1\n' >"$work/broken-player"
    debugfs -w -R "rm /usr/bin/kiosk-player" "$work/broken.ext4" >/dev/null 2>&1
    debugfs -w -f - "$work/broken.ext4" >/dev/null 2>&1 <<DEBUGFS
cd /usr/bin
write $work/broken-player kiosk-player
sif kiosk-player mode 0100755
DEBUGFS
    bundle --version "$version+u2" --root "$work/broken.ext4" --out "$bundles/broken.raucb"
    rm -f "$work/broken.ext4"
    mke2fs -q -t ext4 -L tiny "$work/tiny.ext4" 8M
    bundle --version 0.0.1 --root "$work/tiny.ext4" --out "$bundles/older.raucb"
    openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/foreign.key" -out "$work/foreign.cert" -days 2 \
        -subj "/CN=Not the box's CA" -addext "basicConstraints=critical,CA:TRUE" 2>/dev/null
    KIOSK_UPDATE_KEY=$work/foreign.key KIOSK_UPDATE_CERT=$work/foreign.cert KIOSK_UPDATE_KEYRING=$work/foreign.cert \
        bundle --version "$version+u9" --root "$work/tiny.ext4" --out "$bundles/foreign.raucb"
    size=$(stat -c %s "$bundles/good.raucb")
    head -c $((size / 2)) "$bundles/good.raucb" >"$bundles/truncated.raucb"
    say "bundles made in $(($(date +%s) - t_bundles)) s"
fi
ls -l "$bundles" | sed 's/^/  /'
stick() {   # stick FILE BUNDLE...: a FAT stick holding the bundles
    local out=$1 mib=64 b
    shift
    for b in "$@"; do mib=$((mib + $(stat -c %s "$b") / 1048576 + 8)); done
    rm -f "$out"; truncate -s "${mib}M" "$out"
    mkfs.vfat -F 32 -n UPDATE "$out" >/dev/null
    for b in "$@"; do mcopy -i "$out" "$b" "::$(basename "$b")"; done
}
stick "$work/stick1.img" "$bundles/foreign.raucb" "$bundles/truncated.raucb" "$bundles/older.raucb"
stick "$work/stick2.img" "$bundles/good.raucb"
stick "$work/stick3.img" "$bundles/broken.raucb"

# --- the card ---
card=$work/card.img
cp --sparse=always "$image" "$card"
truncate -s 4G "$card"
boot_start=$(sfdisk --dump "$card" | sed -n 's/^[^ ]*1 : start= *\([0-9]*\),.*/\1/p')
fat="$card@@$((boot_start * 512))"
export MTOOLS_SKIP_CHECK=1
mcopy -n -i "$fat" ::kiosk-settings.json "$work/kiosk-settings.json"
# Sound on snd-aloop (the image kernel's module), as boot-virt.sh: doctor's sound check has a card.
python3 - "$work/kiosk-settings.json" "$work/settings.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s.update(screen={"type": "none"}, speech={"language": "en", "mode": "off"},
         audio={"device": "hw:Loopback,0", "fallbackDevices": [], "mixer": None})
open(sys.argv[2], "w").write(json.dumps(s, indent=2) + "\n")
PY
mcopy -o -i "$fat" "$work/settings.json" ::kiosk-settings.json

# firmware_pick: what the Raspberry Pi firmware would boot from this card (see the top).
firmware_pick() {
    local conf=$work/fw.txt prefix kname iname
    rm -f "$work/fw-kernel" "$work/fw-initrd" "$work/fw-cmdline"
    mcopy -n -i "$fat" ::config.txt "$work/config.txt"
    mcopy -n -i "$fat" ::kiosk-slot.txt "$work/kiosk-slot.txt" 2>/dev/null || : >"$work/kiosk-slot.txt"
    # config.txt with its include lines expanded (kiosk-board.txt, kiosk-slot.txt), as the firmware reads it
    while IFS= read -r line; do
        case "$line" in
            "include kiosk-slot.txt") cat "$work/kiosk-slot.txt" ;;
            include\ *) mtype -i "$fat" "::${line#include }" 2>/dev/null || true ;;
            *) echo "$line" ;;
        esac
    done <"$work/config.txt" >"$conf"
    prefix=$(sed -n 's/^os_prefix=//p' "$conf" | tail -n 1)
    kname=$(sed -n 's/^kernel=//p' "$conf" | tail -n 1)
    iname=$(sed -n 's/^initramfs \([^ ]*\).*/\1/p' "$conf" | tail -n 1)
    if [ -n "$prefix" ] && ! { mcopy -n -i "$fat" "::$prefix$kname" /dev/null 2>/dev/null &&
        mcopy -n -i "$fat" "::${prefix}bcm2837-rpi-3-b.dtb" /dev/null 2>/dev/null; }; then
        say "firmware: os_prefix=$prefix has no $kname and device tree: ignored"
        prefix=''
    fi
    mcopy -n -i "$fat" "::$prefix$kname" "$work/fw-kernel" 2>/dev/null || die "firmware: no kernel $prefix$kname: the card would not boot"
    mcopy -n -i "$fat" "::$prefix$iname" "$work/fw-initrd" 2>/dev/null || die "firmware: no initramfs $prefix$iname"
    mcopy -n -i "$fat" "::${prefix}cmdline.txt" "$work/fw-cmdline" || die "firmware: no ${prefix}cmdline.txt"
    fw_prefix=${prefix:-(top)}
    fw_root=$(grep -o 'root=PARTUUID=[^ ]*' "$work/fw-cmdline")
}
ab_state() { mtype -i "$fat" ::kiosk-ab.txt 2>/dev/null | tr '\n' ' '; }

cat >"$work/kiosk-probe.sh" <<'PROBE'
exec >/dev/ttyAMA0 2>&1
stage=$(cat /boot/firmware/kiosk-test-stage)
echo "PROBE-BEGIN stage $stage"
u=kiosk-player.service
ab=/usr/lib/kiosk-image/kiosk-ab
i=0
while [ $i -lt 900 ]; do
    case $(systemctl show -P ActiveState "$u") in active | failed) break ;; esac
    sleep 1; i=$((i + 1))
done
echo "CHECK $stage.player=$(systemctl show -P ActiveState "$u")/$(systemctl show -P SubState "$u") after $i s"
snapshot() {
    echo "CHECK $stage.$1.ab=$($ab status)"
    echo "CHECK $stage.$1.vda3=$(head -c 64M /dev/vda3 | sha256sum | cut -c1-16)"
}
# The health check ends (not on trial: at once; on trial: mark-good, or mark-bad and a restart).
i=0
while [ $i -lt 900 ] && [ "$(systemctl show -P ExecMainExitTimestampMonotonic kiosk-update-health.service)" = 0 ]; do sleep 2; i=$((i + 2)); done
echo "CHECK $stage.health=$(systemctl show -P Result kiosk-update-health.service) $(ls /run/kiosk-update 2>/dev/null | tr '\n' ' ')"
echo "CHECK $stage.notice=$(tr '\n' ' ' </run/kiosk-update/notice 2>/dev/null)"
# What the player made of it (UpdateNoticeWatch reads the notice every 2 s; shown and said, logged as
# "updates: ..."): its newest such lines, once the newest notice's title is among them.
title=$(sed -n 2p /run/kiosk-update/notice 2>/dev/null)
shown() { journalctl -b -u "$u" -o cat --no-pager | grep -a 'updates: ' | grep -av 'updates: watching'; }
i=0
while [ -n "$title" ] && [ $i -lt 60 ] && ! shown | grep -qF "$title"; do sleep 2; i=$((i + 2)); done
echo "CHECK $stage.shown=$(shown | tail -n 3 | tr '\n' '|')"
echo "CHECK $stage.rauc=$(rauc status --output-format=shell 2>&1 | grep -E 'RAUC_SYSTEM_BOOTED_BOOTNAME|RAUC_BOOT_PRIMARY|RAUC_SLOT_STATE_|RAUC_SLOT_BOOT_STATUS_' | tr '\n' ' ')"
doctor=$(kiosk-player doctor --config /etc/kiosk-player/config.json 2>&1); echo "CHECK $stage.doctor=$? $(echo "$doctor" | grep '✗' | head -n 3 | tr '\n' ' ')"
wait_log() {   # wait_log COUNT PATTERN SECONDS: until /data/update/log has COUNT lines matching PATTERN
    local n=0 i=0
    while [ $i -lt "$3" ]; do
        n=$(grep -c "$2" /data/update/log 2>/dev/null || true)
        [ "${n:-0}" -ge "$1" ] && return 0
        sleep 3; i=$((i + 3))
    done
    return 1
}
# confirm_offer: what the player does when Select is held over "Update to version X found" (its
# Player.apply(.confirmUpdate)): "install <sha256>" into its runtime directory, as its user. The
# hold itself is tested on the player (UpdateOfferTests); here the hand-over to kiosk-update.
confirm_offer() {
    local i=0 hash
    while [ $i -lt 2400 ]; do
        if [ "$(head -n 1 /run/kiosk-update/notice 2>/dev/null)" = offer ]; then
            hash=$(sed -n 's/^sha256=//p' /run/kiosk-update/notice)
            echo "CHECK $stage.offer=$(sed -n 2p /run/kiosk-update/notice)"
            runuser -u kiosk-player -- sh -c "echo 'install $hash' >/run/kiosk-player/update-confirm"
            return 0
        fi
        sleep 1; i=$((i + 1))
    done
}
case $stage in
    1)
        snapshot before
        echo "PROBE-STICK-NOW 1"
        wait_log 3 refused 1200 || echo "CHECK 1.timeout=stick 1"
        snapshot refused
        echo "PROBE-STICK-NOW 2"
        confirm_offer
        wait_log 1 'installed\|still on' 2400 || echo "CHECK 1.timeout=stick 2"
        snapshot installed
        ;;
    2)
        snapshot trial
        echo "PROBE-STICK-NOW 3"
        confirm_offer
        wait_log 2 'installed\|still on' 2400 || echo "CHECK 2.timeout=stick 3"
        snapshot installed
        ;;
    3) snapshot trial ;;
    4) snapshot back ;;
esac
echo "-- /data/update/log"; cat /data/update/log 2>/dev/null
echo "-- journal: kiosk-ab-boot, kiosk-update-*, rauc"
journalctl -b -u kiosk-ab-boot -u kiosk-update-health -u kiosk-update-stick -u rauc -o short-monotonic --no-pager | tail -n 60
echo "CHECK $stage.failed=$(systemctl --failed --no-legend --plain | cut -d' ' -f1 | tr '\n' ' ')"
sync
echo "PROBE-END"
PROBE
mcopy -o -i "$fat" "$work/kiosk-probe.sh" ::kiosk-probe.sh


# run_stage N: boots (again after a restart) until the probe of stage N ends, or until the guest
# restarts in a stage whose health check restarts it (3).
run_stage() {
    local stage=$1 boots=0 log sticks_done=''
    echo "$stage" >"$work/stage"
    mcopy -o -i "$fat" "$work/stage" ::kiosk-test-stage
    while [ "$boots" -lt 3 ]; do
        boots=$((boots + 1))
        firmware_pick
        log=$work/serial.$stage.$boots
        say "stage $stage, boot $boots: the firmware's pick $fw_prefix ($fw_root); kiosk-ab.txt: $(ab_state)"
        local append
        append="$(tr -d '\n' <"$work/fw-cmdline") console=ttyAMA0 loglevel=6 modules-load=snd-aloop"
        append+=" systemd.default_device_timeout_sec=600 systemd.default_timeout_start_sec=600"
        append+=' systemd.wants=multi-user.target systemd.run="/bin/sh /boot/firmware/kiosk-probe.sh" systemd.run_success_action=poweroff systemd.run_failure_action=poweroff'
        rm -f "$work/monitor.sock"
        bash "$repo/deploy/qemu-launch.sh" --arch aarch64 --machine virt --accel tcg --cpu cortex-a53 \
            --smp 2 --memory 1024 --kernel "$work/fw-kernel" --initrd "$work/fw-initrd" --append "$append" -- \
            -drive "file=$card,if=virtio,format=raw,cache=unsafe" -device qemu-xhci,id=xhci \
            -serial "file:$log" -monitor "unix:$work/monitor.sock,server,nowait" -display none -no-reboot &
        qemu_pid=$!
        local t0
        t0=$(date +%s)
        while kill -0 "$qemu_pid" 2>/dev/null; do
            if [ $(($(date +%s) - t0)) -gt "$timeout_s" ]; then
                kill "$qemu_pid"; tail -n 40 "$log" || true; die "stage $stage: no power-off within $timeout_s s"
            fi
            for n in 1 2 3; do
                if grep -q "PROBE-STICK-NOW $n" "$log" 2>/dev/null && [[ $sticks_done != *"$n"* ]]; then
                    if [ "$n" = 2 ]; then card_monitor "device_del usbstick1"; fi
                    card_monitor "drive_add 0 if=none,id=stick$n,format=raw,file=$work/stick$n.img" \
                        "device_add usb-storage,bus=xhci.0,id=usbstick$n,drive=stick$n"
                    say "stick $n plugged in after $(($(date +%s) - t0)) s"
                    sticks_done+=$n
                fi
            done
            sleep 2
        done
        wait "$qemu_pid" 2>/dev/null || true
        qemu_pid=''
        { grep -a '^CHECK \|PROBE-BEGIN\|PROBE-END' "$log" || true; } | tr -d '\r' | sed 's/^/  /'
        grep -q PROBE-END "$log" && return 0
        [ "$stage" = 3 ] && grep -q PROBE-BEGIN "$log" && return 0
        say "stage $stage, boot $boots: restarted after $(($(date +%s) - t0)) s"
    done
    die "stage $stage: the probe did not finish"
}
declare -A v=()
collect() { while IFS='=' read -r key value; do v[${key#CHECK }]=${value%$'\r'}; done < <(grep -a -h '^CHECK ' "$work"/serial.* 2>/dev/null); }

for s in 1 2 3 4; do run_stage "$s"; done
collect
elapsed=$(($(date +%s) - start_all))
cp "$work"/serial.* "$repo/.build/image/" 2>/dev/null || true

failures=0
check() {   # check NAME OK? WHAT
    if [ "$2" = 1 ]; then echo "  ok    $1: $3"; else echo "  FAIL  $1: $3"; failures=$((failures + 1)); fi
}
has() { [[ ${v[$1]:-} == *"$2"* ]] && echo 1 || echo 0; }
# update_log STAGE: /data/update/log as that stage's probe printed it.
update_log() { sed -n "/PROBE-BEGIN stage $1/,/PROBE-END/p" "$work"/serial."$1".* | sed -n '/-- \/data\/update\/log/,/-- journal/p' | tr -d '\r'; }
log1=$(update_log 1)
# The broken slot's health check reboots as soon as the player has failed, which can come before the
# probe of that boot has printed anything; the check's own line in the update log, read back on the
# next boot, says the same.
failed_check=$(update_log 4 | grep 'The update failed its check: the player did not start' | cut -c22- | head -n 1)
echo "test-update: checks ($elapsed s in all)"
check "refused bundles change nothing" "$([ "${v[1.before.ab]:-x}" = "${v[1.refused.ab]:-y}" ] && [ "${v[1.before.vda3]:-x}" = "${v[1.refused.vda3]:-y}" ] && echo 1 || echo 0)" \
    "A/B state ${v[1.refused.ab]:-?}; slot B's first 64 MiB ${v[1.before.vda3]:-?} → ${v[1.refused.vda3]:-?}"
check "wrong signature refused" "$(grep -q 'foreign.raucb refused' <<<"$log1" && echo 1 || echo 0)" "$(grep 'foreign' <<<"$log1" | cut -c22- | head -n 1)"
check "truncated refused" "$(grep -q 'truncated.raucb refused' <<<"$log1" && echo 1 || echo 0)" "$(grep 'truncated' <<<"$log1" | cut -c22- | head -n 1)"
check "older version refused" "$(grep -q 'older.raucb refused' <<<"$log1" && echo 1 || echo 0)" "$(grep 'older' <<<"$log1" | cut -c22- | head -n 1)"
check "the good bundle offered before it was installed" "$(has 1.offer 'Update to version')" "${v[1.offer]:-?}"
check "good bundle installed into slot B" "$(has 1.installed.ab 'trial=B tried=0')" "${v[1.installed.ab]:-?}"
check "next boot on slot B, marked good" "$(has 2.trial.ab 'booted=B good=B trial=-')" "${v[2.trial.ab]:-?}; rauc: ${v[2.rauc]:-?}"
check "the result said after the update" "$(has 2.notice "Updated to $version+u1")" "${v[2.notice]:-?}"
check "broken bundle installed into slot A" "$(has 2.installed.ab 'trial=A tried=0')" "${v[2.installed.ab]:-?}"
check "broken slot A tried once, its player failing" "$([ "$(has 3.player failed)" = 1 ] || [ -n "$failed_check" ] && echo 1 || echo 0)" \
    "${v[3.player]:-?}; ${v[3.trial.ab]:-?}; update log: ${failed_check:-?}"
check "rolled back to slot B by itself" "$(has 4.back.ab 'booted=B good=B trial=- tried=0 A=bad')" "${v[4.back.ab]:-?}"
check "the rollback said" "$(has 4.notice 'did not start')" "${v[4.notice]:-?}"
check "the player showed the news" "$([ "$(has 2.shown "Updated to $version+u1")" = 1 ] && [ "$(has 4.shown 'did not start')" = 1 ] && echo 1 || echo 0)" \
    "after the update: ${v[2.shown]:-?}; after the rollback: ${v[4.shown]:-?}"
if [ "$failures" -gt 0 ]; then
    echo "test-update: $failures check(s) FAILED (serial logs: .build/image/serial.*)"
    exit 1
fi
echo "test-update: all checks passed"
