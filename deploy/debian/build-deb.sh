#!/usr/bin/env bash
# Builds the Debian package: .build/deb/kiosk-player_<version>_<arch>.deb, for Debian trixie and
# Raspberry Pi OS trixie (`make deb ARCH=amd64|arm64`).
#
#   deploy/debian/build-deb.sh ARCH [--binary FILE] [--no-lintian]   (--binary: kiosk-web beside it too)
#
# 1. The release binary with Debian's swiftlang and the static Swift runtime (deploy/trees/swift-build.sh:
#    cross-compiled for arm64), unless --binary names one.
# 2. A staging source tree under .build/deb/stage-ARCH: this directory as debian/, a changelog for the
#    version from `git describe`, and the files deploy/install.sh installs.
# 3. dpkg-buildpackage -b in the amd64 build tree (a cross build for arm64, with that architecture's
#    runtime libraries installed there through multiarch), so dpkg-shlibdeps computes Depends from the
#    target's own libraries and debhelper writes the maintainer scripts.
# 4. lintian (trixie's) on the result, with the overrides in kiosk-player.lintian-overrides.
# Needs root (the trees are chroots). Prints the .deb's path on the last line.
set -euo pipefail
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
trees=$repo/deploy/trees
arch=${1:?usage: build-deb.sh amd64|arm64 [--binary FILE] [--no-lintian]}
shift
binary=''
lintian=1
while [ $# -gt 0 ]; do
    case "$1" in
        --binary) binary=$2; shift ;;
        --no-lintian) lintian=0 ;;
        *) echo "build-deb: unknown option '$1'" >&2; exit 2 ;;
    esac
    shift
done
case "$arch" in amd64 | arm64) ;; *) echo "build-deb: unknown architecture '$arch' (amd64 or arm64)" >&2; exit 2 ;; esac
[ "$(id -u)" = 0 ] || { echo "build-deb: needs root (the build trees are chroots); try: sudo make deb ARCH=$arch" >&2; exit 1; }
suite=${KIOSK_SUITE:-trixie}

version=$(bash "$here/version.sh")
echo "build-deb: kiosk-player $version for $suite $arch"

if [ -z "$binary" ]; then
    start=$(date +%s)
    # Full RELRO and immediate binding, as dpkg-buildflags gives every Debian binary. lld: GNU ld
    # places Swift's read-only metadata sections in the writable segment and then makes no RELRO.
    products=$(bash "$trees/swift-build.sh" "$arch" --static -c release --product kiosk-player \
        -Xswiftc -use-ld=lld -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now | tail -n 1)
    binary=$products/kiosk-player
    # The phone page's server, a program of its own (docs/architecture.md, "The phone page").
    bash "$trees/swift-build.sh" "$arch" --static -c release --product kiosk-web \
        -Xswiftc -use-ld=lld -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now >/dev/null
    echo "build-deb: release binaries built in $(($(date +%s) - start)) s: $binary and kiosk-web beside it"
fi
[ -x "$binary" ] || { echo "build-deb: no binary at $binary" >&2; exit 1; }
web_binary=$(dirname "$binary")/kiosk-web
[ -x "$web_binary" ] || { echo "build-deb: no kiosk-web beside $binary" >&2; exit 1; }

out=$repo/.build/deb
stage_root=$out/stage-$arch
stage=$stage_root/kiosk-player-$version
rm -rf "$stage_root"
mkdir -p "$stage/debian" "$stage/prebuilt" "$stage/modules-load.d" "$stage/config" "$stage/boards/hats"
cp -a "$here/control" "$here/rules" "$here/copyright" "$here/source" "$here"/kiosk-player.* "$here/kiosk-web.1" "$stage/debian/"
cp "$repo/deploy/sysusers-kiosk-player.conf" "$stage/debian/kiosk-player.sysusers"
install -m 0755 "$binary" "$stage/prebuilt/kiosk-player"
install -m 0755 "$web_binary" "$stage/prebuilt/kiosk-web"
cp -a "$repo/deploy/systemd" "$repo/deploy/udev" "$repo/deploy/units.list" "$stage/"
cp "$repo/deploy/modules-load-kiosk-player.conf" "$stage/modules-load.d/kiosk-player.conf"
cp "$repo/deploy/kiosk-automount" "$repo/deploy/kiosk-library-dropin" "$repo/deploy/kiosk-lazytime" "$repo/deploy/kiosk-console" "$repo/deploy/kiosk-power-latch" "$stage/"
cp "$repo"/boards/*.json "$stage/boards/"
cp "$repo"/boards/hats/hats.json "$stage/boards/hats/"
cp "$repo/deploy/config.json" "$stage/config/config.json"
cp "$repo/README.md" "$stage/README.md"
cp -a "$repo/docs" "$stage/docs"
cp "$repo/boards/README.md" "$stage/boards.md"
bash "$here/changelog.sh" "$version" "$suite" >"$stage/debian/changelog"

host_tree=$(bash "$trees/tree.sh" build amd64 "$suite")
buildpackage=(dpkg-buildpackage -b -us -uc --no-sign)
if [ "$arch" != amd64 ]; then
    # A cross dpkg-buildpackage in the amd64 tree (dh under qemu-user takes minutes): dpkg-shlibdeps
    # reads the arm64 libraries' shlibs and symbols from multiarch packages installed there, and
    # dh_strip uses the cross binutils. Nothing is compiled by dh, so the cross gcc is not needed (-d).
    # libc6, and the runtime list (which has libstdc++6 and libgcc-s1) without what is not a library.
    foreign=(libc6)
    for spec in $(bash "$repo/deploy/install-deps.sh" --runtime --list --root "$host_tree"); do
        # FFmpeg is opened with dlopen (not in the binary's NEEDED): control names it, shlibdeps never sees it.
        case "$spec" in fonts-* | alsa-utils | util-linux | libav*) ;; *) foreign+=("$spec") ;; esac
    done
    wanted=(binutils-aarch64-linux-gnu "${foreign[@]/%/:$arch}")
    if ! chroot "$host_tree" dpkg --print-foreign-architectures | grep -qx "$arch"; then
        chroot "$host_tree" dpkg --add-architecture "$arch"
        chroot "$host_tree" apt-get update -q >/dev/null
    fi
    missing=()
    for p in "${wanted[@]}"; do
        chroot "$host_tree" dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        echo "build-deb: installing into the amd64 tree for a cross package: ${missing[*]}"
        bash "$trees/run-in.sh" "$host_tree" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null
    fi
    buildpackage+=(-a "$arch" -d)
fi
start=$(date +%s)
rel=${stage#"$repo"/}
bash "$trees/run-in.sh" "$host_tree" bash -c "cd '/src/$rel' && ${buildpackage[*]}" \
    >"$stage_root/dpkg-buildpackage.log" 2>&1 || {
    tail -n 40 "$stage_root/dpkg-buildpackage.log" >&2
    echo "build-deb: dpkg-buildpackage failed (log: $stage_root/dpkg-buildpackage.log)" >&2
    exit 1
}
echo "build-deb: dpkg-buildpackage took $(($(date +%s) - start)) s"
deb=$out/kiosk-player_${version}_$arch.deb
rm -f "$out"/kiosk-player_*_"$arch".deb  # one package per architecture: the one just made
mv "$stage_root/kiosk-player_${version}_$arch.deb" "$deb"

if [ "$lintian" = 1 ]; then
    rel_deb=${deb#"$repo"/}
    # --fail-on warning: an unexplained warning fails the build; overrides say why each is fine.
    if ! bash "$trees/run-in.sh" "$host_tree" lintian --fail-on error,warning --display-info "/src/$rel_deb"; then
        echo "build-deb: lintian found problems in $deb" >&2
        exit 1
    fi
    echo "build-deb: lintian clean"
fi
echo "build-deb: $(du -k "$deb" | cut -f1) KiB, installed $(dpkg-deb -f "$deb" Installed-Size) KiB"
echo "$deb"
