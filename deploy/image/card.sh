# SPDX-License-Identifier: GPL-3.0-or-later
# The image tests' card, in one place: sourced by boot-raspi.sh, boot-raspi4.sh, boot-virt.sh,
# power-cut.sh, test-update.sh and record-hardware-tree.sh once they have set `repo` and `work` and
# defined `say` and `die`.
#
#   card_image [IMAGE]           prints IMAGE, else the newest .build/image/kiosk-player_*_arm64.img[.xz]
#   card_copy IMAGE CARD SIZE    IMAGE as a card of SIZE (an .xz unpacked; sparse): what is past the
#                                image is the empty rest of a bigger SD card, for the data partition;
#                                sets `image_bytes` (the image's own size)
#   card_part_start CARD N       partition N's first sector, from the card's own partition table
#   card_boot CARD FILE...       sets `fat` (mtools' CARD@@offset of the boot partition), `kernel` and
#                                `initrd` (the newest on it) and copies those and each FILE into $work
#   card_monitor CMD...          each CMD to QEMU's human monitor on $work/monitor.sock, answers dropped
#   card_dtb_raspi3 DTB          the Pi 3 device tree as the firmware would hand it over on QEMU's
#                                raspi3b: its simple-framebuffer node added (boot-raspi.sh says why)
#   card_dtb_raspi4 DTB          the Pi 4 device tree made bootable on QEMU's raspi4b (boot-raspi4.sh
#                                says what and why)
#   card_qemu_trixie             sets `qtree` and `qemu_version`: Debian trixie's QEMU (raspi4b) in a
#                                copy of the amd64 base tree, made once (boot-raspi4.sh says why)
#   card_qemu_trixie_run ARGS... that QEMU with ARGS in its tree, $work bound at the same path; call it
#                                with `&`: it execs, so $! is QEMU's process id

card_image() {
    local image=${1:-}
    if [ -z "$image" ]; then
        image=$(ls -t "$repo"/.build/image/kiosk-player_*_arm64.img "$repo"/.build/image/kiosk-player_*_arm64.img.xz 2>/dev/null | head -n 1) || true
    fi
    [ -f "$image" ] || die "no image (make image, or give its path)"
    echo "$image"
}

card_copy() {
    case "$1" in
        *.xz) xz -dc "$1" >"$2" ;;
        *) cp --sparse=always "$1" "$2" ;;
    esac
    image_bytes=$(stat -c %s "$2")
    truncate -s "$3" "$2"
}

card_part_start() {
    sfdisk --dump "$1" | awk -v n="$2" '$1 ~ ("[^0-9]" n "$") { sub(/,/, "", $4); print $4; exit }'
}

card_boot() {
    local card=$1 start f
    shift
    start=$(card_part_start "$card" 1)
    [ -n "$start" ] || die "no first partition in the image's MBR"
    fat="$card@@$((start * 512))"
    export MTOOLS_SKIP_CHECK=1
    mdir -b -i "$fat" :: >"$work/boot.list"
    kernel=$(grep -o 'vmlinuz-[^ /]*' "$work/boot.list" | sort -V | tail -n 1)
    initrd=$(grep -o 'initrd.img-[^ /]*' "$work/boot.list" | sort -V | tail -n 1)
    [ -n "$kernel" ] && [ -n "$initrd" ] || die "no vmlinuz-*/initrd.img-* on the boot partition"
    for f in "$kernel" "$initrd" "$@"; do
        mcopy -n -i "$fat" "::$f" "$work/$f" || die "no $f on the boot partition"
    done
}

card_monitor() {
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

card_dtb_raspi3() {
    local dtb=$1
    fdtput -c "$dtb" /framebuffer@3c100000
    fdtput -t s "$dtb" /framebuffer@3c100000 compatible simple-framebuffer
    fdtput -t x "$dtb" /framebuffer@3c100000 reg 0x3c100000 0x96000
    fdtput -t x "$dtb" /framebuffer@3c100000 width 0x280
    fdtput -t x "$dtb" /framebuffer@3c100000 height 0x1e0
    fdtput -t x "$dtb" /framebuffer@3c100000 stride 0x500
    fdtput -t s "$dtb" /framebuffer@3c100000 format r5g6b5
    fdtput -t s "$dtb" /framebuffer@3c100000 status okay
}

card_dtb_raspi4() {
    local dtb=$1 node
    for node in clock@7ef00000 interrupt-controller@7ef00100 hdmi@7ef00700 i2c@7ef04500 hdmi@7ef05700 i2c@7ef09500; do
        fdtput -t s "$dtb" "/soc/$node" status disabled
    done
    fdtput -r "$dtb" /soc/serial@7e201000/bluetooth
    fdtput -t s "$dtb" /soc/serial@7e215040 status disabled
    fdtput -t s "$dtb" /chosen stdout-path serial0:115200n8
    fdtput -r "$dtb" /soc/mmc@7e300000/wifi@1
    fdtput -d "$dtb" /soc/mmc@7e300000 mmc-pwrseq
}

card_qemu_trixie() {
    local base trees log
    base=$(bash "$repo/deploy/trees/tree.sh" base amd64) || die "no amd64 trixie base tree"
    trees=$(dirname "$base")
    qtree=$trees/qemu-$(basename "$base")
    log=$trees/qemu-$(basename "$base").log
    if [ ! -x "$qtree/usr/bin/qemu-system-aarch64" ]; then
        say "making $qtree (qemu-system-arm in a copy of $(basename "$base"))"
        rm -rf "$qtree.tmp"
        cp -a "$base" "$qtree.tmp"
        cp /etc/resolv.conf "$qtree.tmp/etc/resolv.conf"
        unshare --mount --propagation private sh -c "mount -t proc proc '$qtree.tmp/proc' && mount --rbind /dev '$qtree.tmp/dev' &&
            chroot '$qtree.tmp' /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
            sh -c 'apt-get update -q && apt-get install -y -q --no-install-recommends qemu-system-arm && apt-get clean'" \
            >"$log" 2>&1 || die "installing qemu-system-arm failed: $(tail -n 5 "$log")"
        mv "$qtree.tmp" "$qtree"
    fi
    qemu_version=$(chroot "$qtree" qemu-system-aarch64 --version | head -n 1)
}

card_qemu_trixie_run() {
    mkdir -p "$qtree$work"
    exec unshare --mount --propagation private sh -c 'mount --bind "$1" "$2$1" && mount --rbind /dev "$2/dev" && shift 2 && exec chroot "$0" "$@"' \
        "$qtree" "$work" "$qtree" qemu-system-aarch64 "$@"
}
