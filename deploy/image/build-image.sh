#!/usr/bin/env bash
# Builds the KioskPlayer SD-card image (`make image`):
#
#   deploy/image/build-image.sh [--deb FILE] [--no-xz]
#
# → .build/image/kiosk-player_<version>_arm64.img.xz (and the .img with --no-xz), from Debian trixie
# arm64 packages only: the cached base of deploy/image/base.sh (mmdebstrap: linux-image-arm64,
# raspi-firmware, systemd, the player's dependencies) and the project's arm64 .deb (default: the newest
# .build/deb/kiosk-player_*_arm64.deb, made by `make deb ARCH=arm64`), installed with dpkg, offline.
#
# The card (MBR: the Pi 3 and Zero 2 W boot ROMs read no GPT):
#   1  FAT32 "KIOSKBOOT" 256 MiB  firmware, kernel, initramfs, device trees, overlays, config.txt,
#                                 cmdline.txt, kiosk-settings.json (the one file a person edits)
#   2  ext4 root slot A           the system, mounted read-only, never written while running
#   3  root slot B                reserved, empty: the update issue writes the next system there
#   4  ext4 "kiosk-data"          state, logs, the settings last applied, music; grown to the card's
#                                 end at boot (kiosk-grow-data: sfdisk; systemd-growfs)
# Every file system is made from a directory (mkfs.vfat + mcopy, mke2fs -d) and written into the
# image at its offset: no loop device, no mount of the image.
#
# The image's own files are in deploy/image/rootfs (units, fstab, raspi-firmware's settings, the
# settings script); raspi-firmware's hook writes config.txt and cmdline.txt from them, as it would on
# a kernel update on the device, so the documented way (/etc/default/raspi-extra-cmdline) stays the
# one place for kernel arguments.
set -euo pipefail
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
say() { echo "image: $*" >&2; }
die() { echo "image: $*" >&2; exit 1; }

deb=''
xz=1
while [ $# -gt 0 ]; do
    case "$1" in
        --deb) deb=$2; shift ;;
        --no-xz) xz=0 ;;
        *) die "unknown option '$1' (--deb FILE, --no-xz)" ;;
    esac
    shift
done
[ "$(id -u)" = 0 ] || die "needs root (chroot into the image's tree); try: sudo make image"
for tool in mke2fs mkfs.vfat mcopy sfdisk xz; do
    command -v "$tool" >/dev/null || die "$tool is missing (deploy/install-deps.sh --image)"
done
[ -n "$deb" ] || deb=$(ls -t "$repo"/.build/deb/kiosk-player_*_arm64.deb 2>/dev/null | head -n 1)
[ -f "$deb" ] || die "no arm64 .deb: make deb ARCH=arm64 (or --deb FILE)"
version=$(dpkg-deb -f "$deb" Version)

# Partition sizes in MiB. The root slots are sized for this system (≈ 700 MiB used) with room for
# the next ones (a bigger kernel, more firmware): growing a slot later would move the data partition.
boot_mib=256
slot_mib=1280
data_mib=128
first_mib=4   # the first partition at 4 MiB: SD cards' erase blocks are 4 MiB or a divisor of it

start_all=$(date +%s)
base=$(bash "$here/base.sh")
out=$repo/.build/image
work=$out/work
mkdir -p "$out"
tree=$work/root
cleanup() {
    umount -R -l "$tree/proc" "$tree/dev" "$tree/sys" 2>/dev/null || true
}
trap cleanup EXIT
rm -rf "$work"
mkdir -p "$tree"
say "unpacking the base $(basename "$base")"
tar -C "$tree" --xattrs --xattrs-include='*' --numeric-owner -xpf "$base"

# in_tree CMD...: CMD run in the image's tree (arm64, through qemu-user) with /proc, /dev and /sys.
in_tree() {
    local rc=0
    mount -t proc proc "$tree/proc"
    mount --rbind /dev "$tree/dev" && mount --make-rslave "$tree/dev"
    mount -t sysfs sysfs "$tree/sys"
    chroot "$tree" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 "$@" || rc=$?
    umount -R -l "$tree/proc" "$tree/dev" "$tree/sys"
    return $rc
}

# The card's MBR disk identifier names the partitions (PARTUUID=<id>-0N) in fstab and cmdline.txt.
# Random per build unless given: two cards of two builds in one PC do not clash.
disk_id=${KIOSK_IMAGE_DISK_ID:-$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')}
[[ $disk_id =~ ^[0-9a-f]{8}$ ]] || die "disk identifier '$disk_id' is not 8 hex digits"

say "installing $(basename "$deb") (dpkg, offline: its dependencies are in the base)"
cp "$deb" "$tree/tmp/kiosk-player.deb"
in_tree dpkg -i /tmp/kiosk-player.deb >"$work/dpkg.log" 2>&1 ||
    die "dpkg -i failed (a dependency missing from deploy/image/packages.list?): $(tail -n 5 "$work/dpkg.log")"
rm -f "$tree/tmp/kiosk-player.deb"

say "the image's files (deploy/image/rootfs), disk $disk_id"
cp -a --no-preserve=ownership "$here/rootfs/." "$tree/"
for f in etc/fstab etc/default/raspi-firmware etc/rauc/system.conf; do
    sed "s/@DISK@/$disk_id/g" "$tree/$f.in" >"$tree/$f"
    rm "$tree/$f.in"
done
sed -i "s/@DISK@/$disk_id/g" "$tree/etc/systemd/system/kiosk-grow-data.service"
# The player's config is the one kiosk-settings last found good, on the data partition.
ln -sfn /data/settings/config.json "$tree/etc/kiosk-player/config.json"
# The time zone, Wi-Fi and SSH keys the settings give live in /run (the root is read-only).
ln -sfn /run/kiosk-settings/localtime "$tree/etc/localtime"
echo Etc/UTC >"$tree/etc/timezone"
mkdir -p "$tree/etc/wpa_supplicant"
ln -sfn /run/kiosk-settings/wpa_supplicant-wlan0.conf "$tree/etc/wpa_supplicant/wpa_supplicant-wlan0.conf"
echo kioskplayer >"$tree/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\tkioskplayer\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' >"$tree/etc/hosts"
# Empty: systemd makes a machine ID at every boot and keeps it in RAM (the root cannot hold one, and
# one written into the image would be the same on every card).
: >"$tree/etc/machine-id"
rm -f "$tree/var/lib/dbus/machine-id"
# Host keys made at build time would be the same on every card: sshd's is made on /data when the
# settings turn SSH on.
rm -f "$tree"/etc/ssh/ssh_host_*
# Mount points on the read-only root for what /etc/fstab binds from /data (systemd could not make
# them there; the .deb leaves /var/lib/kiosk-player to StateDirectory=, at run time).
mkdir -p "$tree/data" "$tree/var/lib/kiosk-player" "$tree/var/log"
chmod 0755 "$tree/usr/lib/kiosk-image/kiosk-settings" "$tree/usr/lib/kiosk-image/kiosk-grow-data" \
    "$tree/usr/lib/kiosk-image/kiosk-imager-settings" "$tree/boot/firstrun.sh" \
    "$tree/usr/lib/kiosk-image/kiosk-ab" "$tree/usr/lib/kiosk-image/kiosk-update"
# The version this root runs, which an update bundle must exceed (kiosk-update; RAUC's post-install
# writes the bundle's version here in the slot it installs).
echo "$version" >"$tree/usr/share/kiosk-image/version"
# The CA whose bundles RAUC installs (docs/updates.md, "Keys"): the release CA given by
# KIOSK_UPDATE_KEYRING, else the development CA (deploy/update/dev-keys: test-only, its key is public).
keyring=${KIOSK_UPDATE_KEYRING:-$repo/deploy/update/dev-keys/ca.cert.pem}
[ -f "$keyring" ] || die "KIOSK_UPDATE_KEYRING: no file $keyring"
[ -n "${KIOSK_UPDATE_KEYRING:-}" ] || say "warning: update keyring is the DEVELOPMENT CA (KIOSK_UPDATE_KEYRING unset): not for a release"
install -m 0644 "$keyring" "$tree/etc/rauc/keyring.pem"
# The settings file as shipped: kiosk-settings tells a "system" key a person edited from one left as
# it was (Raspberry Pi Imager's settings count for the latter).
cp "$here/kiosk-settings.json" "$tree/usr/share/kiosk-image/kiosk-settings.default.json"

say "units: the settings and the grow on; logins, SSH and network off until the settings ask"
in_tree systemctl enable kiosk-settings.service kiosk-grow-data.service >/dev/null 2>&1
# Updates from a stick, the slot's one try and its health check (docs/updates.md).
in_tree systemctl enable kiosk-ab-boot.service kiosk-update-health.service kiosk-update-stick.path >/dev/null 2>&1
# RAUC's D-Bus brought the system bus, and with it D-Bus activation of logind, which fails on this
# read-only root (seen under QEMU: "Failed to start systemd-logind.service" over 100 times in 12
# min, each a caller asking login1); no one logs in here, and before the bus it never ran.
in_tree systemctl mask systemd-logind.service >/dev/null 2>&1
# No password login anywhere (root's password is locked, and nobody else has one); the screen belongs
# to the player. systemd-firstboot would ask on the console for what the image has set;
# random-seed, e2scrub, dpkg's backup and apt's timers would write to the read-only root, and so
# would networkd's persistent storage (/var/lib/systemd/network; it failed when SSH started networkd).
# getty-static (Debian's gettys on tty2-6 when logind is absent) included; masking the templates
# masks every instance.
in_tree systemctl mask getty@.service serial-getty@.service getty-static.service \
    systemd-firstboot.service systemd-random-seed.service e2scrub_all.timer e2scrub_reap.service \
    dpkg-db-backup.timer apt-daily.timer apt-daily-upgrade.timer \
    systemd-networkd-persistent-storage.service >/dev/null 2>&1
in_tree systemctl disable ssh.service ssh.socket systemd-networkd.service systemd-networkd.socket \
    wpa_supplicant.service systemd-timesyncd.service >/dev/null 2>&1 || true
in_tree passwd -l root >/dev/null

say "config.txt and cmdline.txt from raspi-firmware's hook"
in_tree env DEB_MAINT_PARAMS=configure /etc/kernel/postinst.d/z50-raspi-firmware
cp "$here/kiosk-settings.json" "$tree/boot/firmware/kiosk-settings.json"
# The root slot the firmware boots: the files at the top (slot A) until an update (kiosk-ab).
printf '# kiosk-ab: the firmware boots slot A (the files at the top, as the image was made)\n' >"$tree/boot/firmware/kiosk-slot.txt"
grep -q '^include kiosk-slot.txt$' "$tree/boot/firmware/config.txt" || die "config.txt does not include kiosk-slot.txt"
# The device-tree overlays the board profiles need (Debian's raspi-firmware ships none), compiled into
# the boot partition's overlays/ and checked against this kernel and its device trees; then the
# board file config.txt includes, for the default settings' board.
bash "$here/check-overlays.sh" "$tree" "$tree/boot/firmware/overlays" >"$work/overlays.log" 2>&1 ||
    die "the overlays do not fit this kernel or its device trees: $(tail -n 20 "$work/overlays.log")"
sed "s/^/  /" "$work/overlays.log" >&2
say "overlays: $(cd "$tree/boot/firmware/overlays" && ls -- *.dtbo | tr '\n' ' ')(deploy/image/check-overlays.sh: ok)"
default_board=$(in_tree jq -r '.board // "auto"' /boot/firmware/kiosk-settings.json)
in_tree /usr/lib/kiosk-image/kiosk-settings board-config "$default_board" >"$tree/boot/firmware/kiosk-board.txt"
grep -q '^include kiosk-board.txt$' "$tree/boot/firmware/config.txt" || die "config.txt does not include kiosk-board.txt"
# The settings file's board and Raspberry Pi Imager's files, checked in the finished tree with its
# own programs (each test says what it checks).
for test in test-board-settings test-imager-settings; do
    cp "$here/$test.sh" "$tree/tmp/$test.sh"
    in_tree sh "/tmp/$test.sh" >"$work/$test.log" 2>&1 || die "$test.sh failed: $(tail -n 20 "$work/$test.log")"
    sed "s/^/  /" "$work/$test.log" >&2
    rm -f "$tree/tmp/$test.sh"
done
grep -q "root=PARTUUID=$disk_id-02 " "$tree/boot/firmware/cmdline.txt" && grep -q ' ro ' "$tree/boot/firmware/cmdline.txt" ||
    die "cmdline.txt does not name the root slot read-only: $(cat "$tree/boot/firmware/cmdline.txt")"
say "cmdline.txt: $(cat "$tree/boot/firmware/cmdline.txt")"

# The data partition's first contents: what /etc/fstab binds, and an empty music folder.
data=$work/data
mkdir -p "$data"/{state,log/journal,settings,music}
chmod 2755 "$data/log/journal"
chown root:systemd-journal "$data/log/journal" 2>/dev/null || chown "0:$(awk -F: '$1 == "systemd-journal" {print $3}' "$tree/etc/group")" "$data/log/journal"
# The music folder: the phone page (kiosk-web, a dynamic user in the group kiosk-player) adds to it;
# set-group-ID so what it makes stays the group's.
kiosk_gid=$(awk -F: '$1 == "kiosk-player" {print $3}' "$tree/etc/group")
[ -n "$kiosk_gid" ] || die "the tree has no group kiosk-player (the .deb's sysusers did not run)"
chown "0:$kiosk_gid" "$data/music"
chmod 2775 "$data/music"

# The licence manifest: each package of the image, its version, its copyright file (kept on the
# image: base.sh excludes /usr/share/doc but for those) and the licences that file names
# (machine-readable copyright files' "License:" lines), on the image and beside it.
licences=$work/licences.txt
{
    echo "# KioskPlayer $version SD-card image: every Debian package in its system, and its licences."
    echo "# The boot partition's firmware, kernel and device trees come from raspi-firmware and linux-image-*."
    echo "# package<TAB>version<TAB>copyright file on the image<TAB>licences it names (\"-\": not machine-readable)"
    dpkg-query --admindir="$tree/var/lib/dpkg" -W -f '${db:Status-Abbrev}\t${Package}\t${Version}\n' |
        awk -F '\t' '$1 ~ /^ii/ { print $2 "\t" $3 }' | sort | while IFS=$'\t' read -r pkg ver; do
        copyright=/usr/share/doc/${pkg%%:*}/copyright
        if [ -f "$tree$copyright" ]; then
            names=$(sed -n 's/^License:[[:space:]]*\([^[:space:]].*\)$/\1/p' "$tree$copyright" | sort -u | paste -sd ';' - | sed 's/;/; /g')
        else
            copyright="(none)"
            names=''
        fi
        printf '%s\t%s\t%s\t%s\n' "$pkg" "$ver" "$copyright" "${names:--}"
    done
} >"$licences"
missing=$(awk -F '\t' '!/^#/ && $3 == "(none)" { print $1 }' "$licences" | paste -sd ' ' -)
[ -z "$missing" ] || say "warning: no copyright file for: $missing"
mkdir -p "$tree/usr/share/doc/kiosk-image"
cp "$licences" "$tree/usr/share/doc/kiosk-image/licences.txt"
say "licences: $(grep -vc '^#' "$licences") packages listed"

say "file systems"
boot_img=$work/boot.fat root_img=$work/root.ext4 data_img=$work/data.ext4
bootdir=$work/bootfs
mv "$tree/boot/firmware" "$bootdir"
mkdir -p "$tree/boot/firmware"
# The kernel and initramfs are in /boot/firmware for the firmware; the copies in /boot are only
# raspi-firmware's source for them: gone from the root (the next image brings its own).
rm -f "$tree"/boot/vmlinuz-* "$tree"/boot/initrd.img-* "$tree"/boot/System.map-* "$tree"/boot/config-*
rm -rf "$tree"/var/cache/apt/* "$tree"/var/lib/apt/lists/* "$tree"/var/log/* "$tree"/tmp/*
truncate -s 0 "$boot_img" && truncate -s "${boot_mib}M" "$boot_img"
mkfs.vfat -F 32 -n KIOSKBOOT -i "$disk_id" "$boot_img" >/dev/null
MTOOLS_SKIP_CHECK=1 mcopy -s -p -i "$boot_img" "$bootdir"/* ::/
root_used=$(du -sm "$tree" | cut -f1)
[ "$root_used" -lt $((slot_mib * 85 / 100)) ] || die "the root ($root_used MiB) no longer fits a $slot_mib MiB slot with room to spare"
# No journal: the root is written once, whole, here (or by the updater into the other slot), and
# never mounted writable; no reserved blocks for the same reason.
rm -f "$root_img"
mke2fs -q -t ext4 -b 4096 -L kiosk-root-a -O ^has_journal -m 0 -E root_owner=0:0 -d "$tree" "$root_img" "${slot_mib}M"
rm -f "$data_img"
mke2fs -q -t ext4 -b 4096 -L kiosk-data -m 1 -E root_owner=0:0 -d "$data" "$data_img" "${data_mib}M"

say "the card"
version_file=${version//[^A-Za-z0-9.+~-]/_}
img=$out/kiosk-player_${version_file}_arm64.img
rm -f "$out"/kiosk-player_*_arm64.img "$out"/kiosk-player_*_arm64.img.xz "$out"/kiosk-player_*_arm64.licences.txt \
    "$out"/kiosk-player_*_arm64.rpi-imager-manifest
s() { echo $(($1 * 2048)); }   # MiB → 512-byte sectors
p1=$first_mib p2=$((p1 + boot_mib)) p3=$((p2 + slot_mib)) p4=$((p3 + slot_mib)) end=$((p4 + data_mib))
truncate -s "${end}M" "$img"
sfdisk --quiet "$img" <<EOF
label: dos
label-id: 0x$disk_id
unit: sectors
start=$(s $p1), size=$(s $boot_mib), type=c, bootable
start=$(s $p2), size=$(s $slot_mib), type=83
start=$(s $p3), size=$(s $slot_mib), type=83
start=$(s $p4), size=$(s $data_mib), type=83
EOF
dd if="$boot_img" of="$img" bs=1M seek="$p1" conv=notrunc,sparse status=none
dd if="$root_img" of="$img" bs=1M seek="$p2" conv=notrunc,sparse status=none
dd if="$data_img" of="$img" bs=1M seek="$p4" conv=notrunc,sparse status=none
cp "$licences" "${img%.img}.licences.txt"
boot_used=$(du -sm "$bootdir" | cut -f1)
say "$(basename "$img"): ${end} MiB; boot $boot_used of $boot_mib MiB used, root $root_used of $slot_mib MiB, slot B $slot_mib MiB reserved, data $data_mib MiB (grows at boot)"

rm -rf "$work"

if [ "$xz" = 1 ]; then
    start=$(date +%s)
    xz -T0 -6 -k -f "$img"
    say "compressed in $(($(date +%s) - start)) s: $(du -m "$img.xz" | cut -f1) MiB"
    # Raspberry Pi Imager 2.x offers its OS customisation only for an OS list entry that names the
    # format (init_format; "Use custom" gets none): this one-entry list, opened in Imager (double-click,
    # or App Options > Content Repository), lets it write cloud-init files the image reads
    # (kiosk-imager-settings). Imager needs an absolute URL: the published one (KIOSK_IMAGE_URL), else
    # this file on this machine.
    manifest=${img%.img}.rpi-imager-manifest
    url=${KIOSK_IMAGE_URL:-file://$img.xz}
    jq -n --arg name "KioskPlayer $version" --arg url "$url" --arg date "$(date -u +%F)" \
        --argjson xsize "$(stat -c %s "$img")" --arg xsum "$(sha256sum "$img" | cut -d' ' -f1)" \
        --argjson dsize "$(stat -c %s "$img.xz")" --arg dsum "$(sha256sum "$img.xz" | cut -d' ' -f1)" '
        {os_list: [{name: $name, description: "Music player for children and exhibits: plays a USB stick; settings in kiosk-settings.json on the card",
            url: $url, release_date: $date, extract_size: $xsize, extract_sha256: $xsum,
            image_download_size: $dsize, image_download_sha256: $dsum,
            devices: ["pi4-64bit", "pi3-64bit"], architecture: "arm64", init_format: "cloudinit"}]}' >"$manifest"
    say "Raspberry Pi Imager's list entry: $(basename "$manifest") (url $url)"
    echo "$img.xz"
else
    echo "$img"
fi
say "made in $(($(date +%s) - start_all)) s"
