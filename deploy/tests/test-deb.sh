#!/usr/bin/env bash
# The bar a Raspberry Pi owner cares about: on a fresh Debian trixie tree of ARCH (the cached
# `deploy/trees/tree.sh base ARCH`, used through an overlay so it stays fresh),
# `apt-get install ./kiosk-player_…_ARCH.deb` pulls every runtime dependency from the archive; the
# installed /usr/bin/kiosk-player (under qemu-user for arm64) plays every file of the FLAC testbench
# byte-identical to `flac -d` and scans a stick; the service is enabled; remove and purge do what they say.
#
#   deploy/tests/test-deb.sh ARCH [--deb FILE]     (default: the newest .build/deb/*_ARCH.deb)
#
# Prints "test-deb: N passed, N failed" and figures (install time, sizes, RSS while playing).
set -uo pipefail
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
arch=${1:?usage: test-deb.sh amd64|arm64 [--deb FILE]}
shift
deb=''
while [ $# -gt 0 ]; do
    case "$1" in
        --deb) deb=$2; shift ;;
        *) echo "test-deb: unknown option '$1'" >&2; exit 2 ;;
    esac
    shift
done
[ -n "$deb" ] || deb=$(ls -t "$repo"/.build/deb/kiosk-player_*_"$arch".deb 2>/dev/null | head -n 1)
[ -f "$deb" ] || { echo "test-deb: no .deb for $arch (make deb ARCH=$arch)" >&2; exit 1; }
bench=${KIOSK_FLAC_TESTBENCH:-$repo/../shared/flac-testbench/subset}
bench_name="testbench files"
harness_name=test-deb
# shellcheck source=harness.sh
source "$repo/deploy/tests/harness.sh"
# shellcheck source=../units.sh
source "$repo/deploy/units.sh"
# shellcheck source=../trees/mounts.sh
source "$repo/deploy/trees/mounts.sh"

base=$(bash "$repo/deploy/trees/tree.sh" base "$arch") || exit 1
work=$(mktemp -d /tmp/kiosk-test-deb.XXXXXX)
tree=$work/tree
mounts=()
cleanup() {
    local i
    for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[$i]}" 2>/dev/null; done
    # Never through a /dev still bound inside: remove_tree unmounts first and refuses otherwise.
    remove_tree "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir -p "$tree" "$work/upper" "$work/ovl"
mount -t overlay overlay -o "lowerdir=$base,upperdir=$work/upper,workdir=$work/ovl" "$tree" || exit 1
mounts+=("$tree")
mount -t proc proc "$tree/proc" && mounts+=("$tree/proc")
mount --rbind /dev "$tree/dev" && mount --make-rslave "$tree/dev" && mounts+=("$tree/dev")
mount -t tmpfs tmpfs "$tree/tmp" && mounts+=("$tree/tmp")
cp /etc/resolv.conf "$tree/etc/resolv.conf"
in_tree() { chroot "$tree" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C "$@"; }
echo "test-deb: $(basename "$deb") into a fresh $arch trixie tree (overlay on $base)"

# 1. apt installs it with every dependency from the archive.
cp "$deb" "$tree/tmp/"
# The postinst's udev step runs on a live system only ([ -d /run/udev ]): here /run/udev is made and
# udevadm is a recorder first in PATH, which notes each call with the groups that exist at that
# moment. A plain Debian tree has no gpio/spi group before the package's sysusers file is read, so
# a trigger recorded without them is the bug of a postinst that reloads udev before sysusers
# (udev cannot resolve GROUP="gpio" and the lines stay root-only until a reboot).
mkdir -p "$tree/run/udev" "$tree/usr/local/sbin"
cat >"$tree/usr/local/sbin/udevadm" <<'RECORDER'
#!/bin/sh
echo "udevadm $* | gpio=$(getent group gpio | cut -d: -f1) spi=$(getent group spi | cut -d: -f1)" >>/tmp/udevadm.log
RECORDER
chmod 0755 "$tree/usr/local/sbin/udevadm"
groups_before=$(chroot "$tree" getent group gpio spi | cut -d: -f1 | tr '\n' ' ')
# The base tree carries package lists from when it was made (apt-get update takes 4 min under
# qemu-user); they are refreshed only when they are missing or apt cannot fetch what they name.
: >"$work/apt.log"
# apt gives dpkg its own PATH (DPkg::Path): the recorder's directory goes first there.
install_deb() {
    local path=/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin
    chroot "$tree" /usr/bin/env -i PATH=$path LC_ALL=C DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -q -o DPkg::Path=$path "/tmp/$(basename "$deb")" >>"$work/apt.log" 2>&1
}
start=$(date +%s)
if ! ls "$tree/var/lib/apt/lists/" | grep -q _Packages || ! install_deb; then
    in_tree apt-get update -q >>"$work/apt.log" 2>&1
    install_deb
fi
if in_tree dpkg-query -W -f='${Status}' kiosk-player 2>/dev/null | grep -q 'install ok installed'; then
    pass "apt-get install ./$(basename "$deb") (with its dependencies, in $(($(date +%s) - start)) s)"
else
    fail "apt-get install ./$(basename "$deb")" "$(tail -n 20 "$work/apt.log")"
    harness_end
    exit 1
fi
pulled=$(grep -c '^Setting up ' "$work/apt.log")
echo "        $pulled packages set up; Depends: $(in_tree dpkg-query -W -f='${Depends}' kiosk-player)"
check "every library the binary needs is there (ldd)" bash -c "! chroot '$tree' ldd /usr/bin/kiosk-player | grep 'not found'"
check "the binary needs no Swift runtime package (static)" bash -c "! chroot '$tree' ldd /usr/bin/kiosk-player | grep -i swift"
check "service user kiosk-player with its groups" bash -c "chroot '$tree' id -nG kiosk-player | grep -qw audio"
# Plain Debian: the groups come from the package (none before it), and exist when udev is triggered.
check "plain Debian tree: no gpio/spi group before the install (found: ${groups_before:-none})" test -z "$groups_before"
check "groups gpio and spi exist, kiosk-player in both" bash -c \
    "chroot '$tree' id -nG kiosk-player | tr ' ' '\n' | grep -cxE 'gpio|spi' | grep -qx 2"
check "postinst triggers udev for gpio/spidev after sysusers made gpio and spi" bash -c \
    "grep -q '^udevadm trigger .*--subsystem-match=gpio.* | gpio=gpio spi=spi\$' '$tree/tmp/udevadm.log' &&
     ! grep '^udevadm trigger .*--subsystem-match=gpio' '$tree/tmp/udevadm.log' | grep -v ' | gpio=gpio spi=spi\$'"
sed 's/^/        /' "$tree/tmp/udevadm.log" 2>/dev/null
# The rules file as installed names those groups (what the trigger applies to /dev/gpiochip*, /dev/spidev*).
check "60-kiosk-player-devices.rules gives gpiochip to gpio and spidev to spi" bash -c \
    "grep -q 'KERNEL==\"gpiochip\[0-9\]\*\", GROUP=\"gpio\", MODE=\"0660\"' '$tree/usr/lib/udev/rules.d/60-kiosk-player-devices.rules' &&
     grep -q 'KERNEL==\"spidev\[0-9\]\*\", GROUP=\"spi\", MODE=\"0660\"' '$tree/usr/lib/udev/rules.d/60-kiosk-player-devices.rules'"
rm -f "$tree/usr/local/sbin/udevadm"
for u in $(kiosk_units enable); do
    check "$u enabled at boot" test -L "$tree/etc/systemd/system/multi-user.target.wants/$u"
done
for u in $(kiosk_units); do check "unit $u installed" test -f "$tree/usr/lib/systemd/system/$u"; done
check "config is a conffile" bash -c "chroot '$tree' dpkg-query -W -f='\${Conffiles}' kiosk-player | grep -q /etc/kiosk-player/config.json"
check "board profiles installed" test -f "$tree/usr/share/kiosk-player/boards/pirate-audio.json"
check "kiosk-player boards --check" in_tree kiosk-player boards --check
check "kiosk-player check-config on the installed config" in_tree kiosk-player check-config /etc/kiosk-player/config.json

# 2. The installed binary plays the testbench bit-perfect (ALSA's file plugin) and scans a stick.
# Without the testbench (it lives outside the repository), files made here with sox and flac stand in:
# the bit depths and channel counts a stick holds.
if [ ! -d "$bench" ] && command -v flac >/dev/null && command -v sox >/dev/null; then
    echo "        no FLAC testbench at $bench: playing FLAC files made here with sox and flac instead"
    bench=$work/generated
    bench_name="FLAC files made here"
    mkdir -p "$bench"
    n=0
    for spec in "44100 2 16" "96000 2 24" "48000 1 16" "22050 2 8" "48000 6 24"; do
        read -r rate channels bits <<<"$spec"
        n=$((n + 1))
        sox -q -n -r "$rate" -c "$channels" -b "$bits" "$work/gen.wav" synth 3 pinknoise synth 3 sine amod 440 vol 0.5
        flac -s -f -o "$bench/0$n-$rate-$channels-$bits.flac" "$work/gen.wav" 2>/dev/null
        rm -f "$work/gen.wav"
    done
fi
if [ -d "$bench" ] && command -v flac >/dev/null; then
    mkdir -p "$tree/tmp/bench"
    cp "$bench"/*.flac "$tree/tmp/bench/"
    total=0
    bad=()
    start=$(date +%s)
    for f in "$tree"/tmp/bench/*.flac; do
        name=$(basename "$f")
        total=$((total + 1))
        out=$(in_tree kiosk-player play "/tmp/bench/$name" --device "file:'/tmp/out.raw',raw" --realtime off 2>&1)
        format=$(printf '%s\n' "$out" | sed -n "s/^  device [^:]*:'[^']*',raw: //p;s/^  device file:.*raw: //p" | head -n 1)
        bits=$(metaflac --show-bps "$f")
        ref=$work/ref.raw
        if [ $((bits % 8)) = 0 ]; then
            flac -d -s -f --force-raw-format --endian=little --sign=signed -o "$ref" "$f" 2>/dev/null
        else
            ref=$work/ref.wav
            flac -d -s -f -o "$ref" "$f" 2>/dev/null
        fi
        if [ ! -f "$tree/tmp/out.raw" ]; then
            # No output at all: what the player said is the diagnosis (CI once showed only Python's traceback).
            bad+=("$name: no output written; the player said: $(printf '%s\n' "$out" | tail -n 5)")
        elif ! python3 "$here/pcm-compare.py" "$ref" "$bits" "$tree/tmp/out.raw" "${format%% *}" >"$work/cmp.txt" 2>&1; then
            bad+=("$name ($format): $(cat "$work/cmp.txt")")
        fi
        rm -f "$tree/tmp/out.raw" "$ref"
    done
    if [ ${#bad[@]} -eq 0 ]; then pass "all $total $bench_name play byte-identical to flac -d ($(($(date +%s) - start)) s)"
    else fail "${#bad[@]} of $total $bench_name differ from flac -d" "$(printf '%s\n' "${bad[@]}")"; fi
    # RSS of the installed binary playing (the longest file; GNU time's maximum resident set).
    longest=$(ls -S "$tree"/tmp/bench/*.flac | head -n 1)
    if command -v /usr/bin/time >/dev/null; then
        /usr/bin/time -o "$work/rss" -f '%M' chroot "$tree" /usr/bin/kiosk-player play \
            "/tmp/bench/$(basename "$longest")" --device none --realtime off >/dev/null 2>&1
        rss=$(tail -n 1 "$work/rss")
        echo "        max RSS playing $(basename "$longest"): $rss KiB$([ "$arch" = "$(dpkg --print-architecture)" ] || echo ' (under qemu-user: includes the emulator)')"
    fi
    mkdir -p "$tree/tmp/stick/Album"
    cp "$tree"/tmp/bench/0[1-3]*.flac "$tree/tmp/stick/Album/"
    printf 'not audio\n' >"$tree/tmp/stick/Album/broken.flac"
    scan=$(in_tree kiosk-player scan /tmp/stick 2>&1)
    if printf '%s\n' "$scan" | grep -q '^Tracks: 3$' && printf '%s\n' "$scan" | grep -q 'broken.flac'; then
        pass "kiosk-player scan of a stick: 3 tracks, the broken file named"
    else
        fail "kiosk-player scan of a stick" "$scan"
    fi
else
    fail "FLAC testbench ($bench) and the flac tool are needed for the playback check"
fi

# 3. remove keeps config, state and user; purge removes them.
mkdir -p "$tree/var/lib/kiosk-player/library"
check "apt-get remove" in_tree apt-get remove -y -q kiosk-player
check "remove keeps the config" test -f "$tree/etc/kiosk-player/config.json"
check "remove keeps the user" bash -c "chroot '$tree' getent passwd kiosk-player"
check "apt-get purge" in_tree apt-get purge -y -q kiosk-player
check "purge removes the config" test ! -e "$tree/etc/kiosk-player"
check "purge removes the state" test ! -e "$tree/var/lib/kiosk-player"
check "purge removes the user" bash -c "! chroot '$tree' getent passwd kiosk-player"
echo "test-deb: $(du -k "$deb" | cut -f1) KiB .deb, installed size $(dpkg-deb -f "$deb" Installed-Size) KiB"
harness_end
