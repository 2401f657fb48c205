#!/bin/bash
# Tests for deploy/kiosk-automount and 80-kiosk-player-automount.rules.
#   - directory names from labels (safe-name) and collisions (choose-dir): always run;
#   - real mounts of vfat / ext4 / exfat images on loop devices: need root, losetup and mkfs.*;
#   - the udev rule, through `udevadm test` on a loop device dressed up as USB: needs root,
#     unshare and udevadm.
# What cannot run is skipped with the reason. Prints "test-automount: N passed, N failed".
set -uo pipefail
export LC_ALL=C
here=$(cd "$(dirname "$0")/.." && pwd)
tool="$here/kiosk-automount"
work=$(mktemp -d /tmp/kiosk-automount-test.XXXXXX)
# shellcheck source=harness.sh
source "$here/tests/harness.sh"
loops=()

cleanup() {
    local d l
    for d in "$work"/media/*; do mountpoint -q "$d" 2>/dev/null && umount -l "$d"; done
    # (image runs in $(...), a subshell: it lists its loop devices in a file, not in an array)
    for l in "${loops[@]}" $(cat "$work/loops" 2>/dev/null); do losetup -d "$l" 2>/dev/null; done
    rm -rf "$work"
}
trap cleanup EXIT


echo "safe-name"
name() { "$tool" safe-name "$1" "$2" "$3"; }
expect_eq "plain label is kept" "$(name MUSIC 1234-ABCD sda1)" MUSIC
expect_eq "spaces (udev \\x20) become one underscore" "$(name 'My\x20\x20Music' 1234-ABCD sda1)" My_Music
expect_eq "slashes and dot-dot cannot escape" "$(name '..\x2f..\x2fetc' 1234-ABCD sda1)" etc
expect_eq "a raw slash is replaced" "$(name 'a/b' U sda1)" a_b
expect_eq "label of dots only falls back to the UUID" "$(name '..' 1234-ABCD sda1)" 1234-ABCD
expect_eq "dot runs collapse, so no '..' inside a name" "$(name 'a...b' U sda1)" a.b
expect_eq "leading dot removed (no hidden directory)" "$(name '.hidden' U sda1)" hidden
expect_eq "leading dash removed (no option-like name)" "$(name '--rf' U sda1)" rf
expect_eq "empty label falls back to the UUID" "$(name '' 2f1c9a7e-0b5d-4c1e-9d3a-5e2b7c8d9f00 sda1)" \
    2f1c9a7e-0b5d-4c1e-9d3a-5e2b7c8d9f00
expect_eq "no label, no UUID: usb-<kernel name>" "$(name '' '' sdb1)" usb-sdb1
expect_eq "non-ASCII label without letters falls back to the UUID" "$(name $'\xe9\x9f\xb3\xe6\xa5\xbd' 0C1F-22AA sda1)" 0C1F-22AA
expect_eq "non-ASCII bytes inside a label become one underscore" "$(name $'Caf\xc3\xa9 Musik' U sda1)" Caf_Musik
expect_eq "shell metacharacters are replaced" "$(name '$(reboot);`x`' U sda1)" reboot_x
long=$(name "$(printf 'A%.0s' $(seq 1 80))" U sda1)
expect_eq "names are cut to 48 bytes" "${#long}" 48
expect_eq "a cut never ends in a separator" "$(name "$(printf 'a%.0s' $(seq 1 47))_b" U sda1)" "$(printf 'a%.0s' $(seq 1 47))"

echo "choose-dir"
root="$work/choose"
mkdir -p "$root"
expect_eq "free name is used as is" "$("$tool" choose-dir "$root" MUSIC /dev/sdz1)" "$root/MUSIC"
mkdir "$root/MUSIC"
expect_eq "an empty leftover directory is reused" "$("$tool" choose-dir "$root" MUSIC /dev/sdz1)" "$root/MUSIC"
touch "$root/MUSIC/file"
expect_eq "a non-empty directory is skipped" "$("$tool" choose-dir "$root" MUSIC /dev/sdz1)" "$root/MUSIC-2"
touch "$root/MUSIC-2"
mkdir -p "$root/MUSIC-3/x"
expect_eq "files and full directories are skipped in turn" "$("$tool" choose-dir "$root" MUSIC /dev/sdz1)" "$root/MUSIC-4"
ln -s /etc "$root/LINK"
expect_eq "a symlink is never used" "$("$tool" choose-dir "$root" LINK /dev/sdz1)" "$root/LINK-2"
for k in $(seq 2 99); do mkdir -p "$root/FULL-$k/x"; done
mkdir -p "$root/FULL/x"
if out=$("$tool" choose-dir "$root" FULL /dev/sdz1 2>&1); then
    fail "gives up after FULL-99" "printed '$out'"
else
    case "$out" in *"no free directory"*) pass "gives up after FULL-99 with a clear error" ;;
        *) fail "gives up after FULL-99 with a clear error" "printed '$out'" ;; esac
fi
if out=$("$tool" frobnicate 2>&1); then fail "unknown command exits non-zero"; else
    case "$out" in *"unknown command 'frobnicate'"*) pass "unknown command is named" ;;
        *) fail "unknown command is named" "$out" ;; esac
fi

echo "mount / unmount (loop devices)"
can_mount=1
why=''
if [ "$(id -u)" != 0 ]; then can_mount=0; why="not root"
elif ! command -v losetup >/dev/null || ! losetup -f >/dev/null 2>&1; then can_mount=0; why="no free loop device"
elif ! command -v mkfs.vfat >/dev/null; then can_mount=0; why="mkfs.vfat missing (dosfstools)"
fi

# image NAME FSTYPE LABEL: a 16 MiB image with one file, attached to a loop device (printed).
image() {
    local img="$work/$1.img" dev
    truncate -s 16M "$img"
    case "$2" in
        vfat) mkfs.vfat -n "$3" "$img" >/dev/null && mcopy_file "$img" ;;
        ext4) mkfs.ext4 -q -L "$3" -d "$work/content" "$img" >/dev/null ;;
        exfat) mkfs.exfat -L "$3" "$img" >/dev/null ;;
    esac || return 1
    dev=$(losetup -f --show "$img") || return 1
    echo "$dev" >>"$work/loops"
    printf '%s\n' "$dev"
}
mcopy_file() {
    # Put a file on the FAT image without mounting it (mtools), when available.
    if command -v mcopy >/dev/null; then mcopy -i "$1" "$work/content/track.flac" ::/track.flac; fi
}

# kernel_has FSTYPE: the running kernel can mount it (loading the module if need be).
kernel_has() { grep -qw "$1" /proc/filesystems || { modprobe -q "$1" 2>/dev/null && grep -qw "$1" /proc/filesystems; }; }
main_fs=''
if [ "$can_mount" = 1 ]; then
    for t in vfat ext4; do
        if kernel_has "$t" && command -v "mkfs.$t" >/dev/null; then main_fs=$t; break; fi
    done
    [ -n "$main_fs" ] || { can_mount=0; why="the kernel mounts neither vfat nor ext4"; }
fi
if [ "$can_mount" = 1 ]; then
    export KIOSK_MEDIA_ROOT="$work/media" KIOSK_AUTOMOUNT_STATE="$work/state"
    mkdir -p "$work/content"
    printf '#!/bin/sh\necho should-not-run\n' >"$work/content/track.flac"
    chmod +x "$work/content/track.flac"
    a=$(image a "$main_fs" MUSIC) && b=$(image b "$main_fs" MUSIC) || { can_mount=0; why="could not make loop images"; }
fi
if [ "$can_mount" = 1 ]; then
    echo "  ($main_fs images)"
    if "$tool" mount "$a" 2>"$work/log"; then
        expect_eq "first stick mounts under its label" "$(findmnt -rn -S "$a" -o TARGET)" "$KIOSK_MEDIA_ROOT/MUSIC"
        opts=$(findmnt -rn -S "$a" -o OPTIONS)
        ok=1
        for o in ro nosuid nodev noexec; do case ",$opts," in *",$o,"*) ;; *) ok=0 ;; esac; done
        if [ $ok = 1 ]; then pass "mounted ro,nosuid,nodev,noexec"; else fail "mounted ro,nosuid,nodev,noexec" "$opts"; fi
        if touch "$KIOSK_MEDIA_ROOT/MUSIC/new" 2>/dev/null; then fail "the stick is read-only"; else pass "the stick is read-only"; fi
        if [ -f "$KIOSK_MEDIA_ROOT/MUSIC/track.flac" ]; then
            if "$KIOSK_MEDIA_ROOT/MUSIC/track.flac" 2>/dev/null; then fail "files on the stick cannot be executed"
            else pass "files on the stick cannot be executed"; fi
        else
            skip "files on the stick cannot be executed" "no file on the image (mtools missing)"
        fi
    else
        fail "first stick mounts" "$(cat "$work/log")"
    fi
    if "$tool" mount "$b" 2>"$work/log"; then
        expect_eq "second stick with the same label gets MUSIC-2" "$(findmnt -rn -S "$b" -o TARGET)" "$KIOSK_MEDIA_ROOT/MUSIC-2"
    else
        fail "second stick mounts" "$(cat "$work/log")"
    fi
    "$tool" mount "$a" 2>"$work/log"
    expect_eq "mounting a mounted stick again changes nothing" "$(findmnt -rn -S "$a" -o TARGET | wc -l)" 1
    "$tool" unmount "$a" 2>"$work/log"
    if [ -e "$KIOSK_MEDIA_ROOT/MUSIC" ] || findmnt -rn -S "$a" >/dev/null; then
        fail "unmount removes the mount and its directory" "$(cat "$work/log")"
    else
        pass "unmount removes the mount and its directory"
    fi
    # Busy: a process sits in the stick; the unmount is lazy and still succeeds.
    if findmnt -rn -S "$b" >/dev/null; then
        ( cd "$KIOSK_MEDIA_ROOT/MUSIC-2" && exec sleep 30 ) &
        busy=$!
        sleep 0.3
        if "$tool" unmount "$b" 2>"$work/log" && ! findmnt -rn -S "$b" >/dev/null; then
            pass "a busy stick is detached lazily"
        else
            fail "a busy stick is detached lazily" "$(cat "$work/log")"
        fi
        kill "$busy" 2>/dev/null; wait "$busy" 2>/dev/null
    fi
    "$tool" unmount "$b" 2>"$work/log"
    case "$(cat "$work/log")" in *"nothing mounted"*) pass "unmounting twice is harmless" ;;
        *) fail "unmounting twice is harmless" "$(cat "$work/log")" ;; esac

    # One stick of each other supported type, with an awkward label.
    for t in vfat ext4 exfat; do
        [ "$t" != "$main_fs" ] || continue
        if ! command -v "mkfs.$t" >/dev/null; then skip "$t stick" "mkfs.$t missing"; continue; fi
        if ! kernel_has "$t"; then skip "$t stick" "the running kernel has no $t driver"; continue; fi
        if ! c=$(image "c-$t" "$t" 'Ex Fat'); then fail "$t image"; continue; fi
        if "$tool" mount "$c" 2>"$work/log"; then
            expect_eq "$t stick mounts" "$(findmnt -rn -S "$c" -o TARGET)" "$KIOSK_MEDIA_ROOT/Ex_Fat"
            case ",$(findmnt -rn -S "$c" -o OPTIONS)," in *,ro,*) pass "$t mounted read-only" ;; *) fail "$t mounted read-only" ;; esac
            "$tool" unmount "$c" 2>/dev/null
        else
            fail "$t stick mounts" "$(cat "$work/log")"
        fi
    done
    if [ "$main_fs" = ext4 ] || kernel_has ext4; then
        if c=$(image dots ext4 '../etc'); then
            "$tool" mount "$c" 2>"$work/log"
            expect_eq "label '../etc' mounts as 'etc' inside the media root" \
                "$(findmnt -rn -S "$c" -o TARGET)" "$KIOSK_MEDIA_ROOT/etc"
            "$tool" unmount "$c" 2>/dev/null
        fi
    fi

    # Staff sticks: a regular file kiosk-staff at the top. FAT/exFAT: read-write, owned by the
    # player's user; ext4: stays read-only (its owners are on the stick) and the log says so.
    export KIOSK_PLAYER_USER=nobody
    mkdir -p "$work/staff"
    : >"$work/staff/kiosk-staff"
    for t in vfat exfat ext4; do
        if ! command -v "mkfs.$t" >/dev/null; then skip "$t staff stick" "mkfs.$t missing"; continue; fi
        if ! kernel_has "$t"; then skip "$t staff stick" "the running kernel has no $t driver"; continue; fi
        img="$work/staff-$t.img"
        truncate -s 16M "$img"
        case "$t" in
            vfat) mkfs.vfat -n STAFF "$img" >/dev/null && command -v mcopy >/dev/null \
                && mcopy -i "$img" "$work/staff/kiosk-staff" ::/kiosk-staff ;;
            exfat) false ;;  # no tool puts a file on an exFAT image without mounting it
            ext4) mkfs.ext4 -q -L STAFF -d "$work/staff" "$img" >/dev/null ;;
        esac || { skip "$t staff stick" "cannot put the marker on a $t image here"; continue; }
        s=$(losetup -f --show "$img") || { fail "$t staff image"; continue; }
        echo "$s" >>"$work/loops"
        if "$tool" mount "$s" 2>"$work/log"; then
            opts=",$(findmnt -rn -S "$s" -o OPTIONS),"
            expect_eq "a $t staff stick is mounted once, at its label" "$(findmnt -rn -S "$s" -o TARGET)" "$KIOSK_MEDIA_ROOT/STAFF"
            if [ "$t" = ext4 ]; then
                case "$opts" in *,ro,*) pass "an ext4 staff stick stays read-only" ;; *) fail "an ext4 staff stick stays read-only" "$opts" ;; esac
                case "$(cat "$work/log")" in *"stays read-only"*) pass "the log says why an ext4 staff stick stays read-only" ;;
                    *) fail "the log says why an ext4 staff stick stays read-only" "$(cat "$work/log")" ;; esac
            else
                case "$opts" in *,rw,*nosuid*nodev*noexec*) pass "a $t staff stick is read-write, nosuid,nodev,noexec" ;;
                    *) fail "a $t staff stick is read-write, nosuid,nodev,noexec" "$opts" ;; esac
                case "$opts" in *",uid=$(id -u nobody),"*) pass "a $t staff stick's files are the player user's" ;;
                    *) fail "a $t staff stick's files are the player user's" "$opts" ;; esac
            fi
            if [ -z "$(ls -A "$work/state" | grep probe)" ]; then pass "no probe mount is left"; else fail "no probe mount is left"; fi
            "$tool" unmount "$s" 2>/dev/null
        else
            fail "$t staff stick mounts" "$(cat "$work/log")"
        fi
        # Detached at once: the blank-device check below wants the loop device it always had (the
        # udev database may still describe another number's earlier image).
        losetup -d "$s" 2>/dev/null
    done
    # An export stick (a regular file kiosk-export: the box's cards and bookmarks go on it) is
    # mounted as a staff stick is.
    mkdir -p "$work/export"
    : >"$work/export/kiosk-export"
    img="$work/export-vfat.img"
    truncate -s 16M "$img"
    if ! command -v mkfs.vfat >/dev/null || ! command -v mcopy >/dev/null || ! kernel_has vfat; then
        skip "vfat export stick" "mkfs.vfat, mcopy or the vfat driver missing"
    elif mkfs.vfat -n EXPORT "$img" >/dev/null && mcopy -i "$img" "$work/export/kiosk-export" ::/kiosk-export \
        && s=$(losetup -f --show "$img"); then
        echo "$s" >>"$work/loops"
        if "$tool" mount "$s" 2>"$work/log"; then
            opts=",$(findmnt -rn -S "$s" -o OPTIONS),"
            case "$opts" in *,rw,*nosuid*nodev*noexec*",uid=$(id -u nobody),"*) pass "a vfat export stick is read-write for the player's user" ;;
                *) fail "a vfat export stick is read-write for the player's user" "$opts" ;; esac
            "$tool" unmount "$s" 2>/dev/null
        else
            fail "vfat export stick mounts" "$(cat "$work/log")"
        fi
        losetup -d "$s" 2>/dev/null
    else
        fail "vfat export image"
    fi
    unset KIOSK_PLAYER_USER

    truncate -s 1M "$work/blank.img"
    e=$(losetup -f --show "$work/blank.img") && loops+=("$e")
    if out=$("$tool" mount "$e" 2>&1); then fail "a blank device is refused" "$out"; else
        case "$out" in *"no file system"*) pass "a blank device is refused with a clear error" ;;
            *) fail "a blank device is refused with a clear error" "$out" ;; esac
    fi
    if out=$("$tool" mount /nonexistent 2>&1); then fail "a missing device is refused"; else
        case "$out" in *"not a block device"*) pass "a missing device is refused with a clear error" ;;
            *) fail "a missing device is refused with a clear error" "$out" ;; esac
    fi
    unset KIOSK_MEDIA_ROOT KIOSK_AUTOMOUNT_STATE
else
    skip "real mounts" "$why"
fi

echo "udev rule (udevadm test)"
if [ "$can_mount" != 1 ] || ! command -v udevadm >/dev/null || ! command -v unshare >/dev/null; then
    skip "udev rule" "${why:-udevadm or unshare missing}"
else
    f=$(image f vfat STICK)
    rules="$work/rules"
    mkdir -p "$rules"
    cp "$here/udev/80-kiosk-player-automount.rules" "$rules/"
    # udevadm test reads /etc/udev/rules.d too: a private mount namespace swaps in our folder.
    run_udev_test() {
        unshare -m sh -c "mount --bind '$rules' /etc/udev/rules.d && udevadm test --action=add '/sys/class/block/${f#/dev/}'" 2>&1
    }
    out=$(run_udev_test)
    case "$out" in *"ID_FS_TYPE=vfat"*) pass "udev sees the stick's file system" ;;
        *) fail "udev sees the stick's file system" "no ID_FS_TYPE=vfat in udevadm test output" ;; esac
    case "$out" in *"SYSTEMD_WANTS=kiosk-automount"*) fail "a non-USB disk is not mounted" ;;
        *) pass "a non-USB disk is not mounted" ;; esac
    # Pretend the loop device sits on USB, as 60-persistent-storage.rules would say for a stick.
    printf 'KERNEL=="%s", ENV{ID_BUS}="usb"\n' "${f#/dev/}" >"$rules/79-pretend-usb.rules"
    out=$(run_udev_test)
    case "$out" in *"SYSTEMD_WANTS=kiosk-automount@${f#/dev/}.service"*) pass "a USB stick pulls in kiosk-automount@${f#/dev/}.service" ;;
        *) fail "a USB stick pulls in kiosk-automount@${f#/dev/}.service" "$(printf '%s\n' "$out" | grep -E 'SYSTEMD|ID_BUS|kiosk' | head -5)" ;; esac
    case "$out" in *"kiosk-player-automount.rules"*[0-9]" "*[Ii]nvalid*) fail "the rule file parses cleanly" ;;
        *) pass "the rule file parses cleanly" ;; esac
fi

harness_end
