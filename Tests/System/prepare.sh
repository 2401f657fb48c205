#!/usr/bin/env bash
# Host side of the system test: builds what the QEMU guest needs, cached per kernel version.
#   Tests/System/prepare.sh            print KEY=VALUE lines describing the artefacts (run.sh reads them)
# Environment: SYSTEST_KERNEL (e.g. 6.1.0-57-amd64; default: the one linux-image-amd64 depends on,
# else the newest /boot/vmlinuz-*), SYSTEST_CACHE (default /var/cache/kiosk-systest when writable,
# else .build/systest/cache). Every piece that cannot be built is reported as MISSING_<piece>=reason
# and the rest still builds: the guest then skips the checks that need it.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

log() { echo "prepare: $*" >&2; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# --- which kernel -----------------------------------------------------------------------------
kernel=${SYSTEST_KERNEL:-}
if [ -z "$kernel" ] && dpkg-query -W -f='${Status}' linux-image-amd64 2>/dev/null | grep -q 'ok installed'; then
    kernel=$(dpkg-query -W -f='${Depends}' linux-image-amd64 | sed -E 's/^linux-image-([^ ,]+).*/\1/')
fi
if [ -z "$kernel" ]; then
    newest=$(ls -1 /boot/vmlinuz-* 2>/dev/null | sort -V | tail -n 1)
    kernel=${newest#/boot/vmlinuz-}
fi
if [ -z "$kernel" ] || [ ! -f "/boot/vmlinuz-$kernel" ] || [ ! -d "/lib/modules/$kernel" ]; then
    echo "MISSING_kernel=no Debian kernel image (/boot/vmlinuz-* with /lib/modules/*): install linux-image-amd64 (deploy/install-deps.sh --system-test)"
    exit 0
fi
echo "KERNEL=$kernel"

if [ -n "${SYSTEST_CACHE:-}" ]; then cache_root=$SYSTEST_CACHE
elif mkdir -p /var/cache/kiosk-systest 2>/dev/null && [ -w /var/cache/kiosk-systest ]; then cache_root=/var/cache/kiosk-systest
else cache_root=$repo/.build/systest/cache; fi
cache=$cache_root/$kernel
mkdir -p "$cache"
echo "CACHE=$cache"

# stamp_ok NAME INPUT... : true when $cache/NAME exists and was built from these exact inputs
# (files by content; other words as they are, e.g. "recipe=2": bump it when a recipe changes).
inputs_hash() { local i; for i in "$@"; do if [ -f "$i" ]; then cat "$i"; else echo "$i"; fi; done | sha256sum | cut -c1-16; }
stamp_ok() { local name=$1; shift; [ -e "$cache/$name" ] && [ "$(cat "$cache/$name.stamp" 2>/dev/null)" = "$(inputs_hash "$@")" ]; }
stamp_write() { local name=$1; shift; inputs_hash "$@" > "$cache/$name.stamp"; }

# --- vmlinux: the uncompressed kernel, booted through QEMU's PVH entry (no firmware, no decompression)
vmlinux_inputs=("/boot/vmlinuz-$kernel" "recipe=1")
if stamp_ok vmlinux "${vmlinux_inputs[@]}"; then
    echo "VMLINUX=$cache/vmlinux"
else
    t=$(now)
    rm -f "$cache/vmlinux"
    # The bzImage holds the compressed ELF after the setup code; try each compression magic.
    for spec in 'FD377A585A00:xz -dc' '1F8B08:gzip -dc' '28B52FFD:zstd -dc' '5D0000:lzma -dc'; do
        magic=${spec%%:*}; tool=${spec#*:}
        command -v "${tool%% *}" >/dev/null || continue
        pattern=$(echo "$magic" | sed 's/../\\x&/g')
        for offset in $(LC_ALL=C grep -obUaP "$pattern" "/boot/vmlinuz-$kernel" | cut -d: -f1 | head -n 5); do
            tail -c +$((offset + 1)) "/boot/vmlinuz-$kernel" | $tool > "$cache/vmlinux.tmp" 2>/dev/null
            if [ "$(head -c 4 "$cache/vmlinux.tmp" | od -An -tx1 | tr -d ' ')" = 7f454c46 ]; then
                mv "$cache/vmlinux.tmp" "$cache/vmlinux"; break 2
            fi
        done
    done
    rm -f "$cache/vmlinux.tmp"
    if [ -f "$cache/vmlinux" ]; then
        stamp_write vmlinux "${vmlinux_inputs[@]}"
        log "extracted vmlinux in $(elapsed "$t") s"
        echo "VMLINUX=$cache/vmlinux"
        echo "BUILT_vmlinux=$(elapsed "$t")"
    else
        log "could not extract vmlinux from /boot/vmlinuz-$kernel; booting the bzImage (slower)"
    fi
fi
echo "BZIMAGE=/boot/vmlinuz-$kernel"

# --- initramfs: busybox + the modules that mount the host root (9p over virtio-pci, overlayfs)
initramfs_inputs=("$here/initramfs-init" "recipe=2" "/lib/modules/$kernel/modules.dep")
# required to mount the host root; then the test drivers, loaded from RAM before the switch (under
# TCG every process started from the 9p root costs 0.1–0.5 s, so one modprobe each would add up)
initramfs_modules=(virtio_pci 9pnet_virtio 9p overlay)
early_modules=(configfs snd-aloop uinput evdev loop vfat nls_cp437 nls_iso8859-1 ext4)
busybox=$(command -v busybox || true)
if [ -z "$busybox" ] || ldd "$busybox" >/dev/null 2>&1; then
    echo "MISSING_initramfs=no static busybox (package busybox-static)"
elif stamp_ok initramfs.cpio.gz "${initramfs_inputs[@]}" "$busybox"; then
    echo "INITRAMFS=$cache/initramfs.cpio.gz"
else
    t=$(now)
    work=$(mktemp -d)
    mkdir -p "$work"/{bin,dev,proc,sys,lib/modules,lower,upper,newroot}
    cp "$busybox" "$work/bin/busybox"
    ln -s busybox "$work/bin/sh"
    cp "$here/initramfs-init" "$work/init"
    chmod 755 "$work/init"
    : > "$work/modules.order"
    ok=1
    for module in "${initramfs_modules[@]}" "${early_modules[@]}"; do
        if ! deps=$(modprobe -S "$kernel" --show-depends "$module" 2>&1); then
            if [[ " ${initramfs_modules[*]} " == *" $module "* ]]; then
                echo "MISSING_initramfs=module $module not found for $kernel: $deps"; ok=0; break
            fi
            echo "MISSING_module_${module//-/_}=not found for $kernel: $deps"
            continue
        fi
        while read -r verb path _; do
            [ "$verb" = insmod ] || continue
            name=$(basename "$path"); name=${name%.xz}; name=${name%.zst}; name=${name%.gz}
            grep -qx "$name" "$work/modules.order" && continue
            case "$path" in
                *.xz) xz -dc "$path" > "$work/lib/modules/$name" ;;
                *.zst) zstd -qdc "$path" > "$work/lib/modules/$name" ;;
                *.gz) gzip -dc "$path" > "$work/lib/modules/$name" ;;
                *) cp "$path" "$work/lib/modules/$name" ;;
            esac
            echo "$name" >> "$work/modules.order"
        done <<< "$deps"
    done
    if [ "$ok" = 1 ]; then
        (cd "$work" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 > "$cache/initramfs.cpio.gz"
        stamp_write initramfs.cpio.gz "${initramfs_inputs[@]}" "$busybox"
        log "built initramfs ($(wc -l < "$work/modules.order") modules) in $(elapsed "$t") s"
        echo "INITRAMFS=$cache/initramfs.cpio.gz"
        echo "BUILT_initramfs=$(elapsed "$t")"
    fi
    rm -rf "$work"
fi

# --- out-of-tree modules from Debian's kernel source: gpio-sim (+ irq_sim), vfb with real-panel layouts
source_tarball=$(ls -1 /usr/src/linux-source-"${kernel%%.0-*}".tar.* 2>/dev/null | head -n 1)
headers=/lib/modules/$kernel/build
module_inputs=("recipe=1" "$here/kmod/Kbuild" "$headers/Module.symvers")
if [ -z "$source_tarball" ]; then
    echo "MISSING_gpio_sim=no kernel source /usr/src/linux-source-${kernel%%.0-*}.tar.xz (package linux-source-${kernel%%.0-*})"
    echo "MISSING_vfb_rgb=no kernel source (package linux-source-${kernel%%.0-*})"
elif [ ! -f "$headers/Makefile" ]; then
    echo "MISSING_gpio_sim=no kernel headers at $headers (package linux-headers-$kernel)"
    echo "MISSING_vfb_rgb=no kernel headers at $headers (package linux-headers-$kernel)"
elif stamp_ok gpio-sim.ko "${module_inputs[@]}" "$source_tarball" && [ -f "$cache/vfb-rgb.ko" ]; then
    echo "GPIO_SIM_KO=$cache/gpio-sim.ko"
    echo "VFB_RGB_KO=$cache/vfb-rgb.ko"
else
    t=$(now)
    work=$cache/kmod-build
    rm -rf "$work"; mkdir -p "$work"
    top=$(tar -tf "$source_tarball" 2>/dev/null | head -n 1 | cut -d/ -f1)
    log "extracting gpio-sim, irq_sim and vfb from $source_tarball"
    tar -xf "$source_tarball" -C "$work" --strip-components=1 \
        "$top/drivers/gpio/gpio-sim.c" "$top/drivers/gpio/gpiolib.h" \
        "$top/kernel/irq/irq_sim.c" "$top/drivers/video/fbdev/vfb.c" 2> "$work/tar.log"
    cp "$here/kmod/Kbuild" "$work/Kbuild"
    if [ -f "$work/drivers/gpio/gpio-sim.c" ]; then
        cp "$work/drivers/gpio/gpio-sim.c" "$work/gpio-sim-main.c"
        cp "$work/drivers/gpio/gpiolib.h" "$work/gpiolib.h"
        # irq_to_desc() is not exported to modules; generic_handle_irq() does the same lookup.
        sed 's/handle_simple_irq(irq_to_desc(\(.*\)));/generic_handle_irq(\1);/' \
            "$work/kernel/irq/irq_sim.c" > "$work/irq_sim.c"
        grep -q 'generic_handle_irq(irqnum)' "$work/irq_sim.c" || log "irq_sim.c: the irq_to_desc change did not apply"
    fi
    if [ -f "$work/drivers/video/fbdev/vfb.c" ]; then
        # Stock vfb puts red in the low bits (16 bpp: BGR565, 32 bpp: ABGR8888). Real panels and
        # vc4's fbdev are RGB565 (red at bit 11) and XRGB8888 (red at bit 16): use those layouts.
        sed -e '/RGB 565 \*\//,/blue.offset/ { s/red.offset = 0;/red.offset = 11;/; s/blue.offset = 11;/blue.offset = 0;/ }' \
            -e '/RGBA 8888 \*\//,/transp.length/ { s/red.offset = 0;/red.offset = 16;/; s/blue.offset = 16;/blue.offset = 0;/; s/transp.offset = 24;/transp.offset = 0;/; s/transp.length = 8;/transp.length = 0;/ }' \
            "$work/drivers/video/fbdev/vfb.c" > "$work/vfb-rgb.c"
        [ "$(grep -c 'red.offset = 11;\|red.offset = 16;' "$work/vfb-rgb.c")" = 2 ] || log "vfb.c: the layout change did not apply"
    fi
    make -C "$headers" M="$work" modules > "$work/build.log" 2>&1
    for module in gpio-sim vfb-rgb; do
        key=MISSING_${module//-/_}
        if [ -f "$work/$module.ko" ]; then
            cp "$work/$module.ko" "$cache/$module.ko"
            var=$(echo "${module//-/_}" | tr a-z A-Z)_KO
            echo "$var=$cache/$module.ko"
        else
            reason=$(grep -m 3 -E 'error|No such file|Cannot' "$work/build.log" "$work/tar.log" | tr '\n' ' ')
            echo "$key=out-of-tree build of $module.ko failed: ${reason:-see $work/build.log}"
        fi
    done
    if [ -f "$cache/gpio-sim.ko" ] && [ -f "$cache/vfb-rgb.ko" ]; then
        stamp_write gpio-sim.ko "${module_inputs[@]}" "$source_tarball"
        log "built gpio-sim.ko and vfb-rgb.ko in $(elapsed "$t") s"
        echo "BUILT_modules=$(elapsed "$t")"
        rm -rf "$work"
    fi
fi

# --- spi-record.ko (Tests/SPISystem/kmod: a virtual SPI controller with spidev bound) for 92-spi-panel-spidev
t=$(now)
if ko=$(SPI_RECORD_CACHE=$cache/spi-record bash "$repo/Tests/SPISystem/build-kmod.sh" "$kernel" 2> "$cache/spi-record.log"); then
    echo "SPI_RECORD_KO=$ko"
    [ "$(elapsed "$t" | cut -d. -f1)" -ge 1 ] && echo "BUILT_spi_record=$(elapsed "$t")"
else
    echo "MISSING_spi_record=$(head -c 300 "$cache/spi-record.log" | tr '\n' ' ')"
fi

# --- the libgpiod v2 check program (Tests/gpiod-v2: kiosk_gpio.c linked with libgpiod 2 sources,
# downloaded by pip) for 91-gpiod-v2, run against gpio-sim in the guest
gpiod_inputs=("$repo/Tests/gpiod-v2/build-check.sh" "$repo/Tests/gpiod-v2/check.c" \
    "$repo/Sources/CKioskShims/kiosk_gpio.c" "$repo/Sources/CKioskShims/include/kiosk_gpio.h")
if stamp_ok gpiod-v2-check "${gpiod_inputs[@]}"; then
    echo "GPIOD_V2_CHECK=$cache/gpiod-v2-check"
else
    t=$(now)
    rm -f "$cache/gpiod-v2-check"
    if GPIOD_V2_KEEP=$cache/gpiod-v2-check GPIOD_V2_CHIP=/nonexistent bash "$repo/Tests/gpiod-v2/build-check.sh" \
        > "$cache/gpiod-v2-check.log" 2>&1 && [ -x "$cache/gpiod-v2-check" ]; then
        stamp_write gpiod-v2-check "${gpiod_inputs[@]}"
        echo "GPIOD_V2_CHECK=$cache/gpiod-v2-check"
        echo "BUILT_gpiod_v2_check=$(elapsed "$t")"
    else
        echo "MISSING_gpiod_v2_check=Tests/gpiod-v2/build-check.sh failed: $(tail -n 3 "$cache/gpiod-v2-check.log" | tr '\n' ' ')"
    fi
fi

# --- guest helper tools (C, no packages beyond gcc and libpng-dev)
tools_dir=$cache/tools
mkdir -p "$tools_dir"
t=$(now); built=0
shopt -s nullglob
for src in "$here"/tools/*.c; do
    name=$(basename "$src" .c)
    if stamp_ok "tools/$name" "$src" "$here/tools/common.h"; then continue; fi
    libs=(-lm); grep -q '<png.h>' "$src" && libs+=(-lpng); grep -q '<alsa/asoundlib.h>' "$src" && libs+=(-lasound -lpthread)
    if gcc -O2 -Wall -Wextra -Werror -o "$tools_dir/$name" "$src" "${libs[@]}" 2> "$tools_dir/$name.log"; then
        stamp_write "tools/$name" "$src" "$here/tools/common.h"; built=1
    else
        echo "MISSING_tool_${name//-/_}=gcc failed: $(head -c 300 "$tools_dir/$name.log" | tr '\n' ' ')"
    fi
done
[ "$built" = 1 ] && echo "BUILT_tools=$(elapsed "$t")"
echo "TOOLS=$tools_dir"

# --- media for the player scenarios (fixtures.sh), built here at native speed, cached
fixture_key=$(inputs_hash "$here/fixtures.sh" "$here/media.sh" "$here/tools/pcm-match.c" "$here/tools/fbtool.c" "$here/tools/common.h" \
    "testbench=${SYSTEST_TESTBENCH:-}")
fixtures=$cache_root/fixtures/$fixture_key
if [ -f "$fixtures/complete" ]; then
    echo "FIXTURES=$fixtures"
else
    t=$(now)
    mkdir -p "$fixtures"
    if PATH=$tools_dir:$PATH bash "$here/fixtures.sh" "$fixtures" "${SYSTEST_TESTBENCH:-}" 2> "$fixtures/errors.log"; then
        touch "$fixtures/complete"
        echo "BUILT_fixtures=$(elapsed "$t")"
    else
        echo "MISSING_fixtures=$(tr '\n' ' ' < "$fixtures/errors.log")"
    fi
    echo "FIXTURES=$fixtures"
    # older generations of the fixtures are of no use
    for old in "$cache_root"/fixtures/*; do [ "$old" = "$fixtures" ] || rm -rf "$old"; done
fi
