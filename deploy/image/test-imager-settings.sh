#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Raspberry Pi Imager's OS customisation on the image, checked inside the image's tree (build-image.sh
# runs it there) with the image's own kiosk-settings, kiosk-imager-settings (python3-yaml), jq and
# `kiosk-player check-config`, on files written as rpi-imager's src/customization_generator.cpp and
# src/downloadthread.cpp write them; the host name, services and remounts are recorded, not done:
#   1. Imager's user-data, network-config and meta-data beside the shipped kiosk-settings.json: the
#      host name, time zone, SSH key and Wi-Fi (its 64-digit key) in force; its password, user and
#      keyboard named as ignored;
#   2. the same files at the next start: not parsed again;
#   3. a host name edited in kiosk-settings.json: that one wins over Imager's;
#   4. a user-data that is not YAML: named with its line, the last good settings stay;
#   5. Imager 1.x's systemd hook (firstrun.sh and systemd.run= in cmdline.txt): the root's
#      /boot/firstrun.sh takes it out of cmdline.txt and keeps Imager's script aside.
set -eu
fail() { echo "test-imager-settings: FAIL: $*" >&2; exit 1; }
ok() { echo "test-imager-settings: ok    $*"; }
sandbox=$(mktemp -d /tmp/imager-settings.XXXXXX)
trap 'rm -rf "$sandbox"' EXIT
boot=$sandbox/boot
mkdir -p "$boot" "$sandbox/state" "$sandbox/run" "$sandbox/ssh"
cp /boot/firmware/kiosk-settings.json /boot/firmware/kiosk-board.txt "$boot/"
cp -r /boot/firmware/overlays "$boot/overlays"
log=$sandbox/log
# Counts the YAML reader's runs.
cat >"$sandbox/imager" <<'SH'
#!/bin/sh
echo run >>"${0%/*}/imager-runs"
exec /usr/lib/kiosk-image/kiosk-imager-settings "$@"
SH
chmod +x "$sandbox/imager"
apply() {
    KIOSK_SETTINGS=$boot/kiosk-settings.json KIOSK_SETTINGS_STATE=$sandbox/state KIOSK_SETTINGS_RUN=$sandbox/run \
        KIOSK_IMAGER=$sandbox/imager KIOSK_SSH_HOSTKEYS=$sandbox/ssh KIOSK_SETTINGS_HOSTNAME="echo hostname" \
        KIOSK_SETTINGS_SYSTEMCTL="echo systemctl" KIOSK_SETTINGS_REMOUNT="echo remount" \
        /usr/lib/kiosk-image/kiosk-settings apply >"$log" 2>&1 || { cat "$log"; fail "kiosk-settings apply failed"; }
}
runs() { wc -l <"$sandbox/imager-runs" 2>/dev/null || echo 0; }
key='ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl parent@pc'
psk=8a5b6f0e4f9c3d2e1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f
cat >"$boot/user-data" <<YAML
#cloud-config
hostname: kinderbox
manage_etc_hosts: true
packages:
- avahi-daemon
timezone: Europe/Berlin
keyboard:
  model: pc105
  layout: "de"
enable_ssh: true
users:
- name: parent
  groups: users,adm,dialout,audio,netdev,video,plugdev,cdrom,games,input,gpio,spi,i2c,render,sudo
  shell: /bin/bash
  lock_passwd: false
  passwd: \$5\$saltsalt\$hashhashhash
  ssh_authorized_keys:
    - $key
  sudo: ALL=(ALL) NOPASSWD:ALL
YAML
cat >"$boot/network-config" <<YAML
network:
  version: 2
  wifis:
    wlan0:
      dhcp4: true
      regulatory-domain: "DE"
      access-points:
        "Home \"Net\"":
          password: "$psk"
      optional: true
YAML
echo 'instance-id: rpi-imager-1765000000000' >"$boot/meta-data"

apply
system=$sandbox/state/system.json
[ "$(jq -r .hostname "$system")" = kinderbox ] && [ "$(jq -r .timeZone "$system")" = Europe/Berlin ] &&
    [ "$(jq -r '.sshKeys[0]' "$system")" = "$key" ] && [ "$(jq -r .wifi.name "$system")" = 'Home "Net"' ] &&
    [ "$(jq -r .wifi.country "$system")" = DE ] || { cat "$log" "$system"; fail "Imager's settings not in force"; }
grep -qx "hostname kinderbox" "$log" && grep -qx "systemctl start --no-block ssh.service" "$log" &&
    grep -qx "    psk=$psk" "$sandbox/run/wpa_supplicant-wlan0.conf" && grep -qx 'country=DE' "$sandbox/run/wpa_supplicant-wlan0.conf" &&
    grep -qxF "$key" "$sandbox/run/authorized_keys" && [ "$(readlink "$sandbox/run/localtime")" = /usr/share/zoneinfo/Europe/Berlin ] ||
    { cat "$log"; ls -l "$sandbox/run"; fail "Imager's settings not set up"; }
grep -q 'users. "passwd" ignored' "$log" && grep -q '"keyboard" ignored' "$log" || { cat "$log"; fail "ignored keys not named"; }
[ "$(runs)" = 1 ] || fail "the YAML reader ran $(runs) times, expected 1"
ok "Imager's files: host name kinderbox, Europe/Berlin, one SSH key, Wi-Fi \"Home \\\"Net\\\"\" (its key), password and keyboard ignored"

apply
[ "$(cat "$sandbox/run/status")" = unchanged ] && [ "$(runs)" = 1 ] || { cat "$log"; fail "unchanged files were parsed again"; }
ok "the same files at the next start: not parsed again"

jq '.system.hostname = "livingroom"' "$boot/kiosk-settings.json" >"$sandbox/edited" && mv "$sandbox/edited" "$boot/kiosk-settings.json"
apply
[ "$(jq -r .hostname "$system")" = livingroom ] && [ "$(jq -r .timeZone "$system")" = Europe/Berlin ] ||
    { cat "$log" "$system"; fail "an edited host name should win over Imager's"; }
ok "a host name edited in kiosk-settings.json wins; Imager's time zone stays"

printf 'hostname: [kinderbox\ntimezone: Europe/Paris\n' >"$boot/user-data"
apply
[ "$(cat "$sandbox/run/status")" = error ] && grep -q '^user-data line [0-9]*: not YAML' "$sandbox/run/error" &&
    [ "$(jq -r .hostname "$system")" = livingroom ] || { cat "$log" "$sandbox/run/error"; fail "broken user-data"; }
ok "user-data that is not YAML: \"$(cat "$sandbox/run/error")\"; the last good settings stay"

printf 'console=ttyS1,115200 console=tty0 root=PARTUUID=01234567-02 ro quiet systemd.run=/boot/firstrun.sh systemd.run_success_action=reboot systemd.unit=kernel-command-line.target\n' >"$boot/cmdline.txt"
echo '#!/bin/sh' >"$boot/firstrun.sh"
KIOSK_FIRSTRUN_BOOT=$boot KIOSK_FIRSTRUN_REMOUNT="echo remount" KIOSK_FIRSTRUN_KMSG=/dev/null sh /boot/firstrun.sh >"$log" 2>&1 ||
    { cat "$log"; fail "/boot/firstrun.sh failed"; }
[ "$(cat "$boot/cmdline.txt")" = 'console=ttyS1,115200 console=tty0 root=PARTUUID=01234567-02 ro quiet' ] &&
    [ -f "$boot/firstrun.sh.ignored" ] && [ ! -f "$boot/firstrun.sh" ] || { cat "$log" "$boot/cmdline.txt"; fail "Imager 1.x's hook not removed"; }
ok "Imager 1.x's hook: cmdline.txt back to \"$(cat "$boot/cmdline.txt")\", its firstrun.sh kept aside"
