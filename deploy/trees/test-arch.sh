#!/usr/bin/env bash
# The test suite for another architecture (`make test ARCH=arm64`): builds the test bundle with
# Debian's swiftlang (cross, deploy/trees/swift-build.sh) and runs it with `swift test --skip-build`
# inside the arm64 build tree, where every program runs under qemu-user (binfmt) and the tools the
# tests call (flac, mpc, fonts, alsa-utils, gpiod …) are installed by install-deps.sh. ../shared (the
# FLAC testbench) is mounted at /shared, which is ../shared of the repository's /src there.
#
#   deploy/trees/test-arch.sh arm64 [swift test arguments…]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
arch=${1:?usage: test-arch.sh arm64 [swift test arguments…]}
shift
suite=${KIOSK_SUITE:-trixie}
start=$(date +%s)
bash "$here/swift-build.sh" "$arch" --build-tests >/dev/null
built=$(date +%s)
echo "test-arch: $arch test bundle built in $((built - start)) s (cross, Debian swiftlang)"
tree=$(bash "$here/tree.sh" build "$arch" "$suite")
binds=''
[ ! -d "$repo/../shared" ] || binds="$(cd "$repo/../shared" && pwd):/shared"
rc=0
KIOSK_TREE_BINDS=$binds bash "$here/run-in.sh" "$tree" \
    env KIOSK_TEST_EMULATION=qemu-user swift test --skip-build --scratch-path ".build/debian-$suite-$arch" "$@" || rc=$?
echo "test-arch: $arch suite ran in $(($(date +%s) - built)) s under qemu-user (exit $rc)"
exit $rc
