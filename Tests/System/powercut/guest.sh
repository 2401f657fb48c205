#!/bin/bash
# PID 1 of one power-cut cycle's guest (initramfs-init switches to it; powercut.sh boots it once
# per cycle and kills QEMU at a random instant). Never exits: the end of a cycle is the power cut.
#
#   1. the state disk (/dev/vda, ext4) checked as Raspberry Pi OS checks its root at boot
#      (e2fsck -p: journal replay) and mounted defaults,noatime; the music stick (/dev/vdb) and
#      the "new" stick of this cycle (/dev/vdc: one of two sets of files, so its index is
#      rewritten) mounted read-only under /media/kiosk;
#   2. what is on the state disk before the player starts, read by state-check.py: the records of
#      resume.state, bookmarks.json, each index's integrity (on a copy);
#   3. the player started (its log, with every record it writes, goes to the host as it is
#      written), then "armed" tells the host to cut the power within the next seconds;
#   4. meanwhile: a card linked to the album Power (`kiosk-player cards link` at the first boot)
#      is presented by the event script at 2, 6 and 12 s (`cards.again` "nothing": it starts the
#      album when nothing else from it plays), so the queue is a collection and bookmarks.json is
#      written too; then keep the player saving: pause/play, next, volume, the periodic saves.
out=$1
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 TERM=dumb
hang() { while true; do sleep 3600; done; }
trap hang EXIT
set -a
# shellcheck disable=SC1091
source "$out/powercut.env"  # POWERCUT_REPO, POWERCUT_PLAYER, POWERCUT_CYCLE_DIR, POWERCUT_SEED
set +a
dir=$POWERCUT_CYCLE_DIR
RANDOM=$POWERCUT_SEED
note() { echo "$(cut -d' ' -f1 /proc/uptime) $*" >> "$dir/guest.log"; }
note "guest up"

modprobe virtio_blk 2>> "$dir/guest.log"
for d in vda vdb vdc; do
    for _ in $(seq 100); do [ -b "/dev/$d" ] && break; sleep 0.05; done
done
fsck_output=$(e2fsck -p /dev/vda 2>&1)
fsck_status=$?
echo "fsck_status=$fsck_status" >> "$dir/found.env"
[ -n "$fsck_output" ] && echo "$fsck_output" > "$dir/fsck.txt"
note "e2fsck -p: status $fsck_status"
mkdir -p /state /media/kiosk/KIOSKPWR /media/kiosk/KIOSKNEW
mount -t ext4 -o defaults,noatime /dev/vda /state || { note "cannot mount the state disk"; echo "mount_failed=1" >> "$dir/found.env"; exit; }
mount -t vfat -o ro,nosuid,nodev,noexec /dev/vdb /media/kiosk/KIOSKPWR
mount -t vfat -o ro,nosuid,nodev,noexec /dev/vdc /media/kiosk/KIOSKNEW
state=/state/kiosk-player
mkdir -p "$state"
python3 "$POWERCUT_REPO/Tests/System/powercut/state-check.py" "$state" > "$dir/found.json" 2> "$dir/state-check.err"
note "state checked"

socket=/tmp/mpd.socket
cat > /tmp/config.json << EOF
{
  "board": "usb-keypad-hdmi",
  "mediaRoots": ["/media/kiosk"],
  "stateDirectory": "$state",
  "bookmarks": "all",
  "cards": { "again": "nothing" },
  "audio": { "device": "none", "fallbackDevices": [], "mixer": null },
  "screen": { "type": "none" },
  "inputs": { "keyboard": false },
  "mpd": { "socket": "$socket" }
}
EOF
card=0000001234
if ! "$POWERCUT_PLAYER" cards list --config /tmp/config.json 2>/dev/null | grep -q "$card"; then
    "$POWERCUT_PLAYER" cards link "$card" --album Power --config /tmp/config.json > "$dir/cards-link.log" 2>&1
    note "card $card linked to the album Power: status $?"
fi
printf '{"t": %d, "card": "%s"}\n' 2000 "$card" 6000 "$card" 12000 "$card" > /tmp/cards.jsonl
"$POWERCUT_PLAYER" --verbose run --config /tmp/config.json --script /tmp/cards.jsonl > "$dir/player.log" 2>&1 &
note "player started"
echo started > "$dir/started"
mpc_q() { timeout 10 mpc -q -h "$socket" "$@" > /dev/null 2>&1; }
for _ in $(seq 600); do mpc_q status && break; sleep 0.1; done
note "MPD answers"
echo armed > "$dir/armed"

# the card starts the album when nothing was resumed (the script, above)
while true; do
    case $((RANDOM % 8)) in
        0) action="pause"; mpc_q pause ;;
        1) action="play"; mpc_q play ;;
        2) action="next"; mpc_q next ;;
        3) action="volume"; mpc_q volume $((40 + RANDOM % 60)) ;;
        *) action="wait" ;;  # playing on: the periodic saves
    esac
    note "action $action"
    sleep "$((RANDOM % 3)).$((RANDOM % 10))"
done
