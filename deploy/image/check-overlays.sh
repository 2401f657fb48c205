#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Compiles the image's device-tree overlays (deploy/image/overlays/*.dts) and checks each against the
# kernel and device trees of the image's tree (run by build-image.sh, so by `make image`):
#
#   deploy/image/check-overlays.sh TREE [OUTDIR]
#
# TREE is the image's root (its /boot/firmware holds the kernel and the device trees raspi-firmware
# copied there, its /usr/lib/modules the kernel's modules); OUTDIR gets one NAME.dtbo per source
# (build-image.sh: the boot partition's overlays/, where the firmware looks for `dtoverlay=NAME`).
# For each overlay:
#   1. `dtc -@` compiles it (with its own symbols, so another overlay could build on it);
#   2. `fdtoverlay` applies it to the Pi 3 B, Pi 3 B+, Pi 4 B, Pi 400, CM4 and Zero 2 W trees
#      (the firmware's own merge cannot run here; libfdt's is the same format and the same fixups);
#   3. every node the overlay adds or turns on that has a `compatible` must have a driver in the
#      image's kernel: a module (an `of:...C<compatible>` line of modules.alias) or built in (the
#      string in the kernel image, where built-in drivers keep their match tables);
#   4. no other node changed status (an overlay that turned something else on or off is a mistake).
# Exit 1 with every failure named; the drivers found are printed.
set -euo pipefail
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
die() { echo "check-overlays: $*" >&2; exit 1; }

tree=${1:?usage: check-overlays.sh TREE [OUTDIR]}
out=${2:-}
for tool in dtc fdtoverlay; do
    command -v "$tool" >/dev/null || die "$tool is missing (apt-get install device-tree-compiler)"
done
fw=$tree/boot/firmware
kernel=$(ls "$fw"/vmlinuz-* 2>/dev/null | sort -V | tail -n 1)
[ -f "$kernel" ] || die "no kernel in $fw"
version=${kernel##*/vmlinuz-}
alias=$tree/usr/lib/modules/$version/modules.alias
[ -f "$alias" ] || die "no $alias"
boards=(bcm2837-rpi-3-b bcm2837-rpi-3-b-plus bcm2711-rpi-4-b bcm2711-rpi-400 bcm2711-rpi-cm4-io bcm2837-rpi-zero-2-w)

work=$(mktemp -d /tmp/kiosk-overlays.XXXXXX)
trap 'rm -rf "$work"' EXIT
# Debian's arm64 vmlinuz is an uncompressed Image; a gzip'd one is unpacked for the string search.
if gzip -t "$kernel" 2>/dev/null; then zcat "$kernel" >"$work/Image"; else ln -s "$kernel" "$work/Image"; fi

# nodes DTB: one line per node, "path<TAB>status<TAB>compatible1 compatible2 ..." ("-": none), from dtc's
# source form.
nodes() {
    dtc -q -I dtb -O dts "$1" | awk '
        function path(   p, i) { p = ""; for (i = 2; i <= depth; i++) p = p "/" name[i]; return p == "" ? "/" : p }
        /^[ \t]*[^ \t=]+ \{$/ { depth++; n = $0; sub(/^[ \t]*/, "", n); sub(/ \{$/, "", n); name[depth] = n
                                status[depth] = "okay"; compat[depth] = ""; next }
        /^[ \t]*status = "/ { s = $0; sub(/.*= "/, "", s); sub(/";$/, "", s); status[depth] = s; next }
        /^[ \t]*compatible = "/ { c = $0; sub(/.*= "/, "", c); sub(/";$/, "", c); gsub(/\\0/, " ", c); gsub(/", "/, " ", c)
                                  compat[depth] = c; next }
        /^[ \t]*\};$/ { if (depth > 0) printf "%s\t%s\t%s\n", path(), status[depth], compat[depth] == "" ? "-" : compat[depth]; depth--; next }'
}

failures=0
fail() { echo "  FAIL  $*"; failures=$((failures + 1)); }
[ -z "$out" ] || mkdir -p "$out"
for src in "$here"/overlays/*.dts; do
    name=$(basename "$src" .dts)
    echo "check-overlays: $name"
    # fragment@N without reg is the overlay format's own naming (dtc warns only for __dormant__ ones)
    if ! dtc -@ -W no-unit_address_vs_reg -I dts -O dtb -o "$work/$name.dtbo" "$src" 2>"$work/$name.dtc"; then
        fail "$name: dtc: $(cat "$work/$name.dtc")"
        continue
    fi
    [ ! -s "$work/$name.dtc" ] || fail "$name: dtc warned: $(cat "$work/$name.dtc")"
    for board in "${boards[@]}"; do
        base=$fw/$board.dtb
        [ -f "$base" ] || { fail "$name: no $board.dtb in the tree"; continue; }
        if ! fdtoverlay -i "$base" -o "$work/$board+$name.dtb" "$work/$name.dtbo" 2>"$work/err"; then
            fail "$name on $board: fdtoverlay: $(tr '\n' ' ' <"$work/err")"
            continue
        fi
        nodes "$base" | sort >"$work/before"
        nodes "$work/$board+$name.dtb" | sort >"$work/after"
        # Nodes on after the merge that were off or absent before.
        enabled=$(join -t $'\t' -a 1 -e MISSING -o '0,1.2,1.3,2.2' "$work/after" "$work/before" |
            awk -F '\t' '$2 == "okay" && $4 != "okay"')
        # Nodes whose status changed otherwise (on → off, or anything but "turned on").
        changed=$(join -t $'\t' -o '0,1.2,2.2' "$work/after" "$work/before" |
            awk -F '\t' '$2 != $3 && !($2 == "okay" && $3 == "disabled")')
        [ -z "$changed" ] || fail "$name on $board: other nodes changed status: $changed"
        [ -n "$(echo "$enabled" | awk -F '\t' '$3 != "-"')" ] || fail "$name on $board: turns on no device"
        while IFS=$'\t' read -r path _ compats _; do
            [ "$compats" != - ] || continue
            found=''
            for c in $compats; do
                module=$(awk -v want="alias of:N*T*C$c" '$1 " " $2 == want { print $3; exit }' "$alias")
                if [ -n "$module" ]; then found="$c → module $module"; break; fi
                if grep -a -q -F -e "$c" "$work/Image"; then found="$c → built in"; break; fi
            done
            if [ -n "$found" ]; then
                [ "$board" != "${boards[0]}" ] || echo "  ok    $path: $found"
            else
                fail "$name on $board: $path ($compats): no driver in the kernel $version"
            fi
        done <<<"$enabled"
    done
    [ "$failures" != 0 ] || echo "  ok    applies to ${boards[*]}"
    if [ -n "$out" ]; then
        # Debian's raspi-firmware ships two overlays of its own for the HiFiBerry Beocreate
        # (hifiberry-dac, whose card needs pi4-spidev to turn I2S on, and pi4-spidev): one of the same
        # name is replaced, said here.
        [ ! -f "$out/$name.dtbo" ] || echo "  note  replaces the $name.dtbo already there (raspi-firmware's)"
        cp "$work/$name.dtbo" "$out/$name.dtbo"
    fi
done
[ "$failures" = 0 ] || die "$failures failure(s)"
echo "check-overlays: every overlay compiles, applies and names only drivers of $version"
