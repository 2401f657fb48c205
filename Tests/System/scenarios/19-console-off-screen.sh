#!/bin/bash
# Console: nothing draws over the player (deploy/kiosk-console, kiosk-player.service's
# ExecStartPre=+ / ExecStopPost=+; the guest has no systemd, so the scenario runs the helper where
# the unit does). The guest boots without `fbcon=map:9`, so the kernel's framebuffer console takes
# /dev/fb0 as it does on a Pi's vc4drmfb or an fbtft panel (guest.sh's fb_load unbinds it again for
# the other scenarios; this one binds it first).
#   1. fbcon bound again, text written to tty1 shows on /dev/fb0 (the check below can fail);
#   2. `kiosk-console off CONFIG` (the player's config: board qemu-gpio-sim, fbName "Virtual FB")
#      names /dev/fb0 and unbinds the framebuffer console;
#   3. the player starts as the hardened unit runs it: /dev/tty0 is /dev/null in its mount namespace
#      (the unit's DevicePolicy=closed and no CAP_SYS_TTY_CONFIG), so its own KDSETMODE fails (its log
#      says so); the two-albums stick's album list on screen, pixel for pixel as `kiosk-player render`
#      draws it;
#   4. a login prompt and lines of text written to tty1 and tty0 over 1.5 s (several cursor-blink
#      periods): the framebuffer still holds only the player's pixels, byte for byte the same as
#      before the text, and still the rendered list;
#   5. SIGTERM → exit 0; `kiosk-console on` binds fbcon again: the screen changes from the player's
#      picture to the console within 5 s, and new text on tty1 changes it again.
# timeout: 90
# shellcheck source=../lib.sh
source "$SYSTEST_REPO/Tests/System/lib.sh"
require_infra fb loop snd-aloop gpio-sim
require_command unshare python3
require_player_run
use_fixture two-albums  # fixtures.sh: Alpha 3 × 12 s (magenta cover), Beta 2 × 4 s (no cover)

helper=$SYSTEST_REPO/deploy/kiosk-console
export KIOSK_PLAYER=$SYSTEST_PLAYER KIOSK_CONSOLE_STATE=$SYSTEST_WORK/console.state

# an emulated foreign CPU (arm64 under TCG) is several times slower: the waits scale as the timeout does
scale=${SYSTEST_TIMEOUT_SCALE:-1}
find_vtcon() {
    local v
    for v in /sys/class/vtconsole/vtcon*; do
        case $(cat "$v/name" 2>/dev/null) in *"frame buffer"*) vtcon=$v; return 0 ;; esac
    done
    return 1
}
if ! find_vtcon; then
    # a kernel with deferred fbcon takeover registers fbcon at the first text on a VT
    printf '\r\n' > /dev/tty1
    wait_for $((5 * scale)) "fbcon to take over after text on tty1" find_vtcon ||
        fail "no framebuffer console registered (/sys/class/vtconsole/*/name), even after text on tty1"
    find_vtcon
    log "fbcon registered at the first text on tty1 (deferred takeover)"
fi
log "framebuffer console: ${vtcon##*/} ($(cat "$vtcon/name"))"
fbcon_bound() { [ "$(cat "$vtcon/bind")" = 1 ]; }
fbcon_unbound() { [ "$(cat "$vtcon/bind")" = 0 ]; }
# the other scenarios want a quiet /dev/fb0, as fb_load left it
trap 'echo 0 > "$vtcon/bind" 2>/dev/null; _systest_cleanup' EXIT

# 1. the console draws on /dev/fb0. A player an earlier scenario killed with SIGKILL (13) left the
# console in KD_GRAPHICS, where fbcon draws nothing (CI's full run failed here): VT 1 in front and
# in text mode again (KDSETMODE 0x4B3A, KD_TEXT 0), as a boot would have it.
chvt 1 2>/dev/null || true
python3 -c 'import fcntl, os; fcntl.ioctl(os.open("/dev/tty1", os.O_RDWR), 0x4B3A, 0)' ||
    log "KDSETMODE KD_TEXT on tty1 failed"
must "the FAT stick mounted read-only; a valid config" player_stick "$FIXTURE/stick.img" KIOSKLIB
black_screen
echo 1 > "$vtcon/bind"
must "fbcon bound to the console layer" fbcon_bound
printf '\033[2J\033[H\nkiosk login: ' > /dev/tty1
check "text on tty1 is drawn on /dev/fb0 while fbcon is bound" wait_for $((5 * scale)) "console text on /dev/fb0" fb_changed_from "$SYSTEST_WORK/black.raw"
fb_screenshot 1-console > /dev/null

# 2. the unit's ExecStartPre=+
out=$(sh "$helper" off "$CONFIG" 2>&1)
log "kiosk-console off: $out"
check "kiosk-console off names the player's framebuffer" grep -q '^kiosk-console: /dev/fb0 (Virtual FB): framebuffer console unbound' <<< "$out"
check "fbcon unbound" fbcon_unbound

# 3. the player, with /dev/tty0 out of its reach as in the unit
cat > "$SYSTEST_WORK/player-no-tty" << 'EOF'
#!/bin/sh
# kiosk-player with /dev/tty0 replaced by /dev/null in a mount namespace of its own (exec: same pid)
exec unshare -m --propagation private sh -c 'mount --bind /dev/null /dev/tty0 && exec "$0" "$@"' "$REAL_PLAYER" "$@"
EOF
chmod +x "$SYSTEST_WORK/player-no-tty"
REAL_PLAYER=$SYSTEST_PLAYER SYSTEST_PLAYER=$SYSTEST_WORK/player-no-tty player_start "$CONFIG"
browse='{"categoryLabel":"Albums","selectedIndex":0,"items":[{"title":"Alpha","subtitle":"Artist A · 3 tracks","artworkKey":"alpha"},{"title":"Beta","subtitle":"Artist B · 2 tracks"}]}'
list=$(render_expected browse-alpha-cover browse "$browse" --artwork "$FIXTURE/library/Artist A/Alpha/cover.png")
must "the album list (with Alpha's cover), as kiosk-player render draws it" wait_screen $((45 * scale)) "$list"
check "the player could not take the console itself (its KDSETMODE failed, as under the unit)" \
    player_log_has 'console /dev/tty0 not switched to graphics mode'
fbtool grab /dev/fb0 "$SYSTEST_WORK/player.raw"

# 4. text while the player shows its screen
for i in 1 2 3 4 5; do
    printf '\r\nDebian GNU/Linux kiosk tty1 %s\r\n\r\nkiosk login: ' "$i" > /dev/tty1
    printf 'text on the foreground console %s\r\n' "$i" > /dev/tty0
    snooze 0.3
done
fb_screenshot 4-text-written > /dev/null
check "the framebuffer holds only the player's pixels (byte for byte as before the text)" fb_same_as "$SYSTEST_WORK/player.raw"
check "and still the rendered album list" fb_matches "$list"
check "the player is running" player_alive

# 5. the unit's stop and ExecStopPost=+
check "clean exit" player_stop
out=$(sh "$helper" on 2>&1)
log "kiosk-console on: $out"
check "fbcon bound again" fbcon_bound
check "the console is back on /dev/fb0 (the player's picture replaced)" \
    wait_for $((5 * scale)) "the console to redraw /dev/fb0" fb_changed_from "$SYSTEST_WORK/player.raw"
fbtool grab /dev/fb0 "$SYSTEST_WORK/console-back.raw"
printf '\r\nkiosk login: ' > /dev/tty1
check "new text on tty1 is drawn again" wait_for $((5 * scale)) "new console text" fb_changed_from "$SYSTEST_WORK/console-back.raw"
fb_screenshot 5-console-back > /dev/null
check "kiosk-console on leaves no state behind" test ! -e "$KIOSK_CONSOLE_STATE"
finish
