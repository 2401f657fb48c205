#!/bin/bash
# Smoke: a FAT and an ext4 image made from a folder, loop-mounted read-only under a media root as
# the service mounts sticks (ro, nosuid, nodev, noexec): visible in /proc/self/mountinfo, files
# identical, gone from mountinfo after unmounting.
# timeout: 60
# shellcheck source=../lib.sh
source "$SYSTEST_REPO/Tests/System/lib.sh"
require_infra loop
require_command mkfs.vfat mcopy mkfs.ext4

src=$SYSTEST_WORK/stick
mkdir -p "$src/Artist/Album" "$src/Другой"
must "generate a FLAC" make_tone_flac "$src/Artist/Album/01 Track.flac" 1 3 ARTIST=Artist ALBUM=Album TITLE=Track TRACKNUMBER=1
printf 'not a flac' > "$src/Другой/broken.flac"
printf '#EXTM3U\nArtist/Album/01 Track.flac\n' > "$src/list.m3u"

for type in vfat ext4; do
    image=$SYSTEST_WORK/$type.img
    mountpoint=/media/kiosk/TEST-$type
    must "make a $type image" media_image "$type" "$src" "$image" "KIOSK$type"
    must "loop-mount the $type image read-only" media_mount "$image" "$mountpoint"
    check "$type: listed in /proc/self/mountinfo" mounted "$mountpoint"
    options=$(awk -v m="$mountpoint" '$5 == m { print $6 }' /proc/self/mountinfo)
    for option in ro nosuid nodev noexec; do
        check "$type: mounted $option ($options)" grep -qw "$option" <<< "${options//,/ }"
    done
    check "$type: the FLAC is identical" cmp "$src/Artist/Album/01 Track.flac" "$mountpoint/Artist/Album/01 Track.flac"
    check "$type: UTF-8 names survive" test -f "$mountpoint/Другой/broken.flac"
    check "$type: writing fails (read-only)" not touch "$mountpoint/x"
    must "unmount $type" media_unmount "$mountpoint"
    check "$type: gone from mountinfo" not mounted "$mountpoint"
done
finish
