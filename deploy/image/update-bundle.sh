#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds a signed RAUC update bundle from an SD-card image (`make update-bundle`; docs/updates.md):
#
#   deploy/image/update-bundle.sh [--image IMG] [--version V] [--root EXT4] [--out FILE]
#
# → .build/update/kiosk-player_<version>_arm64.raucb: what `make image` put on the card, taken from
# the image itself so that nothing is built twice: slot A's ext4 (partition 2, shrunk to its
# content with resize2fs -M) as the rootfs image, and the boot files the slot needs (kernel as
# `vmlinuz`, initramfs as `initrd.img`, device trees, overlays, cmdline.txt) from the boot
# partition as boot.tar, which the box's RAUC post-install handler (kiosk-update) puts in the boot
# partition's slot directory. RAUC's `verity` format: the squashfs with a dm-verity hash tree, its
# root hash in the CMS signature.
#
#   --image IMG    the image (default: the newest .build/image/kiosk-player_*_arm64.img[.xz])
#   --version V    the bundle's version (default: the image's, from its file name); the box installs
#                  only a version newer than the one it runs (dpkg's version order)
#   --root EXT4    another ext4 file as the rootfs image (tests: a slot whose player cannot start)
#   --out FILE     where to write the bundle
#
# Keys (docs/updates.md, "Keys"): KIOSK_UPDATE_KEY and KIOSK_UPDATE_CERT name the release signer's
# key and certificate (a file path, or a PKCS#11 URI RAUC takes), KIOSK_UPDATE_KEYRING the release
# CA to check the result against. Unset: the development key in deploy/update/dev-keys (test-only,
# its private key is public), with a warning.
# Needs: rauc (≥ 1.5, verity), squashfs-tools, mtools, e2fsprogs, xz-utils (deploy/install-deps.sh --image).
set -euo pipefail
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
say() { echo "update-bundle: $*" >&2; }
die() { echo "update-bundle: $*" >&2; exit 1; }

image='' version='' root='' out=''
while [ $# -gt 0 ]; do
    case "$1" in
        --image) image=$2; shift ;;
        --version) version=$2; shift ;;
        --root) root=$2; shift ;;
        --out) out=$2; shift ;;
        *) die "unknown option '$1' (--image IMG, --version V, --root EXT4, --out FILE)" ;;
    esac
    shift
done
for tool in rauc mksquashfs mcopy sfdisk resize2fs e2fsck xz; do
    command -v "$tool" >/dev/null || die "$tool is missing (deploy/install-deps.sh --image)"
done
[ -n "$image" ] || image=$(ls -t "$repo"/.build/image/kiosk-player_*_arm64.img "$repo"/.build/image/kiosk-player_*_arm64.img.xz 2>/dev/null | head -n 1) || true
[ -f "$image" ] || die "no image (make image, or --image IMG)"
if [ -z "$version" ]; then
    version=$(basename "$image")
    version=${version#kiosk-player_}
    version=${version%_arm64.img*}
fi
dev=$repo/deploy/update/dev-keys
key=${KIOSK_UPDATE_KEY:-}
cert=${KIOSK_UPDATE_CERT:-}
keyring=${KIOSK_UPDATE_KEYRING:-$dev/ca.cert.pem}
if [ -z "$key" ] && [ -z "$cert" ]; then
    key=$dev/dev.key.pem cert=$dev/dev.cert.pem
    say "warning: signed with the DEVELOPMENT key (deploy/update/dev-keys; KIOSK_UPDATE_KEY unset): not for a release"
elif [ -z "$key" ] || [ -z "$cert" ]; then
    die "KIOSK_UPDATE_KEY and KIOSK_UPDATE_CERT go together"
fi
[ -n "$out" ] || out=$repo/.build/update/kiosk-player_${version//[^A-Za-z0-9.+~-]/_}_arm64.raucb

start=$(date +%s)
work=$(mktemp -d "${TMPDIR:-/tmp}/kiosk-update-bundle.XXXXXX")
trap 'rm -rf "$work"' EXIT
content=$work/content
mkdir -p "$content" "$work/boot"
card=$image
case "$image" in
    *.xz) card=$work/card.img; xz -dc "$image" >"$card" ;;
esac
dump=$(sfdisk --dump "$card")
p1_start=$(echo "$dump" | sed -n 's/^[^ ]*1 : start= *\([0-9]*\),.*/\1/p')
p2_start=$(echo "$dump" | sed -n 's/^[^ ]*2 : start= *\([0-9]*\),.*/\1/p')
p2_size=$(echo "$dump" | sed -n 's/^[^ ]*2 : start= *[0-9]*, size= *\([0-9]*\),.*/\1/p')
[ -n "$p1_start" ] && [ -n "$p2_start" ] && [ -n "$p2_size" ] || die "$image: no partitions 1 and 2 in its MBR"

say "slot A's root from $(basename "$image")${root:+ (replaced by $root)}"
if [ -n "$root" ]; then
    cp --sparse=always "$root" "$content/root.ext4"
else
    dd if="$card" of="$content/root.ext4" bs=512 skip="$p2_start" count="$p2_size" conv=sparse status=none
fi
# Only what the root holds: the slot's rest stays unused (the root is never written on the box).
e2fsck -fy "$content/root.ext4" >"$work/e2fsck.log" 2>&1 || [ $? -le 1 ] || die "e2fsck: $(tail -n 3 "$work/e2fsck.log")"
resize2fs -M "$content/root.ext4" >"$work/resize.log" 2>&1 || die "resize2fs -M: $(tail -n 3 "$work/resize.log")"
root_mib=$(( $(stat -c %s "$content/root.ext4") / 1048576 ))

say "boot files from the boot partition"
fat="$card@@$((p1_start * 512))"
export MTOOLS_SKIP_CHECK=1
mdir -b -i "$fat" :: >"$work/boot.list"
kernel=$(grep -o 'vmlinuz-[^ /]*' "$work/boot.list" | sort -V | tail -n 1)
initrd=$(grep -o 'initrd.img-[^ /]*' "$work/boot.list" | sort -V | tail -n 1)
[ -n "$kernel" ] && [ -n "$initrd" ] || die "no vmlinuz-*/initrd.img-* on the boot partition"
mcopy -n -i "$fat" "::$kernel" "$work/boot/vmlinuz"
mcopy -n -i "$fat" "::$initrd" "$work/boot/initrd.img"
mcopy -n -i "$fat" ::cmdline.txt "$work/boot/cmdline.txt"
for dtb in $(grep -o '[^ /]*\.dtb$' "$work/boot.list" | sort -u); do mcopy -n -i "$fat" "::$dtb" "$work/boot/$dtb"; done
mcopy -s -n -i "$fat" ::overlays "$work/boot/"
# The firmware takes overlays from ${os_prefix}overlays/ only when that directory has a file README
# (raspberrypi/documentation computers/config_txt/boot.adoc, overlay_prefix).
echo "Overlays of this root slot (KioskPlayer update bundle $version)." >"$work/boot/overlays/README"
tar -C "$work/boot" --owner=0 --group=0 -cf "$content/boot.tar" .
boot_mib=$(( $(stat -c %s "$content/boot.tar") / 1048576 ))

cat >"$content/manifest.raucm" <<MANIFEST
[update]
compatible=kioskplayer-rpi-arm64
version=$version
description=KioskPlayer $version (root slot and its boot files)
build=$(date -u +%Y%m%dT%H%M%SZ)

[bundle]
format=verity

[image.rootfs]
filename=root.ext4
MANIFEST

mkdir -p "$(dirname "$out")"
rm -f "$out"
say "signing ($root_mib MiB root, $boot_mib MiB boot files) with $(openssl x509 -noout -subject -in "$cert" 2>/dev/null | sed 's/^subject=//' || echo "$cert")"
# KIOSK_UPDATE_MKSQUASHFS_ARGS: mksquashfs's options (tests: "-noI -noD -noF -noX", no compression,
# which saves minutes of CPU here for a bundle that never leaves this machine).
rauc bundle --cert="$cert" --key="$key" --keyring="$keyring" \
    ${KIOSK_UPDATE_MKSQUASHFS_ARGS:+--mksquashfs-args="$KIOSK_UPDATE_MKSQUASHFS_ARGS"} \
    "$content" "$out" >"$work/rauc.log" 2>&1 ||
    die "rauc bundle failed: $(tail -n 5 "$work/rauc.log")"
rauc info --keyring="$keyring" "$out" >"$work/info.log" 2>&1 || die "the bundle does not verify: $(tail -n 5 "$work/info.log")"
say "$(basename "$out"): $(( $(stat -c %s "$out") / 1048576 )) MiB, version $version, made in $(($(date +%s) - start)) s"
echo "$out"
