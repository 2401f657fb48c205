#!/usr/bin/env bash
# Builds Tests/SPISystem/kmod/spi-record.ko (a virtual SPI controller with spidev bound) against
# the headers of a kernel, cached by the source's hash. Prints the .ko path; exit 1 with the
# reason when it cannot be built (no headers: package linux-headers-<kernel>).
#   Tests/SPISystem/build-kmod.sh [KERNEL]     (default: SYSTEST_KERNEL, else the running kernel)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kernel=${1:-${SYSTEST_KERNEL:-$(uname -r)}}
headers=/lib/modules/$kernel/build
[ -f "$headers/Makefile" ] || { echo "build-kmod: no kernel headers at $headers (package linux-headers-$kernel)" >&2; exit 1; }
# Stable kernels got device_set_driver_override() (the override moved from spi_device into struct
# device) in different point releases, so the headers are asked rather than the version number.
flags=
for h in "$headers/include/linux/device.h" /usr/src/linux-headers-"${kernel%-*}"-common/include/linux/device.h; do
    if grep -qs 'device_set_driver_override' "$h"; then flags=-DKIOSK_DEVICE_DRIVER_OVERRIDE; break; fi
done
hash=$( (echo "$flags"; cat "$here/kmod/spi-record.c" "$here/kmod/Kbuild" "$headers/Module.symvers" 2>/dev/null) | sha256sum | cut -c1-16)
repo=$(cd "$here/../.." && pwd)
out=${SPI_RECORD_CACHE:-$repo/.build/spi-record}/$kernel-$hash
if [ ! -f "$out/spi-record.ko" ]; then
    mkdir -p "$out"
    cp "$here/kmod/spi-record.c" "$here/kmod/Kbuild" "$out/"
    if ! make -C "$headers" M="$out" KCFLAGS="$flags" modules > "$out/build.log" 2>&1; then
        echo "build-kmod: the build failed:" >&2
        grep -m 5 -E 'error|warning' "$out/build.log" >&2 || tail -n 5 "$out/build.log" >&2
        exit 1
    fi
fi
echo "$out/spi-record.ko"
