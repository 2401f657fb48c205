#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# deploy/trees/mounts.sh, which every script that mounts inside a tree deletes it with: a tree with
# this machine's /dev bound inside is unmounted before it is deleted (the device files stay), and one
# whose mount cannot be taken down is refused, not deleted. Runs in a mount namespace of its own, so
# nothing it mounts is seen outside. Needs root. Prints "test-tree-mounts: N passed, N failed".
#
#   deploy/tests/test-tree-mounts.sh
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(id -u)" = 0 ] || { echo "test-tree-mounts: skipped: needs root"; exit 0; }
if [ "${KIOSK_TEST_NAMESPACE:-}" != 1 ]; then
    KIOSK_TEST_NAMESPACE=1 exec unshare --mount --propagation private bash "$0" "$@"
fi
harness_name=test-tree-mounts
# shellcheck source=harness.sh
source "$repo/deploy/tests/harness.sh"
# shellcheck source=../trees/mounts.sh
source "$repo/deploy/trees/mounts.sh"

work=$(mktemp -d /tmp/kiosk-tree-mounts.XXXXXX)
mkdir -p "$work/tree/dev" "$work/tree/proc" "$work/tree/with space"
mount --rbind /dev "$work/tree/dev"
mount -t proc proc "$work/tree/proc"
mount -t tmpfs tmpfs "$work/tree/with space"
expect_eq "every mount under the tree is listed" \
    "$(mounts_under "$work/tree" | grep -c .)" "$(grep -c " $work/tree/" /proc/self/mountinfo)"
expect_eq "a mount point with a space is named as it is" \
    "$(mounts_under "$work/tree" | grep -c "with space")" 1
check "the tree with /dev bound inside is deleted" remove_tree "$work/tree"
check "nothing is mounted under it any more" test -z "$(mounts_under "$work")"
check "this machine's /dev/null is still there" test -c /dev/null
check "the tree is gone" test ! -e "$work/tree"

# A process left working in the tree (apt's dpkg outlives a killed build: a session of its own) is
# stopped first, so it cannot write into the tree while it is deleted.
mkdir -p "$work/left/usr"
(cd "$work/left/usr" && exec sleep 300) &
left=$!
sleep 0.2
expect_eq "the process working in the tree is found" "$(processes_in "$work/left")" "$left"
check "the tree it works in is deleted" remove_tree "$work/left"
check "the process was stopped" sh -c "! kill -0 $left 2>/dev/null"
wait "$left" 2>/dev/null

# A mount that cannot be taken down (a process works inside it): refused, and nothing deleted.
mkdir -p "$work/busy/mnt"
mount -t tmpfs tmpfs "$work/busy/mnt"
touch "$work/busy/mnt/kept" "$work/busy/kept"
umount() { return 1; }  # as when the kernel says EBUSY and a lazy unmount is not allowed
if remove_tree "$work/busy" 2>/dev/null; then fail "a tree whose mount stays is refused"; else pass "a tree whose mount stays is refused"; fi
unset -f umount
check "the file inside the mount is kept" test -e "$work/busy/mnt/kept"
check "the file beside it is kept" test -e "$work/busy/kept"
remove_tree "$work"
harness_end
