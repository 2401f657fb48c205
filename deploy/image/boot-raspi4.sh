#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Boots the SD-card image on an emulated Raspberry Pi 4 B to READY:
#
#   deploy/image/boot-raspi4.sh [IMAGE]     (default: the newest .build/image/kiosk-player_*_arm64.img[.xz])
#
# QEMU's `-M raspi4b` came in QEMU 9.0; bookworm's 7.2 lacks it, so this runs Debian trixie's QEMU
# (10.0) from a tree of its own: the cached amd64 trixie base tree (deploy/trees/tree.sh base amd64)
# copied once to <trees>/qemu-<that tree's name> with qemu-system-arm installed (apt, no
# recommends); the cached base is never written. The image's own kernel, initramfs and Pi 4 device
# tree (bcm2711-rpi-4-b.dtb), all from its FAT partition, and a copy of the image as the SD card,
# grown to 4 GiB (QEMU wants a power of two). The device tree is changed as
# /work/shared/notes/raspberry-pi.md ("Making the Pi device trees work under QEMU") found necessary:
#   - the blocks QEMU does not emulate disabled (an access to them is an external abort): the
#     HDMI clock and interrupt controllers, both HDMI encoders and their I2C (DDC) buses;
#   - the console on the PL011 (serial0, ttyAMA0): its Bluetooth child removed (no modem there);
#   - the mini UART (serial@7e215040, ttyS1: cmdline.txt's console) disabled: the first open of it
#     (systemd-getty-generator) left CPU 0 in __setup_irq for minutes (soft lockups, RCU stalls);
#   - the card on /soc/mmc@7e300000 (where QEMU's raspi4b puts it): its Wi-Fi child and power
#     sequence removed;
#   - `vc4` kept from loading (modprobe.blacklist=vc4): no VideoCore;
#   - one CPU (maxcpus=1; QEMU's other three stay in its spin table) and single-threaded TCG: with
#     four CPUs on this loaded 2-core machine, CPU 0 sat in tlb_flush for minutes (RCU stalls, soft
#     lockups; the card's SDHCI timed out) and the boot did not reach the root file system.
# A probe (systemd.run=, as in boot-raspi.sh) prints the player's state, `/`, the data partition,
# the settings' status and systemd-analyze, then powers off. Checks: READY (kiosk-player active,
# Type=notify), `/` read-only, /data mounted, settings applied, no failed unit. Needs root (mtools,
# chroot), device-tree-compiler, xz-utils, debootstrap (the base tree). 391 s of TCG for two boots
# (the first grows the data partition and restarts) at load ≈ 20 on this 2-core machine.
set -euo pipefail
export LC_ALL=C
repo=$(cd "$(dirname "$0")/../.." && pwd)
say() { echo "boot-raspi4: $*"; }
die() { echo "boot-raspi4: $*" >&2; exit 1; }

# shellcheck source=deploy/image/card.sh
source "$repo/deploy/image/card.sh"
image=$(card_image "${1:-}")
for tool in mcopy fdtput sfdisk xz; do
    command -v "$tool" >/dev/null || die "$tool is missing (deploy/install-deps.sh --image)"
done
timeout_s=${BOOT_RASPI4_TIMEOUT:-2400}

# Trixie's QEMU, in a copy of the base tree (made once; named after the base tree, so a new base
# makes a new copy).
card_qemu_trixie
say "$qemu_version (from $qtree)"

work=$(mktemp -d /tmp/kiosk-boot-raspi4.XXXXXX)
qemu_pid=''
cleanup() {
    [ -z "$qemu_pid" ] || kill "$qemu_pid" 2>/dev/null || true
    if [ "${BOOT_RASPI4_KEEP:-0}" = 1 ]; then echo "boot-raspi4: kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
card=$work/card.img
card_copy "$image" "$card" 4G
card_boot "$card" bcm2711-rpi-4-b.dtb cmdline.txt
cmdline=$(tr -d '\n' <"$work/cmdline.txt")
say "image: $image; $kernel, $initrd, bcm2711-rpi-4-b.dtb; cmdline.txt: $cmdline"

dtb=$work/rpi4.dtb
cp "$work/bcm2711-rpi-4-b.dtb" "$dtb"
card_dtb_raspi4 "$dtb"

cat >"$work/kiosk-probe.sh" <<'PROBE'
exec >/dev/ttyAMA0 2>&1
echo "PROBE-BEGIN"
u=kiosk-player.service
i=0
while [ $i -lt 1200 ]; do
    state=$(systemctl show -P ActiveState "$u")
    case $state in active | failed) break ;; esac
    sleep 1; i=$((i + 1))
done
echo "CHECK player.state=$(systemctl show -P ActiveState "$u")/$(systemctl show -P SubState "$u")"
echo "CHECK player.ready_ms=$(($(systemctl show -P ActiveEnterTimestampMonotonic "$u") / 1000))"
echo "CHECK model=$(tr -d '\0' </proc/device-tree/model)"
echo "CHECK root.options=$(findmnt -n -o OPTIONS / | cut -d, -f1)"
echo "CHECK data=$(findmnt -n -o SOURCE,OPTIONS /data | cut -d, -f1 | tr ' ' ,)"
echo "CHECK settings.status=$(cat /run/kiosk-settings/status 2>/dev/null)"
echo "CHECK gpiochip=$(cat /sys/bus/gpio/devices/gpiochip0/of_node/compatible 2>/dev/null | tr -d '\0')"
sleep 3
echo "CHECK failed=$(systemctl --failed --no-legend --plain | cut -d' ' -f1 | tr '\n' ' ')"
echo "-- systemd-analyze critical-chain (the boot is not finished while this probe runs)"
systemd-analyze critical-chain "$u" --no-pager | tail -n +2
echo "PROBE-END"
PROBE
mcopy -o -i "$fat" "$work/kiosk-probe.sh" ::kiosk-probe.sh

append="$cmdline modprobe.blacklist=vc4 maxcpus=1 console=ttyAMA0,115200 loglevel=6 systemd.show_status=1"
append+=" systemd.default_device_timeout_sec=900 systemd.default_timeout_start_sec=900"
append+=' systemd.wants=multi-user.target systemd.run="/bin/sh /boot/firmware/kiosk-probe.sh" systemd.run_success_action=poweroff systemd.run_failure_action=poweroff'
# QEMU runs in the tree; the work folder is bound at the same path inside it.
start=$(date +%s)
boots=0
while [ "$boots" -lt 4 ]; do
    boots=$((boots + 1))
    log=$work/serial-$boots.log
    say "boot $boots (TCG, until $timeout_s s in all); serial log $log"
    card_qemu_trixie_run -M raspi4b -accel tcg,thread=single -kernel "$work/$kernel" -initrd "$work/$initrd" \
        -dtb "$dtb" -append "$append" -drive "file=$card,if=sd,format=raw" \
        -serial "file:$log" -display none -no-reboot &
    qemu_pid=$!
    while kill -0 "$qemu_pid" 2>/dev/null; do
        if [ $(($(date +%s) - start)) -gt "$timeout_s" ]; then
            kill "$qemu_pid"
            echo "boot-raspi4: the console's last lines:"; tail -n 30 "$log" || true
            die "$qemu_version: no power-off within $timeout_s s"
        fi
        grep -q PROBE-END "$log" 2>/dev/null && break
        sleep 2
    done
    sleep 5
    kill "$qemu_pid" 2>/dev/null || true
    wait "$qemu_pid" 2>/dev/null || true
    qemu_pid=''
    grep -q PROBE-END "$log" && break
    grep -q PROBE-BEGIN "$log" && { tail -n 30 "$log"; die "boot $boots: the probe did not finish"; }
    say "boot $boots: the guest restarted after $(($(date +%s) - start)) s; the console's last lines:"
    tail -n 5 "$log" | tr -d '\r'
done
elapsed=$(($(date +%s) - start))
saved_log=${BOOT_RASPI4_LOG:-$repo/.build/image/boot-raspi4.log}
mkdir -p "$(dirname "$saved_log")"
cp "$log" "$saved_log" 2>/dev/null || true
grep -q PROBE-END "$log" || { tail -n 30 "$log"; die "the probe did not finish"; }
sed -n '/PROBE-BEGIN/,/PROBE-END/p' "$log" | tr -d '\r'
declare -A v=()
while IFS='=' read -r key value; do v[${key#CHECK }]=${value%$'\r'}; done < <(grep -a '^CHECK ' "$log")
failures=0
check() {
    if [ "$2" = 1 ]; then echo "  ok    $1: $3"; else echo "  FAIL  $1: $3"; failures=$((failures + 1)); fi
}
echo "boot-raspi4: checks ($qemu_version -M raspi4b, $boots boots, $elapsed s of TCG in all)"
check "player READY" "$([ "${v[player.state]:-}" = active/running ] && echo 1 || echo 0)" \
    "kiosk-player.service ${v[player.state]:-?}, READY at ${v[player.ready_ms]:-?} ms after kernel start (${v[model]:-?})"
check "root read-only" "$([ "${v[root.options]:-}" = ro ] && echo 1 || echo 0)" "/ mounted ${v[root.options]:-?}"
check "data partition" "$([[ ${v[data]:-} == *,rw ]] && echo 1 || echo 0)" "/data: ${v[data]:-?}"
check "settings applied" "$([ "${v[settings.status]:-}" = applied ] && echo 1 || echo 0)" "status ${v[settings.status]:-?}"
check "no failed units" "$([ -z "${v[failed]// /}" ] && echo 1 || echo 0)" "${v[failed]:-none}"
echo "  info  gpiochip0: ${v[gpiochip]:-?}"
[ "$failures" = 0 ] || { echo "boot-raspi4: $failures check(s) FAILED (serial log: $saved_log)"; exit 1; }
echo "boot-raspi4: all checks passed"
