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
#
# Packages come from debootstrap's own default archive, or from $DEBIAN_MIRROR when set.
#
# An interruption (Ctrl-C, kill, kill -9, a power cut) leaves nothing mounted and no tree that looks
# complete but is not: the script runs in a mount namespace of its own (its mounts go with its last
# process, even after SIGKILL) and also unmounts on every exit (trap); a tree is made in <name>.tmp and
# renamed to <name> only after its last step, with the stamp .kiosk-tree-complete inside; a left-over
# .tmp is deleted (only once nothing is mounted inside it: deploy/trees/mounts.sh) and made again; a
# complete tree whose dpkg was interrupted (a later install-deps.sh run) is repaired with
# `dpkg --configure -a` before it is used. One run at a time per tree (flock).
set -euo pipefail
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
say() { echo "tree: $*" >&2; }
die() { echo "tree: $*" >&2; exit 1; }
if [ -z "${KIOSK_TREE_NAMESPACE:-}" ] && [ "$(id -u)" = 0 ]; then
    # A private mount namespace (inherited by the nested `tree.sh base` call): whatever is mounted in
    # it goes away with its last process.
    KIOSK_TREE_NAMESPACE=1 exec unshare --mount --propagation private bash "$0" "$@"
fi
# shellcheck source=mounts.sh
source "$here/mounts.sh"

kind=${1:-}
arch=${2:-}
suite=${3:-trixie}
case "$kind" in base | build) ;; *) die "usage: tree.sh base|build amd64|arm64 [trixie|bookworm]" ;; esac
case "$arch" in amd64 | arm64) ;; *) die "unknown architecture '$arch' (amd64 or arm64)" ;; esac
case "$suite" in trixie | bookworm) ;; *) die "unknown suite '$suite' (trixie or bookworm)" ;; esac

root_dir=${KIOSK_TREES:-/var/cache/kiosk-player/trees}
# No archive host written here: debootstrap's default unless the machine's owner names one.
mirror=()
[ -z "${DEBIAN_MIRROR:-}" ] || mirror=("$DEBIAN_MIRROR")
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

# The tree being worked on: whatever is mounted inside it is taken down on any exit.
working=''
on_exit() {
    local rc=$?
    [ -z "$working" ] || unmount_under "$working" || say "still mounted inside $working: $(mounts_under "$working" | tr '\n' ' ')"
    exit "$rc"
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# with_mounts TREE CMD... : runs CMD with /proc, /dev and /sys of this machine inside TREE (apt and
# maintainer scripts need them), unmounting them again whatever happens.
with_mounts() {
    local t=$1 rc=0
    shift
    working=$t
    mount -t proc proc "$t/proc"
    mount --rbind /dev "$t/dev" && mount --make-rslave "$t/dev"
    mount -t sysfs sysfs "$t/sys"
    cp /etc/resolv.conf "$t/etc/resolv.conf" 2>/dev/null || true
    "$@" || rc=$?
    unmount_under "$t/sys" && unmount_under "$t/dev" && unmount_under "$t/proc" ||
        die "cannot unmount /proc, /dev or /sys inside $t"
    return $rc
}

make_base() {
    local target=$1
    say "making $suite $arch base tree in $target (debootstrap, once)"
    local start log=$target.log
    start=$(date +%s)
    working=$target
    remove_tree "$target" || die "cannot delete the half-made $target"
    debootstrap --arch="$arch" --variant=minbase --include="$base_include" "$suite" "$target" ${mirror[@]+"${mirror[@]}"} \
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

# repair_dpkg TREE: finishes what an interrupted dpkg left half-installed or half-configured, once an
# apt or dpkg still running there (a killed run's, in a session of its own) has ended.
repair_dpkg() {
    local t=$1
    while [ -n "$(processes_in "$t" dpkg apt-get apt)" ]; do
        say "waiting for dpkg/apt still running in $t"
        sleep 5
    done
    [ -n "$(chroot "$t" dpkg --audit 2>/dev/null)" ] || return 0
    say "dpkg was interrupted in $t: dpkg --configure -a"
    DEBIAN_FRONTEND=noninteractive chroot "$t" dpkg --configure -a >&2
    DEBIAN_FRONTEND=noninteractive chroot "$t" apt-get install -f -y -q >&2
}

# add_build_packages TREE: what install-deps.sh installs, and in the amd64 tree what packaging needs
# (every .deb is made there, arm64 as a cross build: deploy/debian/build-deb.sh). Idempotent.
add_build_packages() {
    local t=$1
    with_mounts "$t" repair_dpkg "$t" || die "repairing dpkg in $t failed"
    with_mounts "$t" bash "$repo/deploy/install-deps.sh" --root "$t" >&2 || die "install-deps.sh into $t failed"
    if [ "$arch" = amd64 ]; then
        packaging=(build-essential debhelper dpkg-dev lintian)
        with_mounts "$t" install_missing "$t" "${packaging[@]}" || die "installing ${packaging[*]} into $t failed"
    fi
}

# One run at a time per tree: a second waits instead of deleting the first one's .tmp.
exec 9>"$tree.lock"
flock 9

if [ -e "$tree" ] && [ ! -e "$tree/.kiosk-tree-complete" ]; then
    say "$tree has no completion stamp: making it again"
    remove_tree "$tree" || die "cannot delete the incomplete $tree"
fi
if [ ! -e "$tree" ]; then
    if [ -e "$tree.tmp" ]; then say "deleting the half-made $tree.tmp (an interrupted run)"; fi
    working=$tree.tmp
    remove_tree "$tree.tmp" || die "cannot delete the half-made $tree.tmp"
    if [ "$kind" = base ]; then
        make_base "$tree.tmp"
    else
        base=$(bash "$0" base "$arch" "$suite")
        say "making $suite $arch build tree in $tree (copy of the base + swiftlang, once)"
        start=$(date +%s)
        mkdir "$tree.tmp"
        cp -a "$base/." "$tree.tmp/"
        rm -f "$tree.tmp/.kiosk-tree-complete"
        with_mounts "$tree.tmp" install_swift "$tree.tmp" || die "installing swiftlang into the $arch tree failed"
        add_build_packages "$tree.tmp"
        chroot "$tree.tmp" apt-get clean
        say "swiftlang and the build packages installed in $(($(date +%s) - start)) s"
    fi
    # The last step: only a tree that got this far is ever renamed into place.
    touch "$tree.tmp/.kiosk-tree-complete"
    mv "$tree.tmp" "$tree"
elif [ "$kind" = build ]; then
    # A package added to install-deps.sh since the tree was made reaches it without a rebuild.
    add_build_packages "$tree"
fi
working=''
echo "$tree"
