#!/usr/bin/env bash
# Compiles the C parts of the package for aarch64 (the Raspberry Pi's 64-bit OS) with Debian's cross
# compiler: every Sources/CKioskShims/*.c to an object (-Wall -Wextra -Werror), which also checks
# its _Static_asserts (the spidev transfer layout) on that ABI, and every systemLibrary shim.h
# (ALSA, libFLAC, libgpiod, libjpeg-turbo, libpng, FreeType, SQLite headers), with bookworm's cross
# gcc. The whole package (Swift included) is compiled for aarch64 by Debian trixie's swiftlang in
# deploy/trees (make test ARCH=arm64, make deb ARCH=arm64).
#
#   Tests/cross/shims-aarch64.sh        installs gcc-aarch64-linux-gnu when missing (apt-get, root)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cc=aarch64-linux-gnu-gcc
if ! command -v "$cc" >/dev/null; then
    if [ "$(id -u)" = 0 ]; then
        echo "cross-aarch64: installing gcc-aarch64-linux-gnu"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q gcc-aarch64-linux-gnu >/dev/null
    else
        echo "cross-aarch64: $cc missing (apt-get install gcc-aarch64-linux-gnu)" >&2
        exit 1
    fi
fi
work=$(mktemp -d /tmp/cross-aarch64.XXXXXX)
trap 'rm -rf "$work"' EXIT
# The libraries' headers are architecture-independent in Debian; the cross sysroot's own glibc and
# kernel headers come first, /usr/include only after them.
includes=(-I"$repo/Sources/CKioskShims/include")
for pc in alsa flac libgpiod libturbojpeg libjpeg libpng freetype2 sqlite3 vorbisfile opusfile taglib; do
    # shellcheck disable=SC2207
    includes+=($(pkg-config --cflags-only-I "$pc"))
done
includes+=(-idirafter /usr/include)
harness_name=cross-aarch64
# shellcheck source=../../deploy/tests/harness.sh
source "$repo/deploy/tests/harness.sh"
echo "cross-aarch64: $($cc --version | head -n 1)"
for f in "$repo"/Sources/CKioskShims/*.c; do
    # jpeglib.h includes jconfig.h, which Debian installs under the architecture's include
    # directory (multiarch), as mpg123.h below: compiled in the arm64 tree.
    if [ "$(basename "$f")" = kiosk_jpeg.c ]; then
        skip "CKioskShims/kiosk_jpeg.c" "multiarch jconfig.h; compiled in the arm64 tree"
        continue
    fi
    check "CKioskShims/$(basename "$f")" "$cc" -std=gnu11 -O2 -Wall -Wextra -Werror "${includes[@]}" \
        -c "$f" -o "$work/$(basename "$f" .c).o"
done
for shim in "$repo"/Sources/C*/shim.h; do
    name=$(basename "$(dirname "$shim")")
    # Debian installs mpg123.h under the architecture's include directory (multiarch): the host has
    # only x86_64's. It is compiled for aarch64 with the whole package in the trees (make test ARCH=arm64).
    if [ "$name" = CMPG123 ] || [ "$name" = CJPEGLib ]; then
        skip "$name/shim.h" "multiarch header; compiled in the arm64 tree"
        continue
    fi
    printf '#include "%s"\n' "$shim" >"$work/$name.c"
    check "$name/shim.h" "$cc" -std=gnu11 -fsyntax-only -Wall -Werror "${includes[@]}" "$work/$name.c"
done
if [ "$passed" -gt 0 ]; then
    file "$work"/kiosk_spi.o | grep -q 'ARM aarch64' && echo "  (objects are ELF aarch64)"
fi
harness_end
