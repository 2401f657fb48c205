#!/usr/bin/env bash
# Installs the Debian packages that building, testing and running the demo need.
# Idempotent: only packages that are missing are installed. Works as root or through sudo.
#
#   deploy/install-deps.sh                 build + test + demo packages
#   deploy/install-deps.sh --system-test   also what the QEMU system test needs
#   deploy/install-deps.sh --runtime       only what the player needs at run time (on the device)
#   deploy/install-deps.sh --dry-run ...   print what would be installed
set -euo pipefail

build_packages=(
    pkg-config gcc make
    libasound2-dev libflac-dev libgpiod-dev libturbojpeg0-dev libpng-dev libfreetype-dev libsqlite3-dev
    fonts-dejavu-core fonts-vlgothic
    flac alsa-utils gpiod
    mpc
    systemd udev
)
runtime_packages=(
    libasound2 libflac12 libgpiod2 libturbojpeg0 libpng16-16 libfreetype6 libsqlite3-0
    fonts-dejavu-core fonts-vlgothic alsa-utils
)
# The QEMU system test (Tests/System). linux-headers and linux-source are not listed here: they
# must match the installed linux-image exactly and are added below once the image is installed.
system_test_packages=(
    qemu-system-x86 linux-image-amd64 busybox-static cpio kmod
    gcc make bc xz-utils
    dosfstools mtools e2fsprogs fbset
)

want=()
dry_run=0
mode=build
for arg in "$@"; do
    case "$arg" in
        --system-test) mode=system-test ;;
        --runtime) mode=runtime ;;
        --dry-run) dry_run=1 ;;
        -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
        *) echo "install-deps: unknown option '$arg'" >&2; exit 2 ;;
    esac
done
case "$mode" in
    build) want=("${build_packages[@]}") ;;
    runtime) want=("${runtime_packages[@]}") ;;
    system-test) want=("${build_packages[@]}" "${system_test_packages[@]}") ;;
esac

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

# install_missing PACKAGE... : installs those not installed yet ("name=version" pins a version).
install_missing() {
    local missing=() p
    for p in "$@"; do
        if [[ "$p" == *=* ]]; then
            [ "$(dpkg-query -W -f='${Status} ${Version}' "${p%%=*}" 2>/dev/null)" = "install ok installed ${p#*=}" ] \
                || missing+=("$p")
        else
            installed "$p" || missing+=("$p")
        fi
    done
    if [ ${#missing[@]} -eq 0 ]; then
        echo "install-deps: all $# packages for '$mode' are installed"
        return 0
    fi
    echo "install-deps: installing ${#missing[@]} missing package(s): ${missing[*]}"
    if [ "$dry_run" = 1 ]; then
        echo "install-deps: --dry-run, nothing installed"
        return 0
    fi
    local sudo_cmd=()
    if [ "$(id -u)" != 0 ]; then
        if command -v sudo >/dev/null 2>&1; then sudo_cmd=(sudo); else
            echo "install-deps: not root and no sudo; install these packages: ${missing[*]}" >&2
            exit 1
        fi
    fi
    export DEBIAN_FRONTEND=noninteractive
    # A fresh machine may have no package lists yet.
    if ! "${sudo_cmd[@]}" apt-get install -y --no-install-recommends "${missing[@]}"; then
        echo "install-deps: apt-get install failed; updating package lists and retrying"
        "${sudo_cmd[@]}" apt-get update
        "${sudo_cmd[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
    fi
    echo "install-deps: done"
}

install_missing "${want[@]}"

# The system test builds gpio-sim out of tree for the kernel it boots: the one linux-image-amd64
# depends on. Its headers must be that exact version (linux-headers-amd64 may point at a newer
# one), and the source should be the same Debian version when the archive still has it.
if [ "$mode" = system-test ] && [ "$dry_run" = 0 ]; then
    kernel_package=$(dpkg-query -W -f='${Depends}' linux-image-amd64 | sed -E 's/^(linux-image-[^ ,]+).*/\1/')
    kernel_version=${kernel_package#linux-image-}
    package_version=$(dpkg-query -W -f='${Version}' "$kernel_package")
    source_package=linux-source-${kernel_version%%.0-*}
    extra=("linux-headers-$kernel_version")
    if [ "$(apt-cache madison "$source_package" | awk -v v="$package_version" '$3 == v' | wc -l)" -gt 0 ]; then
        extra+=("$source_package=$package_version")
    else
        echo "install-deps: $source_package $package_version is not in the archive; using its newest version"
        extra+=("$source_package")
    fi
    install_missing "${extra[@]}"
fi
