#!/usr/bin/env bash
# Boots the SD-card image on an emulated Raspberry Pi 3 B and checks what a box needs at first boot:
#
#   deploy/image/boot-raspi.sh [IMAGE]     (default: the newest .build/image/kiosk-player_*_arm64.img[.xz])
#
# qemu-system-aarch64 -M raspi3b (TCG) with the image's own kernel, initramfs and Pi 3 device tree
# (bcm2837-rpi-3-b.dtb), all read from the image's FAT partition, and a copy of the image as the SD
# card (the real sdhost-bcm2835 driver), grown to 4 GiB as a bigger card would be (QEMU also wants a
# power of two). The kernel arguments are the image's cmdline.txt plus, for the emulator only:
#   modprobe.blacklist=vc4    QEMU has no VideoCore; the firmware's framebuffer stands in (below)
#   console=ttyS1,115200      the last console gets systemd's messages: the serial port, not the screen
#   systemd.show_status=1, loglevel=6    what happened, in the log
#   systemd.default_device_timeout_sec=600   TCG on a shared 2-core machine took 140 s to coldplug
#                             the card's partitions; systemd's default wait for a device is 90 s
#   systemd.run=…             the probe (below), then power off; systemd-run-generator makes it the
#                             default target, so systemd.wants=multi-user.target keeps the boot's units
# The device tree gets the `simple-framebuffer` node the Pi firmware adds on a real board (QEMU's
# bcm2835-fb at its reset state: 640×480, RGB565), so /dev/fb0 exists as on a Pi with HDMI.
#
# The probe is a shell script put on the copy's FAT partition (the image has no login: getty is
# masked and root locked). It prints `CHECK name=value` lines on the serial console: kiosk-player's
# state (Type=notify: `active` means READY was sent) and its start and READY times, `/` mounted
# read-only, the data partition's size against the card's, the settings' status, the config the player
# reads, the time zone, failed units, systemd-analyze. Those are judged here; each check is printed with
# its result and the script exits 1 when any failed.
#
# Then a USB stick (a FAT image with one FLAC track made here with sox and flac) is plugged in
# through QEMU's monitor (drive_add + device_add usb-storage: the Pi's real dwc2 USB driver), and
# the probe waits for the automount under /media/kiosk and the player's scan of it.
#
# Two boots, as on a new card: the first grows the data partition's entry to the card's end and
# restarts (kiosk-grow-data), the second grows the ext4, applies the settings and starts the player.
#
# The copy's settings file is edited first (board rpi3, volumeMax 80, time zone Europe/Berlin), so
# that "applied" is seen, not the image's defaults. Needs root (mtools only; no loop device),
# qemu-system-arm, mtools, dosfstools, device-tree-compiler, xz-utils, sox, flac, python3. ≈ 4-6 min of TCG on this machine.
set -euo pipefail
export LC_ALL=C
repo=$(cd "$(dirname "$0")/../.." && pwd)
say() { echo "boot-raspi: $*"; }
die() { echo "boot-raspi: $*" >&2; exit 1; }

image=${1:-}
if [ -z "$image" ]; then
    image=$(ls -t "$repo"/.build/image/kiosk-player_*_arm64.img "$repo"/.build/image/kiosk-player_*_arm64.img.xz 2>/dev/null | head -n 1) || true
fi
[ -f "$image" ] || die "no image (make image, or give its path)"
for tool in qemu-system-aarch64 mcopy fdtput xz sfdisk mkfs.vfat sox flac python3; do
    command -v "$tool" >/dev/null || die "$tool is missing (deploy/install-deps.sh --image)"
done
timeout_s=${BOOT_RASPI_TIMEOUT:-1200}
card_size=4G

work=$(mktemp -d /tmp/kiosk-boot-raspi.XXXXXX)
qemu_pid=''
cleanup() {
    [ -z "$qemu_pid" ] || kill "$qemu_pid" 2>/dev/null || true
    # BOOT_RASPI_KEEP=1: the card as the guest left it stays, for debugfs/mtools
    if [ "${BOOT_RASPI_KEEP:-0}" = 1 ]; then echo "boot-raspi: kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
card=$work/card.img
say "image: $image"
case "$image" in
    *.xz) xz -dc "$image" >"$card" ;;
    *) cp --sparse=always "$image" "$card" ;;
esac
image_mib=$(($(stat -c %s "$card") / 1048576))
truncate -s "$card_size" "$card"

# The FAT partition's offset, from the card's own partition table.
boot_start=$(sfdisk --dump "$card" | awk '/^.*1 : start=/ { sub(/,/, "", $4); print $4; exit }')
[ -n "$boot_start" ] || die "no first partition in the image's MBR"
fat="$card@@$((boot_start * 512))"
export MTOOLS_SKIP_CHECK=1
mdir -b -i "$fat" :: >"$work/boot.list"
kernel=$(grep -o 'vmlinuz-[^ /]*' "$work/boot.list" | sort -V | tail -n 1)
initrd=$(grep -o 'initrd.img-[^ /]*' "$work/boot.list" | sort -V | tail -n 1)
[ -n "$kernel" ] && [ -n "$initrd" ] || die "no vmlinuz-*/initrd.img-* on the boot partition"
for f in "$kernel" "$initrd" bcm2837-rpi-3-b.dtb cmdline.txt config.txt kiosk-settings.json; do
    mcopy -n -i "$fat" "::$f" "$work/$f" || die "no $f on the boot partition"
done
say "boot partition: $kernel, $initrd, bcm2837-rpi-3-b.dtb"
say "config.txt: $(grep -v '^#' "$work/config.txt" | grep . | tr '\n' ' ')"
cmdline=$(tr -d '\n' <"$work/cmdline.txt")
say "cmdline.txt: $cmdline"

# The firmware's framebuffer node, as it would be on a Pi with HDMI (the firmware adds it at boot).
dtb=$work/rpi3.dtb
cp "$work/bcm2837-rpi-3-b.dtb" "$dtb"
fdtput -c "$dtb" /framebuffer@3c100000
fdtput -t s "$dtb" /framebuffer@3c100000 compatible simple-framebuffer
fdtput -t x "$dtb" /framebuffer@3c100000 reg 0x3c100000 0x96000
fdtput -t x "$dtb" /framebuffer@3c100000 width 0x280
fdtput -t x "$dtb" /framebuffer@3c100000 height 0x1e0
fdtput -t x "$dtb" /framebuffer@3c100000 stride 0x500
fdtput -t s "$dtb" /framebuffer@3c100000 format r5g6b5
fdtput -t s "$dtb" /framebuffer@3c100000 status okay

# The settings a person would write on a PC, on the copy's FAT partition.
sed -e 's/"board": "auto"/"board": "rpi3"/' -e 's/"volumeMax": 100/"volumeMax": 80/' \
    -e 's|"timeZone": "Etc/UTC"|"timeZone": "Europe/Berlin"|' "$work/kiosk-settings.json" >"$work/settings.json"
grep -q '"volumeMax": 80' "$work/settings.json" && grep -q Europe/Berlin "$work/settings.json" ||
    die "could not edit the settings file (its defaults changed?)"
mcopy -o -i "$fat" "$work/settings.json" ::kiosk-settings.json
# BOOT_RASPI_IMAGER=1: also Raspberry Pi Imager's cloud-init files, as Imager 2.x writes them for an
# entry with init_format "cloudinit" (host name, time zone, an SSH key; the settings file leaves
# those as shipped, so Imager's count): the box must take the host name and the key.
imager_key='ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl parent@pc'
if [ "${BOOT_RASPI_IMAGER:-0}" = 1 ]; then
    sed -i 's|"timeZone": "Europe/Berlin"|"timeZone": "Etc/UTC"|' "$work/settings.json"
    mcopy -o -i "$fat" "$work/settings.json" ::kiosk-settings.json
    printf '#cloud-config\nhostname: kinderbox\nmanage_etc_hosts: true\ntimezone: Europe/Berlin\nkeyboard:\n  model: pc105\n  layout: "de"\nenable_ssh: true\nusers:\n- name: parent\n  lock_passwd: true\n  ssh_authorized_keys:\n    - %s\n  sudo: ALL=(ALL) NOPASSWD:ALL\n' "$imager_key" >"$work/user-data"
    echo 'instance-id: rpi-imager-1765000000000' >"$work/meta-data"
    mcopy -o -i "$fat" "$work/user-data" ::user-data
    mcopy -o -i "$fat" "$work/meta-data" ::meta-data
    say "Raspberry Pi Imager's user-data and meta-data written to the boot partition (host name kinderbox, one SSH key)"
fi

# The USB stick: a FAT file system with one FLAC album (sox makes 3 s of tone, flac encodes it).
stick=$work/stick.img
truncate -s 64M "$stick"
mkfs.vfat -n KIOSKSTICK "$stick" >/dev/null
sox -n -r 44100 -b 16 -c 2 "$work/tone.wav" synth 3 sine 440 vol 0.2
flac -s -f --tag=ARTIST=Probe --tag=ALBUM="Probe Album" --tag=TITLE="Tone" --tag=TRACKNUMBER=1 \
    -o "$work/01 Tone.flac" "$work/tone.wav"
mmd -i "$stick" ::Probe
mcopy -i "$stick" "$work/01 Tone.flac" "::Probe/01 Tone.flac"

# The probe: run by systemd-run-generator (systemd.run=) once the boot has finished.
cat >"$work/kiosk-probe.sh" <<'PROBE'
exec >/dev/ttyS1 2>&1
echo "PROBE-BEGIN"
u=kiosk-player.service
# The probe runs in the boot's own transaction (systemd-run-generator points default.target at it;
# multi-user.target comes through systemd.wants=), so it waits for the player, not for the boot's end.
i=0
while [ $i -lt 600 ]; do
    state=$(systemctl show -P ActiveState "$u")
    case $state in active | failed) break ;; esac
    # inactive with no start job queued: it will not start (a dependency failed)
    if [ "$state" = inactive ] && [ $i -gt 20 ] && [ -z "$(systemctl list-jobs --no-legend "$u")" ]; then break; fi
    sleep 1; i=$((i + 1))
done
echo "CHECK player.state=$(systemctl show -P ActiveState "$u")/$(systemctl show -P SubState "$u")"
echo "CHECK player.type=$(systemctl show -P Type "$u")"
start=$(systemctl show -P ExecMainStartTimestampMonotonic "$u")
ready=$(systemctl show -P ActiveEnterTimestampMonotonic "$u")
echo "CHECK player.start_ms=$((start / 1000))"
echo "CHECK player.ready_ms=$((ready / 1000))"
echo "CHECK player.restarts=$(systemctl show -P NRestarts "$u")"
echo "CHECK root.options=$(findmnt -n -o OPTIONS /)"
echo "CHECK root.source=$(findmnt -n -o SOURCE /)"
touch /probe-write-test 2>/dev/null && echo "CHECK root.write=succeeded" || echo "CHECK root.write=refused"
echo "CHECK data.options=$(findmnt -n -o OPTIONS /data)"
disk=/dev/$(lsblk -no PKNAME "$(findmnt -n -o SOURCE /data)")
echo "CHECK card.bytes=$(lsblk -bdno SIZE "$disk")"
echo "CHECK data.part_end=$(( ($(cat /sys/class/block/$(basename "$(findmnt -n -o SOURCE /data)")/start) + $(cat /sys/class/block/$(basename "$(findmnt -n -o SOURCE /data)")/size)) * 512 ))"
echo "CHECK data.fs_bytes=$(( $(stat -f -c '%b * %S' /data) ))"
echo "CHECK state.mount=$(findmnt -n -o SOURCE,FSTYPE /var/lib/kiosk-player | tr ' ' ,)"
echo "CHECK settings.status=$(cat /run/kiosk-settings/status 2>/dev/null)"
echo "CHECK settings.error=$(cat /run/kiosk-settings/error 2>/dev/null)"
echo "CHECK config.volumeMax=$(jq -r .volumeMax /etc/kiosk-player/config.json)"
echo "CHECK config.board=$(jq -r .board /etc/kiosk-player/config.json)"
echo "CHECK timezone=$(date +%Z)"
echo "CHECK fb=$(cat /sys/class/graphics/fb0/name 2>/dev/null)"
echo "CHECK gpiochip=$(cat /sys/bus/gpio/devices/gpiochip0/of_node/compatible 2>/dev/null | tr -d '\0')"
echo "CHECK sshd=$(systemctl is-active ssh.service)"
echo "CHECK hostname=$(hostname)"
echo "CHECK sshkeys=$(grep -c . /run/kiosk-settings/authorized_keys 2>/dev/null)"
echo "CHECK getty=$(systemctl is-active getty@tty1.service)"
echo "CHECK failed=$(systemctl --failed --no-legend --plain | cut -d' ' -f1 | tr '\n' ' ')"
# A USB stick, plugged in through QEMU's monitor once the host sees this line (device_add usb-storage
# on the Pi's dwc2 USB): automounted, scanned by the player.
echo "PROBE-STICK-NOW"
i=0
while [ $i -lt 180 ]; do
    scan=$(journalctl -b -u "$u" -o cat --no-pager | grep 'library: scanned' | grep -v ' 0 tracks' | tail -n 1)
    [ -n "$scan" ] && break
    sleep 2; i=$((i + 2))
done
echo "CHECK stick.scan=$scan"
echo "CHECK stick.mount=$(findmnt -n -o SOURCE,TARGET,OPTIONS -t vfat | grep /media/ | tr ' ' ,)"
echo "-- systemd-analyze"
systemd-analyze time
systemd-analyze critical-chain "$u" --no-pager | tail -n +2
echo "-- kiosk-settings.service"
journalctl -b -u kiosk-settings.service -u kiosk-grow-data.service -o cat --no-pager | tail -n 10
echo "-- kiosk-player.service"
journalctl -b -u "$u" -o short-monotonic --no-pager | tail -n 15
echo "PROBE-END"
PROBE
mcopy -o -i "$fat" "$work/kiosk-probe.sh" ::kiosk-probe.sh

append="$cmdline modprobe.blacklist=vc4 console=ttyS1,115200 loglevel=6 systemd.show_status=1 systemd.default_device_timeout_sec=600"
append+=' systemd.wants=multi-user.target systemd.run="/bin/sh /boot/firmware/kiosk-probe.sh" systemd.run_success_action=poweroff systemd.run_failure_action=poweroff'
# monitor CMD...: each CMD to QEMU's human monitor (its Unix socket), answers discarded.
monitor() {
    python3 - "$work/monitor.sock" "$@" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.settimeout(2)
for cmd in sys.argv[2:]:
    s.sendall((cmd + "\n").encode())
    time.sleep(1)
try:
    s.recv(65536)
except OSError:
    pass
PY
}
stick_in=0
# boot N LOG: QEMU on the card until the guest powers off or restarts (-no-reboot: QEMU exits then),
# the probe has printed PROBE-END, or the time is up; sets `elapsed`.
boot() {
    local n=$1 log=$2 start
    say "boot $n (TCG, timeout ${timeout_s} s); serial log: $log"
    start=$(date +%s)
    rm -f "$work/monitor.sock"
    qemu-system-aarch64 -M raspi3b -accel tcg -kernel "$work/$kernel" -initrd "$work/$initrd" -dtb "$dtb" \
        -append "$append" -drive "file=$card,if=sd,format=raw" \
        -serial null -serial "file:$log" -monitor "unix:$work/monitor.sock,server,nowait" \
        -display none -no-reboot &
    qemu_pid=$!
    while kill -0 "$qemu_pid" 2>/dev/null; do
        if [ $(($(date +%s) - start)) -gt "$timeout_s" ]; then
            kill "$qemu_pid"
            tail -n 40 "$log" || true
            die "boot $n: no power-off within $timeout_s s"
        fi
        grep -q PROBE-END "$log" 2>/dev/null && break
        if [ "$stick_in" = 0 ] && grep -q PROBE-STICK-NOW "$log" 2>/dev/null; then
            monitor "drive_add 0 if=none,id=stick,format=raw,file=$stick" "device_add usb-storage,id=usbstick,drive=stick"
            say "boot $n: USB stick plugged in through the monitor after $(($(date +%s) - start)) s"
            stick_in=1
        fi
        sleep 2
    done
    for _ in $(seq 1 30); do kill -0 "$qemu_pid" 2>/dev/null || break; sleep 1; done
    kill "$qemu_pid" 2>/dev/null || true
    wait "$qemu_pid" 2>/dev/null || true
    qemu_pid=''
    elapsed=$(($(date +%s) - start))
}
# Boot 1: the card is bigger than the image, so kiosk-grow-data grows the data partition's entry and
# restarts the box before anything mounts it (QEMU exits at the restart). Boot 2 is the first full one.
boot 1 "$work/serial-1.log"
first_elapsed=$elapsed
if grep -q PROBE-END "$work/serial-1.log"; then
    grew_and_restarted=0
    log=$work/serial-1.log
else
    grew_and_restarted=1
    say "boot 1: the guest restarted after $first_elapsed s (the data partition's entry grown)"
    log=$work/serial.log
    boot 2 "$log"
fi
cp "$log" "${BOOT_RASPI_LOG:-$repo/.build/image/boot-raspi.log}" 2>/dev/null || true
grep -q PROBE-END "$log" || { tail -n 60 "$log"; die "the probe did not finish (serial log above)"; }
sed -n '/PROBE-BEGIN/,/PROBE-END/p' "$log" | grep -v '^CHECK ' | tr -d '\r'

# Judging.
declare -A v=()
while IFS='=' read -r key value; do v[${key#CHECK }]=${value%$'\r'}; done < <(grep -a '^CHECK ' "$log")
failures=0
check() {   # check NAME OK? WHAT
    if [ "$2" = 1 ]; then echo "  ok    $1: $3"; else echo "  FAIL  $1: $3"; failures=$((failures + 1)); fi
}
is() { [ "$1" = "$2" ] && echo 1 || echo 0; }
echo "boot-raspi: checks (boot 1 to its restart $first_elapsed s, boot 2 to power-off $elapsed s, of TCG)"
check "player READY" "$(is "${v[player.state]:-}" active/running)" \
    "kiosk-player.service ${v[player.state]:-?} (Type=${v[player.type]:-?}), started at ${v[player.start_ms]:-?} ms, READY at ${v[player.ready_ms]:-?} ms after kernel start, ${v[player.restarts]:-?} restarts"
check "root read-only" "$([[ ,${v[root.options]:-}, == *,ro,* ]] && [ "${v[root.write]:-}" = refused ] && echo 1 || echo 0)" \
    "/ is ${v[root.source]:-?} mounted ${v[root.options]:-?}; a write was ${v[root.write]:-?}"
card_bytes=${v[card.bytes]:-0} part_end=${v[data.part_end]:-0} fs_bytes=${v[data.fs_bytes]:-0}
check "data partition grown" "$([ "$grew_and_restarted" = 1 ] && [ "$part_end" = "$card_bytes" ] && [ "$fs_bytes" -gt $((card_bytes - (image_mib + 64) * 1048576 - card_bytes / 10)) ] && echo 1 || echo 0)" \
    "image $image_mib MiB on a $((card_bytes / 1048576)) MiB card: boot 1 grew the entry and restarted ($([ "$grew_and_restarted" = 1 ] && echo yes || echo no)); the data partition ends at $((part_end / 1048576)) MiB, its ext4 holds $((fs_bytes / 1048576)) MiB (${v[data.options]:-?})"
check "state on the data partition" "$([[ ${v[state.mount]:-} == *ext4 ]] && echo 1 || echo 0)" "/var/lib/kiosk-player: ${v[state.mount]:-?}"
check "settings applied" "$([ "${v[settings.status]:-}" = applied ] && [ "${v[config.volumeMax]:-}" = 80 ] && [ "${v[config.board]:-}" = rpi3 ] && echo 1 || echo 0)" \
    "status ${v[settings.status]:-?}${v[settings.error]:+ (${v[settings.error]})}; the player's config: board ${v[config.board]:-?}, volumeMax ${v[config.volumeMax]:-?}"
check "time zone applied" "$([[ ${v[timezone]:-} == CE*T ]] && echo 1 || echo 0)" "date +%Z in the guest: ${v[timezone]:-?} (Europe/Berlin)"
if [ "${BOOT_RASPI_IMAGER:-0}" = 1 ]; then
    check "Imager's settings" "$([ "${v[hostname]:-}" = kinderbox ] && [ "${v[sshd]:-}" = active ] && [ "${v[sshkeys]:-}" = 1 ] && [ "${v[getty]:-}" != active ] && echo 1 || echo 0)" \
        "host name ${v[hostname]:-?}, ssh ${v[sshd]:-?} with ${v[sshkeys]:-?} key(s), getty@tty1 ${v[getty]:-?}"
else
    check "no login, no SSH" "$([ "${v[getty]:-}" != active ] && [ "${v[sshd]:-}" != active ] && echo 1 || echo 0)" "getty@tty1 ${v[getty]:-?}, ssh ${v[sshd]:-?}"
fi
check "USB stick scanned" "$([[ ${v[stick.scan]:-} == *" 1 tracks"* || ${v[stick.scan]:-} == *" 1 track"* ]] && [ -n "${v[stick.mount]:-}" ] && echo 1 || echo 0)" \
    "plugged in through QEMU's monitor (usb-storage on dwc2): mounted ${v[stick.mount]:-nowhere}; the player: ${v[stick.scan]:-no scan with tracks}"
check "no failed units" "$([ -z "${v[failed]// /}" ] && echo 1 || echo 0)" "${v[failed]:-none}"
echo "  info  framebuffer: ${v[fb]:-none}; gpiochip0: ${v[gpiochip]:-?}"
if [ "$failures" -gt 0 ]; then
    echo "boot-raspi: $failures check(s) FAILED (serial log: ${BOOT_RASPI_LOG:-$repo/.build/image/boot-raspi.log})"
    exit 1
fi
echo "boot-raspi: all checks passed"
