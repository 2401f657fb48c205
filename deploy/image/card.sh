# SPDX-License-Identifier: GPL-3.0-or-later
# The image tests' card, in one place: sourced by boot-raspi.sh, boot-raspi4.sh, boot-virt.sh,
# power-cut.sh and test-update.sh once they have set `repo` and `work` and defined `say` and `die`.
#
#   card_image [IMAGE]           prints IMAGE, else the newest .build/image/kiosk-player_*_arm64.img[.xz]
#   card_copy IMAGE CARD SIZE    IMAGE as a card of SIZE (an .xz unpacked; sparse): what is past the
#                                image is the empty rest of a bigger SD card, for the data partition;
#                                sets `image_bytes` (the image's own size)
#   card_part_start CARD N       partition N's first sector, from the card's own partition table
#   card_boot CARD FILE...       sets `fat` (mtools' CARD@@offset of the boot partition), `kernel` and
#                                `initrd` (the newest on it) and copies those and each FILE into $work
#   card_monitor CMD...          each CMD to QEMU's human monitor on $work/monitor.sock, answers dropped

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
