#!/usr/bin/env bash
# Makes (once) and prints the path of the SD-card image's base: a Debian trixie arm64 root with the
# packages of deploy/image/packages.list, made by mmdebstrap and kept as a tar file in
# $KIOSK_IMAGE_CACHE (default /var/cache/kiosk-image), named by a hash of everything that goes into it
# (this script and the package list), so an edit makes a new base and a stale one is never reused.
#
#   deploy/image/base.sh            the tar's path on stdout (progress on stderr)
#
# Why mmdebstrap and not deploy/trees (debootstrap): it installs a whole package list in one apt run
# (debootstrap's --include resolves no Recommends/alternatives well and needs a second apt pass),
# takes dpkg path-excludes (no man pages, docs or translations on a card nobody logs in to), and
# writes a tar that keeps ownership and extended attributes without a mounted image. Packages come
# from Debian's archive only (main for the system, non-free-firmware for the Raspberry Pi boot
# firmware and the Wi-Fi chip's firmware). Under qemu-user (binfmt, deploy/trees/binfmt.sh) the
# maintainer scripts run as on the device: the kernel's postinst makes the initramfs, raspi-firmware's
# hook copies kernel, initramfs, device trees and boot firmware to /boot/firmware.
# Cold: ≈ 15-25 min on this 2-core machine (most of it maintainer scripts under emulation).
set -euo pipefail
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
say() { echo "image-base: $*" >&2; }
die() { echo "image-base: $*" >&2; exit 1; }

cache=${KIOSK_IMAGE_CACHE:-/var/cache/kiosk-image}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
security=${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
suite=trixie
components='main non-free-firmware'

[ "$(id -u)" = 0 ] || die "needs root (mmdebstrap's root mode: chroot, mounts)"
command -v mmdebstrap >/dev/null || die "mmdebstrap is missing: apt-get install mmdebstrap"
bash "$repo/deploy/trees/binfmt.sh" arm64 >&2 || die "cannot run arm64 programs here (see above)"

packages=$(sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$here/packages.list" | paste -sd, -)
key=$(cat "$0" "$here/packages.list" | sha256sum | cut -c1-12)
tar=$cache/base-$suite-arm64-$key.tar
if [ -s "$tar" ]; then
    say "cached: $tar"
    echo "$tar"
    exit 0
fi
mkdir -p "$cache"
log=$cache/base-$suite-arm64-$key.log
# mmdebstrap writes a tar because the name ends in .tar; renamed once complete
tmp=$cache/incomplete-base-$suite-arm64-$key.tar
rm -f "$tmp"
say "making the $suite arm64 base with mmdebstrap (once; log: $log)"
start=$(date +%s)
# The archive's Valid-Until can be behind this machine's clock (security's is a week); Recommends off
# as in the .deb's documented minimal install; docs, man pages and translations left out (each
# package's copyright file kept).
mmdebstrap --mode=root --arch=arm64 --variant=apt --components="$components" \
    --include="$packages" \
    --aptopt='Acquire::Check-Valid-Until "false"' \
    --aptopt='APT::Install-Recommends "false"' \
    --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/info/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' \
    --dpkgopt='path-include=/usr/share/locale/locale.alias' \
    --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --dpkgopt='path-exclude=/usr/share/lintian/*' \
    "$suite" "$tmp" \
    "deb $mirror $suite $components" \
    "deb $mirror $suite-updates $components" \
    "deb $security $suite-security $components" \
    >"$log" 2>&1 || die "mmdebstrap failed (log: $log): $(tail -n 3 "$log" | tr '\n' ' ')"
mv "$tmp" "$tar"
say "base made in $(($(date +%s) - start)) s: $(du -m "$tar" | cut -f1) MiB"
echo "$tar"
