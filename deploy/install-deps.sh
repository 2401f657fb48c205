#!/usr/bin/env bash
# Installs the Debian packages that building, testing and running the demo need.
# Idempotent: only packages that are missing are installed. Works as root or through sudo.
#
#   deploy/install-deps.sh                 build + test + demo packages
#   deploy/install-deps.sh --system-test   also what the QEMU system test needs
#   deploy/install-deps.sh --runtime       only what the player needs at run time (on the device)
#   deploy/install-deps.sh --cross         what the Debian trees need on this machine (make deb, make
#                                          test ARCH=arm64): debootstrap, qemu-user-static, binfmt-support
#   deploy/install-deps.sh --system-test-arm64   those and what `make system-test ARCH=arm64` runs here
#   deploy/install-deps.sh --image         what `make image` and its emulated-Pi boot need here
#   deploy/install-deps.sh --browser-test  Chromium, chromedriver and Selenium (`make browser-test`)
#   deploy/install-deps.sh --dry-run ...   print what would be installed
#   deploy/install-deps.sh --list ...      print the mode's package names for that system, one a line
#   deploy/install-deps.sh --root DIR ...   install into the Debian tree DIR (chroot), e.g. a debootstrap
#
# "a|b" names alternatives across releases: the first one apt knows is used (Debian 13 "trixie" and
# Raspberry Pi OS trixie renamed several libraries: libasound2t64, libflac14, libgpiod3, libpng16-16t64).
set -euo pipefail

build_packages=(
    pkg-config gcc make
    libasound2-dev libflac-dev libgpiod-dev libturbojpeg0-dev libjpeg-dev libpng-dev libfreetype-dev
    libsqlite3-dev
    libmpg123-dev libvorbis-dev libopusfile-dev 'libtag-dev|libtag1-dev' libavformat-dev libavcodec-dev
    libsoxr-dev zlib1g-dev libpcre2-dev libespeak-ng-dev
    # the phone page's HTTP server (kiosk-web)
    libmicrohttpd-dev
    # sd-bus (BlueZ's D-Bus API, Bluetooth headphones); BlueZ, bluez-alsa and btvirt for the system test
    libsystemd-dev bluez bluez-alsa-utils libasound2-plugin-bluez bluez-test-tools
    fonts-dejavu-core fonts-vlgothic
    flac alsa-utils gpiod time
    sox lame mpg123 vorbis-tools opus-tools ffmpeg
    python3-pip
    mpc
    # the real MPD that realMPDAnswersTheSame compares our replies with (run by the test on its own port)
    mpd
    systemd udev
    python3 dosfstools mtools exfatprogs debootstrap
)
runtime_packages=(
    'libasound2t64|libasound2' 'libflac14|libflac12' 'libgpiod3|libgpiod2' libturbojpeg0 libjpeg62-turbo
    'libpng16-16t64|libpng16-16' libfreetype6 libsqlite3-0
    'libmpg123-0t64|libmpg123-0' libvorbisfile3 libopusfile0 'libtag2|libtag1v5' libsoxr0 libpcre2-8-0
    libespeak-ng1 espeak-ng-data 'libmicrohttpd12t64|libmicrohttpd12'
    libsystemd0 bluez bluez-alsa-utils libasound2-plugin-bluez
    'libavformat61|libavformat59' 'libavcodec61|libavcodec59' 'libavutil59|libavutil57'
    fonts-dejavu-core fonts-vlgothic alsa-utils util-linux libstdc++6 libgcc-s1
)
# The phone page's browser test (`make browser-test`, Tests/Web/browser.py): Debian's Chromium driven
# by Selenium through chromedriver.
browser_test_packages=(chromium chromium-driver python3-selenium python3-pil)
# The cached trixie trees of deploy/trees (Debian's swiftlang; arm64 through qemu-user).
cross_packages=(debootstrap qemu-user-static binfmt-support)
# The arm64 system test: the kernel, its modules and the guest's tools come from the arm64 tree.
system_test_arm64_packages=("${cross_packages[@]}" qemu-system-arm cpio kmod xz-utils)
# The SD-card image (deploy/image): mmdebstrap for its root, the file systems made from directories
# (mke2fs -d, mkfs.vfat + mtools), sfdisk for the partition table; its boot on QEMU's raspi3b
# (mmdebstrap's Recommends it uses: arch-test to see that qemu-user runs arm64, gpg for the archive's
# signed-by; fdtput adds the firmware's framebuffer node to the Pi 3 device tree; sox and flac make the USB
# stick's track; python3 talks to QEMU's monitor and reads its screendump; jq runs the settings script's
# test here, deploy/image/test-settings.sh; boot-virt.sh builds pcm-match with gcc and reads gpio-sim's
# vermagic with kmod's modinfo; boot-raspi4.sh makes trixie's QEMU a tree with debootstrap; rauc and
# squashfs-tools sign the update bundle, `make update-bundle`; openssl makes test-update.sh's foreign key).
image_packages=("${cross_packages[@]}" mmdebstrap e2fsprogs dosfstools mtools fdisk xz-utils qemu-system-arm
    device-tree-compiler sox flac python3 arch-test gpg jq gcc kmod debootstrap rauc squashfs-tools openssl)
# The QEMU system test (Tests/System). linux-headers and linux-source are not listed here: they
# must match the installed linux-image exactly and are added below once the image is installed.
system_test_packages=(
    qemu-system-x86 linux-image-amd64 busybox-static cpio kmod
    gcc make bc xz-utils
    dosfstools mtools e2fsprogs fbset
    # scenario 29: a home router (hostapd, busybox's udhcpd) and the box's Wi-Fi (wpa_supplicant, iw)
    hostapd wpasupplicant iw iproute2 curl jq
)

want=()
dry_run=0
list=0
mode=build
root=/
while [ $# -gt 0 ]; do
    case "$1" in
        --system-test) mode=system-test ;;
        --runtime) mode=runtime ;;
        --cross) mode=cross ;;
        --system-test-arm64) mode=system-test-arm64 ;;
        --image) mode=image ;;
        --browser-test) mode=browser-test ;;
        --dry-run) dry_run=1 ;;
        --list) list=1 ;;
        --root) [ $# -ge 2 ] || { echo "install-deps: --root needs a directory" >&2; exit 2; }
            root=$2; shift ;;
        -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
        *) echo "install-deps: unknown option '$1'" >&2; exit 2 ;;
    esac
    shift
done
if [ "$root" != / ] && [ ! -x "$root/usr/bin/apt-get" ]; then
    echo "install-deps: $root is not a Debian tree (no usr/bin/apt-get)" >&2
    exit 1
fi
# in_root CMD...: run CMD on this system, or inside the --root tree.
in_root() { if [ "$root" = / ]; then "$@"; else chroot "$root" "$@"; fi; }
case "$mode" in
    build) want=("${build_packages[@]}") ;;
    runtime) want=("${runtime_packages[@]}") ;;
    cross) want=("${cross_packages[@]}") ;;
    system-test-arm64) want=("${system_test_arm64_packages[@]}") ;;
    image) want=("${image_packages[@]}") ;;
    browser-test) want=("${browser_test_packages[@]}") ;;
    system-test) want=("${build_packages[@]}" "${system_test_packages[@]}") ;;
esac

# What is installed, read with one dpkg-query: in an arm64 tree under qemu-user each call costs most of
# a second, and CI asks for 38 packages twice per run. Refreshed by find_missing, before each install.
installed_now=''
read_installed() { installed_now=$(in_root dpkg-query -W -f='${Package} ${Status}\n' 2>/dev/null); }
installed() { grep -qxF "$1 install ok installed" <<<"$installed_now"; }
# A package apt can install: one with a version (apt-cache show succeeds, printing nothing, for a
# name other packages only refer to, such as libavcodec61 on bookworm).
# grep reads all of it (not -q): an early exit would kill apt-cache with SIGPIPE, a failure under pipefail.
known() { in_root apt-cache show --no-all-versions "$1" 2>/dev/null | grep '^Version:' >/dev/null; }

# Alternatives: an installed one wins, else the first apt knows, else the first (apt-get will say why).
resolve() {
    local alternatives=$1 a
    IFS='|' read -r -a names <<<"$alternatives"
    for a in "${names[@]}"; do if installed "$a"; then echo "$a"; return; fi; done
    for a in "${names[@]}"; do if known "$a"; then echo "$a"; return; fi; done
    echo "${names[0]}"
}
# Looked for as files: `apt-cache show` takes 9 s in an arm64 tree under qemu-user.
has_lists() { compgen -G "${root%/}/var/lib/apt/lists/*_Packages*" >/dev/null; }
if ! has_lists && { [ "$root" != / ] || [ "$(id -u)" = 0 ]; }; then
    # A fresh tree (debootstrap) or machine may have no package lists yet: alternatives need them.
    if [ "$dry_run" = 1 ]; then
        echo "install-deps: no package lists in $root yet; would run apt-get update (--dry-run: names unresolved)"
    else
        echo "install-deps: no package lists in $root yet; apt-get update"
        in_root apt-get update -q
    fi
fi

# find_missing SPEC... : sets `missing` to the packages to install for the SPECs not installed yet
# (SPEC: a name, "a|b" alternatives, resolved against the package lists as they are now, or
# "name=version" for an exact version).
find_missing() {
    local spec p
    missing=()
    read_installed
    for spec in "$@"; do
        if [[ "$spec" == *=* ]]; then
            [ "$(in_root dpkg-query -W -f='${Status} ${Version}' "${spec%%=*}" 2>/dev/null)" = "install ok installed ${spec#*=}" ] ||
                missing+=("$spec")
            continue
        fi
        p=$(resolve "$spec")
        if ! installed "$p"; then
            missing+=("$p")
        fi
    done
}

# install_missing SPEC... : installs those not installed yet (find_missing).
install_missing() {
    local missing=()
    find_missing "$@"

    if [ ${#missing[@]} -eq 0 ]; then
        echo "install-deps: all $# packages for '$mode' are installed"
        return 0
    fi

    echo "install-deps: installing ${#missing[@]} missing package(s)$([ "$root" = / ] || echo " into $root"): ${missing[*]}"
    if [ "$dry_run" = 1 ]; then
        echo "install-deps: --dry-run, nothing installed"
        return 0
    fi

    local sudo_cmd=()
    [ "$root" = / ] || sudo_cmd=(chroot "$root")
    if [ "$(id -u)" != 0 ]; then
        [ "$root" = / ] || { echo "install-deps: --root needs root" >&2; exit 1; }
        if command -v sudo >/dev/null 2>&1; then sudo_cmd=(sudo); else
            echo "install-deps: not root and no sudo; install these packages: ${missing[*]}" >&2
            exit 1
        fi
    fi
    export DEBIAN_FRONTEND=noninteractive
    # A fresh machine may have no package lists yet.
    if ! "${sudo_cmd[@]}" apt-get install -y --no-install-recommends "${missing[@]}"; then
        # Stale lists: update, then choose among alternatives again against the new lists.
        echo "install-deps: apt-get install failed; updating package lists and retrying"
        "${sudo_cmd[@]}" apt-get update
        find_missing "$@"
        "${sudo_cmd[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
    fi
    echo "install-deps: done"
}

if [ "$list" = 1 ]; then
    read_installed
    for spec in "${want[@]}"; do resolve "$spec"; done
    exit 0
fi

install_missing "${want[@]}"

# The system test builds gpio-sim out of tree for the kernel it boots: the one linux-image-amd64
# depends on. Its headers must be that exact version (linux-headers-amd64 may point at a newer
# one), and the source should be the same Debian version when the archive still has it.
if [ "$mode" = system-test ] && [ "$dry_run" = 0 ]; then
    kernel_package=$(in_root dpkg-query -W -f='${Depends}' linux-image-amd64 | sed -E 's/^(linux-image-[^ ,]+).*/\1/')
    kernel_version=${kernel_package#linux-image-}
    package_version=$(in_root dpkg-query -W -f='${Version}' "$kernel_package")
    source_package=linux-source-${kernel_version%%.0-*}
    extra=("linux-headers-$kernel_version")
    if in_root apt-cache madison "$source_package" | awk -v v="$package_version" '$3 == v { found = 1 } END { exit !found }'; then
        extra+=("$source_package=$package_version")
    else
        echo "install-deps: $source_package $package_version is not in the archive; using its newest version"
        extra+=("$source_package")
    fi
    install_missing "${extra[@]}"
fi
