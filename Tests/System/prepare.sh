#!/usr/bin/env bash
# Host side of the system test: builds what the QEMU guest needs, cached per kernel version.
#   Tests/System/prepare.sh            print KEY=VALUE lines describing the artefacts (run.sh reads them)
#   SYSTEST_ARCH=arm64 Tests/System/prepare.sh --kernel-only    only the arm64 kernel (KERNEL_ROOT, IMAGE)
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

# SYSTEST_ARCH=arm64: the guest is Debian trixie arm64 (kernel linux-image-arm64, root the cached arm64
# build tree of deploy/trees, through target-root.sh); what runs in the guest is built in that tree
# (emulated through binfmt) and cached under $SYSTEST_CACHE/<kernel>. Empty: the host's own kernel and root.
arch=${SYSTEST_ARCH:-}
case "$arch" in
    '') ;;
    arm64) ;;
    *) echo "MISSING_kernel=SYSTEST_ARCH=$arch is not supported (empty for this machine, or arm64)"; exit 0 ;;
esac

if [ -n "${SYSTEST_CACHE:-}" ]; then cache_root=$SYSTEST_CACHE
elif mkdir -p /var/cache/kiosk-systest 2>/dev/null && [ -w /var/cache/kiosk-systest ]; then cache_root=/var/cache/kiosk-systest
else cache_root=$repo/.build/systest/cache; fi

# stamp_ok NAME INPUT... : true when $cache/NAME exists and was built from these exact inputs
# (files by content; other words as they are, e.g. "recipe=2": bump it when a recipe changes).
inputs_hash() { local i; for i in "$@"; do if [ -f "$i" ]; then cat "$i"; else echo "$i"; fi; done | sha256sum | cut -c1-16; }
stamp_ok() { local name=$1; shift; [ -e "$cache/$name" ] && [ "$(cat "$cache/$name.stamp" 2>/dev/null)" = "$(inputs_hash "$@")" ]; }
stamp_write() { local name=$1; shift; inputs_hash "$@" > "$cache/$name.stamp"; }

# in_target CMD... : runs CMD where the guest's programs are built: here (x86), or chrooted in the
# arm64 guest root (target-root.sh) with the repository and the cache at their own paths.
in_target() {
    if [ -z "$arch" ]; then "$@"; return; fi
    SYSTEST_ROOT_BINDS="$repo $cache_root" bash "$here/target-root.sh" --chroot /tmp/kiosk-systest-root \
        "$cache/root" "$tree" -- "$@"
}
modprobe_root=()

if [ "$arch" = arm64 ]; then
    # --- arm64: Debian's arm64 kernel, extracted (with its headers, kbuild, source and an arm64
    # static busybox) into $cache/root, which target-root.sh lays over the arm64 build tree
    if ! tree=$(bash "$repo/deploy/trees/tree.sh" build arm64 2> "$cache_root/tree-arm64.log"); then
        echo "MISSING_kernel=no arm64 build tree (deploy/trees/tree.sh build arm64): $(tail -n 3 "$cache_root/tree-arm64.log" | tr '\n' ' ')"
        exit 0
    fi
    echo "TREE=$tree"
    kernel=${SYSTEST_KERNEL:-}
    if [ -z "$kernel" ]; then
        # the version linux-image-arm64 depends on, from the tree's package lists (no emulated apt)
        kernel=$(cat "$tree"/var/lib/apt/lists/*_binary-arm64_Packages 2>/dev/null |
            awk '/^Package: / { p = $2 } p == "linux-image-arm64" && /^Depends: / { sub(/^Depends: linux-image-/, ""); sub(/[ ,].*/, ""); print; exit }')
    fi
    [ -n "$kernel" ] || { echo "MISSING_kernel=cannot tell the version of linux-image-arm64 from $tree's package lists"; exit 0; }
    cache=$cache_root/$kernel
    mkdir -p "$cache"
    base=${kernel%-arm64}                                # 6.12.117+deb13
    source_version=$(echo "$kernel" | cut -d. -f1,2)      # 6.12
    debs=("linux-image-$kernel" "linux-headers-$kernel" "linux-headers-$base-common" "linux-kbuild-$base"
        "linux-source-$source_version" busybox-static)
    # download PACKAGE... : apt-get download into $cache/debs, in the tree (its keys); the lists are
    # refreshed only when they are stale. Sources: trixie with -updates and -security, in $cache/apt
    # (the tree lists trixie only, and the SD-card image's kernel, SYSTEST_KERNEL for
    # deploy/image/boot-virt.sh, can come from a point or security update; the tree is never written).
    mkdir -p "$cache/apt/lists/partial"
    printf 'deb %s trixie main\ndeb %s trixie-updates main\ndeb %s trixie-security main\n' \
        "${DEBIAN_MIRROR:-http://deb.debian.org/debian}" "${DEBIAN_MIRROR:-http://deb.debian.org/debian}" \
        "${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}" >"$cache/apt/sources.list"
    apt_options="-o Dir::Etc::SourceList=$cache/apt/sources.list -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists=$cache/apt/lists -o Acquire::Check-Valid-Until=false"
    download() {
        in_target sh -c "cd '$cache/debs' && apt-get $apt_options download -q $*" ||
            { in_target sh -c "apt-get $apt_options update -q" && in_target sh -c "cd '$cache/debs' && apt-get $apt_options download -q $*"; }
    }
    if ! stamp_ok root "recipe=1" "${debs[@]}" || [ ! -f "$cache/root/boot/vmlinuz-$kernel" ]; then
        t=$(now)
        log "downloading and extracting ${debs[*]} (arm64, once per kernel version)"
        rm -rf "$cache/root" "$cache/debs"
        mkdir -p "$cache/debs" "$cache/root"
        if download "${debs[@]}" > "$cache/download.log" 2>&1; then
            for deb in "$cache"/debs/*.deb; do dpkg-deb -x "$deb" "$cache/root"; done
            ln -sfn usr/lib "$cache/root/lib"
            ln -sfn usr/bin "$cache/root/bin"
            depmod -b "$cache/root" "$kernel"
            rm -rf "$cache/debs"
        fi
        if [ -f "$cache/root/boot/vmlinuz-$kernel" ] && [ -f "$cache/root/lib/modules/$kernel/modules.dep" ]; then
            stamp_write root "recipe=1" "${debs[@]}"
            log "arm64 kernel $kernel extracted in $(elapsed "$t") s"
            echo "BUILT_kernel_arm64=$(elapsed "$t")"
        else
            echo "MISSING_kernel=downloading/extracting the arm64 kernel $kernel failed: $(grep -m 3 -E '^E:|rror' "$cache/download.log" | tr '\n' ' ')"
            exit 0
        fi
    fi
    # Laid over the tree the same way, with what they need that the tree lacks (apt resolves it):
    # pahole (BTF of the out-of-tree modules: the headers carry vmlinux, so kbuild runs it) and the
    # guest's programs of deploy/install-deps.sh --system-test that the build tree does not have
    # (fbset for 04, mkfs.ext4 for 05).
    tool_debs=(pahole fbset e2fsprogs)
    if ! stamp_ok root-tools "recipe=2" "${tool_debs[@]}" || [ ! -x "$cache/root/usr/bin/pahole" ]; then
        rm -rf "$cache/debs"; mkdir -p "$cache/debs/partial"
        if in_target apt-get install -y -q --download-only -o Dir::Cache::archives="$cache/debs" \
            -o Debug::NoLocking=1 "${tool_debs[@]}" > "$cache/download-tools.log" 2>&1; then
            for deb in "$cache"/debs/*.deb; do dpkg-deb -x "$deb" "$cache/root"; done
            # the record stamp_ok looks for (without it every run downloaded them again, 14 s)
            printf '%s\n' "${tool_debs[@]}" > "$cache/root-tools"
            stamp_write root-tools "recipe=2" "${tool_debs[@]}"
        else
            log "could not download ${tool_debs[*]}: $(grep -m 2 '^E:' "$cache/download-tools.log" | tr '\n' ' ')"
        fi
        rm -rf "$cache/debs"
    fi
    echo "KERNEL=$kernel"
    echo "CACHE=$cache"
    # an uncompressed arm64 Image: QEMU loads it directly
    echo "IMAGE=$cache/root/boot/vmlinuz-$kernel"
    modprobe_root=(-d "$cache/root")
    modules_dir=$cache/root/lib/modules/$kernel
    busybox=$cache/root/usr/bin/busybox
    source_tarball=$cache/root/usr/src/linux-source-$source_version.tar.xz
    headers=$modules_dir/build
    headers_in_target=/lib/modules/$kernel/build
    # deploy/tests/boot-time-qemu.sh --arch arm64 needs only the kernel
    [ "${1:-}" = --kernel-only ] && { echo "KERNEL_ROOT=$cache/root"; exit 0; }
fi

# --- which kernel -----------------------------------------------------------------------------
if [ -z "$arch" ]; then
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

cache=$cache_root/$kernel
mkdir -p "$cache"
echo "CACHE=$cache"

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
modules_dir=/lib/modules/$kernel
busybox=$(command -v busybox || true)
fi  # x86 kernel

# --- initramfs: busybox + the modules that mount the host root (9p over virtio-pci, overlayfs)
initramfs_inputs=("$here/initramfs-init" "recipe=2" "$modules_dir/modules.dep")
# required to mount the host root; then the test drivers, loaded from RAM before the switch (under
# TCG every process started from the 9p root costs 0.1–0.5 s, so one modprobe each would add up)
initramfs_modules=(virtio_pci 9pnet_virtio 9p overlay)
early_modules=(configfs snd-aloop uinput evdev loop vfat nls_cp437 nls_iso8859-1 ext4)
if [ -z "$busybox" ] || { [ -z "$arch" ] && ldd "$busybox" >/dev/null 2>&1; }; then
    echo "MISSING_initramfs=no static busybox (package busybox-static)"
elif ! command -v cpio > /dev/null; then
    echo "MISSING_initramfs=no cpio (package cpio)"
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
        if ! deps=$(modprobe "${modprobe_root[@]}" -S "$kernel" --show-depends "$module" 2>&1); then
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
if [ -z "$arch" ]; then
    source_tarball=$(ls -1 /usr/src/linux-source-"${kernel%%.0-*}".tar.* 2>/dev/null | head -n 1)
    headers=/lib/modules/$kernel/build
    headers_in_target=$headers
fi
module_inputs=("recipe=1" "$here/kmod/Kbuild" "$headers/Module.symvers")
# Debian's arm64 kernel has no vfb at all: the stock one is built here too (04-smoke-framebuffer
# checks both layouts)
stock_vfb=0
if [ -n "$arch" ] && ! grep -q '/vfb\.ko' "$modules_dir/modules.dep" 2>/dev/null; then
    stock_vfb=1
    module_inputs+=("stock-vfb")
fi
if [ -z "$source_tarball" ]; then
    echo "MISSING_gpio_sim=no kernel source /usr/src/linux-source-${kernel%%.0-*}.tar.xz (package linux-source-${kernel%%.0-*})"
    echo "MISSING_vfb_rgb=no kernel source (package linux-source-${kernel%%.0-*})"
elif [ ! -f "$headers/Makefile" ]; then
    echo "MISSING_gpio_sim=no kernel headers at $headers (package linux-headers-$kernel)"
    echo "MISSING_vfb_rgb=no kernel headers at $headers (package linux-headers-$kernel)"
elif stamp_ok gpio-sim.ko "${module_inputs[@]}" "$source_tarball" && [ -f "$cache/vfb-rgb.ko" ] &&
    { [ "$stock_vfb" = 0 ] || [ -f "$cache/vfb.ko" ]; }; then
    echo "GPIO_SIM_KO=$cache/gpio-sim.ko"
    echo "VFB_RGB_KO=$cache/vfb-rgb.ko"
    [ "$stock_vfb" = 1 ] && echo "VFB_KO=$cache/vfb.ko"
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
    built_modules=(gpio-sim vfb-rgb)
    if [ "$stock_vfb" = 1 ]; then
        cp "$work/drivers/video/fbdev/vfb.c" "$work/vfb.c" 2>/dev/null
        echo "obj-m += vfb.o" >> "$work/Kbuild"
        built_modules+=(vfb)
    fi
    in_target make -C "$headers_in_target" M="$work" modules > "$work/build.log" 2>&1
    for module in "${built_modules[@]}"; do
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
if ko=$(in_target env SPI_RECORD_CACHE="$cache/spi-record" bash "$repo/Tests/SPISystem/build-kmod.sh" "$kernel" 2> "$cache/spi-record.log"); then
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
    # arm64: the gpiod sdist is downloaded here (this machine's pip and certificates), built in the tree
    gpiod_source=()
    if [ -n "$arch" ]; then
        rm -rf "$cache/gpiod-sdist"
        python3 -m pip download --quiet --no-binary :all: --no-deps --dest "$cache/gpiod-sdist" 'gpiod==2.*' \
            > "$cache/gpiod-v2-check.log" 2>&1
        gpiod_source=("$(ls "$cache"/gpiod-sdist/gpiod-*.tar.gz 2>/dev/null | head -n 1)")
    fi
    if in_target env GPIOD_V2_KEEP="$cache/gpiod-v2-check" GPIOD_V2_CHIP=/nonexistent bash "$repo/Tests/gpiod-v2/build-check.sh" "${gpiod_source[@]}" \
        > "$cache/gpiod-v2-check.log" 2>&1 && [ -x "$cache/gpiod-v2-check" ]; then
        stamp_write gpiod-v2-check "${gpiod_inputs[@]}"
        echo "GPIOD_V2_CHECK=$cache/gpiod-v2-check"
        echo "BUILT_gpiod_v2_check=$(elapsed "$t")"
    else
        echo "MISSING_gpiod_v2_check=Tests/gpiod-v2/build-check.sh failed: $(tail -n 3 "$cache/gpiod-v2-check.log" | tr '\n' ' ')"
    fi
fi

# --- guest helper tools (C, no packages beyond gcc and libpng-dev)
# build_tools DIR RUNNER... : compiles tools/*.c into DIR ($cache/NAME.stamp relative to it), with
# gcc run through RUNNER (nothing: here; in_target: in the guest's tree).
build_tools() {
    local dir=$1 src name libs rel
    shift
    mkdir -p "$dir"
    t=$(now); built=0
    for src in "$here"/tools/*.c; do
        name=$(basename "$src" .c)
        rel=${dir#"$cache"/}/$name
        if stamp_ok "$rel" "$src" "$here"/tools/*.h; then continue; fi
        libs=(-lm); grep -q '<png.h>' "$src" && libs+=(-lpng); grep -q '<alsa/asoundlib.h>' "$src" && libs+=(-lasound -lpthread)
        if "$@" gcc -O2 -Wall -Wextra -Werror -o "$dir/$name" "$src" "${libs[@]}" 2> "$dir/$name.log"; then
            stamp_write "$rel" "$src" "$here"/tools/*.h; built=1
        else
            echo "MISSING_tool_${name//-/_}=gcc failed: $(head -c 300 "$dir/$name.log" | tr '\n' ' ')"
        fi
    done
    return 0
}
shopt -s nullglob
tools_dir=$cache/tools
build_tools "$tools_dir" in_target
[ "$built" = 1 ] && echo "BUILT_tools=$(elapsed "$t")"
echo "TOOLS=$tools_dir"
# the fixtures are made here, with tools for this machine
host_tools_dir=$tools_dir
if [ -n "$arch" ]; then
    host_tools_dir=$cache/host-tools
    build_tools "$host_tools_dir" | sed 's/^MISSING_tool_/MISSING_host_tool_/'
fi

# --- media for the player scenarios (fixtures.sh), built here at native speed, cached
fixture_key=$(inputs_hash "$here/fixtures.sh" "$here/media.sh" "$here/tools/pcm-match.c" "$here/tools/fbtool.c" "$here/tools/common.h" \
    "testbench=${SYSTEST_TESTBENCH:-}")
fixtures=$cache_root/fixtures/$fixture_key
if [ -f "$fixtures/complete" ]; then
    echo "FIXTURES=$fixtures"
else
    t=$(now)
    mkdir -p "$fixtures"
    if PATH=$host_tools_dir:$PATH bash "$here/fixtures.sh" "$fixtures" "${SYSTEST_TESTBENCH:-}" 2> "$fixtures/errors.log"; then
        touch "$fixtures/complete"
        echo "BUILT_fixtures=$(elapsed "$t")"
    else
        echo "MISSING_fixtures=$(tr '\n' ' ' < "$fixtures/errors.log")"
    fi
    echo "FIXTURES=$fixtures"
    # older generations of the fixtures are of no use
    for old in "$cache_root"/fixtures/*; do [ "$old" = "$fixtures" ] || rm -rf "$old"; done
fi
