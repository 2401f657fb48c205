#!/bin/bash
# Boot-time cost of kiosk-player.service, measured by booting a Debian tree with systemd under QEMU:
#
#   deploy/tests/boot-time-qemu.sh [--suite bookworm] [--binary FILE] [--accel tcg|kvm] [--boots N] [--check]
#
# --check (CI): a missing piece is an error instead of a skip, and the run fails unless every boot
# printed its figures with kiosk-player.service active (it reached READY under its sandbox).
#
# The tree is the cached debootstrap of test-install-debootstrap.sh with install.sh run into it.
# Without --binary the player is a stand-in (tests/notify-stub.c: READY=1 from the main process,
# then sleep), so the figures are what the unit itself costs: its ordering, the sandbox set-up
# (namespaces, seccomp, device cgroup) and the notify handshake, not the player's own start-up.
# Each boot (--boots N, default 2) starts the unit next to kiosk-reference.service: the same program
# with the same ordering but no sandbox, so the difference of their start-to-READY times, taken in
# the same boot under the same load, is what the hardening costs. A measuring unit prints
# `systemd-analyze` figures on the serial console and powers off. Needs root, qemu-system-x86_64, /boot/vmlinuz-* + initrd.img-*.
set -euo pipefail
export LC_ALL=C
repo=$(cd "$(dirname "$0")/../.." && pwd)
suite=bookworm
binary=''
accel=tcg
boots=2
check=0
while [ $# -gt 0 ]; do
    case "$1" in
        --suite) suite=$2; shift ;;
        --binary) binary=$2; shift ;;
        --accel) accel=$2; shift ;;
        --boots) boots=$2; shift ;;
        --check) check=1 ;;
        *) echo "boot-time: unknown option '$1'" >&2; exit 2 ;;
    esac
    shift
done
cache=/var/cache/kiosk-player/$suite-minbase
kernel=$(ls /boot/vmlinuz-* 2>/dev/null | sort -V | tail -n 1)
initrd=${kernel/vmlinuz/initrd.img}
skip() {
    if [ "$check" = 1 ]; then echo "boot-time: FAILED (--check): $*" >&2; exit 1; fi
    echo "boot-time: skipped: $*"; exit 0
}
[ "$(id -u)" = 0 ] || skip "needs root"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 missing"
[ -n "$kernel" ] && [ -f "$initrd" ] || skip "no /boot/vmlinuz-* with its initrd (apt-get install linux-image-amd64)"
[ -x "$cache/usr/bin/systemctl" ] || skip "no cached tree: run deploy/tests/test-install-debootstrap.sh --suite $suite first"

work=$(mktemp -d /tmp/kiosk-boot-time.XXXXXX)
trap 'umount -l "$work/tree" 2>/dev/null || true; rm -rf "$work"' EXIT
if [ -z "$binary" ]; then
    gcc -O2 -static -o "$work/notify-stub" "$repo/deploy/tests/notify-stub.c"
    binary="$work/notify-stub"
fi

# boot NAME: one boot; prints the figures.
boot() {
    local name=$1 tree="$work/tree"
    mkdir -p "$tree" "$work/upper-$name" "$work/ovl-$name"
    mount -t overlay overlay -o "lowerdir=$cache,upperdir=$work/upper-$name,workdir=$work/ovl-$name" "$tree"
    mount -t proc proc "$tree/proc"
    bash "$repo/deploy/install.sh" --root "$tree" --binary "$binary" --board qemu-gpio-sim >"$work/install-$name.log" 2>&1 ||
        { umount "$tree/proc"; umount "$tree"; cat "$work/install-$name.log"; exit 1; }
    umount "$tree/proc"
    cat >"$tree/etc/systemd/system/kiosk-reference.service" <<'UNIT'
[Unit]
Description=Reference for the boot-time measurement: kiosk-player.service without its sandbox
After=local-fs.target sound.target
[Service]
Type=notify
ExecStart=/usr/bin/kiosk-player run --config /etc/kiosk-player/config.json
[Install]
WantedBy=multi-user.target
UNIT
    systemctl --root="$tree" enable kiosk-reference.service >/dev/null 2>&1
    # The figures need a finished boot, and a unit that waits for that inside the boot would hold
    # it up forever: the script re-arms itself as a transient timer until the boot has finished.
    mkdir -p "$tree/usr/local/sbin"
    cat >"$tree/usr/local/sbin/boot-measure" <<'SCRIPT'
#!/bin/sh
if ! systemd-analyze time >/dev/null 2>&1; then
    exec systemd-run --quiet --on-active=2 --unit="boot-measure-$(date +%s%N)" \
        --property=StandardOutput=tty --property=TTYPath=/dev/ttyS0 /usr/local/sbin/boot-measure
fi
echo "MEASURE-BEGIN"
systemd-analyze time
systemd-analyze critical-chain kiosk-player.service
systemd-analyze blame | head -n 8
for u in kiosk-player.service kiosk-reference.service; do
    start=$(systemctl show -P ExecMainStartTimestampMonotonic "$u")
    ready=$(systemctl show -P ActiveEnterTimestampMonotonic "$u")
    echo "RESULT $u $(systemctl is-active "$u") start @$((start / 1000)) ms, READY after $(((ready - start) / 1000)) ms"
done
systemctl --failed --no-legend
echo "-- kiosk-player.service journal (first lines)"
journalctl -b -u kiosk-player.service -o short-monotonic --no-pager | head -n 25
echo "MEASURE-END"
systemctl poweroff
SCRIPT
    chmod 0755 "$tree/usr/local/sbin/boot-measure"
    cat >"$tree/etc/systemd/system/boot-measure.service" <<'UNIT'
[Unit]
Description=Print boot figures once the boot has finished, then power off
[Service]
Type=oneshot
StandardOutput=tty
TTYPath=/dev/ttyS0
ExecStart=/usr/local/sbin/boot-measure
UNIT
    cat >"$tree/etc/systemd/system/boot-measure.timer" <<'UNIT'
[Timer]
OnActiveSec=1
[Install]
WantedBy=timers.target
UNIT
    systemctl --root="$tree" enable boot-measure.timer >/dev/null 2>&1
    # No login prompts on the console while measuring.
    systemctl --root="$tree" mask serial-getty@ttyS0.service getty@tty1.service >/dev/null 2>&1 || true
    echo "kiosk-boot-test" >"$tree/etc/hostname"
    truncate -s 2G "$work/$name.img"
    mkfs.ext4 -q -d "$tree" "$work/$name.img"
    umount "$tree"
    local accel_args=(-accel tcg)
    [ "$accel" = kvm ] && accel_args=(-accel kvm -cpu host)
    local start end
    start=$(date +%s)
    timeout 900 qemu-system-x86_64 "${accel_args[@]}" -m 1024 -smp 2 -nographic -no-reboot \
        -kernel "$kernel" -initrd "$initrd" \
        -append "root=/dev/vda rw console=ttyS0 quiet systemd.show_status=0 net.ifnames=0" \
        -drive "file=$work/$name.img,if=virtio,format=raw" -nic none >"$work/$name.serial" 2>&1 || true
    end=$(date +%s)
    echo "== boot $name ($accel; $((end - start)) s wall clock for the whole QEMU run)"
    sed -n '/MEASURE-BEGIN/,/MEASURE-END/p' "$work/$name.serial" | grep -v MEASURE | tr -d '\r'
    grep -q MEASURE-END "$work/$name.serial" || { echo "(no figures; last console lines:)"; tail -n 30 "$work/$name.serial"; }
}
for i in $(seq 1 "$boots"); do boot "$i"; done
echo "== summary (start-to-READY of the same program, hardened unit vs reference, per boot)"
grep -ah '^RESULT' "$work"/*.serial | tr -d '\r' | sed 's/^RESULT /  /'
if [ "$check" = 1 ]; then
    active=$(grep -ah '^RESULT kiosk-player.service active ' "$work"/*.serial | grep -c 'READY after' || true)
    if [ "$active" != "$boots" ]; then
        echo "boot-time: FAILED: kiosk-player.service reached READY in $active of $boots boot(s)" >&2
        for f in "$work"/*.serial; do echo "-- $f (last lines)"; tail -n 40 "$f"; done
        exit 1
    fi
    echo "boot-time: kiosk-player.service reached READY under its sandbox in every boot"
fi
