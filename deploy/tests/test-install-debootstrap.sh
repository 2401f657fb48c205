#!/bin/bash
# A real install.sh run into a fresh Debian tree (debootstrap --variant=minbase, plus systemd and udev
# as on every Raspberry Pi OS image), then checks of what it left there:
#
#   deploy/tests/test-install-debootstrap.sh [--suite bookworm|trixie] [--binary FILE]
#
# The pristine tree is cached under $KIOSK_MINBASE_CACHE (default /var/cache/kiosk-player)/<suite>-minbase (made once, about a
# minute); each run works on an overlay (or a copy) of it, so the cache stays clean. Needs root,
# debootstrap and a Debian archive (debootstrap's default, or $DEBIAN_MIRROR when set). Without --binary it uses .build/release/kiosk-player or
# .build/debug/kiosk-player when one exists (the build must match this machine's architecture).
# Prints "test-install: N passed, N failed".
set -uo pipefail
export LC_ALL=C
repo=$(cd "$(dirname "$0")/../.." && pwd)
suite=bookworm
binary=''
while [ $# -gt 0 ]; do
    case "$1" in
        --suite) suite=$2; shift ;;
        --binary) binary=$2; shift ;;
        *) echo "test-install: unknown option '$1'" >&2; exit 2 ;;
    esac
    shift
done
cache=${KIOSK_MINBASE_CACHE:-/var/cache/kiosk-player}/$suite-minbase
# No archive host written here: debootstrap's default unless the machine's owner names one.
mirror=()
[ -z "${DEBIAN_MIRROR:-}" ] || mirror=("$DEBIAN_MIRROR")
harness_name=test-install
# shellcheck source=harness.sh
source "$repo/deploy/tests/harness.sh"
# shellcheck source=../units.sh
source "$repo/deploy/units.sh"
# shellcheck source=../trees/mounts.sh
source "$repo/deploy/trees/mounts.sh"

[ "$(id -u)" = 0 ] || { echo "test-install: skipped: needs root"; exit 0; }
command -v debootstrap >/dev/null || { echo "test-install: skipped: debootstrap is not installed (apt-get install debootstrap)"; exit 0; }

if [ ! -x "$cache/usr/bin/systemctl" ]; then
    echo "test-install: making the $suite tree in $cache (once)"
    remove_tree "$cache.tmp" || exit 1
    mkdir -p "$(dirname "$cache")"
    start=$(date +%s)
    if ! debootstrap --variant=minbase --include=systemd,systemd-sysv,udev "$suite" "$cache.tmp" ${mirror[@]+"${mirror[@]}"} \
        >"$cache.log" 2>&1; then
        echo "test-install: skipped: debootstrap $suite failed (see $cache.log): $(tail -n 2 "$cache.log" | tr '\n' ' ')"
        exit 0
    fi
    mv "$cache.tmp" "$cache"
    echo "test-install: debootstrap took $(( $(date +%s) - start )) s"
fi

if [ -z "$binary" ]; then
    for b in "$repo/.build/release/kiosk-player" "$repo/.build/debug/kiosk-player"; do
        if [ -x "$b" ]; then binary=$b; break; fi
    done
fi
[ -n "$binary" ] || { echo "test-install: skipped: no kiosk-player binary (swift build first, or --binary)"; exit 0; }

work=$(mktemp -d /tmp/kiosk-install-test.XXXXXX)
tree="$work/tree"
mounts=()
cleanup() {
    local i
    for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[$i]}" 2>/dev/null; done
    remove_tree "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir -p "$tree" "$work/upper" "$work/overlay-work"
if mount -t overlay overlay -o "lowerdir=$cache,upperdir=$work/upper,workdir=$work/overlay-work" "$tree" 2>/dev/null; then
    mounts+=("$tree")
    echo "test-install: $suite tree: overlay on $cache"
else
    cp -a "$cache/." "$tree/"
    echo "test-install: $suite tree: copy of $cache (no overlayfs here)"
fi
# apt and maintainer scripts want /proc and /dev inside the chroot.
mount -t proc proc "$tree/proc" && mounts+=("$tree/proc")
mount --bind /dev "$tree/dev" && mounts+=("$tree/dev")
cp /etc/resolv.conf "$tree/etc/resolv.conf" 2>/dev/null || true

# A 32-bit system (no Swift toolchain exists for armhf or i386) is refused before anything is
# installed, with the way out. The tree says armhf through dpkg's own file for a moment.
arch_file="$tree/var/lib/dpkg/arch"
arch_saved=''
[ ! -f "$arch_file" ] || arch_saved=$(cat "$arch_file")
echo armhf >"$arch_file"
out=$(bash "$repo/deploy/install.sh" --root "$tree" --binary "$binary" --board pirate-audio 2>&1)
status=$?
if [ -n "$arch_saved" ]; then printf '%s\n' "$arch_saved" >"$arch_file"; else rm -f "$arch_file"; fi
if [ "$status" != 0 ] && [[ "$out" == *"32-bit system (armhf)"*"64-bit Raspberry Pi OS"* ]] &&
    [ ! -e "$tree/usr/bin/kiosk-player" ]; then
    pass "install.sh refuses a 32-bit (armhf) system, installing nothing"
else
    fail "install.sh refuses a 32-bit (armhf) system" "$out"
fi

echo "test-install: install.sh --root (first run)"
start=$(date +%s)
runs_here=1
if bash "$repo/deploy/install.sh" --root "$tree" --binary "$binary" --board pirate-audio >"$work/first.log" 2>&1; then
    pass "install.sh --root $suite tree --binary … --board pirate-audio ($(( $(date +%s) - start )) s)"
elif grep -q 'was built against libraries that' "$work/first.log" && [ ! -e "$tree/usr/bin/kiosk-player" ]; then
    # A binary built on another release (e.g. bookworm's libFLAC.so.12 on trixie): install.sh must
    # refuse it by name. The rest of the install is then exercised with the tree's own /usr/bin/true.
    pass "install.sh refuses a binary built for another release, naming the libraries"
    sed -n '/was built against/,/^install: build/p' "$work/first.log" | sed 's/^/    /'
    runs_here=0
    binary="$tree/usr/bin/true"
    cp "$binary" "$work/true"
    binary="$work/true"
    if bash "$repo/deploy/install.sh" --root "$tree" --binary "$binary" --board pirate-audio >"$work/first.log" 2>&1; then
        pass "install.sh --root $suite tree with a stand-in binary"
    else
        fail "install.sh --root (stand-in binary)" "$(tail -n 20 "$work/first.log")"
    fi
else
    fail "install.sh --root (first run)" "$(tail -n 20 "$work/first.log")"
fi
grep -E '^install(-deps)?:' "$work/first.log" | sed 's/^/    /'

in_tree() { chroot "$tree" "$@"; }
check "binary installed" test -x "$tree/usr/bin/kiosk-player"
check "automount helper installed" test -x "$tree/usr/lib/kiosk-player/kiosk-automount"
check "lazytime helper installed" test -x "$tree/usr/lib/kiosk-player/kiosk-lazytime"
check "console helper installed" test -x "$tree/usr/lib/kiosk-player/kiosk-console"
check "power-latch shutdown hook installed" test -x "$tree/usr/lib/systemd/system-shutdown/kiosk-power-latch"
# kiosk-web.service comes only with its server (a stand-in binary has none beside it).
if [ -x "$tree/usr/bin/kiosk-web" ]; then expected_units() { kiosk_units "$@"; }
else
    expected_units() { kiosk_units "$@" | grep -vx kiosk-web.service; }
    check "no kiosk-web beside the binary: kiosk-web.service not installed" test ! -e "$tree/usr/lib/systemd/system/kiosk-web.service"
fi
for u in $(expected_units); do
    check "unit $u installed" test -f "$tree/usr/lib/systemd/system/$u"
done
check "udev rules installed" test -f "$tree/usr/lib/udev/rules.d/80-kiosk-player-automount.rules"
check "modules-load.d entry installed" test -f "$tree/usr/lib/modules-load.d/kiosk-player.conf"
check "every board profile installed ($(ls "$repo"/boards/*.json | wc -l))" test "$(ls "$tree/usr/share/kiosk-player/boards"/*.json | wc -l)" = "$(ls "$repo"/boards/*.json | wc -l)"
check "the HAT table installed" cmp "$repo/boards/hats/hats.json" "$tree/usr/share/kiosk-player/boards/hats/hats.json"
if grep -q '"board": "pirate-audio"' "$tree/etc/kiosk-player/config.json" 2>/dev/null; then pass "config.json written with the chosen board"
else fail "config.json written with the chosen board"; fi
groups=$(in_tree id -nG kiosk-player 2>&1)
ok=1
for g in kiosk-player audio video input gpio spi; do case " $groups " in *" $g "*) ;; *) ok=0 ;; esac; done
if [ $ok = 1 ]; then pass "user kiosk-player in groups: $groups"; else fail "user kiosk-player and its groups" "$groups"; fi
shell=$(in_tree getent passwd kiosk-player | cut -d: -f7)
check "the user cannot log in ($shell)" test "$shell" = /usr/sbin/nologin
for u in $(expected_units enable); do
    state=$(systemctl --root="$tree" is-enabled "$u" 2>&1)
    check "$u enabled ($state)" test "$state" = enabled
done
if [ "$runs_here" = 1 ]; then
missing=$(in_tree ldd /usr/bin/kiosk-player 2>&1 | grep 'not found')
if [ -z "$missing" ]; then pass "every shared library the binary needs is installed (ldd)"; else fail "shared libraries" "$missing"; fi
in_tree ldd /usr/bin/kiosk-player | sed 's/^/    /'
out=$(in_tree setpriv --reuid=kiosk-player --regid=kiosk-player --init-groups /usr/bin/kiosk-player --help 2>&1)
status=$?
if [ $status = 0 ]; then pass "the binary runs as kiosk-player in the tree (--help)"; else fail "the binary runs in the tree" "$out"; fi
if out=$(in_tree /usr/bin/kiosk-player check-config --help 2>&1); then
    # The installed config and profiles, read by the player's own loader as the service user.
    out=$(in_tree setpriv --reuid=kiosk-player --regid=kiosk-player --init-groups \
        /usr/bin/kiosk-player check-config /etc/kiosk-player/config.json 2>&1)
    case "$out" in *'"board": "pirate-audio"'*'"boardFile": "/usr/share/kiosk-player/boards/pirate-audio.json"'*)
        pass "kiosk-player check-config (as kiosk-player) resolves the installed config and profile" ;;
        *) fail "kiosk-player check-config resolves the installed config and profile" "$out" ;; esac
else
    echo "  skip  check-config (this binary has no such command)"
fi
fi
# --man=no: a minbase tree has no man to look the Documentation= pages up with; the page is
# checked as a file instead.
out=$(in_tree systemd-analyze verify --man=no $(expected_units enable) 2>&1)
if [ -z "$out" ]; then pass "the tree's own systemd ($(in_tree systemctl --version | head -n 1 | awk '{print $2}')) verifies the units"
else fail "the tree's systemd verifies the units" "$out"; fi
if [ -f "$tree/usr/share/man/man1/kiosk-player.1" ]; then pass "the man page the units name is installed"
else fail "the man page the units name is installed" "no $tree/usr/share/man/man1/kiosk-player.1"; fi
if in_tree udevadm verify --help >/dev/null 2>&1; then
    out=$(in_tree udevadm verify /usr/lib/udev/rules.d/60-kiosk-player-devices.rules /usr/lib/udev/rules.d/80-kiosk-player-automount.rules 2>&1)
    if [ $? = 0 ]; then pass "udevadm verify (the tree's udev) accepts the rules"; else fail "udevadm verify" "$out"; fi
else
    echo "  skip  udevadm verify (the $suite udev has none)"
fi
sec=$(in_tree systemd-analyze security --offline=yes /usr/lib/systemd/system/kiosk-player.service 2>&1 | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
if [ -n "$sec" ] && awk -v s="$sec" 'BEGIN { exit !(s <= 2.0) }'; then pass "exposure by the tree's systemd: $sec"
else fail "exposure by the tree's systemd <= 2.0" "${sec:-no score}"; fi

echo "test-install: install.sh --root (second run: idempotent)"
bash "$repo/deploy/install.sh" --root "$tree" --binary "$binary" --board pirate-audio >"$work/second.log" 2>&1
status=$?
changes=$(grep -E '^\+ (install|sed|rm|apt)' "$work/second.log")
if [ $status = 0 ] && [ -z "$changes" ] && grep -q "all .* packages for 'runtime' are installed" "$work/second.log"; then
    pass "second run changes nothing (no file written, no package installed)"
else
    fail "second run changes nothing" "status $status; $changes"
fi
echo "config edit survives" >/dev/null
sed -i 's/"volume": 70/"volume": 55/' "$tree/etc/kiosk-player/config.json"
bash "$repo/deploy/install.sh" --root "$tree" --binary "$binary" --no-deps >/dev/null 2>&1
if grep -q '"volume": 55' "$tree/etc/kiosk-player/config.json"; then pass "a user's config edit survives a reinstall"
else fail "a user's config edit survives a reinstall"; fi
sed -i 's/"listen": null/"listen": "0.0.0.0:6600"/' "$tree/etc/kiosk-player/config.json"
bash "$repo/deploy/install.sh" --root "$tree" --binary "$binary" --no-deps >/dev/null 2>&1
check "mpd.listen set: the TCP drop-in is written" test -f "$tree/etc/systemd/system/kiosk-player.service.d/50-mpd-tcp.conf"
sed -i 's/"listen": "0.0.0.0:6600"/"listen": null/' "$tree/etc/kiosk-player/config.json"
bash "$repo/deploy/install.sh" --root "$tree" --binary "$binary" --no-deps >/dev/null 2>&1
check "mpd.listen unset again: the drop-in is removed" test ! -e "$tree/etc/systemd/system/kiosk-player.service.d/50-mpd-tcp.conf"

echo "test-install: install.sh --uninstall"
bash "$repo/deploy/install.sh" --root "$tree" --uninstall >"$work/uninstall.log" 2>&1
check "uninstall succeeds" test $? = 0
check "binary removed" test ! -e "$tree/usr/bin/kiosk-player"
check "units removed" test ! -e "$tree/usr/lib/systemd/system/kiosk-player.service"
check "enablement symlink removed" test ! -e "$tree/etc/systemd/system/multi-user.target.wants/kiosk-player.service"
check "rules removed" test ! -e "$tree/usr/lib/udev/rules.d/80-kiosk-player-automount.rules"
check "modules-load.d entry removed" test ! -e "$tree/usr/lib/modules-load.d/kiosk-player.conf"
check "boards removed" test ! -e "$tree/usr/share/kiosk-player"
check "config kept" test -f "$tree/etc/kiosk-player/config.json"
bash "$repo/deploy/install.sh" --root "$tree" --uninstall --purge >/dev/null 2>&1
check "--purge removes the config" test ! -e "$tree/etc/kiosk-player"
if in_tree getent passwd kiosk-player >/dev/null; then fail "--purge removes the user"; else pass "--purge removes the user"; fi

harness_end
