#!/bin/bash
# Tests for deploy/kiosk-console (kiosk-player.service's ExecStartPre=+/ExecStopPost=+) against a
# fake sysfs and a stand-in player: which framebuffer it asks for, what `off` unbinds and records,
# that `on` restores exactly that, a second `off`, a player that cannot say. The kernel side (fbcon
# really leaving /dev/fb0 and coming back) is system-test scenario 19. Needs nothing but sh.
# Prints "test-console: N passed, N failed".
set -uo pipefail
export LC_ALL=C
here=$(cd "$(dirname "$0")/.." && pwd)
tool="$here/kiosk-console"
work=$(mktemp -d /tmp/kiosk-console-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
# shellcheck source=harness.sh
source "$here/tests/harness.sh"

sys=$work/sys
mkdir -p "$sys/class/vtconsole/vtcon0" "$sys/class/vtconsole/vtcon1" "$sys/class/graphics/fb0" "$sys/class/graphics/fbcon"
echo "(S) dummy device" >"$sys/class/vtconsole/vtcon0/name"
echo 0 >"$sys/class/vtconsole/vtcon0/bind"
echo "(M) frame buffer device" >"$sys/class/vtconsole/vtcon1/name"
echo 1 >"$sys/class/vtconsole/vtcon1/bind"
echo vc4drmfb >"$sys/class/graphics/fb0/name"
echo 1 >"$sys/class/graphics/fbcon/cursor_blink"
# the stand-in player: prints $FB for `check-config CONFIG --framebuffer`, fails with FAIL=1
cat >"$work/player" <<'PLAYER'
#!/bin/sh
[ "${FAIL:-0}" = 1 ] && { echo "config.json: screen.type: unknown value" >&2; exit 1; }
[ "$1 $3" = "check-config --framebuffer" ] || { echo "unexpected arguments: $*" >&2; exit 3; }
[ -z "${FB:-}" ] || echo "$FB"
PLAYER
chmod +x "$work/player"
export KIOSK_PLAYER=$work/player KIOSK_SYSFS=$sys KIOSK_CONSOLE_STATE=$work/state KIOSK_CONSOLE_TTY=$work/tty
bind() { cat "$sys/class/vtconsole/vtcon1/bind"; }

echo "off and on"
out=$(FB=/dev/fb0 sh "$tool" off /etc/kiosk-player/config.json 2>&1)
expect_eq "off exits 0" $? 0
expect_in "off names the framebuffer and what it did" "$out" "/dev/fb0 (vc4drmfb): framebuffer console unbound (vtcon1"
expect_eq "fbcon unbound" "$(bind)" 0
expect_eq "the dummy console untouched" "$(cat "$sys/class/vtconsole/vtcon0/bind")" 0
expect_eq "the unbind is recorded" "$(cat "$work/state")" "unbound vtcon1"
out=$(FB=/dev/fb0 sh "$tool" off 2>&1)
expect_in "a second off changes nothing and says so" "$out" "off already"
expect_eq "the record is kept" "$(cat "$work/state")" "unbound vtcon1"
out=$(sh "$tool" on 2>&1)
expect_in "on binds it again" "$out" "framebuffer console bound again (vtcon1)"
expect_eq "fbcon bound" "$(bind)" 1
expect_eq "the record is gone" "$(test -e "$work/state" && echo present || echo gone)" gone
out=$(sh "$tool" on 2>&1)
expect_in "on with nothing recorded does nothing" "$out" "nothing was changed"
expect_eq "fbcon still bound" "$(bind)" 1

echo "nothing to do"
out=$(FB='' sh "$tool" off 2>&1)
expect_in "no framebuffer (SPI panel over spidev, no screen): console left" "$out" "draws on no framebuffer"
expect_eq "fbcon still bound" "$(bind)" 1
out=$(FAIL=1 sh "$tool" off 2>&1)
expect_eq "a player that cannot say: still exit 0 (the player must start)" $? 0
expect_in "and the reason is printed" "$out" "screen.type: unknown value"
expect_eq "fbcon still bound" "$(bind)" 1
echo 0 >"$sys/class/vtconsole/vtcon1/bind"
out=$(FB=/dev/fb0 sh "$tool" off 2>&1)
expect_in "fbcon not bound (fbcon=map:N): nothing to do" "$out" "not bound: nothing to do"
sh "$tool" on >/dev/null 2>&1
expect_eq "and on does not bind what off did not unbind" "$(bind)" 0
echo 1 >"$sys/class/vtconsole/vtcon1/bind"
mv "$sys/class/vtconsole/vtcon1" "$work/vtcon1.saved"
out=$(FB=/dev/fb0 sh "$tool" off 2>&1)
expect_in "no framebuffer console registered (deferred takeover): said" "$out" "no framebuffer console registered"
mv "$work/vtcon1.saved" "$sys/class/vtconsole/vtcon1"
sh "$tool" on >/dev/null 2>&1

echo "usage"
sh "$tool" frobnicate >/dev/null 2>&1
expect_eq "an unknown command exits 2" $? 2

harness_end
