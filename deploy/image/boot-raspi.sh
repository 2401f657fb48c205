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
#   systemd.default_timeout_start_sec=600   likewise for units without a timeout of their own: at
#                             load 15-20 systemd-sysctl took over its default 90 s (units that set
#                             one, such as the player's TimeoutStartSec=60s, keep theirs)
#   systemd.run=…             the probe (below), then power off; systemd-run-generator makes it the
#                             default target, so systemd.wants=multi-user.target keeps the boot's units
# The device tree gets the `simple-framebuffer` node the Pi firmware adds on a real board, so
# /dev/fb0 exists as on a Pi with HDMI: QEMU's bcm2835-fb at its reset state, 640×480, 16 bpp, RGB
# order (qemu/qemu hw/display/bcm2835_fb.c: the xres/yres/bpp/pixo properties' defaults 640, 480,
# 16, 1, and initial_config.base = vcram_base + BCM2835_FB_OFFSET 0x100000), with vcram_base = RAM
# size − VideoCore RAM size = 1 GiB − 64 MiB on raspi3b (hw/arm/bcm2835_peripherals.c): 0x3c100000.
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
# the probe waits for the automount under /media/kiosk and the player's scan of it. Enter on a keyboard
# (a uinput device the probe makes with perl) plays it, and the status light's and power latch's lines are
# read back through pinctrl-bcm2835 (gpiolib's debugfs, /sys/kernel/debug/gpio: the driver's
# direction and GPLEV level): the light steady (the "playing" pattern), the latch out high.
#
# Four boots, as on a new card: the first grows the data partition's entry to the card's end and
# restarts (kiosk-grow-data), the second grows the ext4, applies the settings, writes the board's
# firmware line (its latch: gpio=4=op,dh) into kiosk-board.txt and restarts once, the next one (boot
# 2 again) starts the player; for the last ("boot 3"), the settings file is rewritten on the card's
# FAT (mcopy, as a PC would) with an error (a comma missing): kiosk-settings keeps boot 2's
# settings and names the error; the player logs it, says it (speech on), blinks the light in its
# error pattern and shows it, and the screen is
# checked through QEMU's `screendump` against the player's own PNG of that message (kiosk-player
# render, in the guest, at the framebuffer's size): every pixel within the one RGB565 level of the
# player's ordered dither.
#
# The copy's settings file is edited first (the test's board profile rpi3-qemu on the boot partition:
# rpi3 with a status light on GPIO 24, a power latch on GPIO 4 and the probe's keyboard as buttons;
# volumeMax 80, time zone Europe/Berlin, speech on, the silent sink for sound), so that "applied" is
# seen, not the image's defaults. Needs root (mtools only; no loop device), qemu-system-arm, mtools,
# dosfstools, device-tree-compiler, xz-utils, sox, flac, python3. ≈ 7-9 min of TCG on this machine.
set -euo pipefail
export LC_ALL=C
repo=$(cd "$(dirname "$0")/../.." && pwd)
say() { echo "boot-raspi: $*"; }
die() { echo "boot-raspi: $*" >&2; exit 1; }

# shellcheck source=deploy/image/card.sh
source "$repo/deploy/image/card.sh"
image=$(card_image "${1:-}")
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
card_copy "$image" "$card" "$card_size"
image_mib=$((image_bytes / 1048576))
card_boot "$card" bcm2837-rpi-3-b.dtb cmdline.txt config.txt kiosk-settings.json
say "boot partition: $kernel, $initrd, bcm2837-rpi-3-b.dtb"
say "config.txt: $(grep -v '^#' "$work/config.txt" | grep . | tr '\n' ' ')"
cmdline=$(tr -d '\n' <"$work/cmdline.txt")
say "cmdline.txt: $cmdline"

# The firmware's framebuffer node, as it would be on a Pi with HDMI (the firmware adds it at boot).
dtb=$work/rpi3.dtb
cp "$work/bcm2837-rpi-3-b.dtb" "$dtb"
card_dtb_raspi3 "$dtb"

# The test's board profile, on the copy's FAT partition: the rpi3 profile (boards/rpi3.json, the
# source of the .deb's copy) with a status light on GPIO 24 and a power latch on GPIO 4 (lines the
# rpi3 profile leaves free), and the probe's uinput keyboard (evdev devices are named exactly) as
# buttons (Enter: select, Space: play/pause), since QEMU's bcm2835 GPIO has no inputs.
python3 - "$repo/boards/rpi3.json" "$work/rpi3-qemu.json" <<'PY'
import json, sys
board = json.load(open(sys.argv[1]))
board["name"] = "rpi3-qemu"
board["description"] = "QEMU raspi3b: " + board["description"]
board["outputs"] = {"statusLight": {"line": 24}, "powerLatch": {"line": 4}}
board["evdev"] = [{"device": "kiosk-probe keyboard", "keys": {"KEY_ENTER": "select", "KEY_SPACE": "play-pause"}}]
json.dump(board, open(sys.argv[2], "w"), indent=2)
PY
mmd -i "$fat" ::boards
mcopy -o -i "$fat" "$work/rpi3-qemu.json" ::boards/rpi3-qemu.json

# The settings a person would write on a PC, on the copy's FAT partition: that board (from the boot
# partition), volumeMax 80, Europe/Berlin, speech on (it is off by default with a screen), and the
# silent clock-paced sink for sound (QEMU's raspi3b has none). One key a line, as a person writes it.
python3 - "$work/kiosk-settings.json" "$work/settings.json" <<'PY'
import json, sys
settings = json.load(open(sys.argv[1]))
settings.update(board="rpi3-qemu", boardsDirectory="/boot/firmware/boards", volumeMax=80,
                speech={"language": "en", "mode": "prompts"}, audio={"device": "none"})
settings["system"]["timeZone"] = "Europe/Berlin"
open(sys.argv[2], "w").write(json.dumps(settings, indent=2) + "\n")
PY
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
# The broken file of boot 3: the comma after "volumeMax": 80 left out, so jq names the next line.
grep -q '"volumeMax": 80,$' "$work/settings.json" || die "no \"volumeMax\": 80, line in the settings"
sed 's/"volumeMax": 80,$/"volumeMax": 80/' "$work/settings.json" >"$work/settings-broken.json"
broken_line=$(($(grep -n '"volumeMax": 80' "$work/settings.json" | cut -d: -f1) + 1))

# The USB stick: a FAT file system with one FLAC album (sox makes 10 min of a faint tone, which
# FLAC packs small, so that it still plays while the lights are read; flac encodes it).
stick=$work/stick.img
truncate -s 64M "$stick"
mkfs.vfat -n KIOSKSTICK "$stick" >/dev/null
sox -n -r 44100 -b 16 -c 2 "$work/tone.wav" synth 600 sine 440 vol 0.002
flac -s -f --tag=ARTIST=Probe --tag=ALBUM="Probe Album" --tag=TITLE="Tone" --tag=TRACKNUMBER=1 \
    -o "$work/01 Tone.flac" "$work/tone.wav"
mmd -i "$stick" ::Probe
mcopy -i "$stick" "$work/01 Tone.flac" "::Probe/01 Tone.flac"

# The probe: run by systemd-run-generator (systemd.run=) once the boot has finished. Its first line
# says the phase: "good" (boots 1 and 2: the settings applied, the stick, the keyboard, the lights) or
# "broken" (boot 3: a settings file with an error, its message on the screen, said, and lit).
write_probe() {
    { echo "phase=$1"; cat; } >"$work/kiosk-probe.sh" <<'PROBE'
exec >/dev/ttyS1 2>&1
echo "PROBE-BEGIN $phase"
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
# The screen while the player's first message shows (boot 3: the settings error, for 30 s): QEMU's
# screendump is taken by the host when it sees this line.
[ "$phase" = broken ] && echo "PROBE-SCREEN-NOW"
# gpio LINE: the line's direction and level ("out hi") as pinctrl-bcm2835 reports them through
# gpiolib's debugfs (the driver reads the GPLEV register); the chip's base from its header line.
gpio() {
    base=$(awk '/GPIOs [0-9]+-[0-9]+.*pinctrl-bcm2835/ { sub(/-.*/, "", $3); print $3; exit }' /sys/kernel/debug/gpio)
    sed -n "s/^ *gpio-$((base + $1)) (.*) \(in\|out\) \(hi\|lo\).*/\1 \2/p" /sys/kernel/debug/gpio
}
# levels LINE N: the line's level N times ("1" high), for a light's pattern. The sleeps between
# reads take turns at 50, 110, 170 and 230 ms: with one fixed sleep the samples can alias with a
# blink (a read costing ~150 ms under TCG plus 100 ms of sleep is the 4 Hz pattern's own 250 ms
# period, and 20 reads all saw the same half of it), while steps that differ by 60 ms move each
# read to another phase of any period.
levels() {
    out='' n=0
    while [ $n -lt "$2" ]; do
        case $(gpio "$1") in *hi) out="${out}1" ;; *lo) out="${out}0" ;; *) out="${out}?" ;; esac
        case $((n % 4)) in 0) sleep 0.05 ;; 1) sleep 0.11 ;; 2) sleep 0.17 ;; *) sleep 0.23 ;; esac
        n=$((n + 1))
    done
    echo "$out"
}
echo "CHECK player.state=$(systemctl show -P ActiveState "$u")/$(systemctl show -P SubState "$u")"
echo "CHECK player.type=$(systemctl show -P Type "$u")"
start=$(systemctl show -P ExecMainStartTimestampMonotonic "$u")
ready=$(systemctl show -P ActiveEnterTimestampMonotonic "$u")
echo "CHECK player.start_ms=$((start / 1000))"
echo "CHECK player.ready_ms=$((ready / 1000))"
echo "CHECK player.restarts=$(systemctl show -P NRestarts "$u")"
if [ "$phase" = broken ]; then
    echo "CHECK light.broken=$(levels 24 20)"
    echo "CHECK light.broken_gpio=$(gpio 24)"
fi
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
if [ "$phase" = good ]; then
    # A USB stick, plugged in through QEMU's monitor once the host sees this line (device_add
    # usb-storage on the Pi's dwc2 USB): automounted, scanned by the player.
    echo "PROBE-STICK-NOW"
    i=0
    while [ $i -lt 180 ]; do
        scan=$(journalctl -b -u "$u" -o cat --no-pager | grep 'library: scanned' | grep -v ' 0 tracks' | tail -n 1)
        [ -n "$scan" ] && break
        sleep 2; i=$((i + 2))
    done
    echo "CHECK stick.scan=$scan"
    echo "CHECK stick.mount=$(findmnt -n -o SOURCE,TARGET,OPTIONS -t vfat | grep /media/ | tr ' ' ,)"
    # Enter on a keyboard selects the stick's album, which plays. The keyboard is a uinput device
    # made here with perl (perl-base is Essential): QEMU's USB keyboard on the Pi's dwc2 (its
    # interrupt endpoint's start-of-frame interrupts) locked CPU 0 up under TCG on this loaded
    # machine ("hard LOCKUP", sdhost timeouts). Asked again after 20 s, three times at most (the
    # player looks for a new evdev device every 2 s, the list may not be drawn yet).
    modprobe uinput
    for try in 1 2 3; do
        echo "PROBE-KEY-NOW $try"
        perl -e '
            sysopen(my $u, "/dev/uinput", 1 | 2048) or die "uinput: $!";
            ioctl($u, 0x40045564, 1) or die "UI_SET_EVBIT: $!";        # EV_KEY
            ioctl($u, 0x40045565, 28) or die "UI_SET_KEYBIT: $!";      # KEY_ENTER
            # struct uinput_user_dev: name[80], input_id (bus, vendor, product, version), ff_effects_max, 4 x 64 ints
            syswrite($u, pack("Z80 S4 L l256", "kiosk-probe keyboard", 6, 1, 1, 1, 0, (0) x 256)) or die "setup: $!";
            ioctl($u, 0x5501, 0) or die "UI_DEV_CREATE: $!";
            sleep 8;    # the player opens it at its next look (every 2 s), slower under TCG
            # struct input_event: timeval (two longs), type, code, value
            for my $e ([1, 28, 1], [0, 0, 0], [1, 28, 0], [0, 0, 0]) { syswrite($u, pack("q q S S l", 0, 0, @$e)) }
            sleep 2;
            ioctl($u, 0x5502, 0);
        ' || echo "CHECK uinput=failed"
        i=0
        while [ $i -lt 20 ]; do
            case $(systemctl show -P StatusText "$u") in Playing*) break 2 ;; esac
            sleep 1; i=$((i + 1))
        done
    done
    echo "CHECK player.status=$(systemctl show -P StatusText "$u")"
    # Read while it plays: the status light (its "playing" pattern: steady) and the power latch
    # (held high from the player's start).
    echo "CHECK light.playing=$(levels 24 12)"
    echo "CHECK light.gpio=$(gpio 24)"
    echo "CHECK latch.gpio=$(gpio 4)"
    echo "CHECK pins=$(grep -E '^pin (4|24) ' /sys/kernel/debug/pinctrl/*bcm2835*/pins 2>/dev/null | tr '\n' ';')"
else
    echo "CHECK settings.journal=$(journalctl -b -u "$u" -o cat --no-pager | grep -m 1 '^settings: ')"
    echo "CHECK settings.spoken=$(journalctl -b -u "$u" -o cat --no-pager | grep -m 1 '^speech: "Settings')"
    echo "CHECK latch.gpio=$(gpio 4)"
    # What the player says it drew: the same message screen drawn by its own renderer to a PNG at
    # the framebuffer's size, sent to the host in base64 to compare with QEMU's screendump.
    err=$(head -n 1 /run/kiosk-settings/error)
    line=$(echo "$err" | grep -o 'line [0-9]*' | head -n 1)
    title="Settings not applied: error in ${line:-the file}"
    size=$(tr ',' x </sys/class/graphics/fb0/virtual_size)
    jq -n --arg title "$title" --arg detail "$err" '{title: $title, detail: $detail, kind: "error"}' >/run/probe-state.json
    if kiosk-player render message --state @/run/probe-state.json --size "$size" --out /run/probe-screen.png >/run/probe-render.log 2>&1; then
        echo "PROBE-PNG-BEGIN"
        base64 /run/probe-screen.png
        echo "PROBE-PNG-END"
    else
        echo "CHECK render=failed: $(tr '\n' ' ' </run/probe-render.log)"
    fi
fi
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
}
write_probe good

append="$cmdline modprobe.blacklist=vc4 console=ttyS1,115200 loglevel=6 systemd.show_status=1 systemd.default_device_timeout_sec=600 systemd.default_timeout_start_sec=600"
append+=' systemd.wants=multi-user.target systemd.run="/bin/sh /boot/firmware/kiosk-probe.sh" systemd.run_success_action=poweroff systemd.run_failure_action=poweroff'
stick_in=0
# boot N LOG: QEMU on the card until the guest powers off or restarts (-no-reboot: QEMU exits then),
# the probe has printed PROBE-END, or the time is up; sets `elapsed`. The probe's lines ask for the
# stick (drive_add + device_add) and the screen (screendump to $work/screen-N.ppm).
boot() {
    local n=$1 log=$2 start keys_seen=0 keys_asked screen_taken=0
    say "boot $n (TCG, timeout ${timeout_s} s); serial log: $log"
    stick_in=0
    start=$(date +%s)
    rm -f "$work/monitor.sock"
    # QEMU through the project's one launcher, which execs it: $! is QEMU's process id.
    bash "$repo/deploy/qemu-launch.sh" --arch aarch64 --machine raspi3b --accel tcg \
        --kernel "$work/$kernel" --initrd "$work/$initrd" --dtb "$dtb" --append "$append" -- \
        -drive "file=$card,if=sd,format=raw" \
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
        if [ "$screen_taken" = 0 ] && grep -q PROBE-SCREEN-NOW "$log" 2>/dev/null; then
            card_monitor "screendump $work/screen-$n.ppm"
            say "boot $n: screendump after $(($(date +%s) - start)) s"
            screen_taken=1
        fi
        if [ "$stick_in" = 0 ] && grep -q PROBE-STICK-NOW "$log" 2>/dev/null; then
            card_monitor "drive_add 0 if=none,id=stick,format=raw,file=$stick" "device_add usb-storage,id=usbstick,drive=stick"
            say "boot $n: USB stick plugged in through the monitor after $(($(date +%s) - start)) s"
            stick_in=1
        fi
        keys_asked=$(grep -a -c PROBE-KEY-NOW "$log" 2>/dev/null || true)
        if [ "${keys_asked:-0}" -gt "$keys_seen" ]; then
            keys_seen=$keys_asked
            say "boot $n: the probe presses Enter (try $keys_seen) after $(($(date +%s) - start)) s"
        fi
        sleep 1
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
second_elapsed=$elapsed
# The settings name rpi3-qemu, whose latch needs the firmware to hold GPIO 4 from power-on: boot 2
# writes gpio=4=op,dh into kiosk-board.txt and restarts once (QEMU exits); the boot after it is full.
board_lines=$(mtype -i "$fat" ::kiosk-board.txt | grep -v '^#' | tr -d '\r' | tr '\n' ' ')
firmware_restart=0
if ! grep -q PROBE-END "$log" && [[ " $board_lines" == *" gpio=4=op,dh "* ]]; then
    firmware_restart=1
    say "boot 2: the guest restarted after $second_elapsed s (kiosk-board.txt now: $board_lines)"
    cp "$log" "$work/serial-2a.log"
    boot 2 "$log"
    second_elapsed=$((second_elapsed + elapsed))
fi
saved_log=${BOOT_RASPI_LOG:-$repo/.build/image/boot-raspi.log}
cp "$log" "$saved_log" 2>/dev/null || true
grep -q PROBE-END "$log" || { tail -n 60 "$log"; die "the probe did not finish (serial log above)"; }
sed -n '/PROBE-BEGIN/,/PROBE-END/p' "$log" | grep -v '^CHECK ' | tr -d '\r'

# Boot 3: the settings file edited on a PC with an error (the comma after "volumeMax": 80 missing),
# written into the card's FAT as a PC would; the settings of boot 2 must stay in force.
mcopy -o -i "$fat" "$work/settings-broken.json" ::kiosk-settings.json
write_probe broken
log3=$work/serial-3.log
boot 3 "$log3"
third_elapsed=$elapsed
cat "$log3" >>"$saved_log" 2>/dev/null || true
grep -q PROBE-END "$log3" || { tail -n 60 "$log3"; die "boot 3: the probe did not finish (serial log above)"; }
sed -n '/PROBE-BEGIN/,/PROBE-END/p' "$log3" | grep -v '^CHECK ' | sed '/PROBE-PNG-BEGIN/,/PROBE-PNG-END/d' | tr -d '\r'

# The screen: QEMU's screendump of boot 3 (bcm2835-fb's RGB565 shown as 8-bit channels, each the
# 5 or 6 bits shifted left: hw/display/bcm2835_fb.c, draw_line_src16) against the player's own PNG
# of the same message at the same size (kiosk-player render), compared channel by channel.
screen_result=$(python3 - "$log3" "$work/screen-3.ppm" <<'PY' 2>&1 || true
import base64, struct, sys, zlib

def png_rgb(data):
    """8-bit RGB or RGBA, non-interlaced PNG -> (width, height, rows of bytes RGB)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0, f"PNG kind {depth}/{colour}/{interlace}"
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw, stride, rows, prev = zlib.decompress(idat), width * channels, [], bytearray(width * channels)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b, c = prev[i], prev[i - channels] if i >= channels else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line) if channels == 3 else bytes(v for k, v in enumerate(line) if k % 4 != 3))
        prev = line
    return width, height, rows

def ppm_rgb(data):
    parts, pos = [], 0
    while len(parts) < 4:
        while data[pos:pos + 1].isspace(): pos += 1
        if data[pos:pos + 1] == b"#":
            pos = data.index(b"\n", pos)
            continue
        end = pos
        while not data[end:end + 1].isspace(): end += 1
        parts.append(data[pos:end]); pos = end
    assert parts[0] == b"P6" and parts[3] == b"255", "not an 8-bit P6 PPM"
    w, h = int(parts[1]), int(parts[2])
    pixels = data[pos + 1:]
    return w, h, [pixels[y * w * 3:(y + 1) * w * 3] for y in range(h)]

text = open(sys.argv[1], "rb").read().decode("utf-8", "replace").replace("\r", "")
if "PROBE-PNG-BEGIN" not in text:
    print("no PNG from the guest"); sys.exit(1)
b64 = text.split("PROBE-PNG-BEGIN\n", 1)[1].split("PROBE-PNG-END", 1)[0]
pw, ph, want = png_rgb(base64.b64decode("".join(b64.split())))
try:
    sw, sh, got = ppm_rgb(open(sys.argv[2], "rb").read())
except OSError:
    print("no screendump"); sys.exit(1)
if (pw, ph) != (sw, sh):
    print(f"sizes differ: the player's PNG {pw}x{ph}, the screendump {sw}x{sh}"); sys.exit(1)
# Each channel as the framebuffer holds it: the player reduces 8 bits to 5/6/5 with a 4x4 ordered
# dither (FramebufferSurface.dithered: one level up or down from the nearest), QEMU shows level<<3
# (<<2 for green). Exact: the screendump's level is the PNG's rounded level; within one level: the
# dither's step; anything further is a different picture.
exact = near = far = 0
worst = (0, 0, 0)
bits = (5, 6, 5)
for y in range(ph):
    for x in range(pw):
        off = 0
        for ch in range(3):
            levels = (1 << bits[ch]) - 1
            expected = round(want[y][3 * x + ch] * levels / 255)
            shown = got[y][3 * x + ch] >> (8 - bits[ch])
            off = max(off, abs(expected - shown))
        if off == 0: exact += 1
        elif off == 1: near += 1
        else:
            far += 1
            if far == 1: worst = (x, y, off)
total = pw * ph
# Text edges and flat fills differ only by the dither's one level; the message's text lit any
# pixel at all shows in both (a blank screen or another screen has far pixels by the thousand).
lit = sum(1 for y in range(ph) for x in range(pw) if max(want[y][3 * x:3 * x + 3]) > 128)
print(f"{pw}x{ph}: {exact} pixels exact, {near} within the dither's one level, {far} further off"
      f"{f' (first at {worst[0]},{worst[1]}: {worst[2]} levels)' if far else ''}; {lit} bright pixels in the player's PNG")
sys.exit(0 if far == 0 and lit > 500 else 1)
PY
)
[[ $screen_result == *"0 further off"* && $screen_result != *Error* ]] && screen_ok=1 || screen_ok=0

# Judging.
declare -A v=() w=()
while IFS='=' read -r key value; do v[${key#CHECK }]=${value%$'\r'}; done < <(grep -a '^CHECK ' "$log")
while IFS='=' read -r key value; do w[${key#CHECK }]=${value%$'\r'}; done < <(grep -a '^CHECK ' "$log3")
failures=0
check() {   # check NAME OK? WHAT
    if [ "$2" = 1 ]; then echo "  ok    $1: $3"; else echo "  FAIL  $1: $3"; failures=$((failures + 1)); fi
}
is() { [ "$1" = "$2" ] && echo 1 || echo 0; }
echo "boot-raspi: checks (boot 1 to its restart $first_elapsed s, boot 2 to power-off $second_elapsed s, boot 3 $third_elapsed s, of TCG)"
check "player READY" "$(is "${v[player.state]:-}" active/running)" \
    "kiosk-player.service ${v[player.state]:-?} (Type=${v[player.type]:-?}), started at ${v[player.start_ms]:-?} ms, READY at ${v[player.ready_ms]:-?} ms after kernel start, ${v[player.restarts]:-?} restarts"
check "root read-only" "$([[ ,${v[root.options]:-}, == *,ro,* ]] && [ "${v[root.write]:-}" = refused ] && echo 1 || echo 0)" \
    "/ is ${v[root.source]:-?} mounted ${v[root.options]:-?}; a write was ${v[root.write]:-?}"
card_bytes=${v[card.bytes]:-0} part_end=${v[data.part_end]:-0} fs_bytes=${v[data.fs_bytes]:-0}
check "data partition grown" "$([ "$grew_and_restarted" = 1 ] && [ "$part_end" = "$card_bytes" ] && [ "$fs_bytes" -gt $((card_bytes - (image_mib + 64) * 1048576 - card_bytes / 10)) ] && echo 1 || echo 0)" \
    "image $image_mib MiB on a $((card_bytes / 1048576)) MiB card: boot 1 grew the entry and restarted ($([ "$grew_and_restarted" = 1 ] && echo yes || echo no)); the data partition ends at $((part_end / 1048576)) MiB, its ext4 holds $((fs_bytes / 1048576)) MiB (${v[data.options]:-?})"
check "state on the data partition" "$([[ ${v[state.mount]:-} == *ext4 ]] && echo 1 || echo 0)" "/var/lib/kiosk-player: ${v[state.mount]:-?}"
# Applied in boot 2; after its restart for the firmware the same file is "unchanged".
settings_seen=applied
if [ "$firmware_restart" = 1 ]; then settings_seen=unchanged; fi
check "settings applied" "$([ "${v[settings.status]:-}" = "$settings_seen" ] && [ "${v[config.volumeMax]:-}" = 80 ] && [ "${v[config.board]:-}" = rpi3-qemu ] && echo 1 || echo 0)" \
    "status ${v[settings.status]:-?} (expected $settings_seen)${v[settings.error]:+ (${v[settings.error]})}; the player's config: board ${v[config.board]:-?}, volumeMax ${v[config.volumeMax]:-?}"
check "time zone applied" "$([[ ${v[timezone]:-} == CE*T ]] && echo 1 || echo 0)" "date +%Z in the guest: ${v[timezone]:-?} (Europe/Berlin)"
if [ "${BOOT_RASPI_IMAGER:-0}" = 1 ]; then
    check "Imager's settings" "$([ "${v[hostname]:-}" = kinderbox ] && [ "${v[sshd]:-}" = active ] && [ "${v[sshkeys]:-}" = 1 ] && [ "${v[getty]:-}" != active ] && echo 1 || echo 0)" \
        "host name ${v[hostname]:-?}, ssh ${v[sshd]:-?} with ${v[sshkeys]:-?} key(s), getty@tty1 ${v[getty]:-?}"
else
    check "no login, no SSH" "$([ "${v[getty]:-}" != active ] && [ "${v[sshd]:-}" != active ] && echo 1 || echo 0)" "getty@tty1 ${v[getty]:-?}, ssh ${v[sshd]:-?}"
fi
check "USB stick scanned" "$([[ ${v[stick.scan]:-} == *" 1 tracks"* || ${v[stick.scan]:-} == *" 1 track"* ]] && [ -n "${v[stick.mount]:-}" ] && echo 1 || echo 0)" \
    "plugged in through QEMU's monitor (usb-storage on dwc2): mounted ${v[stick.mount]:-nowhere}; the player: ${v[stick.scan]:-no scan with tracks}"
check "plays from the keyboard" "$([[ ${v[player.status]:-} == Playing* ]] && [ -z "${v[uinput]:-}" ] && echo 1 || echo 0)" \
    "Enter on a uinput keyboard: the player's status \"${v[player.status]:-?}\"${v[uinput]:+ (uinput ${v[uinput]})}"
check "status light: playing is steady" "$([ "${v[light.gpio]:-}" = "out hi" ] && [[ ${v[light.playing]:-} =~ ^1+$ ]] && echo 1 || echo 0)" \
    "GPIO 24 through pinctrl-bcm2835 (debugfs): ${v[light.gpio]:-?}, 12 reads while playing: ${v[light.playing]:-?}"
check "power latch held" "$([ "${v[latch.gpio]:-}" = "out hi" ] && echo 1 || echo 0)" "GPIO 4: ${v[latch.gpio]:-?} (${v[pins]:-})"
check "the latch's firmware line" "$([ "$firmware_restart" = 1 ] && echo 1 || echo 0)" \
    "kiosk-board.txt: $board_lines; restarted once for it: $([ "$firmware_restart" = 1 ] && echo yes || echo no)"
check "no failed units" "$([ -z "${v[failed]// /}" ] && echo 1 || echo 0)" "${v[failed]:-none}"
echo "  info  framebuffer: ${v[fb]:-none}; gpiochip0: ${v[gpiochip]:-?}"
echo "boot-raspi: boot 3, kiosk-settings.json with an error (line $broken_line)"
check "the error named" "$([ "${w[settings.status]:-}" = error ] && [[ ${w[settings.error]:-} == kiosk-settings.json*"line $broken_line"* ]] && echo 1 || echo 0)" \
    "status ${w[settings.status]:-?}: ${w[settings.error]:-no error}"
check "the last good settings in force" "$([ "${w[config.volumeMax]:-}" = 80 ] && [ "${w[config.board]:-}" = rpi3-qemu ] && [[ ${w[timezone]:-} == CE*T ]] && echo 1 || echo 0)" \
    "board ${w[config.board]:-?}, volumeMax ${w[config.volumeMax]:-?}, time zone ${w[timezone]:-?}"
check "the player runs on" "$([ "${w[player.state]:-}" = active/running ] && [ "${w[latch.gpio]:-}" = "out hi" ] && echo 1 || echo 0)" \
    "kiosk-player.service ${w[player.state]:-?}, READY at ${w[player.ready_ms]:-?} ms, ${w[player.restarts]:-?} restarts; power latch ${w[latch.gpio]:-?}"
check "the player shows it" "$([[ ${w[settings.journal]:-} == *"line $broken_line"*"the last good settings stay in force" ]] && echo 1 || echo 0)" \
    "journal: ${w[settings.journal]:-nothing}"
check "the player says it" "$(is "${w[settings.spoken]:-}" "speech: \"Settings not applied: error in line $broken_line\"")" \
    "journal: ${w[settings.spoken]:-nothing said}"
check "the light shows the error" "$([ "${w[light.broken_gpio]:-}" != "" ] && [[ ${w[light.broken]:-} == *0* && ${w[light.broken]:-} == *1* && ${w[light.broken]:-} != *"?"* ]] && echo 1 || echo 0)" \
    "GPIO 24 blinks (the error pattern, 4 Hz) in 20 reads: ${w[light.broken]:-?}"
check "the screen shows it" "$screen_ok" "QEMU screendump vs. the player's PNG of the message: ${w[render]:-}${screen_result//$'\n'/ }"
check "no failed units (boot 3)" "$([ -z "${w[failed]// /}" ] && echo 1 || echo 0)" "${w[failed]:-none}"
if [ "$failures" -gt 0 ]; then
    echo "boot-raspi: $failures check(s) FAILED (serial log: ${BOOT_RASPI_LOG:-$repo/.build/image/boot-raspi.log})"
    exit 1
fi
echo "boot-raspi: all checks passed"
