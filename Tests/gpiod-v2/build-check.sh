#!/usr/bin/env bash
# Compiles the libgpiod v2 path of Sources/CKioskShims/kiosk_gpio.c (Raspberry Pi OS trixie ships
# libgpiod 2.x) against real libgpiod v2 sources, links it with them and runs a small check program.
# Builds here use Debian 12's libgpiod 1.6 (the v1 path); this keeps the v2 path compiling.
#
#   Tests/gpiod-v2/build-check.sh [DIR_OR_TARBALL]
#
# GPIOD_V2_KEEP=FILE keeps the check program (e.g. to run it in the VM system test against gpio-sim:
# `check /dev/gpiochipN /sys/devices/platform/gpio-sim.0/gpiochipN/sim_gpio0`); GPIOD_V2_CHIP picks
# the chip the check opens here (default /dev/gpiochip0, skipped when absent).
#
# The sources: a libgpiod v2 tree or tarball given as argument (or $GPIOD_V2_SOURCE), else the
# `gpiod` sdist from PyPI, which vendors libgpiod's lib/ and include/ (pip download, no build).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
work=$(mktemp -d /tmp/gpiod-v2-check.XXXXXX)
trap 'rm -rf "$work"' EXIT

source_arg=${1:-${GPIOD_V2_SOURCE:-}}
if [ -z "$source_arg" ]; then
    pip=()
    if python3 -m pip --version >/dev/null 2>&1; then pip=(python3 -m pip)
    elif command -v pip3 >/dev/null 2>&1; then pip=(pip3)
    else
        echo "gpiod-v2: no pip (python3-pip) to download the gpiod sdist; install it or pass a libgpiod v2 source" >&2
        exit 1
    fi
    echo "gpiod-v2: downloading the gpiod 2.x sdist from PyPI"
    "${pip[@]}" download --quiet --no-binary :all: --no-deps --dest "$work/dl" 'gpiod==2.*'
    source_arg=$(ls "$work"/dl/gpiod-*.tar.gz | head -n 1)
fi
if [ -f "$source_arg" ]; then
    mkdir "$work/src"
    tar -xzf "$source_arg" -C "$work/src"
    top=$(dirname "$(find "$work/src" -path '*/include/gpiod.h' | head -n 1)")/..
else
    top=$source_arg
fi
top=$(cd "$top" && pwd)
[ -f "$top/include/gpiod.h" ] && [ -f "$top/lib/line-request.c" ] || {
    echo "gpiod-v2: $top has no include/gpiod.h and lib/*.c of libgpiod v2" >&2
    exit 1
}
version=$(cat "$top/libgpiod-version.txt" 2>/dev/null || echo "2.x")
echo "gpiod-v2: libgpiod $version sources in $top"
if grep -q GPIOD_LINE_BULK_MAX_LINES "$top/include/gpiod.h"; then
    echo "gpiod-v2: $top/include/gpiod.h is the v1 API" >&2
    exit 1
fi

cc=${CC:-cc}
flags=(-std=gnu11 -O1 -Wall -Wextra -Werror -D_GNU_SOURCE "-DGPIOD_API_VERSION_STR=\"$version\"")
objects=()
for c in "$top"/lib/*.c; do
    o="$work/$(basename "$c" .c).o"
    # libgpiod's own code is built as upstream builds it (its warnings are not ours).
    "$cc" -std=gnu11 -O1 -D_GNU_SOURCE "-DGPIOD_API_VERSION_STR=\"$version\"" -I"$top/include" -I"$top/lib" \
        -c "$c" -o "$o"
    objects+=("$o")
done
"$cc" "${flags[@]}" -I"$top/include" -I"$repo/Sources/CKioskShims/include" \
    -c "$repo/Sources/CKioskShims/kiosk_gpio.c" -o "$work/kiosk_gpio.o"
"$cc" "${flags[@]}" -I"$repo/Sources/CKioskShims/include" -c "$here/check.c" -o "$work/check.o"
"$cc" -o "$work/check" "$work/check.o" "$work/kiosk_gpio.o" "${objects[@]}"
echo "gpiod-v2: kiosk_gpio.c compiled and linked against libgpiod $version; running the check"
[ -n "${GPIOD_V2_KEEP:-}" ] && cp "$work/check" "$GPIOD_V2_KEEP"
"$work/check" "${GPIOD_V2_CHIP:-/dev/gpiochip0}"
