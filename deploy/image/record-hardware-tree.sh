#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Records what the kernel exports about a Raspberry Pi with a HAT's overlay, from the SD-card image
# booted on QEMU, as a tree of files the doctor's checks can read (Tests/Fixtures/hardware):
#
#   deploy/image/record-hardware-tree.sh [--machine raspi3b|raspi4b] [--overlay NAME]...
#                                        [--fixture DIR] OUT [IMAGE]
#   deploy/image/record-hardware-tree.sh --from --fixture DIR OUT
#
# IMAGE defaults to the newest .build/image/kiosk-player_*_arm64.img[.xz]. The image's own kernel,
# initramfs and device tree (bcm2837-rpi-3-b.dtb for raspi3b, bcm2711-rpi-4-b.dtb for raspi4b) from
# its FAT partition, with each overlay applied by `fdtoverlay` as the firmware applies a
# `dtoverlay=NAME` line before it starts the kernel (libfdt's merge, the same format and fixups):
#   NAME.dtbo from the card's overlays/ (what the image ships, compiled from deploy/image/overlays/
#   by check-overlays.sh), else deploy/image/hat-overlays/NAME.dts compiled here (`dtc -@`), else
#   NAME itself when it is a .dts file.
# Then what the emulator needs (deploy/image/card.sh: the firmware's framebuffer node on raspi3b,
# the unemulated blocks off on raspi4b, as boot-raspi.sh and boot-raspi4.sh boot them). Nothing of
# the Pi's pin controller is emulated beyond its registers: the pin claims are the kernel's own
# (pinctrl-bcm2835 and the pinctrl core), made from the device tree as on a board.
#
# A probe (systemd.run=, as in boot-raspi.sh) waits for kiosk-player (it requests its board's button
# lines, so pinmux-pins shows GPIO owners as on a box), for udev to settle and 10 s more (deferred
# probes), then copies into /run/kiosk-record:
#   /proc/device-tree (cp -r: every property as a file, as the kernel exports it), /proc/version,
#   the kernel release and its modules.dep's sound lines,
#   /proc/asound/cards, /sys/kernel/debug/pinctrl (pinctrl-devices, -handles, -maps, and per
#   controller pinmux-pins, pins, pingroups, pinmux-functions, gpio-ranges),
#   /sys/kernel/debug/devices_deferred and gpio, /sys/class/hwmon/*/{name,in0_lcrit_alarm}, dmesg;
# and writes them as record.tgz to the FAT partition (remounted read-write for it), printing its
# SHA-256 on the serial console; the host reads it back with mtools, checks the sum and unpacks it
# into OUT (made afresh), with recording.txt saying how it was made.
# --fixture DIR: also a copy of only what the checks read: the root's model and compatible; of each
# node that takes pins (has pinctrl-0) its pinctrl-0, pinctrl-names, status and compatible; of every
# pin group its brcm,pins, brcm,function, brcm,pull (Pi 0-4) or pins, function (Pi 5), phandle and
# its controller's compatible; all of pinctrl-devices and each pinmux-pins; /proc/asound/cards, the
# hwmon files and recording.txt: a fixture for Tests/Fixtures/hardware. With --from, no boot: the
# fixture is copied from the recording already in OUT.
#
# Kernel arguments: the image's cmdline.txt plus boot-raspi.sh's (raspi3b) or boot-raspi4.sh's
# (raspi4b) for the emulator, and systemd.mask=kiosk-grow-data.service: the card is grown to 4 GiB
# for QEMU (a power of two), and growing the data partition would cost a restart without changing
# anything the recording holds. A restart of another kind (kiosk-settings for a board's firmware
# lines) is followed, up to 3 boots. raspi3b runs bookworm's QEMU through deploy/qemu-launch.sh;
# raspi4b trixie's QEMU 10 in its tree (card_qemu_trixie). Needs root (mtools, chroot), mtools,
# device-tree-compiler, xz-utils. 333 s of TCG for raspi3b, 194 s for raspi4b (one boot each) on a
# loaded 2-core machine.
set -euo pipefail
export LC_ALL=C
repo=$(cd "$(dirname "$0")/../.." && pwd)
say() { echo "record-hardware-tree: $*"; }
die() { echo "record-hardware-tree: $*" >&2; exit 1; }

# fixture_copy: the files the checks read, from the recording in $out to $fixture.
fixture_copy() {
    rm -rf "$fixture"
    mkdir -p "$fixture"
    (
        cd "$out"
        {
            echo proc/device-tree/model
            echo proc/device-tree/compatible
            # the nodes that take pins, and every pin group (with its controller's compatible)
            find proc/device-tree -name pinctrl-0 -printf '%h\n' | while read -r node; do
                for f in pinctrl-0 pinctrl-names status compatible; do [ ! -f "$node/$f" ] || echo "$node/$f"; done
            done
            find proc/device-tree \( -name 'brcm,pins' -o -name pins \) -type f -printf '%h\n' | sort -u | while read -r group; do
                for f in brcm,pins brcm,function brcm,pull pins function phandle; do [ ! -f "$group/$f" ] || echo "$group/$f"; done
                [ ! -f "$(dirname "$group")/compatible" ] || echo "$(dirname "$group")/compatible"
            done
            find sys/kernel/debug/pinctrl -name pinctrl-devices -o -name pinmux-pins
            find sys/class/hwmon -type f
            [ ! -f proc/asound/cards ] || echo proc/asound/cards
            [ ! -f proc/sys/kernel/osrelease ] || echo proc/sys/kernel/osrelease
            [ ! -d lib/modules ] || find lib/modules -name modules.dep
            echo recording.txt
        } | sort -u | while read -r f; do
            mkdir -p "$fixture/$(dirname "$f")"
            cp "$f" "$fixture/$f"
        done
    )
    say "fixture: $fixture ($(find "$fixture" -type f | wc -l) files of $(find "$out" -type f | wc -l))"
}

machine=raspi3b
overlays=()
fixture=''
from=0
while [ $# -gt 0 ]; do
    case "$1" in
        --machine) machine=${2:?}; shift 2 ;;
        --overlay) overlays+=("${2:?}"); shift 2 ;;
        --fixture) fixture=${2:?}; shift 2 ;;
        --from) from=1; shift ;;
        -*) die "unknown option $1" ;;
        *) break ;;
    esac
done
out=${1:?usage: record-hardware-tree.sh [--machine raspi3b|raspi4b] [--overlay NAME]... [--fixture DIR] OUT [IMAGE]}
case "$out" in /*) ;; *) out=$PWD/$out ;; esac
case "$fixture" in /* | '') ;; *) fixture=$PWD/$fixture ;; esac
if [ "$from" = 1 ]; then
    [ -n "$fixture" ] && [ -f "$out/recording.txt" ] || die "--from needs --fixture DIR and a recording in $out"
    fixture_copy
    exit 0
fi
case "$machine" in
    raspi3b) base_dtb=bcm2837-rpi-3-b.dtb console=ttyS1 ;;
    raspi4b) base_dtb=bcm2711-rpi-4-b.dtb console=ttyAMA0 ;;
    *) die "--machine raspi3b or raspi4b, not $machine" ;;
esac

# shellcheck source=deploy/image/card.sh
source "$repo/deploy/image/card.sh"
image=$(card_image "${2:-}")
for tool in mcopy fdtput fdtoverlay dtc sfdisk xz sha256sum; do
    command -v "$tool" >/dev/null || die "$tool is missing (deploy/install-deps.sh --image)"
done
timeout_s=${RECORD_TIMEOUT:-2700}
if [ "$machine" = raspi4b ]; then
    card_qemu_trixie
else
    emulator=$(bash "$repo/deploy/qemu-launch.sh" --arch aarch64 --which) || die "qemu-system-aarch64 is missing"
    qemu_version=$("$emulator" --version | head -n 1)
fi
say "$qemu_version -M $machine"

work=$(mktemp -d /tmp/kiosk-record.XXXXXX)
qemu_pid=''
cleanup() {
    [ -z "$qemu_pid" ] || kill "$qemu_pid" 2>/dev/null || true
    if [ "${RECORD_KEEP:-0}" = 1 ]; then echo "record-hardware-tree: kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
card=$work/card.img
card_copy "$image" "$card" 4G
card_boot "$card" "$base_dtb" cmdline.txt
cmdline=$(tr -d '\n' <"$work/cmdline.txt")
say "image: $image; $kernel, $initrd, $base_dtb"

# The overlays, as the firmware would merge them into the board's tree.
dtb=$work/board.dtb
cp "$work/$base_dtb" "$dtb"
applied=''
for name in "${overlays[@]}"; do
    dtbo=$work/$(basename "$name" .dts).dtbo
    if [[ $name != *.dts ]] && mcopy -n -i "$fat" "::overlays/$name.dtbo" "$dtbo" 2>/dev/null; then
        from="the image's overlays/$name.dtbo"
    else
        src=$name
        [[ $name == *.dts ]] || src=$repo/deploy/image/hat-overlays/$name.dts
        [ -f "$src" ] || die "no overlay $name (not on the card's overlays/, no $src)"
        dtc -q -@ -I dts -O dtb -o "$dtbo" "$src" || die "dtc $src failed"
        from="${src#"$repo"/}, compiled with $(dtc --version | head -n 1 | sed 's/^Version: //')"
    fi
    fdtoverlay -i "$dtb" -o "$dtb.new" "$dtbo" || die "fdtoverlay: $name does not apply to $base_dtb"
    mv "$dtb.new" "$dtb"
    applied+="${applied:+; }$(basename "$name" .dts) ($from, sha256 $(sha256sum "$dtbo" | cut -c1-12))"
    say "applied $(basename "$name" .dts) from $from"
done
if [ "$machine" = raspi4b ]; then card_dtb_raspi4 "$dtb"; else card_dtb_raspi3 "$dtb"; fi

cat >"$work/kiosk-record.sh" <<PROBE
console=$console
PROBE
cat >>"$work/kiosk-record.sh" <<'PROBE'
exec >/dev/$console 2>&1
echo "RECORD-BEGIN"
u=kiosk-player.service
i=0
while [ $i -lt 600 ]; do
    case $(systemctl show -P ActiveState "$u") in active | failed) break ;; esac
    sleep 1; i=$((i + 1))
done
echo "RECORD player=$(systemctl show -P ActiveState "$u")/$(systemctl show -P SubState "$u") after $i s"
udevadm settle --timeout=300
sleep 10
r=/run/kiosk-record
rm -rf "$r"
mkdir -p "$r/proc/device-tree" "$r/proc/asound" "$r/sys/kernel/debug/pinctrl" "$r/sys/class/hwmon"
cp -r /proc/device-tree/. "$r/proc/device-tree/"
cat /proc/version >"$r/proc/version"
mkdir -p "$r/proc/sys/kernel" "$r/lib/modules/$(uname -r)"
uname -r >"$r/proc/sys/kernel/osrelease"
# the sound modules the kernel has (HatDriverCheck), not the other 4 000
grep -E '^kernel/sound/|^[^:]*/snd-[^/:]*\.ko[^:]*:' "/lib/modules/$(uname -r)/modules.dep" >"$r/lib/modules/$(uname -r)/modules.dep" || true
cat /proc/asound/cards >"$r/proc/asound/cards" 2>/dev/null || true
p=/sys/kernel/debug/pinctrl
for f in pinctrl-devices pinctrl-handles pinctrl-maps; do cat "$p/$f" >"$r$p/$f"; done
for d in "$p"/*/; do
    d=${d%/}
    mkdir -p "$r$d"
    for f in pinmux-pins pins pingroups pinmux-functions gpio-ranges; do
        [ ! -e "$d/$f" ] || cat "$d/$f" >"$r$d/$f"
    done
done
cat /sys/kernel/debug/devices_deferred >"$r/sys/kernel/debug/devices_deferred" 2>/dev/null || true
cat /sys/kernel/debug/gpio >"$r/sys/kernel/debug/gpio" 2>/dev/null || true
for h in /sys/class/hwmon/hwmon*; do
    [ -d "$h" ] || continue
    mkdir -p "$r$h"
    for f in name in0_lcrit_alarm; do [ ! -e "$h/$f" ] || cat "$h/$f" >"$r$h/$f"; done
done
dmesg >"$r/dmesg.txt"
echo "RECORD pinctrl=$(ls "$p" | tr '\n' ' ')"
echo "RECORD cards=$(tr '\n' ' ' <"$r/proc/asound/cards")"
echo "RECORD deferred=$(tr '\n' ' ' <"$r/sys/kernel/debug/devices_deferred")"
mount -o remount,rw /boot/firmware
tar -C "$r" -czf /boot/firmware/record.tgz .
sync
echo "RECORD sha256=$(sha256sum /boot/firmware/record.tgz | cut -d' ' -f1)"
mount -o remount,ro /boot/firmware
echo "RECORD-END"
PROBE
mcopy -o -i "$fat" "$work/kiosk-record.sh" ::kiosk-record.sh

append="$cmdline modprobe.blacklist=vc4 console=$console,115200 loglevel=6 systemd.show_status=1"
[ "$machine" = raspi3b ] || append+=" maxcpus=1"
append+=" systemd.default_device_timeout_sec=900 systemd.default_timeout_start_sec=900 systemd.mask=kiosk-grow-data.service"
append+=' systemd.wants=multi-user.target systemd.run="/bin/sh /boot/firmware/kiosk-record.sh" systemd.run_success_action=poweroff systemd.run_failure_action=poweroff'
start=$(date +%s)
boots=0
while [ "$boots" -lt 3 ]; do
    boots=$((boots + 1))
    log=$work/serial-$boots.log
    say "boot $boots (TCG, until $timeout_s s in all); serial log $log"
    if [ "$machine" = raspi4b ]; then
        card_qemu_trixie_run -M raspi4b -accel tcg,thread=single -kernel "$work/$kernel" -initrd "$work/$initrd" \
            -dtb "$dtb" -append "$append" -drive "file=$card,if=sd,format=raw" \
            -serial "file:$log" -display none -no-reboot &
    else
        bash "$repo/deploy/qemu-launch.sh" --arch aarch64 --machine raspi3b --accel tcg \
            --kernel "$work/$kernel" --initrd "$work/$initrd" --dtb "$dtb" --append "$append" -- \
            -drive "file=$card,if=sd,format=raw" -serial null -serial "file:$log" -display none -no-reboot &
    fi
    qemu_pid=$!
    while kill -0 "$qemu_pid" 2>/dev/null; do
        if [ $(($(date +%s) - start)) -gt "$timeout_s" ]; then
            kill "$qemu_pid"
            tail -n 30 "$log" || true
            die "no power-off within $timeout_s s"
        fi
        grep -q RECORD-END "$log" 2>/dev/null && break
        sleep 2
    done
    for _ in $(seq 1 30); do kill -0 "$qemu_pid" 2>/dev/null || break; sleep 1; done
    kill "$qemu_pid" 2>/dev/null || true
    wait "$qemu_pid" 2>/dev/null || true
    qemu_pid=''
    grep -q RECORD-END "$log" && break
    grep -q RECORD-BEGIN "$log" && { tail -n 30 "$log"; die "boot $boots: the probe did not finish"; }
    say "boot $boots: the guest restarted after $(($(date +%s) - start)) s; the console's last lines:"
    tail -n 5 "$log" | tr -d '\r'
done
elapsed=$(($(date +%s) - start))
grep -q RECORD-END "$log" || { tail -n 30 "$log"; die "the probe did not finish"; }
grep -a '^RECORD ' "$log" | tr -d '\r'
sum=$(grep -a '^RECORD sha256=' "$log" | tr -d '\r' | cut -d= -f2)
mcopy -n -i "$fat" ::record.tgz "$work/record.tgz" || die "no record.tgz on the card's FAT"
[ "$(sha256sum "$work/record.tgz" | cut -d' ' -f1)" = "$sum" ] || die "record.tgz differs from the guest's (sha256 $sum)"

rm -rf "$out"
mkdir -p "$out"
tar -C "$out" -xzf "$work/record.tgz"
{
    echo "Recorded by deploy/image/record-hardware-tree.sh on $(date -u +%Y-%m-%d) ($elapsed s of TCG, $boots boot(s))"
    echo "machine: $qemu_version, -M $machine"
    echo "image: $(basename "$image")"
    echo "kernel: $(cat "$out/proc/version")"
    echo "device tree: the image's $base_dtb (sha256 $(sha256sum "$work/$base_dtb" | cut -c1-12))"
    echo "overlays: ${applied:-none}"
    echo "kiosk-player: $(grep -a '^RECORD player=' "$log" | tr -d '\r' | cut -d= -f2)"
} >"$out/recording.txt"
cat "$out/recording.txt"

if [ -n "$fixture" ]; then fixture_copy; fi
say "recorded into $out"
