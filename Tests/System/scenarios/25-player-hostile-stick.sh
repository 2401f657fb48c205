#!/bin/bash
# Player 16: a hostile stick at an exhibit station (issue 44). An ext4 stick made here
# (mkfs.ext4 -d) with the two-albums fixture's Alpha and, where the player reads files: exhibit.json
# a FIFO, Alpha's folder.jpg a UNIX socket, cover.jpg a link to /dev/zero, list.m3u a link out of
# the volume to the state directory's cards.json, kiosk-staff a link to /dev/zero,
# kiosk-play-counts.csv a link to the state directory's exhibit-counts.json, a folder `x.m3u`.
# Expected:
#   1. READY=1 (tools/notify-listen.py on $NOTIFY_SOCKET) within 5 s of the start: the FIFO does
#      not hold the loop (it did for ever before: the box restarted every ~62 s under systemd);
#   2. the log names exhibit.json as a FIFO; the config's clip stays;
#   3. under strace (a second start): no file created, opened for writing, renamed or removed
#      outside the state directory, the runtime directory and /dev (the stick is read-only anyway,
#      its link targets in the state directory unchanged by checksum); nothing the stick names
#      opened through a link (no descriptor on /dev/zero or a state file from a stick path);
#   4. a FAT staff stick mounted by kiosk-automount (read-write for the player's user) meanwhile
#      gets kiosk-play-counts.csv, written beneath it with an O_EXCL|O_NOFOLLOW temporary;
#   5. SIGTERM → exit 0.
# timeout: 240
# shellcheck source=../lib.sh
source "$SYSTEST_REPO/Tests/System/lib.sh"
require_infra loop
require_command python3 strace mkfs.ext4 mkfs.vfat mcopy losetup blkid
require_player_run
use_fixture two-albums  # fixtures.sh: Alpha 3 × 12 s, Beta 2 × 4 s
tools=$SYSTEST_REPO/Tests/System/tools

MEDIA_ROOT=/media/kiosk
STATE_DIR=$SYSTEST_WORK/state
CONFIG=$SYSTEST_WORK/config.json
mkdir -p "$STATE_DIR"
echo '{"format": "kiosk-player-cards", "version": 1, "cards": {}}' > "$STATE_DIR/cards.json"
echo '{"2026-12-06": {"one": 3}}' > "$STATE_DIR/exhibit-counts.json"
sums() { sha256sum "$STATE_DIR/cards.json" "$STATE_DIR/exhibit-counts.json"; }
before=$(sums)

# The hostile stick.
tree=$SYSTEST_WORK/hostile
mkdir -p "$tree/Alpha"
cp "$FIXTURE/library/Artist A/Alpha/"*.flac "$tree/Alpha/"
mkfifo "$tree/exhibit.json"
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$tree/Alpha/folder.jpg"
ln -s /dev/zero "$tree/Alpha/cover.jpg"
ln -s "$STATE_DIR/cards.json" "$tree/list.m3u"
ln -s /dev/zero "$tree/kiosk-staff"
ln -s "$STATE_DIR/exhibit-counts.json" "$tree/kiosk-play-counts.csv"
mkdir "$tree/x.m3u"
truncate -s 64M "$SYSTEST_WORK/hostile.img"
must "an ext4 stick with FIFOs, sockets and links" mkfs.ext4 -q -L HOSTILE -d "$tree" "$SYSTEST_WORK/hostile.img"
must "the hostile stick mounted read-only" media_mount "$SYSTEST_WORK/hostile.img" "$MEDIA_ROOT/HOSTILE"

player_config "$CONFIG" "$MEDIA_ROOT" "$STATE_DIR" '"exhibit": {
    "clips": [{"name": "one", "input": {"button": "play"}, "play": "Alpha/01 Alpha 1.flac", "mode": "oneShot"}]}'
must "a valid exhibit config" "$SYSTEST_PLAYER" check-config "$CONFIG"

# 1.
spawn notify python3 "$tools/notify-listen.py" "$SYSTEST_WORK/notify.sock" "$SYSTEST_WORK/notify.log"
must "the notify socket is bound" wait_for 10 "notify socket" test -S "$SYSTEST_WORK/notify.sock"
NOTIFY_SOCKET=$SYSTEST_WORK/notify.sock player_start "$CONFIG"
ready() { grep -q 'READY=1' "$SYSTEST_WORK/notify.log"; }
check "READY=1 within 5 s, the FIFO exhibit.json on the stick" wait_for 5 "READY=1" ready
figure ready_ms $(( ($(now_us) - PLAYER_START_US) / 1000 ))

# 2.
fifo_named() { player_log_has 'exhibit.json: a FIFO, not a regular file'; }
check "the log names exhibit.json as a FIFO" wait_for 30 "the FIFO in the log" fifo_named
check "the player is running" player_alive
check "SIGTERM: exits 0" player_stop

# 3. and 4. Again under strace, a FAT staff stick mounted by kiosk-automount while it runs.
calls=open,openat,openat2,creat,truncate,rename,renameat,renameat2,unlink,unlinkat,mkdir,mkdirat,link,linkat,symlink,symlinkat
(
    exec strace -f -qq -y -o "$SYSTEST_WORK/strace.txt" -e trace="$calls" \
        "$SYSTEST_PLAYER" run --config "$CONFIG"
) >> "$SYSTEST_WORK/player.log" 2>&1 &
strace_pid=$!
_systest_pids+=("$strace_pid")
player_child() { PLAYER_PID=$(pgrep -P "$strace_pid" | head -n 1) && [ -n "$PLAYER_PID" ]; }
must "the player starts under strace" wait_for 10 "the player under strace" player_child
check "the log names exhibit.json as a FIFO (under strace)" wait_for 60 "the FIFO in the log" fifo_named

truncate -s 32M "$SYSTEST_WORK/staff.img"
must "a FAT staff stick" mkfs.vfat -n STAFF "$SYSTEST_WORK/staff.img"
: > "$SYSTEST_WORK/kiosk-staff"
must "the staff marker on it" mcopy -i "$SYSTEST_WORK/staff.img" "$SYSTEST_WORK/kiosk-staff" ::/kiosk-staff
staff_dev=$(losetup -f --show "$SYSTEST_WORK/staff.img") || fail "a loop device for the staff stick"
export KIOSK_MEDIA_ROOT=$MEDIA_ROOT KIOSK_AUTOMOUNT_STATE=$SYSTEST_WORK/automount KIOSK_PLAYER_USER=$(id -un)
must "kiosk-automount mounts the staff stick" "$SYSTEST_REPO/deploy/kiosk-automount" mount "$staff_dev"
staff_mount=$(findmnt -rn -S "$staff_dev" -o TARGET)
log "staff stick on $staff_mount: $(findmnt -rn -S "$staff_dev" -o OPTIONS)"
case ",$(findmnt -rn -S "$staff_dev" -o OPTIONS)," in
    *,rw,*) log "ok: the staff stick is read-write" ;;
    *) check "the staff stick is mounted read-write" false ;;
esac
exported() { grep -q '^date,clip,plays' "$staff_mount/kiosk-play-counts.csv" 2>/dev/null; }
check "the play counts are written on the staff stick" wait_for 60 "kiosk-play-counts.csv" exported
check "the player is running" player_alive
# strace exits with its tracee's status.
stop_traced() {
    kill -TERM "$PLAYER_PID"
    wait "$strace_pid"
    local status=$?
    [ "$status" = 0 ] || { echo "player exited with status $status"; return 1; }
}
check "SIGTERM: exits 0 (under strace)" stop_traced
"$SYSTEST_REPO/deploy/kiosk-automount" unmount "$staff_dev" 2>/dev/null
losetup -d "$staff_dev" 2>/dev/null
cp "$SYSTEST_WORK/strace.txt" "$SYSTEST_ARTIFACTS/" 2>/dev/null

# The trace with each call on one line: when two threads' calls overlap, strace -f splits one into
# "PID call(args <unfinished ...>" and "PID <... call resumed>) = result"; joined here by PID, so
# that a path and its result are on the same line (the rename of the staff stick's export was
# flagged as a write outside, with its path on the other half).
traced() {
    awk '/ <unfinished \.\.\.>$/ { pid = $1; sub(/ <unfinished \.\.\.>$/, ""); held[pid] = $0; next }
        /^[0-9]+ +<\.\.\. [a-z0-9_]+ resumed>/ {
            pid = $1; rest = $0; sub(/^[0-9]+ +<\.\.\. [a-z0-9_]+ resumed>/, "", rest)
            if (pid in held) { print held[pid] rest; delete held[pid] } else print
            next
        }
        { print }
        END { for (pid in held) print held[pid] }' "$SYSTEST_WORK/strace.txt"
}
# What changed the file system: opens for writing or creating, renames, removals, links, folders.
writes() {
    traced | grep -E 'O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|rename|unlink|mkdir|link|creat\(|truncate\(' |
        grep -v ' = -1 ' || true
}
# Allowed: the state directory, the runtime directory, devices, and on the staff stick only the
# export and its temporary. Anything else is printed.
outside() {
    writes | grep -vE "\"$STATE_DIR|<$STATE_DIR|\"/dev/|\"/run/|<$staff_mount>, \"\.?kiosk-play-counts\.csv" |
        grep -vE "renameat2?\(<?[0-9]*<$staff_mount>, \"\.kiosk-play-counts\.csv\.[0-9a-f]+\.tmp\"" || true
}
log "writes seen: $(writes | wc -l)"
check "strace: nothing written outside the state directory (and the staff stick's export)" test -z "$(outside)"
outside | head -n 20
check "the link targets in the state directory are unchanged" test "$(sums)" = "$before"
# Nothing named on the stick opened what a link points to (-y shows the file a descriptor is).
through_links() {
    traced | grep -E '/media/kiosk' | grep -E "= [0-9]+<(/dev/zero|$STATE_DIR)" || true
}
check "strace: nothing on the stick opened through a link (to /dev/zero or the state directory)" \
    test -z "$(through_links)"
through_links | head -n 5
check "the hostile stick's link kiosk-play-counts.csv was not written through" \
    test "$(readlink "$MEDIA_ROOT/HOSTILE/kiosk-play-counts.csv")" = "$STATE_DIR/exhibit-counts.json"
finish
