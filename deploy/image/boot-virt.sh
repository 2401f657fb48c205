#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Boots the SD-card image's own root on QEMU's `-M virt` for what the emulated Raspberry Pi lacks
# (boot-raspi.sh: QEMU's bcm2835 GPIO has no inputs, raspi3b has no sound): buttons and sound.
#
#   deploy/image/boot-virt.sh [IMAGE]     (default: the newest .build/image/kiosk-player_*_arm64.img[.xz])
#
# qemu-system-aarch64 -M virt (TCG) with the image's own kernel and initramfs (from its FAT
# partition) and a copy of its card as a virtio disk (the same partitions, fstab by PARTUUID,
# read-only root, data partition grown at the first boot), as power-cut.sh boots it. The hardware a
# Pi's box has, stood in for as the system test does (Tests/System/README.md):
#   sound   snd-aloop, the image kernel's own module (modules-load= on the command line): the
#           player plays to hw:Loopback,0, arecord (alsa-utils is in the image) records hw:Loopback,1
#   buttons gpio-sim, which Debian's kernel does not enable: built out of tree for the image's kernel
#           version by the system test's prepare.sh (SYSTEST_KERNEL=<the image's>, cached in
#           /var/cache/kiosk-systest/<kernel>), put on the card copy's FAT partition and loaded by the
#           probe; a chip labelled kiosk-sim with the system test's 16 named lines (board profile
#           qemu-gpio-sim: 0 play/pause, 1 stop, ...). A button is pressed by pulling its line down.
#   stick   a FAT image with one FLAC track (8 s of noise made here with sox, so that any shift or
#           change of a sample shows), plugged in through QEMU's monitor (usb-storage on qemu-xhci)
#           once the player runs: the image's automount mounts it, the player scans it.
# The settings file on the card copy names that board (a copy on the boot partition), the loopback
# device, volume 100 (the player's volume law leaves samples unchanged only there), no declick ramps
# and speech off (nothing but the track in the capture). The probe (systemd.run=, as in
# boot-raspi.sh) loads gpio-sim, makes the chip, restarts the player (on a Pi the chip is there
# before it starts), asks for the stick, waits for the scan, starts arecord into /data, presses play
# on line 0 and records until the track has played out, then powers off. Here the capture is read
# back from the card's data partition (debugfs) and compared with `flac -d` of the same file by the
# system test's pcm-match (Tests/System/tools/pcm-match.c, built here): every frame of the track from
# its first sound to 50 ms before its end must be in the capture bit-exactly and in order (snd-aloop
# drops the last timer period when a stream stops: scenario 01's allowance); digital silence between
# frames, where the player's output ran dry under TCG, is counted and shown, and whether the frames
# came unbroken is printed beside.
#
# Needs root (mtools, debugfs; no loop device), qemu-system-arm, mtools, dosfstools, e2fsprogs, xz-utils,
# sox, flac, gcc, python3, and what prepare.sh needs for gpio-sim (the arm64 build tree, once per
# kernel version). The first boot grows the data partition and restarts (QEMU exits, -no-reboot,
# and is started again).
set -euo pipefail
export LC_ALL=C
repo=$(cd "$(dirname "$0")/../.." && pwd)
say() { echo "boot-virt: $*"; }
die() { echo "boot-virt: $*" >&2; exit 1; }

# shellcheck source=deploy/image/card.sh
source "$repo/deploy/image/card.sh"
image=$(card_image "${1:-}")
for tool in qemu-system-aarch64 mcopy sfdisk mkfs.vfat debugfs xz sox flac gcc python3; do
    command -v "$tool" >/dev/null || die "$tool is missing (deploy/install-deps.sh --image)"
done
timeout_s=${BOOT_VIRT_TIMEOUT:-1500}

work=$(mktemp -d /tmp/kiosk-boot-virt.XXXXXX)
qemu_pid=''
cleanup() {
    [ -z "$qemu_pid" ] || kill "$qemu_pid" 2>/dev/null || true
    if [ "${BOOT_VIRT_KEEP:-0}" = 1 ]; then echo "boot-virt: kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
card=$work/card.img
say "image: $image"
card_copy "$image" "$card" 4G
data_start=$(card_part_start "$card" 4)
[ -n "$data_start" ] || die "no partition 4 in the image's MBR"
card_boot "$card" cmdline.txt kiosk-settings.json
kernel_version=${kernel#vmlinuz-}
cmdline=$(tr -d '\n' <"$work/cmdline.txt")
say "boot partition: $kernel, $initrd; cmdline.txt: $cmdline"

# gpio-sim for the image's kernel, from the system test's cache (built there when missing).
# A module built for that version is used as it is (modinfo reads its vermagic); prepare.sh is run
# only when there is none (it also makes the rest of the system test's arm64 pieces: minutes, once).
# The system test's stall-watch (Tests/System/tools, built for arm64 by prepare.sh) comes along:
# where the guest's timers ran late, snd-aloop copies the player's ring buffer round again, and
# pcm-match excuses that only where stall-watch recorded a stall (as the system test does).
cache=${SYSTEST_CACHE:-/var/cache/kiosk-systest}/$kernel_version
gpio_sim_ko=$cache/gpio-sim.ko
stall_watch=$cache/tools/stall-watch
if [[ "$(modinfo -F vermagic "$gpio_sim_ko" 2>/dev/null)" != "$kernel_version "* ]] || [ ! -x "$stall_watch" ]; then
    say "gpio-sim.ko and stall-watch for $kernel_version (Tests/System/prepare.sh, cached per kernel version)"
    SYSTEST_ARCH=arm64 SYSTEST_KERNEL=$kernel_version bash "$repo/Tests/System/prepare.sh" >"$work/prepare.out" 2>"$work/prepare.err" || true
    gpio_sim_ko=$(sed -n 's/^GPIO_SIM_KO=//p' "$work/prepare.out" | tail -n 1)
    stall_watch=$(sed -n 's/^TOOLS=//p' "$work/prepare.out" | tail -n 1)/stall-watch
fi
say "gpio-sim: $gpio_sim_ko; stall-watch: $stall_watch"
[ -f "$gpio_sim_ko" ] && [ -x "$stall_watch" ] ||
    { grep MISSING "$work/prepare.out" >&2 || tail -n 5 "$work/prepare.err" >&2; die "no gpio-sim.ko or stall-watch for $kernel_version"; }
mmd -i "$fat" ::kiosk-virt
mcopy -o -i "$fat" "$gpio_sim_ko" ::kiosk-virt/gpio-sim.ko
mcopy -o -i "$fat" "$stall_watch" ::kiosk-virt/stall-watch

# pcm-match, for this machine.
gcc -O2 -o "$work/pcm-match" "$repo/Tests/System/tools/pcm-match.c" -lm 2>"$work/pcm-match.log" ||
    die "pcm-match did not build: $(head -c 300 "$work/pcm-match.log")"

# The board: the system test's qemu-gpio-sim profile (the chip kiosk-sim, the loopback) without a
# screen (-M virt has none here) or the system test's uinput keyboard.
python3 - "$repo/boards/qemu-gpio-sim.json" "$work/image-virt.json" <<'PY'
import json, sys
board = json.load(open(sys.argv[1]))
board["name"] = "image-virt"
board["description"] = "QEMU -M virt, the image's root: " + board["description"]
board["screen"] = {"type": "none"}
board.pop("evdev", None)
json.dump(board, open(sys.argv[2], "w"), indent=2)
PY
mmd -i "$fat" ::boards
mcopy -o -i "$fat" "$work/image-virt.json" ::boards/image-virt.json
python3 - "$work/kiosk-settings.json" "$work/settings.json" <<'PY'
import json, sys
settings = json.load(open(sys.argv[1]))
settings.update(board="image-virt", boardsDirectory="/boot/firmware/boards", volume=100, volumeMax=100,
                screen={"type": "none"}, speech={"language": "en", "mode": "off"},
                audio={"device": "hw:Loopback,0", "fallbackDevices": [], "mixer": None, "declickMs": 0},
                inputs={"debounceMs": 25})
open(sys.argv[2], "w").write(json.dumps(settings, indent=2) + "\n")
PY
mcopy -o -i "$fat" "$work/settings.json" ::kiosk-settings.json

# The stick: one FLAC track, 8 s of stereo noise; its decode is the reference.
stick=$work/stick.img
truncate -s 32M "$stick"
mkfs.vfat -n KIOSKSTICK "$stick" >/dev/null
sox -n -r 44100 -b 16 -c 2 "$work/noise.wav" synth 8 whitenoise vol 0.3
flac -s -f --tag=ARTIST=Probe --tag=ALBUM="Virt Album" --tag=TITLE=Noise --tag=TRACKNUMBER=1 \
    -o "$work/01 Noise.flac" "$work/noise.wav"
flac -d -s -f --force-raw-format --endian=little --sign=signed -o "$work/reference.raw" "$work/01 Noise.flac"
mmd -i "$stick" ::Probe
mcopy -i "$stick" "$work/01 Noise.flac" "::Probe/01 Noise.flac"

cat >"$work/kiosk-probe.sh" <<'PROBE'
exec >/dev/ttyAMA0 2>&1
echo "PROBE-BEGIN"
u=kiosk-player.service
# The GPIO chip a Pi has from power-on: gpio-sim with the system test's line names.
modprobe configfs 2>/dev/null
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
insmod /boot/firmware/kiosk-virt/gpio-sim.ko && echo "CHECK gpio_sim=loaded" || echo "CHECK gpio_sim=insmod failed"
dev=/sys/kernel/config/gpio-sim/kiosk
bank=$dev/gpio-bank0
mkdir -p "$bank" && echo kiosk-sim >"$bank/label" && echo 16 >"$bank/num_lines"
n=0
for name in btn-play-pause btn-stop btn-next btn-previous btn-category enc-a enc-b enc-push status-light power-latch spare-10 spare-11 spare-12 spare-13 spare-14 spare-15; do
    mkdir -p "$bank/line$n" && echo "$name" >"$bank/line$n/name"
    n=$((n + 1))
done
echo 1 >"$dev/live"
lines=/sys/devices/platform/$(cat "$dev/dev_name")/$(cat "$bank/chip_name")
echo "CHECK chip=$(cat "$bank/chip_name") ($(cat "$dev/dev_name")), label kiosk-sim, $(ls -d "$lines"/sim_gpio* | wc -l) lines"
echo "CHECK loopback=$(cat /proc/asound/Loopback/id 2>/dev/null)"
systemctl restart "$u" || true
i=0
while [ $i -lt 900 ]; do
    state=$(systemctl show -P ActiveState "$u")
    case $state in active | failed) break ;; esac
    sleep 1; i=$((i + 1))
done
echo "CHECK player.state=$(systemctl show -P ActiveState "$u")/$(systemctl show -P SubState "$u")"
echo "CHECK root.options=$(findmnt -n -o OPTIONS / | cut -d, -f1)"
echo "CHECK settings.status=$(cat /run/kiosk-settings/status 2>/dev/null)"
echo "CHECK config.board=$(jq -r .board /etc/kiosk-player/config.json)"
echo "PROBE-STICK-NOW"
i=0
scan=''
while [ $i -lt 300 ]; do
    scan=$(journalctl -b -u "$u" -o cat --no-pager | grep 'library: scanned' | grep -v ' 0 tracks' | tail -n 1)
    [ -n "$scan" ] && break
    sleep 2; i=$((i + 2))
done
echo "CHECK stick.scan=$scan"
echo "CHECK stick.mount=$(findmnt -n -l -o SOURCE,TARGET -t vfat | awk '$2 ~ /^\/media\// { print $1 " on " $2 }')"
# The player holds the button lines (pull-up bias: released); sleep so it has them after the scan.
echo "CHECK lines=$(cat "$lines/sim_gpio0/pull") $(cat "$lines/sim_gpio0/value")"
# stall-watch from /data (the boot partition and /run are noexec), as the system test's guest runs it.
cp /boot/firmware/kiosk-virt/stall-watch /data/kiosk-virt-stall-watch && chmod 0755 /data/kiosk-virt-stall-watch
/data/kiosk-virt-stall-watch /data/kiosk-virt-stalls.txt --period-ms 5 --threshold-ms 20 >/run/stall-watch.log 2>&1 &
watch=$!
arecord -q -D hw:Loopback,1 -f S16_LE -r 44100 -c 2 -t raw --period-time=10000 --buffer-time=2000000 \
    /data/kiosk-virt-capture.raw 2>/run/arecord.log &
rec=$!
# When capture frame 0 was captured (CLOCK_REALTIME µs): from (time, size) samples, the earliest
# estimate (data is written after it was captured), as the system test's capture_start does.
i=0
while [ ! -s /data/kiosk-virt-capture.raw ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
best='' n=0
while [ $n -lt 10 ]; do
    size=$(stat -c %s /data/kiosk-virt-capture.raw); t=$(date +%s%6N)
    e=$((t - size / 4 * 1000000 / 44100))
    if [ -z "$best" ] || [ "$e" -lt "$best" ]; then best=$e; fi
    sleep 0.03; n=$((n + 1))
done
echo "CHECK capture.epoch_us=$best"
sleep 3
# play: line 0 pulled down for 150 ms, as a button closing to ground.
echo pull-down >"$lines/sim_gpio0/pull"; sleep 0.15; echo pull-up >"$lines/sim_gpio0/pull"
i=0
while [ $i -lt 60 ]; do
    case $(systemctl show -P StatusText "$u") in Playing*) break ;; esac
    sleep 1; i=$((i + 1))
done
echo "CHECK player.status=$(systemctl show -P StatusText "$u")"
# The track is 8 s; the player runs on after it (the queue's end): 20 s covers a slow start.
sleep 20
kill -INT $rec; wait $rec
kill $watch
echo "CHECK stall_watch=$(tr '\n' ' ' </run/stall-watch.log)"
echo "CHECK stalls=$(wc -l </data/kiosk-virt-stalls.txt)"
echo "CHECK arecord=$(tr '\n' ' ' </run/arecord.log)"
echo "CHECK capture.bytes=$(stat -c %s /data/kiosk-virt-capture.raw)"
echo "CHECK failed=$(systemctl --failed --no-legend --plain | cut -d' ' -f1 | tr '\n' ' ')"
sync
echo "-- kiosk-player.service"
journalctl -b -u "$u" -o short-monotonic --no-pager | tail -n 25
echo "PROBE-END"
PROBE
mcopy -o -i "$fat" "$work/kiosk-probe.sh" ::kiosk-probe.sh

append="$cmdline console=ttyAMA0 loglevel=6 systemd.show_status=1 modules-load=snd-aloop"
append+=" systemd.default_device_timeout_sec=600 systemd.default_timeout_start_sec=600"
append+=' systemd.wants=multi-user.target systemd.run="/bin/sh /boot/firmware/kiosk-probe.sh" systemd.run_success_action=poweroff systemd.run_failure_action=poweroff'
log=$work/serial.log
start=$(date +%s)
stick_in=0 boots=0
# Boots until the probe's end: the first one grows the data partition's entry and restarts (QEMU
# exits: -no-reboot), and so may a boot whose board needs other firmware settings.
while [ "$boots" -lt 4 ]; do
    boots=$((boots + 1))
    say "boot $boots (TCG, until $timeout_s s in all); serial log $log"
    rm -f "$work/monitor.sock"
    # QEMU through the project's one launcher, which execs it: $! is QEMU's process id.
    bash "$repo/deploy/qemu-launch.sh" --arch aarch64 --machine virt --accel tcg --cpu cortex-a53 \
        --smp 2 --memory 1024 --kernel "$work/$kernel" --initrd "$work/$initrd" --append "$append" -- \
        -drive "file=$card,if=virtio,format=raw" -device qemu-xhci,id=xhci \
        -serial "file:$log.$boots" -monitor "unix:$work/monitor.sock,server,nowait" \
        -display none -no-reboot &
    qemu_pid=$!
    while kill -0 "$qemu_pid" 2>/dev/null; do
        if [ $(($(date +%s) - start)) -gt "$timeout_s" ]; then
            kill "$qemu_pid"; tail -n 40 "$log.$boots" || true
            die "no power-off within $timeout_s s"
        fi
        if [ "$stick_in" = 0 ] && grep -q PROBE-STICK-NOW "$log.$boots" 2>/dev/null; then
            card_monitor "drive_add 0 if=none,id=stick,format=raw,file=$stick" "device_add usb-storage,bus=xhci.0,id=usbstick,drive=stick"
            say "USB stick plugged in through the monitor after $(($(date +%s) - start)) s"
            stick_in=1
        fi
        sleep 1
    done
    wait "$qemu_pid" 2>/dev/null || true
    qemu_pid=''
    grep -q PROBE-END "$log.$boots" && break
    grep -q PROBE-BEGIN "$log.$boots" && { tail -n 40 "$log.$boots"; die "boot $boots: the probe did not finish"; }
    say "boot $boots: the guest restarted after $(($(date +%s) - start)) s"
done
elapsed=$(($(date +%s) - start))
cp "$log.$boots" "$log"
saved_log=${BOOT_VIRT_LOG:-$repo/.build/image/boot-virt.log}
mkdir -p "$(dirname "$saved_log")"
cp "$log" "$saved_log" 2>/dev/null || true
grep -q PROBE-END "$log" || die "the probe did not finish (serial log: $saved_log)"
sed -n '/PROBE-BEGIN/,/PROBE-END/p' "$log" | grep -v '^CHECK ' | tr -d '\r'

# The capture, from the card's data partition (the guest powered off: clean).
for f in capture.raw stalls.txt; do
    debugfs -R "dump /kiosk-virt-$f $work/$f" "$card?offset=$((data_start * 512))" >/dev/null 2>>"$work/debugfs.log" || true
done
declare -A v=()
while IFS='=' read -r key value; do v[${key#CHECK }]=${value%$'\r'}; done < <(grep -a '^CHECK ' "$log")
ref_frames=$("$work/pcm-match" frames "$work/reference.raw")
ref_first=$("$work/pcm-match" first-sound "$work/reference.raw")
tail_frames=2205
frames=$((ref_frames - ref_first - tail_frames))
# Strict: the frames unbroken. Judged: digital silence inserted between frames (the player's output
# ran dry: TCG on a loaded machine) counted, and snd-aloop's artefacts of a late timer excused only
# where stall-watch recorded the guest's timers 20 ms late or more (pcm-match --stalls); every other
# frame bit-exact and in order.
strict=$("$work/pcm-match" locate "$work/capture.raw" "$work/reference.raw" --frames "$frames" 2>&1) && strict_ok=1 || strict_ok=0
match=$("$work/pcm-match" locate "$work/capture.raw" "$work/reference.raw" --frames "$frames" --gaps \
    --stalls "$work/stalls.txt" --epoch-us "${v[capture.epoch_us]:-0}" 2>&1) && match_ok=1 || match_ok=0

failures=0
check() {   # check NAME OK? WHAT
    if [ "$2" = 1 ]; then echo "  ok    $1: $3"; else echo "  FAIL  $1: $3"; failures=$((failures + 1)); fi
}
echo "boot-virt: checks ($boots boots, $elapsed s of TCG in all)"
check "player READY" "$([ "${v[player.state]:-}" = active/running ] && echo 1 || echo 0)" "kiosk-player.service ${v[player.state]:-?}"
check "root read-only" "$([ "${v[root.options]:-}" = ro ] && echo 1 || echo 0)" "/ mounted ${v[root.options]:-?}"
check "settings applied" "$([ "${v[settings.status]:-}" = applied ] && [ "${v[config.board]:-}" = image-virt ] && echo 1 || echo 0)" \
    "status ${v[settings.status]:-?}, board ${v[config.board]:-?}"
check "gpio-sim and snd-aloop" "$([ "${v[gpio_sim]:-}" = loaded ] && [ "${v[loopback]:-}" = Loopback ] && echo 1 || echo 0)" \
    "gpio-sim ${v[gpio_sim]:-?} (${v[chip]:-no chip}); sound card ${v[loopback]:-none}"
check "USB stick scanned" "$([[ ${v[stick.scan]:-} == *" 1 tracks"* ]] && echo 1 || echo 0)" \
    "mounted ${v[stick.mount]:-nowhere}; the player: ${v[stick.scan]:-no scan with tracks}"
check "play button (gpio-sim line 0)" "$([[ ${v[player.status]:-} == Playing* ]] && echo 1 || echo 0)" \
    "the player's status after the press: \"${v[player.status]:-?}\""
check "bit-exact" "$match_ok" \
    "the track's $frames frames from its first sound to 50 ms before its end, each in the capture bit-exact and in order (${v[capture.bytes]:-0} bytes captured${v[arecord]:+; arecord: ${v[arecord]}}): $match"
echo "  info  unbroken (no underrun gap, no stall artefact): $([ "$strict_ok" = 1 ] && echo yes || echo no): $strict"
echo "  info  stall-watch: ${v[stalls]:-?} late timers recorded in the guest${v[stall_watch]:+ (${v[stall_watch]})}"
check "no failed units" "$([ -z "${v[failed]// /}" ] && echo 1 || echo 0)" "${v[failed]:-none}"
if [ "$failures" -gt 0 ]; then
    echo "boot-virt: $failures check(s) FAILED (serial log: $saved_log)"
    exit 1
fi
echo "boot-virt: all checks passed"
