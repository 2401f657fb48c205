#!/bin/bash
# Checks the deployment files (CI: `bash deploy/check-units.sh`; needs root for the loop-mount and
# udev parts, which are skipped with the reason otherwise):
#   1. systemd-analyze verify: every unit, in a scratch root with the units installed and stub binaries
#   2. systemd-analyze security --offline=yes: kiosk-player.service exposure <= 2.0, kiosk-web.service <= 2.0
#   3. udev rules: `udevadm verify` (systemd >= 254), else a parse check through `udevadm test`
#   4. USB automount: deploy/tests/test-automount.sh; the console helper: deploy/tests/test-console.sh;
#      the power-latch shutdown hook: deploy/tests/test-power-latch.sh
#   5. board profiles, when a kiosk-player binary is built: `kiosk-player boards --check`, and
#      `kiosk-player check-config deploy/config.json --board NAME` for every profile (the player's
#      own loader, with the default config install.sh writes)
#   6. the board checker's own tests: deploy/tests/test-check-boards.sh
#   7. install.sh --dry-run on this machine, and install.sh --help / bad options
# Prints "check-units: N passed, N failed" and exits 1 if any step failed.
set -uo pipefail
export LC_ALL=C SYSTEMD_LOG_COLOR=0
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
max_exposure=2.0
max_web_exposure=2.0
work=$(mktemp -d /tmp/check-units.XXXXXX)
trap 'rm -rf "$work"' EXIT
harness_prefix="check-units: "
# shellcheck source=tests/harness.sh
source "$here/tests/harness.sh"
# shellcheck source=units.sh
source "$here/units.sh"
mapfile -t units < <(kiosk_units)


echo "== 1. systemd-analyze verify"
listed=$(printf '%s\n' "${units[@]}" | sort)
shipped=$(cd "$here/systemd" && ls | sort)
[ "$listed" = "$shipped" ]
result "deploy/units.list names every file of deploy/systemd/, and only those" $? "listed: $listed
shipped: $shipped"
if ! command -v systemd-analyze >/dev/null; then
    result "systemd-analyze is installed (package systemd)" 1
else
    scratch="$work/root"
    mkdir -p "$scratch/usr/lib/systemd" "$scratch/etc/systemd/system" "$scratch/usr/bin" "$scratch/usr/lib/kiosk-player"
    # The distribution's units (targets the units refer to), then ours, as install.sh places them.
    cp -a /usr/lib/systemd/system "$scratch/usr/lib/systemd/"
    for u in "${units[@]}"; do cp "$here/systemd/$u" "$scratch/usr/lib/systemd/system/"; done
    printf '#!/bin/sh\nexit 0\n' >"$scratch/usr/bin/kiosk-player"
    printf '#!/bin/sh\nexit 0\n' >"$scratch/usr/bin/kiosk-web"
    cp "$(command -v systemctl)" "$scratch/usr/bin/systemctl"
    cp "$here/kiosk-automount" "$here/kiosk-lazytime" "$here/kiosk-console" "$scratch/usr/lib/kiosk-player/"
    chmod 0755 "$scratch/usr/bin/kiosk-player" "$scratch/usr/bin/kiosk-web" "$scratch/usr/lib/kiosk-player/kiosk-automount" "$scratch/usr/lib/kiosk-player/kiosk-lazytime" \
        "$scratch/usr/lib/kiosk-player/kiosk-console"
    for u in "${units[@]}"; do
        u=${u/@./@sda1.}  # a template is verified as an instance
        # --man=no: verify would run the host's man, where the page is not installed (a fresh CI
        # machine); the pages are checked against the ones we ship below.
        out=$(systemd-analyze verify --man=no --root="$scratch" "$u" 2>&1)
        status=$?
        # Any message (unknown key, bad value, missing binary) fails, not only a non-zero status.
        [ -z "$out" ] || status=1
        result "verify $u" "$status" "$out"
    done
    # With the drop-in kiosk-library-dropin writes for "libraryDirectories" (music on the SD card).
    printf '{"libraryDirectories": ["/home/pi/Music"]}\n' >"$work/library-config.json"
    if "$here/kiosk-library-dropin" "$here/../.build/debug/kiosk-player" "$work/library-config.json" \
        "$scratch/etc/systemd/system/kiosk-player.service.d/60-library-directories.conf" >/dev/null 2>&1 \
        || "$here/kiosk-library-dropin" "$(command -v kiosk-player || echo /nonexistent)" "$work/library-config.json" \
            "$scratch/etc/systemd/system/kiosk-player.service.d/60-library-directories.conf" >/dev/null 2>&1; then
        out=$(systemd-analyze verify --man=no --root="$scratch" kiosk-player.service 2>&1)
        status=$?
        [ -z "$out" ] || status=1
        grep -qx 'BindReadOnlyPaths=-/home/pi/Music' "$scratch/etc/systemd/system/kiosk-player.service.d/60-library-directories.conf" || status=1
        result "verify kiosk-player.service with the libraryDirectories drop-in" "$status" "$out"
        rm -rf "$scratch/etc/systemd/system/kiosk-player.service.d"
    else
        echo "  (skipped: no kiosk-player binary built to read libraryDirectories)"
    fi
    # The check must be able to fail: a unit with a typo is rejected.
    sed 's/^ProtectHome=yes/ProtectHom=yes/' "$here/systemd/kiosk-player.service" >"$scratch/usr/lib/systemd/system/kiosk-player.service"
    out=$(systemd-analyze verify --man=no --root="$scratch" kiosk-player.service 2>&1)
    case "$out" in *"ProtectHom"*) result "verify rejects a misspelt key (self-test)" 0 ;;
        *) result "verify rejects a misspelt key (self-test)" 1 "$out" ;; esac
fi
# Every man page a unit's Documentation= names is one the package ships.
missing=""
for page in $(sed -n 's/^Documentation=//p' "$here"/systemd/* | tr ' ' '\n' | sed -n 's/^man:\(.*\)(\([0-9]\))$/\1.\2/p' | sort -u); do
    [ -f "$here/debian/$page" ] || missing="$missing $page"
done
if [ -z "$missing" ]; then result "the units' Documentation= man pages are shipped (deploy/debian/)" 0
else result "the units' Documentation= man pages are shipped (deploy/debian/)" 1 "missing:$missing"; fi
# Every file a unit's Documentation= names is one the package and install.sh put there: README.md,
# docs/*.md and boards.md (boards/README.md) under /usr/share/doc/kiosk-player.
missing=""
for doc in $(sed -n 's/^Documentation=//p' "$here"/systemd/* | tr ' ' '\n' | sed -n 's|^file:/usr/share/doc/kiosk-player/||p' | sort -u); do
    case "$doc" in boards.md) src=boards/README.md ;; *) src=$doc ;; esac
    [ -f "$repo/$src" ] || missing="$missing $doc"
done
if [ -z "$missing" ]; then result "the units' Documentation= files are shipped (README.md, docs/)" 0
else result "the units' Documentation= files are shipped (README.md, docs/)" 1 "missing:$missing"; fi

echo "== 2. systemd-analyze security --offline=yes"
if command -v systemd-analyze >/dev/null && systemd-analyze security --help 2>/dev/null | grep -q -- '--offline'; then
    for u in kiosk-player.service kiosk-web.service kiosk-automount@.service; do
        cp "$here/systemd/$u" "$work/"
        out=$(cd "$work" && systemd-analyze security --offline=yes --no-pager "$u" 2>&1)
        score=$(printf '%s\n' "$out" | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
        echo "check-units: $u exposure $score"
        # The phone page serves the network, so it cannot have PrivateNetwork=yes as the player does.
        case "$u" in kiosk-player.service) max=$max_exposure ;; kiosk-web.service) max=$max_web_exposure ;; *) max= ;; esac
        if [ -n "$max" ]; then
            if [ -n "$score" ] && awk -v s="$score" -v m="$max" 'BEGIN { exit !(s <= m) }'; then
                result "$u exposure $score <= $max" 0
            else
                result "$u exposure ${score:-unknown} <= $max" 1 "$(printf '%s\n' "$out" | grep -E '✗|Overall' )"
            fi
        fi
    done
    echo "check-units: (kiosk-automount@.service must mount in the host namespace, so it keeps CAP_SYS_ADMIN: not gated)"
else
    result "systemd-analyze security --offline is available (systemd >= 250)" 1
fi

echo "== 3. udev rules"
if command -v udevadm >/dev/null && udevadm verify --help >/dev/null 2>&1; then
    out=$(udevadm verify "$here"/udev/*.rules 2>&1)
    result "udevadm verify" $? "$out"
elif command -v udevadm >/dev/null && command -v unshare >/dev/null && [ "$(id -u)" = 0 ]; then
    echo "check-units: udevadm $(udevadm --version) has no 'verify' (systemd >= 254); parsing the rules with 'udevadm test'"
    rules="$work/rules"
    mkdir -p "$rules"
    cp "$here"/udev/*.rules "$rules/"
    printf 'SUBSYSTEM=="gpio", FOO="x"\n' >"$rules/99-self-test-bad.rules"
    device=$(ls -d /sys/class/block/* /sys/class/tty/* 2>/dev/null | head -n 1)
    out=$(unshare -m sh -c "mount --bind '$rules' /etc/udev/rules.d && udevadm test --action=add '$device'" 2>&1)
    # Lines "FILE:LINE message" are rule problems; groups that install.sh creates may be missing here.
    problems=$(printf '%s\n' "$out" | grep -E 'kiosk-player-[a-z]+\.rules:[0-9]+ ' | grep -v -E "Unknown (group|user) '(gpio|spi|input|kiosk-player)'")
    result "udev rules parse without errors" "$([ -z "$problems" ] && echo 0 || echo 1)" "$problems"
    case "$out" in *"99-self-test-bad.rules:1 Invalid key"*) result "the parse check reports a bad rule (self-test)" 0 ;;
        *) result "the parse check reports a bad rule (self-test)" 1 "$(printf '%s\n' "$out" | grep -i bad)" ;; esac
else
    skip "udev rules" "no udevadm verify, and udevadm test needs root and unshare"
fi

echo "== 4. USB automount"
bash "$here/tests/test-automount.sh"
result "tests/test-automount.sh" $?
bash "$here/tests/test-console.sh" >"$work/console.log" 2>&1
status=$?
tail -n 1 "$work/console.log"
result "tests/test-console.sh (kiosk-console against a fake sysfs)" "$status" "$(grep -A3 FAIL "$work/console.log")"
bash "$here/tests/test-power-latch.sh" >"$work/latch.log" 2>&1
status=$?
tail -n 1 "$work/latch.log"
result "tests/test-power-latch.sh (the shutdown hook's actions)" "$status" "$(grep -A3 FAIL "$work/latch.log")"

echo "== 5. board profiles"
player=$(built_player)
if [ -n "$player" ]; then
    out=$("$player" boards --check --dir "$repo/boards" 2>&1)
    result "kiosk-player boards --check (boards/*.json)" $? "$out"
    for f in "$repo"/boards/*.json; do
        name=$(basename "$f" .json)
        out=$(KIOSK_BOARDS_DIR="$repo/boards" "$player" check-config "$here/config.json" --board "$name" 2>&1)
        result "kiosk-player check-config deploy/config.json --board $name" $? "$out"
    done
else
    skip "kiosk-player boards --check and check-config on each profile" \
        "no built kiosk-player (swift build first, or KIOSK_PLAYER=path)"
fi

echo "== 6. board checker self-test"
bash "$here/tests/test-check-boards.sh" >"$work/boards.log" 2>&1
status=$?
tail -n 1 "$work/boards.log"
result "tests/test-check-boards.sh" "$status" "$(grep FAIL -A3 "$work/boards.log")"

echo "== 7. install.sh"
out=$(bash "$here/install.sh" --dry-run --no-deps --board pirate-audio 2>&1)
status=$?
printf '%s\n' "$out" | sed 's/^/    /'
case "$out" in *"dry run: nothing was changed"*) ;; *) status=1 ;; esac
result "install.sh --dry-run on this machine" "$status"
bash "$here/install.sh" --frobnicate >/dev/null 2>&1
[ $? = 2 ] && result "install.sh rejects an unknown option (exit 2)" 0 || result "install.sh rejects an unknown option (exit 2)" 1
out=$(bash "$here/install.sh" --dry-run --board no-such-board 2>&1)
case "$out" in *"no boards/no-such-board.json"*) result "install.sh names a missing board" 0 ;;
    *) result "install.sh names a missing board" 1 "$out" ;; esac

harness_end
