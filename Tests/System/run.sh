#!/usr/bin/env bash
# The system test (`make system-test`): boots Debian's kernel under QEMU with the host root shared
# read-only (9p + tmpfs overlay), loads snd-aloop, vfb, uinput and gpio-sim (built here out of tree),
# runs Tests/System/scenarios/*.sh inside and prints a table of results and figures.
#
#   bash Tests/System/run.sh [PATTERN...]     only scenarios whose file name contains a PATTERN
#                                             (or SYSTEST_ONLY="PATTERN ..."; a path runs that script)
#   bash Tests/System/run.sh --prepare-only   only build what the guest needs into the cache and exit
#                                             (CI warms the arm64 cache this way in the background)
#
# Environment:
#   SYSTEST_ACCEL=auto|tcg|kvm   auto (default) probes KVM with a 20 s boot and falls back to TCG
#   SYSTEST_STRICT=1             a missing piece of infrastructure (QEMU, kernel, a driver) fails the run
#   SYSTEST_NO_SKIP=1            any skipped scenario fails the run
#   SYSTEST_TIMEOUT=N            seconds for the whole guest run (QEMU is killed after that); unset: 300
#                                plus the chosen scenarios' own "# timeout:" (scaled)
#   SYSTEST_MEMORY=1536 SYSTEST_CPUS=2   guest size; SYSTEST_CPU=qemu64  TCG CPU model
#   SYSTEST_FB_MODE=320x240M-32  the framebuffer mode the scenarios start with (240x240M-16 …)
#   SYSTEST_PLAYER=.build/debug/kiosk-player   SYSTEST_OUT=.build/systest/out
#   SYSTEST_PLAYER_VERBOSE=1     the player runs with --verbose (its gestures, with their times, in player.log)
#   SYSTEST_CACHE, SYSTEST_KERNEL: see prepare.sh
#   SYSTEST_ARCH=arm64           the guest is Debian trixie arm64 under qemu-system-aarch64 (TCG, -M virt,
#                                SYSTEST_CPU=cortex-a72): Debian's linux-image-arm64, the arm64 build tree of
#                                deploy/trees as its root (target-root.sh), the player and test bundle of
#                                `deploy/trees/swift-build.sh arm64 --build-tests` (`make system-test ARCH=arm64`)
#   SYSTEST_TIMEOUT_SCALE=N      multiplies each scenario's "# timeout:" (default 1; arm64: 3)
# Exit status: 0 when nothing failed, 1 otherwise.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
run_start=$(date +%s.%N)
seconds_since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
say() { echo "system-test: $*"; }

prepare_only=0
[ "${1:-}" = --prepare-only ] && { prepare_only=1; shift; }
patterns=("$@")
# shellcheck disable=SC2206  # split on purpose
[ ${#patterns[@]} -eq 0 ] && [ -n "${SYSTEST_ONLY:-}" ] && patterns=($SYSTEST_ONLY)
out=${SYSTEST_OUT:-$repo/.build/systest/out}
arch=${SYSTEST_ARCH:-}
case "$arch" in
    '') player=${SYSTEST_PLAYER:-$repo/.build/debug/kiosk-player} ;;
    arm64) player=${SYSTEST_PLAYER:-$repo/.build/debian-trixie-arm64/aarch64-unknown-linux-gnu/debug/kiosk-player} ;;
    *) say "SYSTEST_ARCH=$arch is not supported (empty: this machine's own kernel and root; arm64)"; exit 2 ;;
esac
# The guest multiplies each scenario's "# timeout:" by this (an emulated arm64 CPU is several times slower).
timeout_scale=${SYSTEST_TIMEOUT_SCALE:-$([ "$arch" = arm64 ] && echo 3 || echo 1)}
export SYSTEST_ARCH=$arch
strict=${SYSTEST_STRICT:-0}
no_skip=${SYSTEST_NO_SKIP:-0}

# --- scenarios -------------------------------------------------------------------------------
scenarios=()
for p in "${patterns[@]}"; do
    # a path to a script runs that script (handy while writing one)
    if [ -f "$p" ]; then scenarios+=("$(cd "$(dirname "$p")" && pwd)/$(basename "$p")"); fi
done
for file in "$here"/scenarios/*.sh; do
    [ -f "$file" ] || continue
    if [ ${#patterns[@]} -gt 0 ]; then
        keep=0
        for p in "${patterns[@]}"; do [[ "$(basename "$file")" == *"$p"* ]] && keep=1; done
        [ "$keep" = 1 ] || continue
    fi
    scenarios+=("$file")
done
[ ${#scenarios[@]} -gt 0 ] || { say "no scenario matches: ${patterns[*]}"; exit 1; }

# --- build what the guest needs (cached) ------------------------------------------------------
testbench=${KIOSK_FLAC_TESTBENCH:-}
for candidate in "$repo/../shared/flac-testbench/subset" "$repo/../../shared/flac-testbench/subset"; do
    [ -z "$testbench" ] && [ -d "$candidate" ] && testbench=$(cd "$candidate" && pwd)
done
[ -n "$testbench" ] || say "no FLAC testbench (KIOSK_FLAC_TESTBENCH or ../shared/flac-testbench/subset): scenarios use generated FLAC files"

export SYSTEST_TESTBENCH=$testbench
t=$(date +%s.%N)
declare -A art=()
while IFS='=' read -r key value; do
    [ -n "$key" ] && art[$key]=$value
done < <(bash "$here/prepare.sh")
prepare_seconds=$(seconds_since "$t")
built=""
for key in "${!art[@]}"; do [[ $key == BUILT_* ]] && built+=" ${key#BUILT_} ${art[$key]} s;"; done
say "prepared in $prepare_seconds s (kernel ${art[KERNEL]:-none}, cache ${art[CACHE]:-none})${built:+; built:$built}"
missing_report=""
for key in "${!art[@]}"; do
    if [[ $key == MISSING_* ]]; then
        say "MISSING ${key#MISSING_}: ${art[$key]}"
        missing_report+="${key#MISSING_}: ${art[$key]}; "
    fi
done
if [ "$prepare_only" = 1 ]; then
    if [ -n "$missing_report" ] && [ "$strict" = 1 ]; then exit 1; fi
    exit 0
fi

rm -rf "$out"
mkdir -p "$out"

# print_table : the results as a Markdown table (paste-able into docs/testing.md).
print_table() {
    echo
    echo "| scenario | result | seconds | first PCM (ms) | player CPU (ms) | player max RSS (MB) | note |"
    echo "|---|---|---|---|---|---|---|"
    tail -n +2 "$out/results.tsv" | while IFS=$'\t' read -r name status seconds first cpu rss note; do
        [ "$rss" != - ] && rss=$(awk -v k="$rss" 'BEGIN { printf "%.1f", k / 1024 }')
        echo "| $name | $status | $seconds | $first | $cpu | $rss | ${note//|/\\|} |"
    done
    echo
}

# skip_all REASON : every scenario SKIPs (the guest cannot boot) and the reason is printed.
skip_all() {
    say "cannot boot the guest: $1"
    printf 'scenario\tstatus\tseconds\tfirst_pcm_ms\tcpu_ms\tmax_rss_kb\tnote\n' > "$out/results.tsv"
    for file in "${scenarios[@]}"; do
        printf '%s\tSKIP\t0\t-\t-\t-\t%s\n' "$(basename "$file" .sh)" "no guest: $1" >> "$out/results.tsv"
    done
    print_table
    if [ "$strict" = 1 ] || [ "$no_skip" = 1 ]; then say "FAILED (SYSTEST_STRICT/SYSTEST_NO_SKIP: infrastructure missing)"; exit 1; fi
    say "all scenarios skipped (set SYSTEST_STRICT=1 to make this an error)"
    exit 0
}

# QEMU is started through the project's one launcher (deploy/qemu-launch.sh).
launcher=$repo/deploy/qemu-launch.sh
if [ "$arch" = arm64 ]; then
    qemu_arch=aarch64
    bash "$launcher" --arch aarch64 --which > /dev/null || skip_all "qemu-system-aarch64 not found (package qemu-system-arm)"
else
    qemu_arch=x86_64
    bash "$launcher" --which > /dev/null ||
        skip_all "qemu-system-x86_64 not found (package qemu-system-x86; deploy/install-deps.sh --system-test)"
fi
[ -n "${art[KERNEL]:-}" ] || skip_all "${art[MISSING_kernel]:-no kernel}"
[ -n "${art[INITRAMFS]:-}" ] || skip_all "${art[MISSING_initramfs]:-no initramfs}"
if [ "$arch" = arm64 ]; then kernel_image=${art[IMAGE]}; else kernel_image=${art[VMLINUX]:-${art[BZIMAGE]}}; fi

# --- guest environment (sourced by guest.sh; paths are the same inside the guest) ---------------
{
    echo "SYSTEST_REPO=$(printf %q "$repo")"
    echo "SYSTEST_OUT=$(printf %q "$out")"
    echo "SYSTEST_TOOLS=$(printf %q "${art[TOOLS]}")"
    echo "SYSTEST_PLAYER=$(printf %q "$player")"
    echo "SYSTEST_TESTBENCH=$(printf %q "$testbench")"
    echo "SYSTEST_FIXTURES=$(printf %q "${art[FIXTURES]:-}")"
    echo "SYSTEST_GPIO_SIM_KO=$(printf %q "${art[GPIO_SIM_KO]:-}")"
    echo "SYSTEST_VFB_RGB_KO=$(printf %q "${art[VFB_RGB_KO]:-}")"
    echo "SYSTEST_VFB_KO=$(printf %q "${art[VFB_KO]:-}")"
    echo "SYSTEST_ARCH=$(printf %q "$arch")"
    echo "SYSTEST_TIMEOUT_SCALE=$(printf %q "$timeout_scale")"
    echo "SYSTEST_SPI_RECORD_KO=$(printf %q "${art[SPI_RECORD_KO]:-}")"
    echo "SYSTEST_GPIOD_V2_CHECK=$(printf %q "${art[GPIOD_V2_CHECK]:-}")"
    echo "SYSTEST_FB_MODE=$(printf %q "${SYSTEST_FB_MODE:-320x240M-32}")"
    echo "SYSTEST_SCENARIOS=$(printf %q "${scenarios[*]}")"
    echo "SOAK_MINUTES=$(printf %q "${SOAK_MINUTES:-}")"
    echo "SOAK_ONLY=$(printf %q "${SOAK_ONLY:-}")"
    echo "SOAK_SKIP=$(printf %q "${SOAK_SKIP:-}")"
    echo "SOAK_SEED=$(printf %q "${SOAK_SEED:-}")"
    echo "SOAK_STALL_RULE=$(printf %q "${SOAK_STALL_RULE:-}")"
    echo "SDWRITES_MINUTES=$(printf %q "${SDWRITES_MINUTES:-}")"
    echo "SDWRITES_OPTIONS=$(printf %q "${SDWRITES_OPTIONS:-}")"
    for key in "${!art[@]}"; do
        [[ $key == MISSING_* ]] && echo "SYSTEST_$key=$(printf %q "${art[$key]}")"
    done
} > "$out/guest.env"

# --- accelerator ------------------------------------------------------------------------------
# the guest's root: the host's own (x86), or the arm64 tree with the kernel laid over it and the
# repository, the cache and the testbench bound at their own paths (target-root.sh, which runs QEMU
# in a private mount namespace; nothing is mounted on the host)
guest_root=/
in_guest_root=()
if [ "$arch" = arm64 ]; then
    guest_root=/tmp/kiosk-systest-root
    cache_root=$(dirname "${art[CACHE]}")
    in_guest_root=(env SYSTEST_ROOT_BINDS="$repo $cache_root $testbench"
        bash "$here/target-root.sh" "$guest_root" "${art[CACHE]}/root" "${art[TREE]}" --)
fi
# the guest: the kernel and initramfs, the root shared read-only and the results directory writable
common_args=(--arch "$qemu_arch" --bare --kernel "$kernel_image" --initrd "${art[INITRAMFS]}"
    --host-root "$guest_root" --out "$out")
if [ "$arch" = arm64 ]; then
    common_args+=(--machine virt)
    cmdline="console=ttyAMA0 quiet loglevel=3 panic=-1 mitigations=off systest.out=$out systest.exec=$here/guest.sh"
else
    common_args+=(--machine pc)
    cmdline="console=ttyS0 quiet loglevel=3 panic=-1 mitigations=off systest.out=$out systest.exec=$here/guest.sh"
fi

accel=${SYSTEST_ACCEL:-auto}
# qemu64 (no AVX): under TCG, flac and libm ran about 1.5× faster than with -cpu max
accel_args=(--accel tcg --cpu "${SYSTEST_CPU:-qemu64}")
if [ "$arch" = arm64 ]; then
    # no KVM for an aarch64 guest on this x86 host: TCG only. cortex-a72 is a Raspberry Pi 4's core
    # (-cpu max adds pointer authentication and SVE, which TCG emulates slowly)
    accel_args=(--accel tcg --cpu "${SYSTEST_CPU:-cortex-a72}")
    [ "$accel" = kvm ] && { say "SYSTEST_ACCEL=kvm: an aarch64 guest cannot use KVM on this host"; exit 1; }
elif [ "$accel" != tcg ]; then
    if [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
        t=$(date +%s.%N)
        probe=$(timeout 20 bash "$launcher" --accel kvm --memory 256 "${common_args[@]}" \
            --append "console=ttyS0 quiet panic=-1 systest.probe=1" -- -serial stdio < /dev/null 2>&1)
        if echo "$probe" | grep -q SYSTEST-PROBE-OK; then
            accel_args=(--accel kvm)
            say "KVM works (probe boot $(seconds_since "$t") s)"
        else
            reason=$(echo "$probe" | grep -v '^\s*$' | tail -n 2 | tr '\n' ' ')
            say "KVM probe failed (${reason:-no output within 20 s}); using TCG"
            [ "$accel" = kvm ] && { say "SYSTEST_ACCEL=kvm but KVM does not work"; exit 1; }
        fi
    else
        say "no usable /dev/kvm; using TCG"
        [ "$accel" = kvm ] && { say "SYSTEST_ACCEL=kvm but /dev/kvm is not usable"; exit 1; }
    fi
fi

# --- VM stalls on request (lib.sh vm_stall): the host stops the emulator for a while, as a loaded
# host does when it does not schedule QEMU. The guest writes "ID MS" to vm-stall-request; this
# stops QEMU (SIGSTOP) for MS milliseconds and answers ID in vm-stall-done.
stall_server() {
    local fd request id ms pid
    exec {fd}<> <(:)  # read -t on a pipe nobody writes to: a sleep without a fork
    while kill -0 "$$" 2>/dev/null; do
        if [ -s "$out/vm-stall-request" ] && pid=$(cat "$out/qemu.pid" 2>/dev/null) && [ -n "$pid" ]; then
            request=$(cat "$out/vm-stall-request"); rm -f "$out/vm-stall-request"
            id=${request% *} ms=${request#* }
            if [[ $ms =~ ^[0-9]+$ ]] && [ "$ms" -le 5000 ]; then
                kill -STOP "$pid" && read -r -t "$(awk -v m="$ms" 'BEGIN { printf "%.3f", m / 1000 }')" -u "$fd"
                kill -CONT "$pid"
            fi
            echo "$id" > "$out/vm-stall-done"
        fi
        read -r -t 0.02 -u "$fd"
    done
}

# --- boot and run -----------------------------------------------------------------------------
# Unset: the boot and drivers (300 s) plus every chosen scenario's own "# timeout:" (scaled as the
# guest scales it; 120 s without one). Each scenario is killed at its own timeout, so this bound only
# catches a guest that hangs outside them; a fixed 540 s failed a whole CI run whose machine was
# slower than usual (every scenario within its own timeout, 16-92 never started).
if [ -n "${SYSTEST_TIMEOUT:-}" ]; then
    timeout_s=$SYSTEST_TIMEOUT
else
    timeout_s=300
    for file in "${scenarios[@]}"; do
        t=$(sed -n 's/^# timeout: *\([0-9]*\).*/\1/p' "$file" | head -n 1)
        timeout_s=$((timeout_s + ${t:-120} * timeout_scale))
    done
fi
say "booting ${kernel_image##*/} (${accel_args[1]}), ${#scenarios[@]} scenario(s), timeout $timeout_s s; output in $out"
boot_start=$(date +%s.%N)
stall_server &
stall_server_pid=$!
for attempt in 1 2; do
    rm -f "$out/qemu.pid"
    "${in_guest_root[@]}" bash "$launcher" --timeout "$timeout_s" "${accel_args[@]}" --memory "${SYSTEST_MEMORY:-1536}" \
        --smp "${SYSTEST_CPUS:-2}" "${common_args[@]}" --append "$cmdline" -- \
        -chardev "stdio,id=console,logfile=$out/console.log" -serial chardev:console -pidfile "$out/qemu.pid" < /dev/null
    qemu_status=$?
    # QEMU 7.2 once segfaulted while starting (status 139, no guest output): one retry for that
    if [ "$attempt" = 1 ] && [ "$qemu_status" -gt 128 ] && [ "$qemu_status" != 137 ] && [ ! -s "$out/guest-times" ]; then
        say "QEMU died with status $qemu_status before the guest started; retrying once"
        continue
    fi
    break
done
vm_seconds=$(seconds_since "$boot_start")
kill "$stall_server_pid" 2>/dev/null
wait "$stall_server_pid" 2>/dev/null

guest_failed=""
if [ ! -f "$out/done" ]; then
    if [ "$qemu_status" = 124 ] || [ "$qemu_status" = 137 ]; then
        guest_failed="the guest did not finish within $timeout_s s (SYSTEST_TIMEOUT)"
    else
        guest_failed="the guest stopped before finishing (QEMU status $qemu_status); see $out/console.log"
    fi
    say "$guest_failed"
    grep -q SYSTEST-INIT-FAILED "$out/console.log" 2>/dev/null && grep 'systest-init:' "$out/console.log"
    # scenarios that never reported: FAIL
    [ -f "$out/results.tsv" ] || printf 'scenario\tstatus\tseconds\tfirst_pcm_ms\tcpu_ms\tmax_rss_kb\tnote\n' > "$out/results.tsv"
    for file in "${scenarios[@]}"; do
        name=$(basename "$file" .sh)
        cut -f1 "$out/results.tsv" | grep -qx "$name" ||
            printf '%s\tFAIL\t-\t-\t-\t-\t%s\n' "$name" "not run: $guest_failed" >> "$out/results.tsv"
    done
fi

# --- report -----------------------------------------------------------------------------------
echo
say "infrastructure in the guest:"
if [ -s "$out/infra.tsv" ]; then
    while IFS=$'\t' read -r name state detail; do printf '  %-10s %-8s %s\n' "$name" "$state" "$detail"; done < "$out/infra.tsv"
fi
print_table
boot_seconds=$(sed -n 's/^boot_seconds=//p' "$out/guest-times" 2>/dev/null)
drivers_seconds=$(sed -n 's/^drivers_seconds=//p' "$out/guest-times" 2>/dev/null)
say "times: prepare $prepare_seconds s, guest kernel boot ${boot_seconds:-?} s, drivers ${drivers_seconds:-?} s, VM total $vm_seconds s, whole run $(seconds_since "$run_start") s (${accel_args[1]})"

failed=$(awk -F'\t' 'NR > 1 && $2 == "FAIL"' "$out/results.tsv" | wc -l)
skipped=$(awk -F'\t' 'NR > 1 && $2 == "SKIP"' "$out/results.tsv" | wc -l)
passed=$(awk -F'\t' 'NR > 1 && $2 == "PASS"' "$out/results.tsv" | wc -l)
infra_missing=$(awk -F'\t' '$2 != "ok"' "$out/infra.tsv" 2>/dev/null | wc -l)
say "$passed passed, $failed failed, $skipped skipped"
status=0
[ "$failed" -gt 0 ] && status=1
[ -n "$guest_failed" ] && status=1
if [ "$strict" = 1 ] && { [ "$infra_missing" -gt 0 ] || [ -n "$missing_report" ]; }; then
    say "FAILED: SYSTEST_STRICT=1 and infrastructure is missing: $missing_report"
    status=1
fi
if [ "$no_skip" = 1 ] && [ "$skipped" -gt 0 ]; then
    say "FAILED: SYSTEST_NO_SKIP=1 and $skipped scenario(s) skipped"
    status=1
fi
exit $status
