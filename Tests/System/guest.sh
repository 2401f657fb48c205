#!/bin/bash
# PID 1 of the system-test guest (started by initramfs-init after switch_root into the overlay of
# the host root). Mounts the kernel filesystems, loads the test drivers, runs the scenarios listed
# in $OUT/guest.env and writes $OUT/infra.tsv and $OUT/results.tsv, then powers the VM off.
# PID 1 must never exit (the kernel would panic), so everything runs in functions and the end is
# always a poweroff.
out=$1
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 TERM=dumb
guest_start=$EPOCHREALTIME

power_off() {
    sync
    /bin/busybox poweroff -f 2>/dev/null || echo o > /proc/sysrq-trigger
    sleep 10
}
trap power_off EXIT

# initramfs-init mounted the kernel file systems already; this is the fallback for a root that
# was switched some other way.
mount_kernel_filesystems() {
    [ -e /proc/self/stat ] && [ -d /sys/kernel ] && [ -e /dev/null ] && return 0
    mount -t proc proc /proc
    mount -t sysfs sysfs /sys
    mount -t devtmpfs devtmpfs /dev
    mkdir -p /dev/pts /dev/shm
    mount -t devpts devpts /dev/pts
    mount -t tmpfs tmpfs /dev/shm
    mount -t tmpfs -o mode=1777 tmpfs /tmp
    mount -t tmpfs -o mode=755 tmpfs /run
    ln -sf /proc/self/fd /dev/fd
    ln -sf /proc/self/fd/0 /dev/stdin
    ln -sf /proc/self/fd/1 /dev/stdout
    ln -sf /proc/self/fd/2 /dev/stderr
    modprobe configfs 2>/dev/null
    mount -t configfs configfs /sys/kernel/config 2>/dev/null
}

# infra NAME ok|missing DETAIL : one line of $OUT/infra.tsv (printed by the host).
infra() {
    printf '%s\t%s\t%s\n' "$1" "$2" "$3" >> "$out/infra.tsv"
    printf 'systest: %-10s %-8s %s\n' "$1" "$2" "$3"
}

load_drivers() {
    local reason
    # initramfs-init loaded the test drivers from RAM (insmod.log: what failed); a modprobe here
    # only for what is still missing
    local missing=()
    [ -e /proc/asound/Loopback ] || missing+=(snd-aloop)
    [ -e /dev/uinput ] || missing+=(uinput evdev)
    [ -e /dev/loop-control ] || missing+=(loop)
    if [ ${#missing[@]} -gt 0 ]; then
        echo "options snd-aloop pcm_substreams=1 id=Loopback" > /etc/modprobe.d/kiosk-systest.conf
        reason=$(modprobe -a "${missing[@]}" vfat nls_cp437 nls_iso8859_1 ext4 2>&1)
        [ -f "$out/insmod.log" ] && reason="$(tr '\n' ' ' < "$out/insmod.log")$reason"
    fi

    if wait_path /proc/asound/Loopback; then
        infra snd-aloop ok "card Loopback: play hw:Loopback,0, capture hw:Loopback,1"
    else
        infra snd-aloop missing "modprobe snd-aloop failed: ${reason:-no /proc/asound/Loopback}"
    fi
    if wait_path /dev/uinput; then
        infra uinput ok "/dev/uinput"
    else
        infra uinput missing "modprobe uinput failed: ${reason:-no /dev/uinput}"
    fi
    if [ -e /dev/loop-control ]; then infra loop ok "loop devices (vfat, ext4)"; else infra loop missing "no /dev/loop-control: $reason"; fi

    # i2c-stub (virtual SMBus chips at 0x0b, the Smart Battery System's address, and 0x42, the
    # Waveshare UPS HAT's INA219), i2c-dev (their registers scripted by the scenario), sbs-battery
    # and ina2xx-adc (the drivers bound to them): scenario 27. Loaded here from the shared root, not from the initramfs, whose cache other trees share.
    local stub="" bus
    reason=$( { modprobe i2c-stub chip_addr=0x0b,0x42 && modprobe -a i2c-dev sbs-battery ina2xx-adc; } 2>&1)
    for bus in /sys/bus/i2c/devices/i2c-*; do
        [ "$(cat "$bus/name" 2>/dev/null)" = "SMBus stub driver" ] && stub=${bus##*/}
    done
    if [ -z "$stub" ]; then
        infra i2c-stub missing "no SMBus stub adapter: ${reason:-modprobe i2c-stub gave none}"
    elif [ ! -d /sys/bus/i2c/drivers/sbs-battery ]; then
        infra i2c-stub missing "no sbs-battery driver: ${reason:-modprobe sbs-battery gave none}"
    elif [ ! -e "/dev/$stub" ]; then
        infra i2c-stub missing "no /dev/$stub (i2c-dev)"
    else
        infra i2c-stub ok "$stub: SMBus stub, chips at 0x0b and 0x42; sbs-battery driver; /dev/$stub"
    fi

    # hci_vhci (virtual Bluetooth controllers, /dev/vhci) for BlueZ's btvirt: scenario 28.
    reason=$(modprobe hci_vhci 2>&1)
    if [ -e /dev/vhci ]; then
        infra hci_vhci ok "/dev/vhci (btvirt makes the controllers)"
    else
        infra hci_vhci missing "no /dev/vhci: ${reason:-modprobe hci_vhci gave none}"
    fi

    # mac80211_hwsim (two simulated 802.11 radios that hear each other, wlan0 and wlan1): the box
    # and a home router for scenario 29.
    reason=$(modprobe mac80211_hwsim radios=2 2>&1)
    if [ -e /sys/class/net/wlan0/phy80211 ] && [ -e /sys/class/net/wlan1/phy80211 ]; then
        infra mac80211_hwsim ok "wlan0 and wlan1 (two simulated radios)"
    else
        infra mac80211_hwsim missing "no wlan0 and wlan1: ${reason:-modprobe mac80211_hwsim gave none}"
    fi

    if fb_load "${SYSTEST_FB_MODE:-320x240M-32}" > /tmp/fb-load.log 2>&1; then
        infra fb ok "$(cat /tmp/fb-load.log)"
    else
        infra fb missing "$(cat /tmp/fb-load.log)"
    fi

    if [ -z "${SYSTEST_GPIO_SIM_KO:-}" ]; then
        infra gpio-sim missing "${SYSTEST_MISSING_gpio_sim:-gpio-sim.ko was not built}"
    elif ! reason=$(insmod "$SYSTEST_GPIO_SIM_KO" 2>&1); then
        infra gpio-sim missing "insmod $SYSTEST_GPIO_SIM_KO failed: $reason"
    elif ! reason=$(gpio_sim_create kiosk-sim 16 2>&1); then
        infra gpio-sim missing "creating the configfs chip failed: $reason"
    else
        infra gpio-sim ok "$reason"
    fi
}

wait_path() { local i; for ((i = 0; i < 100; i++)); do [ -e "$1" ] && return 0; snooze 0.05; done; return 1; }

# scenario_timeout FILE : the "# timeout: N" header of a scenario (seconds), default 120.
scenario_timeout() {
    local t
    t=$(sed -n 's/^# timeout: *\([0-9][0-9]*\).*/\1/p' "$1" | head -n 1)
    # SYSTEST_TIMEOUT_SCALE (run.sh): an emulated foreign CPU (arm64 under TCG) is several times slower
    echo $(( ${t:-120} * ${SYSTEST_TIMEOUT_SCALE:-1} ))
}

run_scenarios() {
    local file name dir status start seconds t note pid result
    printf 'scenario\tstatus\tseconds\tfirst_pcm_ms\tcpu_ms\tmax_rss_kb\tnote\n' > "$out/results.tsv"
    for file in $SYSTEST_SCENARIOS; do
        name=$(basename "$file" .sh)
        dir=$out/$name
        mkdir -p "$dir"
        t=$(scenario_timeout "$file")
        echo "systest: ==== $name (timeout ${t} s)"
        start=$EPOCHREALTIME
        # timeout makes its own process group: killing that group afterwards removes anything
        # the scenario left running.
        SYSTEST_ARTIFACTS=$dir SYSTEST_SCENARIO=$name SYSTEST_WORK=/tmp/systest/$name \
            timeout -k 5 "$t" bash "$file" > >(tee "$dir/log.txt") 2>&1 &
        pid=$!
        wait "$pid"
        status=$?
        kill -KILL -- "-$pid" 2>/dev/null
        seconds=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
        case $status in
            0) result=PASS; note="" ;;
            77) result=SKIP; note=$(cat "$dir/skip-reason" 2>/dev/null) ;;
            124|137) result=FAIL; note="timed out after $t s; $(cat "$dir/fail-reason" 2>/dev/null)" ;;
            *) result=FAIL; note=$(cat "$dir/fail-reason" 2>/dev/null); note=${note:-exit status $status} ;;
        esac
        # figures the scenario recorded (lib.sh: figure NAME VALUE)
        local first_pcm cpu rss
        first_pcm=$(sed -n 's/^first_pcm_ms=//p' "$dir/figures" 2>/dev/null | tail -n 1)
        cpu=$(sed -n 's/^cpu_ms=//p' "$dir/figures" 2>/dev/null | tail -n 1)
        rss=$(sed -n 's/^max_rss_kb=//p' "$dir/figures" 2>/dev/null | tail -n 1)
        local gaps replayed lost stalls
        gaps=$(sed -n 's/^gap_frames=//p' "$dir/figures" 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
        [ "$gaps" -gt 0 ] && note="${note:+$note; }underrun silence in checked windows: $((gaps * 1000 / 44100)) ms"
        replayed=$(sed -n 's/^stall_replay_frames=//p' "$dir/figures" 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
        lost=$(sed -n 's/^stall_lost_frames=//p' "$dir/figures" 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
        [ $((replayed + lost)) -gt 0 ] &&
            note="${note:+$note; }snd-aloop VM-stall artefacts excused: $((replayed * 1000 / 44100)) ms replayed, $((lost * 1000 / 44100)) ms lost"
        local replaced
        replaced=$(sed -n 's/^race_replaced_frames=//p' "$dir/figures" 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
        [ "$replaced" -gt 0 ] && note="${note:+$note; }snd-aloop write race excused: $replaced frames replaced by silence"
        # timers 40 ms or more late while the scenario ran (stall-watch)
        stalls=$(awk -v a="${start/./}" -v b="${EPOCHREALTIME/./}" '{
                split($2, s, "="); split($3, l, "=")
                if (s[2] >= a && s[2] <= b && l[2] >= 40000) { n++; if (l[2] > m) m = l[2] } }
            END { if (n) printf "%d (longest %d ms)", n, m / 1000 }' "$out/stalls.txt" 2>/dev/null)
        if [ -n "$stalls" ]; then
            note="${note:+$note; }VM stalls ≥ 40 ms: $stalls"
            echo "vm_stalls=$stalls" >> "$dir/figures"
        fi
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$result" "$seconds" "${first_pcm:--}" "${cpu:--}" "${rss:--}" \
            "$(echo "$note" | tr '\t\n' '  ' | sed 's/[ ;]*$//')" >> "$out/results.tsv"
        echo "systest: ==== $name: $result ($seconds s) $note"
        rm -rf "/tmp/systest/$name"
    done
}

main() {
    mount_kernel_filesystems
    echo "systest: guest.sh started at $(cut -d' ' -f1 /proc/uptime) s"
    set -a
    # shellcheck disable=SC1091
    source "$out/guest.env"
    set +a
    # shellcheck source=lib.sh
    source "$SYSTEST_REPO/Tests/System/lib.sh"
    trap power_off EXIT  # lib.sh sets its own EXIT trap for scenarios
    echo "systest: guest up after $(cut -d' ' -f1 /proc/uptime) s of kernel time; kernel $(uname -r)"
    echo "boot_seconds=$(cut -d' ' -f1 /proc/uptime)" > "$out/guest-times"
    : > "$out/infra.tsv"
    local t=$EPOCHREALTIME
    load_drivers
    # when the guest's timers run late (the host did not schedule the emulator): the audio checks
    # excuse snd-aloop's artefacts only at those moments (lib.sh, pcm-match --stalls)
    : > "$out/stalls.txt"
    stall-watch "$out/stalls.txt" --period-ms 5 --threshold-ms 20 > /tmp/stall-watch.log 2>&1 &
    snooze 0.3
    if kill -0 $! 2>/dev/null; then
        infra stall-watch ok "$(cat /tmp/stall-watch.log)"
    else
        infra stall-watch missing "stall-watch did not start: $(cat /tmp/stall-watch.log)"
    fi
    echo "drivers_seconds=$(awk -v a="$t" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')" >> "$out/guest-times"
    run_scenarios
    echo "guest_seconds=$(awk -v a="$guest_start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')" >> "$out/guest-times"
    echo "SYSTEST-GUEST-DONE" > "$out/done"
}

main
