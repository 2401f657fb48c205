#!/bin/bash
# Smoke: /dev/fb0 in the modes the player must handle. For each mode: fbset reports the geometry
# and colour layout; a gradient written through the driver's channel offsets reads back exactly;
# a solid fill decodes to the written colour; a PNG grab compares equal to the screen.
# Modes: XRGB8888 and RGB565 (vfb-rgb, like a Pi's vc4 fbdev and an ST7789 panel), and stock vfb's
# BGR565 / ABGR8888 layouts (red in the low bits), which a player must also draw correctly.
# timeout: 90
# shellcheck source=../lib.sh
source "$SYSTEST_REPO/Tests/System/lib.sh"
require_infra fb
require_command fbset
trap 'fb_load "${SYSTEST_FB_MODE:-320x240M-32}" > /dev/null 2>&1; _systest_cleanup' EXIT

try_mode() {
    local mode=$1 kind=$2 want_rgba=$3 w h bpp
    w=${mode%%x*}; h=${mode#*x}; h=${h%%M*}; bpp=${mode##*-}
    if ! check "load $kind vfb in $mode" fb_load "$mode" "$kind"; then return; fi
    local info
    info=$(fbset -fb /dev/fb0 -s)
    check "$mode ($kind): fbset geometry $w $h $w $h $bpp" sh -c "echo '$info' | grep -q 'geometry $w $h $w $h $bpp\$'"
    check "$mode ($kind): fbset rgba $want_rgba" sh -c "echo '$info' | grep -q 'rgba $want_rgba\$'"
    check "$mode ($kind): a written gradient reads back exactly" sh -c "fbtool pattern /dev/fb0 && fbtool check-pattern /dev/fb0"
    local png=$SYSTEST_ARTIFACTS/pattern-$kind-$bpp.png
    check "$mode ($kind): PNG grab equals the screen" sh -c "fbtool grab /dev/fb0 '$png' && fbtool compare /dev/fb0 '$png'"
    check "$mode ($kind): red fill decodes as ff0000" sh -c "fbtool fill /dev/fb0 ff0000 && fbtool stats /dev/fb0 | grep -q 'colours=1 background=ff0000'"
    check "$mode ($kind): blue fill decodes as 0000ff" sh -c "fbtool fill /dev/fb0 0000ff && fbtool stats /dev/fb0 | grep -q 'colours=1 background=0000ff'"
}

if [ -n "${SYSTEST_VFB_RGB_KO:-}" ]; then
    try_mode 320x240M-32 rgb "8/16,8/8,8/0,0/0"
    try_mode 240x240M-16 rgb "5/11,6/5,5/0,0/0"
else
    log "vfb-rgb.ko was not built (${SYSTEST_MISSING_vfb_rgb:-unknown}): only stock vfb layouts are checked"
fi
try_mode 320x240M-32 stock "8/0,8/8,8/16,8/24"
try_mode 240x240M-16 stock "5/0,6/5,5/11,0/0"
finish
