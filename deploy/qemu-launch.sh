#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The one QEMU launcher of the project's guests: the system test (Tests/System/run.sh) and its
# power cuts (Tests/System/powercut/powercut.sh), the appliance under systemd
# (deploy/tests/boot-time-qemu.sh), the SD-card image on an emulated Raspberry Pi 3 B
# (deploy/image/boot-raspi.sh), the image's root on -M virt (deploy/image/boot-virt.sh) and the
# image's power cuts (deploy/image/power-cut.sh). Not deploy/image/boot-raspi4.sh: QEMU's raspi4b
# is in trixie's QEMU 10, which it runs inside a trixie tree (bookworm's 7.2 has no raspi4b).
#
# It picks the emulator for the guest's architecture, turns the accelerator into QEMU's arguments,
# adds the system test's 9p shares, bounds the run with timeout(1) when asked, and then execs QEMU:
# a caller that starts it with `&` gets QEMU's own process id in $! (timeout's with --timeout).
# What each guest is (machine, devices, consoles, disks) stays with its caller, after `--`.
#
# Usage: deploy/qemu-launch.sh [OPTIONS] [-- MORE-QEMU-ARGUMENTS...]
#   --arch x86_64|aarch64   the guest's architecture (default x86_64): qemu-system-ARCH
#   --machine NAME          -M NAME (pc, virt, raspi3b)
#   --accel tcg|kvm         default tcg; kvm adds -cpu host unless --cpu names one
#   --cpu MODEL             -cpu MODEL
#   --memory MB, --smp N    -m MB, -smp N
#   --kernel FILE, --initrd FILE, --dtb FILE, --append TEXT
#   --host-root DIR         DIR shared read-only as the 9p tag "host" (the system test's guest root)
#   --out DIR               DIR shared writable as the 9p tag "out" (the system test's results)
#   --bare                  -nodefaults -no-user-config -display none -no-reboot (the system test's guests)
#   --timeout SECONDS       ends QEMU after SECONDS (timeout -k 5: SIGKILL 5 s later)
#   --print                 prints the command (shell-quoted) instead of running it
#   --which                 prints the emulator's path (empty, status 1, when it is not installed)
#   --help                  prints this
set -uo pipefail

arch=x86_64 machine='' accel=tcg cpu='' memory='' smp='' kernel='' initrd='' dtb='' append_set=0 append=''
host_root='' out='' bare=0 timeout_s='' print=0 which=0
while [ $# -gt 0 ]; do
    case "$1" in
        --arch) arch=$2; shift ;;
        --machine) machine=$2; shift ;;
        --accel) accel=$2; shift ;;
        --cpu) cpu=$2; shift ;;
        --memory) memory=$2; shift ;;
        --smp) smp=$2; shift ;;
        --kernel) kernel=$2; shift ;;
        --initrd) initrd=$2; shift ;;
        --dtb) dtb=$2; shift ;;
        --append) append=$2; append_set=1; shift ;;
        --host-root) host_root=$2; shift ;;
        --out) out=$2; shift ;;
        --bare) bare=1 ;;
        --timeout) timeout_s=$2; shift ;;
        --print) print=1 ;;
        --which) which=1 ;;
        -h | --help) sed -n '3,/^set /{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;;
        --) shift; break ;;
        *) echo "qemu-launch: unknown option '$1' (--help lists them)" >&2; exit 2 ;;
    esac
    shift
done

case "$arch" in
    x86_64 | amd64) emulator=qemu-system-x86_64 ;;
    aarch64 | arm64) emulator=qemu-system-aarch64 ;;
    *) echo "qemu-launch: unknown architecture '$arch' (x86_64 or aarch64)" >&2; exit 2 ;;
esac
qemu=$(command -v "$emulator" || true)
if [ "$which" = 1 ]; then
    echo "$qemu"
    [ -n "$qemu" ]
    exit
fi
[ -n "$qemu" ] || { echo "qemu-launch: $emulator not found" >&2; exit 127; }

args=()
[ -n "$machine" ] && args+=(-M "$machine")
case "$accel" in
    tcg) args+=(-accel tcg) ;;
    # KVM runs the host's own CPU model; nothing else is emulated.
    kvm) args+=(-accel kvm); [ -n "$cpu" ] || cpu=host ;;
    *) echo "qemu-launch: unknown accelerator '$accel' (tcg or kvm)" >&2; exit 2 ;;
esac
[ -n "$cpu" ] && args+=(-cpu "$cpu")
[ -n "$memory" ] && args+=(-m "$memory")
[ -n "$smp" ] && args+=(-smp "$smp")
[ "$bare" = 1 ] && args+=(-nodefaults -no-user-config -display none -no-reboot)
[ -n "$kernel" ] && args+=(-kernel "$kernel")
[ -n "$initrd" ] && args+=(-initrd "$initrd")
[ -n "$dtb" ] && args+=(-dtb "$dtb")
# multidevs=remap: the host directories span several file systems, whose inode numbers would collide.
[ -n "$host_root" ] &&
    args+=(-virtfs "local,path=$host_root,mount_tag=host,security_model=none,readonly=on,multidevs=remap")
[ -n "$out" ] && args+=(-virtfs "local,path=$out,mount_tag=out,security_model=none,multidevs=remap")
args+=("$@")
[ "$append_set" = 1 ] && args+=(-append "$append")

command=("$qemu" "${args[@]}")
[ -n "$timeout_s" ] && command=(timeout -k 5 "$timeout_s" "${command[@]}")
if [ "$print" = 1 ]; then
    printf '%q ' "${command[@]}"
    echo
    exit 0
fi
exec "${command[@]}"
