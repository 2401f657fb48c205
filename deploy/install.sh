#!/bin/bash
# Installs KioskPlayer as a boot-time appliance on 64-bit Raspberry Pi OS (bookworm, trixie; arm64)
# or Debian: runtime packages, the binary, the service user, the systemd units, the udev rules
# (GPIO/SPI access, USB stick automount), the default config and the board profiles; then enables
# the service. Idempotent: run it again after an update; unchanged files are left alone.
#
#   deploy/install.sh [--binary FILE] [--board NAME] [--root DIR] [--dry-run] [--no-deps] [--no-start]
#   deploy/install.sh --uninstall [--purge] [--root DIR] [--dry-run]
#
#   --binary FILE   install this kiosk-player binary (else: build with `swift build -c release
#                   --static-swift-stdlib --product kiosk-player` when a Swift toolchain is on PATH, else keep the installed one)
#   --board NAME    board profile (boards/NAME.json) for a new config (default "auto": from the device
#                   tree model); changes "board" in an existing one
#   --root DIR      install into the Debian tree DIR (a chroot / debootstrap / SD card's root): nothing
#                   is started, units are only enabled
#   --dry-run       print every step and change nothing
#   --no-deps       do not install runtime packages
#   --no-start      enable but do not (re)start the service now
#   --uninstall     stop and remove everything installed; keeps config, state, user and packages
#   --purge         with --uninstall: also remove /etc/kiosk-player, /var/lib/kiosk-player and the user
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
deploy="$repo/deploy"
root=/
binary=''
board=''
dry_run=0
deps=1
start=1
uninstall=0
purge=0

die() { echo "install: $*" >&2; exit 1; }
usage() { sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
    case "$1" in
        --binary) [ $# -ge 2 ] || die "--binary needs a file"; binary=$2; shift ;;
        --board) [ $# -ge 2 ] || die "--board needs a name"; board=$2; shift ;;
        --root) [ $# -ge 2 ] || die "--root needs a directory"; root=$2; shift ;;
        --dry-run) dry_run=1 ;;
        --no-deps) deps=0 ;;
        --no-start) start=0 ;;
        --uninstall) uninstall=1 ;;
        --purge) purge=1 ;;
        -h | --help) usage; exit 0 ;;
        *) echo "install: unknown option '$1'" >&2; usage >&2; exit 2 ;;
    esac
    shift
done
[ "$purge" = 0 ] || [ "$uninstall" = 1 ] || die "--purge only goes with --uninstall"
root=${root%/}
[ -n "$root" ] || root=/
[ -d "$root" ] || die "--root $root: no such directory"
if [ "$root" != / ]; then root=$(cd "$root" && pwd); fi
[ "$dry_run" = 1 ] || [ "$(id -u)" = 0 ] || die "run as root (sudo $0 ...), or with --dry-run to see the steps"

# Paths on the target.
bin=/usr/bin/kiosk-player
libexec=/usr/lib/kiosk-player
unitdir=/usr/lib/systemd/system
rulesdir=/usr/lib/udev/rules.d
sysusers=/usr/lib/sysusers.d/kiosk-player.conf
modules_load=/usr/lib/modules-load.d/kiosk-player.conf
shutdown_hook=/usr/lib/systemd/system-shutdown/kiosk-power-latch
share=/usr/share/kiosk-player
doc=/usr/share/doc/kiosk-player
man_page=/usr/share/man/man1/kiosk-player.1
confdir=/etc/kiosk-player
statedir=/var/lib/kiosk-player
dropin_dir=/etc/systemd/system/kiosk-player.service.d
mpd_dropin=$dropin_dir/50-mpd-tcp.conf
# shellcheck source=units.sh
source "$deploy/units.sh"
mapfile -t units < <(kiosk_units)
mapfile -t enabled_units < <(kiosk_units enable)
rules=(60-kiosk-player-devices.rules 80-kiosk-player-automount.rules)

# t PATH: PATH inside the target tree.
t() { if [ "$root" = / ]; then printf '%s' "$1"; else printf '%s%s' "$root" "$1"; fi; }
step() { echo "install: $*"; }
# run CMD...: print, then run unless --dry-run.
run() {
    echo "+ $*"
    [ "$dry_run" = 1 ] || "$@"
}
# show CMD...: print and run, also under --dry-run (for commands that have a --dry-run of their own).
show() {
    echo "+ $*"
    "$@"
}
# in_root CMD...: run CMD on this system, or chrooted into --root.
in_root() { if [ "$root" = / ]; then run "$@"; else run chroot "$root" "$@"; fi; }
# live: the target is this running system under systemd (so services can be reloaded/started).
live() { [ "$root" = / ] && [ -d /run/systemd/system ]; }

changed_units=0
web_binary=0
changed_rules=0
# put SOURCE TARGET MODE: install a file when it is new or different.
put() {
    local src=$1 dst=$2 mode=$3 target
    target=$(t "$dst")
    if [ -f "$target" ] && cmp -s "$src" "$target"; then
        echo "  unchanged $dst"
        return 1
    fi
    echo "+ install -D -m $mode $src $target"
    [ "$dry_run" = 1 ] || install -D -m "$mode" "$src" "$target"
    return 0
}
# remove PATH...: delete installed files (quietly skipping those not there).
remove() {
    local p
    for p in "$@"; do
        if [ -e "$(t "$p")" ] || [ -L "$(t "$p")" ]; then run rm -rf "$(t "$p")"; fi
    done
}

os_release() {
    local f
    for f in "$(t /etc/os-release)" "$(t /usr/lib/os-release)"; do
        if [ -f "$f" ]; then (. "$f" && printf '%s %s\n' "${ID:-unknown}" "${VERSION_CODENAME:-unknown}"); return; fi
    done
    echo "unknown unknown"
}

target_arch() {
    if [ -f "$(t /var/lib/dpkg/arch)" ] && [ -s "$(t /var/lib/dpkg/arch)" ]; then head -n 1 "$(t /var/lib/dpkg/arch)"
    elif [ "$root" = / ]; then dpkg --print-architecture
    else chroot "$root" dpkg --print-architecture; fi
}

# elf_arch FILE: the Debian architecture an ELF executable is for (from e_machine and class).
elf_arch() {
    local magic class machine
    magic=$(od -An -c -N4 "$1" | tr -d ' ')
    [ "$magic" = '177ELF' ] || { echo "not-elf"; return; }
    class=$(od -An -tu1 -j4 -N1 "$1" | tr -d ' ')
    machine=$(od -An -tu2 -j18 -N2 "$1" | tr -d ' ')
    case "$machine:$class" in
        62:2) echo amd64 ;; 183:2) echo arm64 ;; 243:2) echo riscv64 ;;
        *:1) echo "32-bit" ;; *) echo "machine-$machine" ;;
    esac
}

# check_libraries FILE: when the target can run FILE (same architecture as this machine, or this
# machine itself), every shared library it needs must be there. A binary built on bookworm needs
# libFLAC.so.12 and libgpiod.so.2; trixie has libFLAC.so.14 and libgpiod.so.3: refuse it, clearly.
check_libraries() {
    local file=$1 copy missing
    [ "$dry_run" = 0 ] || return 0
    [ "$(elf_arch "$file")" = "$(dpkg --print-architecture 2>/dev/null)" ] || return 0
    [ -x "$(t /usr/bin/ldd)" ] || return 0
    copy=$(mktemp "$(t /tmp)/kiosk-player-check.XXXXXX")
    cp "$file" "$copy"
    chmod 0755 "$copy"
    if [ "$root" = / ]; then missing=$(ldd "$copy" 2>&1 | grep 'not found' || true)
    else missing=$(chroot "$root" ldd "/tmp/$(basename "$copy")" 2>&1 | grep 'not found' || true); fi
    rm -f "$copy"
    if [ -n "$missing" ]; then
        echo "install: $file was built against libraries that $os_id $os_codename does not have:" >&2
        printf '%s\n' "$missing" | sed 's/^[[:space:]]*/    /' >&2
        die "build kiosk-player on (or for) $os_codename itself; the binary was not installed"
    fi
}

#
# Uninstall
#
if [ "$uninstall" = 1 ]; then
    step "uninstalling from $root"
    if live; then
        run systemctl disable --now "${enabled_units[@]}" || true
        # Unmount sticks mounted by kiosk-automount@*.service.
        for u in $(systemctl list-units --plain --no-legend 'kiosk-automount@*' | awk '{print $1}'); do
            run systemctl stop "$u" || true
        done
    elif [ -e "$(t $unitdir/kiosk-player.service)" ]; then
        if [ "$root" = / ]; then run systemctl disable "${enabled_units[@]}" || true
        else run systemctl --root="$root" disable "${enabled_units[@]}" || true; fi
    fi
    for u in "${units[@]}"; do remove "$unitdir/$u"; done
    for r in "${rules[@]}"; do remove "$rulesdir/$r"; done
    remove "$mpd_dropin" "$dropin_dir/60-library-directories.conf" "$bin" "$(dirname "$bin")/kiosk-web" "$libexec" "$share" "$doc" "$man_page" "$sysusers" "$modules_load" "$shutdown_hook"
    if [ -d "$(t $dropin_dir)" ] && [ -z "$(ls -A "$(t $dropin_dir)")" ]; then run rmdir "$(t $dropin_dir)"; fi
    if [ "$purge" = 1 ]; then
        remove "$confdir" "$statedir"
        if grep -q '^kiosk-player:' "$(t /etc/passwd)" 2>/dev/null; then in_root userdel kiosk-player; fi
        if grep -q '^kiosk-player:' "$(t /etc/group)" 2>/dev/null; then in_root groupdel kiosk-player; fi
    else
        step "kept $confdir, $statedir and the kiosk-player user (--purge removes them)"
    fi
    if live; then
        run systemctl daemon-reload
        run udevadm control --reload
    fi
    step "runtime packages were left installed"
    step "uninstalled"
    exit 0
fi

#
# Install
#
read -r os_id os_codename < <(os_release)
arch=$(target_arch 2>/dev/null || echo unknown)
step "target $root: $os_id $os_codename ($arch)"
# No Swift toolchain builds for 32-bit ARM or x86 (none in Debian, none on swift.org): refuse
# before anything is installed, with the way out.
case "$arch" in armhf | armel | i386 | 32-bit)
    die "$root is a 32-bit system ($arch): KioskPlayer is written in Swift, which has no 32-bit ARM or x86 toolchain. Install the 64-bit Raspberry Pi OS (arm64; every Pi from the Zero 2 W, 3, 4 and 400 to the 5 runs it) and run this again" ;;
esac
case "$os_id" in debian | raspbian | ubuntu) ;; *)
    [ -x "$(t /usr/bin/apt-get)" ] || die "$root is not Debian-based (no apt-get); install the runtime libraries by hand and use --no-deps"
    echo "install: warning: $os_id is not Raspberry Pi OS or Debian; continuing because apt-get exists" >&2 ;;
esac
case "$os_codename" in bookworm | trixie) ;; *)
    echo "install: warning: $os_codename is untested (bookworm and trixie are)" >&2 ;;
esac
[ -x "$(t /usr/bin/systemctl)" ] || [ -x "$(t /bin/systemctl)" ] || die "$root has no systemd (systemctl missing)"
if [ -n "$board" ] && [ ! -f "$repo/boards/$board.json" ]; then
    die "--board $board: no boards/$board.json (have: $(cd "$repo/boards" && ls *.json | sed 's/\.json$//' | tr '\n' ' '))"
fi

# 1. Runtime packages.
if [ "$deps" = 1 ]; then
    step "runtime packages"
    args=(--runtime)
    [ "$root" = / ] || args+=(--root "$root")
    if [ "$dry_run" = 1 ]; then show bash "$deploy/install-deps.sh" "${args[@]}" --dry-run
    else run bash "$deploy/install-deps.sh" "${args[@]}"; fi
else
    step "runtime packages: skipped (--no-deps)"
fi

# 2. The binary: given, built, or already there.
if [ -z "$binary" ] && command -v swift >/dev/null 2>&1 && [ -f "$repo/Package.swift" ]; then
    step "building the release binary (swift build -c release --static-swift-stdlib --product kiosk-player)"
    if [ "$dry_run" = 1 ]; then show bash "$deploy/install-deps.sh" --dry-run; else run bash "$deploy/install-deps.sh"; fi
    run swift build --package-path "$repo" -c release --static-swift-stdlib --product kiosk-player
    # The phone page's server (kiosk-web.service; off unless config.json's "web" turns it on).
    run swift build --package-path "$repo" -c release --static-swift-stdlib --product kiosk-web
    binary="$repo/.build/release/kiosk-player"
fi
if [ -n "$binary" ]; then
    if [ "$dry_run" = 0 ] || [ -f "$binary" ]; then
        [ -f "$binary" ] || die "--binary $binary: no such file"
        barch=$(elf_arch "$binary")
        [ "$barch" != 32-bit ] || die "$binary is a 32-bit program: KioskPlayer runs on 64-bit systems only (arm64, amd64)"
        if [ "$arch" != unknown ] && [ "$barch" != "$arch" ]; then
            die "$binary is built for $barch but the target is $arch (build on the device, or cross-build: see docs/install.md)"
        fi
    fi
    step "binary $binary"
    check_libraries "$binary"
    put "$binary" "$bin" 0755 || true
    # kiosk-web beside the binary (the build above, or --binary's directory): the phone page.
    if [ -f "$(dirname "$binary")/kiosk-web" ]; then
        put "$(dirname "$binary")/kiosk-web" "$(dirname "$bin")/kiosk-web" 0755 || true
        web_binary=1
    else
        step "no kiosk-web beside $binary: the phone page is not installed (docs/phone.md)"
    fi
elif [ -x "$(t $bin)" ]; then
    step "binary: keeping the installed $bin (no --binary and no Swift toolchain)"
elif [ "$dry_run" = 1 ]; then
    step "binary: none given and no Swift toolchain; a real run would stop here (use --binary FILE)"
else
    die "no binary: pass --binary FILE, or install a Swift toolchain to build one"
fi
[ -x "$(t "$(dirname "$bin")/kiosk-web")" ] && web_binary=1
# kiosk-web.service only beside its server: an enabled unit without its binary fails at every boot.
if [ "$web_binary" = 0 ]; then
    mapfile -t units < <(printf '%s\n' "${units[@]}" | grep -vx kiosk-web.service)
    mapfile -t enabled_units < <(printf '%s\n' "${enabled_units[@]}" | grep -vx kiosk-web.service)
    if [ -e "$(t $unitdir/kiosk-web.service)" ]; then
        if [ "$root" = / ]; then run systemctl disable kiosk-web.service || true
        else run systemctl --root="$root" disable kiosk-web.service || true; fi
        remove "$unitdir/kiosk-web.service"
    fi
fi
put "$deploy/kiosk-automount" "$libexec/kiosk-automount" 0755 || true
# lazytime on the state directory's file system at each boot (kiosk-player-lazytime.service).
put "$deploy/kiosk-lazytime" "$libexec/kiosk-lazytime" 0755 || true
# The text console off the player's framebuffer while it runs (kiosk-player.service's ExecStartPre/ExecStopPost).
put "$deploy/kiosk-console" "$libexec/kiosk-console" 0755 || true
# The board's power latch let go at power-off, after everything stopped (systemd-shutdown runs it).
put "$deploy/kiosk-power-latch" "$shutdown_hook" 0755 || true

# 3. User and groups (systemd-sysusers: creates only what is missing).
step "service user kiosk-player"
put "$deploy/sysusers-kiosk-player.conf" "$sysusers" 0644 || true
command -v systemd-sysusers >/dev/null || die "systemd-sysusers is missing on this system"
sysusers_args=()
[ "$root" = / ] || sysusers_args+=(--root="$root")
if [ "$dry_run" = 1 ]; then show systemd-sysusers "${sysusers_args[@]}" --dry-run "$deploy/sysusers-kiosk-player.conf"
else run systemd-sysusers "${sysusers_args[@]}" "$deploy/sysusers-kiosk-player.conf"; fi

# 4. Units and udev rules.
step "systemd units and udev rules"
for u in "${units[@]}"; do if put "$deploy/systemd/$u" "$unitdir/$u" 0644; then changed_units=1; fi; done
for r in "${rules[@]}"; do if put "$deploy/udev/$r" "$rulesdir/$r" 0644; then changed_rules=1; fi; done
put "$deploy/modules-load-kiosk-player.conf" "$modules_load" 0644 || true

# 5. Config (never overwritten), board profiles, documentation.
step "config and board profiles"
config=$(t "$confdir/config.json")
if [ ! -f "$config" ]; then
    tmp=$(mktemp)
    trap 'rm -f "$tmp"' EXIT
    sed "s/\"board\": \"[^\"]*\"/\"board\": \"${board:-auto}\"/" "$deploy/config.json" >"$tmp"
    put "$tmp" "$confdir/config.json" 0644 || true
    [ "$dry_run" = 1 ] || chmod 0644 "$config"
elif [ -n "$board" ]; then
    if grep -q "\"board\": \"$board\"" "$config"; then
        echo "  unchanged $confdir/config.json (board $board)"
    else
        run sed -i "s/\"board\": \"[^\"]*\"/\"board\": \"$board\"/" "$config"
    fi
else
    echo "  kept $confdir/config.json"
fi
for f in "$repo"/boards/*.json; do put "$f" "$share/boards/$(basename "$f")" 0644 || true; done
put "$repo/boards/hats/hats.json" "$share/boards/hats/hats.json" 0644 || true
# Profiles removed from the repository are removed from the target too.
if [ -d "$(t $share/boards)" ]; then
    for f in "$(t $share/boards)"/*.json; do
        [ -e "$f" ] || continue
        [ -f "$repo/boards/$(basename "$f")" ] || run rm -f "$f"
    done
fi
put "$repo/README.md" "$doc/README.md" 0644 || true
for f in "$repo"/docs/*.md; do put "$f" "$doc/docs/$(basename "$f")" 0644 || true; done
put "$repo/boards/README.md" "$doc/boards.md" 0644 || true
put "$deploy/debian/kiosk-player.1" "$man_page" 0644 || true

# 6. MPD over TCP needs the network: a drop-in opens AF_INET/AF_INET6 only when "mpd.listen" is set.
listen_set=0
if [ -f "$config" ] && grep -Eq '"listen"[[:space:]]*:[[:space:]]*"' "$config"; then listen_set=1; fi
if [ "$dry_run" = 1 ] && [ ! -f "$config" ]; then listen_set=0; fi
if [ "$listen_set" = 1 ]; then
    step "mpd.listen is set: allowing TCP for kiosk-player.service ($mpd_dropin)"
    tmp2=$(mktemp)
    cat >"$tmp2" <<'EOF'
# Written by deploy/install.sh because config.json sets "mpd.listen" (MPD protocol over TCP).
[Service]
PrivateNetwork=no
IPAddressDeny=
RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6
EOF
    if put "$tmp2" "$mpd_dropin" 0644; then changed_units=1; fi
    rm -f "$tmp2"
elif [ -e "$(t $mpd_dropin)" ]; then
    step "mpd.listen is not set: removing $mpd_dropin"
    remove "$mpd_dropin"
    changed_units=1
fi

# 6b. Music on the SD card ("libraryDirectories"): the service hides /home and mounts everything
# read-only; a drop-in binds each listed folder read-only (deploy/kiosk-library-dropin).
put "$deploy/kiosk-library-dropin" "$libexec/kiosk-library-dropin" 0755 || true
library_dropin=$dropin_dir/60-library-directories.conf
if [ "$dry_run" = 1 ]; then
    echo "+ $libexec/kiosk-library-dropin $bin $confdir/config.json $library_dropin"
else
    before=$(cat "$(t $library_dropin)" 2>/dev/null || true)
    if ! "$deploy/kiosk-library-dropin" "$(t $bin)" "$config" "$(t $library_dropin)"; then
        echo "  warning: libraryDirectories could not be read here; run $libexec/kiosk-library-dropin $bin $confdir/config.json $library_dropin on the box"
    fi
    [ "$before" = "$(cat "$(t $library_dropin)" 2>/dev/null || true)" ] || changed_units=1
fi

# 7. Enable (and on a live system: reload, apply the rules, start).
step "enable"
if live; then
    [ "$changed_units" = 0 ] || run systemctl daemon-reload
    if [ "$changed_rules" = 1 ]; then
        run udevadm control --reload
        run udevadm trigger --action=change --subsystem-match=gpio --subsystem-match=spidev
    fi
    run systemctl enable "${enabled_units[@]}"
    if [ "$start" = 1 ]; then
        run systemctl start kiosk-player-poweroff.path
        run systemctl restart kiosk-player.service
    else
        step "not started (--no-start)"
    fi
else
    if [ "$root" = / ]; then run systemctl enable "${enabled_units[@]}"
    else run systemctl --root="$root" enable "${enabled_units[@]}"; fi
    step "not started: $([ "$root" = / ] && echo "systemd is not running here" || echo "installed into $root")"
fi

# 8. What the board needs in config.txt (printed, never edited).
case "${board:-}" in
    pirate-audio) hint="dtparam=spi=on, dtoverlay=hifiberry-dac, gpio=25=op,dh (and dtparam=audio=off)" ;;
    pitft28) hint="dtparam=spi=on, dtoverlay=pitft28-resistive,rotate=90,speed=64000000,fps=30 (or pitft28-capacitive)" ;;
    waveshare-144) hint="dtparam=spi=on" ;;
    *) hint='' ;;
esac
[ -z "$hint" ] || step "board $board: add to /boot/firmware/config.txt: $hint"
step "USB sticks are mounted under /media/kiosk/ when plugged in (ones already plugged in: after a replug or reboot)"
step "done$([ "$dry_run" = 1 ] && echo ' (dry run: nothing was changed)')"
