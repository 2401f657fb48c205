#!/usr/bin/env bash
# Runs a command inside a cached Debian tree (deploy/trees/tree.sh) with this repository at /src
# (read-write: builds go to /src/.build/<tree>), /proc, /dev, /sys and a private /tmp, as root, in /src.
#
#   deploy/trees/run-in.sh TREE CMD...
#   KIOSK_TREE_BINDS="HOST:GUEST …"   more bind mounts (e.g. the arm64 sysroot inside the amd64 tree)
#
# Everything is mounted in a mount namespace of its own (unshare), so several runs in one tree at
# once each see their own /tmp, and nothing is left mounted when the command ends, however it ends.
# The environment inside is only HOME, LC_ALL and PATH (the host's PATH means nothing there).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
tree=${1:?usage: run-in.sh TREE CMD...}
shift
[ -e "$tree/.kiosk-tree-complete" ] || { echo "run-in: $tree is not a complete tree" >&2; exit 1; }
if [ "${KIOSK_RUN_IN_NAMESPACE:-}" != "$tree" ]; then
    KIOSK_RUN_IN_NAMESPACE=$tree exec unshare --mount --propagation private "$0" "$tree" "$@"
fi
mkdir -p "$tree/src"
mount --bind "$repo" "$tree/src"
mount -t proc proc "$tree/proc"
mount --rbind /dev "$tree/dev"
mount -t sysfs sysfs "$tree/sys"
mount -t tmpfs tmpfs "$tree/tmp"
for extra in ${KIOSK_TREE_BINDS:-}; do
    mkdir -p "$tree${extra#*:}"
    mount --bind "${extra%%:*}" "$tree${extra#*:}"
done
exec chroot "$tree" /usr/bin/env -i HOME=/root LC_ALL=C.UTF-8 \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    bash -c 'cd /src && exec "$@"' run-in "$@"
