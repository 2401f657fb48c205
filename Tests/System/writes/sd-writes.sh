#!/bin/bash
# SD-card writes: bytes the player writes to its state directory's block device per hour of
# playback (not one of the regular scenarios; run by path:
#   SDWRITES_MINUTES=6 bash Tests/System/run.sh Tests/System/writes/sd-writes.sh).
#
# The state directory is an ext4 file system of its own (mkfs.ext4 defaults: 4 KiB blocks, a
# journal, as Raspberry Pi OS's root) on a loop device, mounted like Pi OS mounts its root
# (`defaults,noatime`), and once more as the player's package leaves it: remounted by
# deploy/kiosk-lazytime (kiosk-player-lazytime.service at boot). A stick of three 4-minute tracks; the
# player plays them through MPD (repeat on). After the stick's scan (the index is written once per
# stick, not per hour), the loop device's sectors written (/sys/block/loopN/stat, field 7: all
# the file system sends to the device: data, metadata, journal) are read every 30 s for
# SDWRITES_MINUTES minutes of real-time playback (default 6), and the total is scaled to an hour.
# SDWRITES_OPTIONS="noatime installed" (default) picks what is measured: mount options, or
# "installed" (noatime, then deploy/kiosk-lazytime, which must leave noatime and add lazytime).
# timeout: 3600
# shellcheck source=../lib.sh
source "$SYSTEST_REPO/Tests/System/lib.sh"
require_infra snd-aloop fb gpio-sim loop
require_command mpc mkfs.ext4 findmnt mount
require_player_run

minutes=${SDWRITES_MINUTES:-6}
variants=${SDWRITES_OPTIONS:-noatime installed}
use_fixture four-minutes  # fixtures.sh: three 4-minute tracks on a FAT stick, KIOSKWRT
MEDIA_ROOT=/media/kiosk
MOUNTPOINT=$MEDIA_ROOT/KIOSKWRT
must "mount the stick" media_mount "$FIXTURE/stick.img" "$MOUNTPOINT"

# measure OPTIONS : one run of the player on a fresh ext4 state file system mounted with OPTIONS.
measure() {
    local options=$1 image=$SYSTEST_WORK/state.img state=$SYSTEST_WORK/state loop dev socket
    rm -f "$image"
    # 2 GiB, sparse: big enough that mke2fs makes what it makes for an SD card's root (4 KiB
    # blocks, 256-byte inodes, a 64 MiB journal), not its "small" type (1 KiB blocks)
    truncate -s 2G "$image"
    mkfs.ext4 -q -F "$image" || return 1
    loop=$(losetup -f --show "$image") || return 1
    dev=$(basename "$loop")
    mkdir -p "$state"
    if [ "$options" = installed ]; then
        mount -t ext4 -o defaults,noatime "$loop" "$state" || return 1
        log "[$options] $("$SYSTEST_REPO/deploy/kiosk-lazytime" "$state/kiosk-player" 2>&1)"
        check "[$options] kiosk-lazytime added lazytime and kept noatime ($(findmnt -n -o OPTIONS "$state"))" \
            sh -c "findmnt -n -o OPTIONS '$state' | grep -q 'noatime' && findmnt -n -o OPTIONS '$state' | grep -q 'lazytime'"
    else
        mount -t ext4 -o "defaults,$options" "$loop" "$state" || return 1
    fi
    socket=$SYSTEST_WORK/mpd.socket
    CONFIG=$SYSTEST_WORK/config.json
    player_config "$CONFIG" "$MEDIA_ROOT" "$state/kiosk-player" "\"mpd\": {\"socket\": \"$socket\"}, \"repeat\": true"
    : > "$SYSTEST_WORK/player.log"
    player_start "$CONFIG"
    wait_for 60 "the MPD socket" mpc -q -h "$socket" status || return 1
    wait_for 120 "the stick scanned" player_log_has "library: scanned"
    mpc -q -h "$socket" add KIOSKWRT && mpc -q -h "$socket" play || return 1
    # the first saves of a new state directory (files created) are not what an hour is made of
    snooze 15
    sync
    local start_sectors now_sectors t0 t elapsed
    read_sectors() { awk '{ print $7 }' "/sys/block/$dev/stat"; }
    start_sectors=$(read_sectors)
    t0=$(now_us)
    log "[$options] start: $start_sectors sectors written so far on $dev"
    for ((t = 30; t <= minutes * 60; t += 30)); do
        while [ $(( $(now_us) - t0 )) -lt $((t * 1000000)) ]; do snooze 0.5; done
        now_sectors=$(read_sectors)
        log "[$options] ${t} s: $(( (now_sectors - start_sectors) * 512 / 1024 )) KiB, $(mpc -h "$socket" status | sed -n 2p)"
    done
    elapsed=$(( $(now_us) - t0 ))
    now_sectors=$(read_sectors)
    local bytes=$(( (now_sectors - start_sectors) * 512 ))
    local per_hour=$(( bytes * 3600000000 / elapsed ))
    figure "writes_${options//,/_}_bytes" "$bytes"
    figure "writes_${options//,/_}_seconds" "$(( elapsed / 1000000 ))"
    figure "writes_${options//,/_}_kib_per_hour" "$(( per_hour / 1024 ))"
    log "[$options] $bytes bytes in $(( elapsed / 1000000 )) s of playback: $(( per_hour / 1024 )) KiB per hour"
    ls -la "$state/kiosk-player" > "$SYSTEST_ARTIFACTS/state-${options//,/_}.txt"
    check "[$options] still playing" sh -c "mpc -h '$socket' status | grep -q playing"
    check "[$options] clean exit" player_stop
    cp "$SYSTEST_WORK/player.log" "$SYSTEST_ARTIFACTS/player-${options//,/_}.log"
    umount "$state" && losetup -d "$loop"
    rm -f "$image"
}

for options in $variants; do
    measure "$options" || fail "measure with $options"
done
finish
