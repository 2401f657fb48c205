#!/usr/bin/env bash
# Builds the package with Debian's own Swift (trixie's swiftlang 6.0.3, the compiler a Raspberry Pi OS
# owner can apt install) for ARCH, in the cached trees of deploy/trees/tree.sh:
#
#   deploy/trees/swift-build.sh ARCH [--static] [swift build arguments…]
#
# amd64: natively in the amd64 build tree. arm64: cross-compiled there (fast; emulated compiling is
# 8–10× slower), with the arm64 build tree mounted at /arm64 as the sysroot: its libraries, headers,
# pkg-config files and its own swiftlang's aarch64 runtime and modules. --static links the Swift
# runtime statically (the .deb's binary needs only libc, libstdc++ and the C libraries); without it the
# binaries (and the test bundle) use the tree's dynamic runtime, found at /usr/libexec/swift/lib/swift/linux.
# Products go to .build/debian-<suite>-<arch>[-static]/. Prints the products directory on the last line.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
arch=${1:?usage: swift-build.sh amd64|arm64 [--static] [swift build arguments…]}
shift
static=0
if [ "${1:-}" = --static ]; then static=1; shift; fi
suite=${KIOSK_SUITE:-trixie}
host_tree=$(bash "$here/tree.sh" build amd64 "$suite")
scratch=.build/debian-$suite-$arch$([ "$static" = 0 ] || echo -static)
# Fail fast (20 ms per expression) instead of 6.0's 600 s, so a slow expression is found here first.
flags=(-Xswiftc -Xfrontend -Xswiftc -solver-expression-time-threshold=20)
binds=''

# A static link takes the Swift runtime's own objects in (C++ that may compare function addresses,
# archives made with `ld -r` whose address tables lld ignores, warning 68 times): the manifest's
# --icf=all, meant for Swift code only, is undone there.
[ "$static" = 0 ] || flags+=(-Xlinker --icf=none)
if [ "$arch" = amd64 ]; then
    [ "$static" = 0 ] || flags+=(--static-swift-stdlib)
    env_vars=()
else
    [ "$arch" = arm64 ] || { echo "swift-build: unknown architecture '$arch'" >&2; exit 2; }
    sysroot_tree=$(bash "$here/tree.sh" build arm64 "$suite")
    binds="$sysroot_tree:/arm64"
    resource=/arm64/usr/libexec/swift/lib/swift
    runtime=(-no-toolchain-stdlib-rpath -Xlinker -rpath=/usr/libexec/swift/lib/swift/linux)
    if [ "$static" = 1 ]; then
        resource=/arm64/usr/libexec/swift/lib/swift_static; runtime=(-static-stdlib)
    fi
    destination=$repo/$scratch.destination.json
    mkdir -p "$(dirname "$destination")"
    # SwiftPM 6.0's destination format; "-sdk" must also be in the swiftc flags, else "missing
    # required module 'SwiftGlibc'".
    {
        printf '{\n  "version": 1,\n  "target": "aarch64-unknown-linux-gnu",\n  "sdk": "/arm64",\n'
        printf '  "toolchain-bin-dir": "/usr/libexec/swift/bin",\n'
        printf '  "extra-cc-flags": ["--sysroot=/arm64"],\n  "extra-cpp-flags": ["--sysroot=/arm64"],\n'
        printf '  "extra-swiftc-flags": ["-target", "aarch64-unknown-linux-gnu", "-sdk", "/arm64", "-resource-dir", "%s", "-use-ld=lld"' "$resource"
        printf ', "%s"' "${runtime[@]}"
        printf ']\n}\n'
    } >"$destination"
    flags+=(--destination "/src/$scratch.destination.json")
    # SwiftPM reads .pc files itself: PKG_CONFIG_PATH comes before its built-in (host) search paths.
    env_vars=(PKG_CONFIG_SYSROOT_DIR=/arm64
        PKG_CONFIG_PATH=/arm64/usr/lib/aarch64-linux-gnu/pkgconfig:/arm64/usr/share/pkgconfig
        PKG_CONFIG_LIBDIR=/arm64/usr/lib/aarch64-linux-gnu/pkgconfig:/arm64/usr/share/pkgconfig)
fi

echo "swift-build: Debian $suite swiftlang → $arch$([ "$static" = 0 ] || echo ', static Swift runtime') in $scratch"
in_host_tree() { KIOSK_TREE_BINDS=$binds bash "$here/run-in.sh" "$host_tree" env "${env_vars[@]}" "$@"; }
# The build's own output goes to stderr: stdout's last line is the products directory.
in_host_tree swift build --scratch-path "$scratch" "${flags[@]}" "$@" >&2
bin_path=$(in_host_tree swift build --scratch-path "$scratch" "${flags[@]}" "$@" --show-bin-path | tail -n 1)
echo "$repo${bin_path#/src}"
