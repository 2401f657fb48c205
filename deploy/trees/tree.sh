#!/usr/bin/env bash
# Makes (once) and prints the path of a cached Debian tree for building, testing and installing
# KioskPlayer for another release or architecture:
#
#   deploy/trees/tree.sh base  ARCH [SUITE]   minbase + systemd, systemd-sysv, udev: a fresh system as
#                                             on a Raspberry Pi OS image (apt install tests, system test)
#   deploy/trees/tree.sh build ARCH [SUITE]   base + Debian's swiftlang + libc6-dev + what
#                                             deploy/install-deps.sh installs for building and testing
#
# ARCH is amd64 or arm64, SUITE trixie (default). Trees live under $KIOSK_TREES (default
# /var/cache/kiosk-player/trees), named <kind>-<suite>-<arch>-<hash of the recipe>, so a change of the
# recipe makes a new tree and never reuses a stale one. A build tree runs install-deps.sh into itself on
# every call (quick when nothing is missing), so a package added there reaches it without a rebuild.
# arm64 trees are made and entered through qemu-user-static (binfmt); cold: base ≈ 4 min, build ≈ 5 min
# more. Needs root, debootstrap, and for arm64 qemu-user-static and binfmt-support. Progress goes to
# stderr; stdout is the tree's path only.
set -euo pipefail
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
say() { echo "tree: $*" >&2; }
die() { echo "tree: $*" >&2; exit 1; }

kind=${1:-}
arch=${2:-}
suite=${3:-trixie}
case "$kind" in base | build) ;; *) die "usage: tree.sh base|build amd64|arm64 [trixie|bookworm]" ;; esac
case "$arch" in amd64 | arm64) ;; *) die "unknown architecture '$arch' (amd64 or arm64)" ;; esac
case "$suite" in trixie | bookworm) ;; *) die "unknown suite '$suite' (trixie or bookworm)" ;; esac

root_dir=${KIOSK_TREES:-/var/cache/kiosk-player/trees}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
base_include=systemd,systemd-sysv,udev,ca-certificates
# Debian's swiftlang (trixie: 6.0.3) and what its driver needs to link for the tree's own architecture.
swift_packages=(swiftlang libc6-dev libstdc++-14-dev)

[ "$(id -u)" = 0 ] || die "needs root (debootstrap and chroot)"
command -v debootstrap >/dev/null || die "debootstrap is missing: apt-get install debootstrap"
if [ "$arch" != "$(dpkg --print-architecture)" ]; then
    bash "$here/binfmt.sh" "$arch" >&2 || die "cannot run $arch programs here (see above)"
fi

# Bump when the way a tree is made changes in a way the lists above do not show.
recipe_version=1
recipe_hash() { echo "$recipe_version $kind $suite $arch $base_include ${swift_packages[*]}" | sha256sum | cut -c1-12; }
tree=$root_dir/$kind-$suite-$arch-$(recipe_hash)
mkdir -p "$root_dir"

# with_mounts TREE CMD... : runs CMD with /proc, /dev and /sys of this machine inside TREE (apt and
# maintainer scripts need them), unmounting them again whatever happens.
with_mounts() {
    local t=$1 rc=0
    shift
    mount -t proc proc "$t/proc"
    mount --rbind /dev "$t/dev" && mount --make-rslave "$t/dev"
    mount -t sysfs sysfs "$t/sys"
    cp /etc/resolv.conf "$t/etc/resolv.conf" 2>/dev/null || true
    "$@" || rc=$?
    umount -l "$t/sys" "$t/dev" "$t/proc" 2>/dev/null || true
    return $rc
}

make_base() {
    local target=$1
    say "making $suite $arch base tree in $target (debootstrap, once)"
    local start log=$target.log
    start=$(date +%s)
    rm -rf "$target"
    debootstrap --arch="$arch" --variant=minbase --include="$base_include" "$suite" "$target" "$mirror" \
        >"$log" 2>&1 || die "debootstrap $suite $arch failed (see $log): $(tail -n 2 "$log" | tr '\n' ' ')"
    # The trees' clocks and the archive's Valid-Until can disagree on a machine whose date is ahead.
    echo 'Acquire::Check-Valid-Until "false";' >"$target/etc/apt/apt.conf.d/90kiosk-valid-until"
    echo 'APT::Install-Recommends "false";' >"$target/etc/apt/apt.conf.d/90kiosk-no-recommends"
    # man-db's index rebuild after every install takes minutes under qemu-user; nobody reads man here.
    echo 'man-db man-db/auto-update boolean false' | chroot "$target" debconf-set-selections
    # Package lists once, so that users of the tree (apt-get install ./….deb) need no update.
    with_mounts "$target" chroot "$target" apt-get update -q >&2
    chroot "$target" apt-get clean
    say "base tree made in $(($(date +%s) - start)) s"
}

install_swift() {
    local t=$1
    chroot "$t" apt-get update -q >&2
    DEBIAN_FRONTEND=noninteractive chroot "$t" apt-get install -y -q "${swift_packages[@]}" >&2
}

if [ ! -e "$tree/.kiosk-tree-complete" ]; then
    rm -rf "$tree.tmp"
    if [ "$kind" = base ]; then
        make_base "$tree.tmp"
    else
        base=$("$0" base "$arch" "$suite")
        say "making $suite $arch build tree in $tree (copy of the base + swiftlang, once)"
        start=$(date +%s)
        cp -a "$base/." "$tree.tmp/"
        rm -f "$tree.tmp/.kiosk-tree-complete"
        with_mounts "$tree.tmp" install_swift "$tree.tmp" || die "installing swiftlang into the $arch tree failed"
        chroot "$tree.tmp" apt-get clean
        say "swiftlang installed in $(($(date +%s) - start)) s"
    fi
    touch "$tree.tmp/.kiosk-tree-complete"
    mv "$tree.tmp" "$tree"
fi

# install_missing TREE PACKAGE...: apt-get install those not installed yet.
install_missing() {
    local t=$1 p missing=()
    shift
    for p in "$@"; do
        chroot "$t" dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    [ ${#missing[@]} -gt 0 ] || return 0
    say "installing into $t: ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive chroot "$t" apt-get install -y -q "${missing[@]}" >&2 || {
        chroot "$t" apt-get update -q >&2
        DEBIAN_FRONTEND=noninteractive chroot "$t" apt-get install -y -q "${missing[@]}" >&2
    }
}

if [ "$kind" = build ]; then
    # Idempotent: installs only what is missing (a package added to install-deps.sh since the tree was
    # made), and in the amd64 tree what packaging needs (every .deb is made there, arm64 as a cross
    # build: deploy/debian/build-deb.sh).
    with_mounts "$tree" bash "$repo/deploy/install-deps.sh" --root "$tree" >&2 ||
        die "install-deps.sh into $tree failed"
    if [ "$arch" = amd64 ]; then
        packaging=(build-essential debhelper dpkg-dev lintian)
        with_mounts "$tree" install_missing "$tree" "${packaging[@]}" ||
            die "installing ${packaging[*]} into $tree failed"
    fi
fi
echo "$tree"
