#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# kiosk-ab's slot selection, on this machine (no QEMU, a second): the boot partition is a directory,
# the kernel's command line a file, and each step is what RAUC, kiosk-update or a boot would do.
# Each check names the behaviour it specifies. deploy/image/test-update.sh runs the same script on
# the image under QEMU with RAUC itself.
#
#   deploy/image/test-ab.sh
set -euo pipefail
export LC_ALL=C
ab=$(cd "$(dirname "$0")" && pwd)/rootfs/usr/lib/kiosk-image/kiosk-ab
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
mkdir -p "$t/boot"
echo 1.0 >"$t/version"
export KIOSK_AB_BOOT=$t/boot KIOSK_AB_NO_REMOUNT=1 KIOSK_AB_CMDLINE=$t/cmdline KIOSK_AB_LOCK=$t/lock \
    KIOSK_UPDATE_RUN=$t/run KIOSK_IMAGE_VERSION_FILE=$t/version
failures=0
check() {   # check WHAT EXPECTED ACTUAL
    if [ "$2" = "$3" ]; then echo "  ok    $1"; else echo "  FAIL  $1: expected '$2', got '$3'"; failures=$((failures + 1)); fi
}
booted() { echo "console=ttyS1 root=PARTUUID=0badcafe-0$1 ro" >"$t/cmdline"; "$ab" boot 2>/dev/null; }
prefix() { sed -n 's/^os_prefix=//p' "$t/boot/kiosk-slot.txt" 2>/dev/null; }
install_into() {   # install_into SLOT VERSION: what `rauc install` and kiosk-update post-install do
    local dir
    dir=slot-$(echo "$1" | tr AB ab)
    "$ab" set-state "$1" bad 2>/dev/null
    "$ab" set-primary "$1" 2>/dev/null
    rm -rf "${t:?}/boot/$dir"; mkdir -p "$t/boot/$dir"; echo kernel >"$t/boot/$dir/vmlinuz"; echo "$2" >"$t/boot/$dir/complete"
    "$ab" arm 2>/dev/null
}
# The notice's lines (kind, title, detail: the format the player reads) as one, then gone.
notice() { paste -sd'|' "$t/run/notice" 2>/dev/null; rm -f "$t/run/notice"; }

echo "test-ab: kiosk-ab's slot selection"
booted 2
check "a new card boots slot A from the files at the top" "" "$(prefix)"
check "the booted slot is read from root=PARTUUID=...-02" A "$("$ab" get-current)"
check "slot A's version is the image's" "1.0" "$(sed -n 's/^A_version=//p' "$t/boot/kiosk-ab.txt")"
install_into B 2.0
check "after an install the firmware is pointed at the new slot" slot-b/ "$(prefix)"
check "RAUC sees the new slot as primary" B "$("$ab" get-primary)"
booted 3
check "the new slot's first boot points the firmware back at the good slot (its one try used up)" "" "$(prefix)"
check "while on trial the primary is the good slot" A "$("$ab" get-primary)"
"$ab" set-state B good 2>/dev/null
check "mark-good on trial makes the new slot the good one" slot-b/ "$(prefix)"
booted 3
check "a boot after mark-good has nothing more to say (the health check said it)" "" "$(notice)"

install_into A 3.0
booted 2
check "a slot on trial that restarts (crash, power cut) before mark-good falls back" slot-b/ "$(prefix)"
booted 3
check "back on the good slot, the failed try is reported" "error|The update to 3.0 did not start|still on 2.0" "$(notice)"
check "the failed slot is bad" bad "$("$ab" get-state A)"
check "and its boot files no longer count as complete" no "$([ -f "$t/boot/slot-a/complete" ] && echo yes || echo no)"

install_into A 3.1
booted 2
"$ab" set-state A bad 2>/dev/null
check "mark-bad on trial (failed health check) points the firmware at the good slot" slot-b/ "$(prefix)"
booted 3
check "and the next boot says so" "error|The update to 3.1 did not start|still on 2.0" "$(notice)"
booted 3
check "and says it once" "" "$(notice)"

if "$ab" set-state B bad 2>/dev/null; then refused=no; else refused=yes; fi
check "the only good slot cannot be marked bad" yes "$refused"
"$ab" set-primary A 2>/dev/null
check "set-primary of a slot without complete boot files leaves the firmware's pick alone" slot-b/ "$(prefix)"
if "$ab" arm 2>/dev/null; then armed=yes; else armed=no; fi
check "arm refuses a slot whose boot files are not complete" no "$armed"
check "and the firmware's pick stays the good slot" slot-b/ "$(prefix)"

if [ "$failures" -gt 0 ]; then echo "test-ab: $failures FAILED"; exit 1; fi
echo "test-ab: all checks passed"
