#!/usr/bin/env bash
# Makes this machine run ARCH (arm64) programs through qemu-user-static, as the arm64 trees need:
# mounts binfmt_misc when absent and enables qemu-aarch64 with the F (fix binary) flag, so the
# interpreter works inside a chroot that has no qemu of its own.
#
#   deploy/trees/binfmt.sh arm64
set -euo pipefail
arch=${1:-arm64}
[ "$arch" = arm64 ] || { echo "binfmt: only arm64 is handled (asked: $arch)" >&2; exit 1; }
for tool in qemu-aarch64-static update-binfmts; do
    command -v "$tool" >/dev/null ||
        { echo "binfmt: $tool is missing: apt-get install qemu-user-static binfmt-support" >&2; exit 1; }
done
[ -e /proc/sys/fs/binfmt_misc/status ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
if ! grep -q '^enabled' /proc/sys/fs/binfmt_misc/qemu-aarch64 2>/dev/null; then
    update-binfmts --import qemu-aarch64 >/dev/null 2>&1 || true
    update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
fi
grep -q '^enabled' /proc/sys/fs/binfmt_misc/qemu-aarch64 2>/dev/null ||
    { echo "binfmt: could not enable qemu-aarch64 in binfmt_misc" >&2; exit 1; }
grep -q 'flags: .*F' /proc/sys/fs/binfmt_misc/qemu-aarch64 ||
    { echo "binfmt: qemu-aarch64 is registered without the F flag; chroots would not find the interpreter" >&2; exit 1; }
