#!/usr/bin/env bash
# The guest's root for a system test of another architecture (SYSTEST_ARCH=arm64): the cached Debian
# tree of that architecture (deploy/trees/tree.sh build arm64) with the extracted Debian kernel
# (modules, headers, kbuild: prepare.sh's $cache/root) laid over it, and host folders (the
# repository, the system-test cache, the testbench) bound at their own paths, so that paths are the
# same on the host, in a chroot and in the guest — as they are for the x86 test, whose guest root is
# the host's own.
#
#   target-root.sh [--chroot] MOUNTPOINT KERNEL_ROOT TREE -- CMD...
#
# Everything happens in a private mount namespace (unshare -m): nothing is mounted on the host, the
# cached tree is never written (the overlay's upper layer is a throwaway folder) and the mounts go
# away with CMD. Without --chroot, CMD runs on the host with the root mounted at MOUNTPOINT (run.sh:
# QEMU exports it over 9p); with --chroot, CMD runs chrooted in it (qemu-user through binfmt for a
# foreign architecture) with /proc, /dev, /sys and a tmpfs /tmp, in a clean environment
# (`env VAR=VALUE` at the start of CMD passes variables). SYSTEST_ROOT_BINDS: host paths to bind
# (space-separated; missing ones are left out).
set -euo pipefail
chroot_mode=0
if [ "${1:-}" = --chroot ]; then chroot_mode=1; shift; fi
mnt=${1:?usage: target-root.sh [--chroot] MOUNTPOINT KERNEL_ROOT TREE -- CMD...}
kernel_root=${2:?kernel root}
tree=${3:?tree}
shift 3
[ "${1:-}" = -- ] && shift
[ $# -gt 0 ] || { echo "target-root: no command" >&2; exit 2; }
[ -d "$kernel_root" ] || { echo "target-root: no kernel root $kernel_root" >&2; exit 1; }
[ -x "$tree/bin/bash" ] || { echo "target-root: $tree is not a Debian tree" >&2; exit 1; }

if [ -z "${_SYSTEST_TARGET_NS:-}" ]; then
    command -v unshare > /dev/null || { echo "target-root: unshare (util-linux) missing" >&2; exit 1; }
    args=()
    [ "$chroot_mode" = 1 ] && args+=(--chroot)
    _SYSTEST_TARGET_NS=1 exec unshare -m --propagation private bash "$0" "${args[@]}" "$mnt" "$kernel_root" "$tree" -- "$@"
fi

layers=$(mktemp -d /tmp/kiosk-systest-layers.XXXXXX)
cleanup() {
    umount -R -l "$mnt" 2> /dev/null || true
    rm -rf "$layers"
}
trap cleanup EXIT
mkdir -p "$mnt" "$layers/upper" "$layers/work"
mount -t overlay overlay -o "lowerdir=$kernel_root:$tree,upperdir=$layers/upper,workdir=$layers/work" "$mnt"
for path in ${SYSTEST_ROOT_BINDS:-}; do
    [ -e "$path" ] || continue
    mkdir -p "$mnt$path"
    mount --bind "$path" "$mnt$path"
done

status=0
if [ "$chroot_mode" = 1 ]; then
    mount -t proc proc "$mnt/proc"
    mount --rbind /dev "$mnt/dev"
    mount -t sysfs sysfs "$mnt/sys"
    mount -t tmpfs tmpfs "$mnt/tmp"
    chroot "$mnt" /usr/bin/env -i HOME=/root LC_ALL=C.UTF-8 \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@" || status=$?
else
    "$@" || status=$?
fi
exit $status
