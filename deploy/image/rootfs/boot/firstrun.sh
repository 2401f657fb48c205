#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# KioskPlayer image: not Raspberry Pi OS's first-run script, but what undoes its hook.
#
# Raspberry Pi Imager 1.x, given a local image file, takes it for Raspberry Pi OS and writes its OS
# customisation as /boot/firstrun.sh on the boot partition and
#   systemd.run=/boot/firstrun.sh systemd.run_success_action=reboot systemd.unit=kernel-command-line.target
# at the end of cmdline.txt (raspberrypi/rpi-imager src/downloadthread.cpp; Imager 2.x does the same
# for an OS entry whose init_format is "systemd"). On this image the boot partition is /boot/firmware,
# so the kernel's systemd.run= finds this file on the read-only root instead; the box would boot to
# that target only, and never to the player. This takes the hook out of cmdline.txt, keeps Imager's
# script beside it as firstrun.sh.ignored (it writes /etc, which is read-only here, and makes a
# password login, which this image never has), and exits 0: systemd then restarts the box
# (systemd.run_success_action=reboot) and the next start is an ordinary one. Imager's settings are
# not applied: kiosk-settings.json (or Imager 2.x with the image's manifest, cloud-init format) is
# the way to give them (docs/install.md).
boot=${KIOSK_FIRSTRUN_BOOT:-/boot/firmware}
# Tests in the image's tree set these: a directory, not a mount; the log on stdout.
remount=${KIOSK_FIRSTRUN_REMOUNT:-remount}
kmsg=${KIOSK_FIRSTRUN_KMSG:-/dev/kmsg}
remount() { findmnt -n "$boot" >/dev/null || mount "$boot" && mount -o "remount,$1" "$boot"; }
log() { echo "kiosk-image firstrun: $*" | tee "$kmsg"; }
$remount rw || { log "cannot make $boot writable"; exit 1; }
if grep -q ' systemd\.run=' "$boot/cmdline.txt"; then
    sed 's| systemd\.run=.*||' "$boot/cmdline.txt" >"$boot/cmdline.txt.new" && sync "$boot/cmdline.txt.new" &&
        mv "$boot/cmdline.txt.new" "$boot/cmdline.txt"
fi
if [ -f "$boot/firstrun.sh" ]; then mv "$boot/firstrun.sh" "$boot/firstrun.sh.ignored"; fi
sync "$boot"
$remount ro || true
log "Raspberry Pi Imager's first-run hook removed from cmdline.txt (its settings are not applied: use kiosk-settings.json); restarting"
exit 0
