#!/usr/bin/env bash
# Runs a command inside a cached Debian tree (deploy/trees/tree.sh) with this repository at /src
# (read-write: builds go to /src/.build/<tree>), /proc, /dev and /sys mounted, as root, in /src.
#
#   deploy/trees/run-in.sh TREE CMD...
# Environment passed in: only what `env` names on the command line (the host's PATH means nothing there).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
tree=${1:?usage: run-in.sh TREE CMD...}
shift
[ -e "$tree/.kiosk-tree-complete" ] || { echo "run-in: $tree is not a complete tree" >&2; exit 1; }
mkdir -p "$tree/src"
mounted=()
cleanup() {
    local i
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[$i]}" 2>/dev/null || true; done
}
trap cleanup EXIT
mount --bind "$repo" "$tree/src" && mounted+=("$tree/src")
mount -t proc proc "$tree/proc" && mounted+=("$tree/proc")
mount --rbind /dev "$tree/dev" && mount --make-rslave "$tree/dev" && mounted+=("$tree/dev")
mount -t sysfs sysfs "$tree/sys" && mounted+=("$tree/sys")
mount -t tmpfs tmpfs "$tree/tmp" && mounted+=("$tree/tmp")
for extra in ${KIOSK_TREE_BINDS:-}; do
    # HOST:GUEST pairs, e.g. the arm64 sysroot inside the amd64 build tree.
    mkdir -p "$tree${extra#*:}"
    mount --bind "${extra%%:*}" "$tree${extra#*:}" && mounted+=("$tree${extra#*:}")
done
chroot "$tree" /usr/bin/env -i HOME=/root LC_ALL=C.UTF-8 PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    bash -c 'cd /src && exec "$@"' run-in "$@"
