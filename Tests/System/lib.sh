# shellcheck shell=bash
# shellcheck disable=SC2034  # variables set here are used by the scenarios
# Helpers for system-test scenarios. Sourced by each scenario (and by guest.sh) INSIDE the QEMU
# guest, as root, with the environment guest.sh exports: SYSTEST_REPO, SYSTEST_TOOLS, SYSTEST_PLAYER,
# SYSTEST_ARTIFACTS (kept: copied to the host), SYSTEST_WORK (scratch, tmpfs), SYSTEST_SCENARIO.
#
# A scenario is a bash script in Tests/System/scenarios/ that sources this file, runs checks and
# ends with `finish`. Exit 0 = PASS, 77 = SKIP (`skip "why"`), anything else = FAIL.
# Functions return non-zero on failure and print why; `must` turns that into a scenario failure.

# ---------------------------------------------------------------------------------------------
# Names of the gpio-sim lines, as in boards/qemu-gpio-sim.json (chip label "kiosk-sim").
SYSTEST_GPIO_LABEL=${SYSTEST_GPIO_LABEL:-kiosk-sim}
LINE_PLAY=0 LINE_STOP=1 LINE_NEXT=2 LINE_PREVIOUS=3 LINE_CATEGORY=4
LINE_ENC_A=5 LINE_ENC_B=6 LINE_ENC_PUSH=7 LINE_STATUS_LIGHT=8 LINE_POWER_LATCH=9
SYSTEST_GPIO_LINE_NAMES=(btn-play-pause btn-stop btn-next btn-previous btn-category enc-a enc-b enc-push
    status-light power-latch spare-10 spare-11 spare-12 spare-13 spare-14 spare-15)
# Buttons close to ground with a pull-up (activeLow in the board profile): pressed = pulled down.
SYSTEST_ACTIVE_LOW=${SYSTEST_ACTIVE_LOW:-1}

# The loopback card: what the player writes to hw:Loopback,0 comes out of hw:Loopback,1.
SYSTEST_PLAYBACK_PCM=${SYSTEST_PLAYBACK_PCM:-hw:Loopback,0}
SYSTEST_CAPTURE_PCM=${SYSTEST_CAPTURE_PCM:-hw:Loopback,1}
SYSTEST_RATE=44100 SYSTEST_CHANNELS=2 SYSTEST_FRAME_BYTES=4

SYSTEST_WORK=${SYSTEST_WORK:-/tmp/systest/${SYSTEST_SCENARIO:-adhoc}}
SYSTEST_ARTIFACTS=${SYSTEST_ARTIFACTS:-$SYSTEST_WORK/artifacts}
mkdir -p "$SYSTEST_WORK" "$SYSTEST_ARTIFACTS"
PATH=$SYSTEST_TOOLS:$PATH
# The test bundle finds the repository's files (board profiles) here, not where it was compiled
# (the aarch64 bundle is built in a tree at /src).
export KIOSK_REPOSITORY=$SYSTEST_REPO
# shellcheck source=media.sh
source "$SYSTEST_REPO/Tests/System/media.sh"

# A pipe nobody writes to: `read -t` on it sleeps without forking (sub-millisecond timing).
exec {_systest_sleep_fd}<> <(:)
_systest_t0=${EPOCHREALTIME/./}
_systest_failed=()
_systest_pids=()
_systest_keep_audio=()
_systest_gpio_devices=()

# ---------------------------------------------------------------------------------------------
# Time, logging, outcome

# now_us : microseconds since the epoch (bash builtin clock, no fork).
now_us() { echo "${EPOCHREALTIME/./}"; }

# snooze SECONDS : sleeps without forking (fractions allowed: 0.0005).
snooze() { read -r -t "$1" -u "$_systest_sleep_fd" _ 2>/dev/null; return 0; }

log() {
    local t=$(( ${EPOCHREALTIME/./} - _systest_t0 ))
    printf '[%s +%d.%03ds] %s\n' "${SYSTEST_SCENARIO:-systest}" $((t / 1000000)) $((t / 1000 % 1000)) "$*"
}

# skip REASON : ends the scenario as SKIP; the reason is printed in the table.
skip() {
    log "SKIP: $*"
    echo "$*" > "$SYSTEST_ARTIFACTS/skip-reason"
    exit 77
}

# fail REASON : ends the scenario as FAIL now.
fail() {
    log "FAIL: $*"
    _systest_failed+=("$*")
    printf '%s; ' "${_systest_failed[@]}" > "$SYSTEST_ARTIFACTS/fail-reason"
    exit 1
}

# check DESCRIPTION COMMAND... : runs COMMAND, logs ok/not ok with its output; a failure is
# remembered (the scenario fails at `finish`) but the scenario goes on. Returns COMMAND's status.
check() {
    local description=$1 output status file=$SYSTEST_WORK/.check-output
    shift
    # in this shell, not a subshell: functions that set variables (capture_start, pcm_locate) work
    "$@" > "$file" 2>&1
    status=$?
    output=$(cat "$file")
    if [ $status -eq 0 ]; then
        log "ok: $description${output:+ — ${output//$'\n'/ | }}"
    else
        log "not ok: $description (status $status)${output:+ — ${output//$'\n'/ | }}"
        _systest_failed+=("$description")
        printf '%s; ' "${_systest_failed[@]}" > "$SYSTEST_ARTIFACTS/fail-reason"
    fi
    return $status
}

# must DESCRIPTION COMMAND... : like check, but the scenario ends (FAIL) when COMMAND fails.
must() { check "$@" || fail "$1"; }

# not COMMAND... : inverts a status (for check/must: `check "gone" not mounted /media/x`).
not() { ! "$@"; }

# finish : the last line of every scenario.
finish() {
    if [ ${#_systest_failed[@]} -gt 0 ]; then
        log "FAIL: ${#_systest_failed[@]} check(s) failed: $(printf '%s; ' "${_systest_failed[@]}")"
        exit 1
    fi
    log "PASS"
    exit 0
}

# figure NAME VALUE : records a figure for the results table (first_pcm_ms, cpu_ms, max_rss_kb)
# or for the scenario's own figures file.
figure() {
    echo "$1=$2" >> "$SYSTEST_ARTIFACTS/figures"
    log "figure $1 = $2"
}

# wait_for TIMEOUT_S DESCRIPTION COMMAND... : polls COMMAND every 50 ms until it succeeds.
# COMMAND's words are expanded once, by the caller: poll a function, not "$(…)" arguments.
wait_for() {
    local timeout=$1 description=$2 deadline
    shift 2
    deadline=$(( ${EPOCHREALTIME/./} + ${timeout%.*} * 1000000 ))
    while true; do
        "$@" > /dev/null 2>&1 && return 0
        if [ "${EPOCHREALTIME/./}" -ge "$deadline" ]; then
            log "timed out after ${timeout} s waiting for: $description"
            return 1
        fi
        snooze 0.05
    done
}

# spawn NAME COMMAND... : starts COMMAND in the background, output to $SYSTEST_WORK/NAME.log;
# sets SPAWNED_PID. Everything spawned is killed when the scenario exits.
spawn() {
    local name=$1
    shift
    "$@" > "$SYSTEST_WORK/$name.log" 2>&1 &
    SPAWNED_PID=$!
    _systest_pids+=("$SPAWNED_PID")
}

_systest_cleanup() {
    local pid
    for pid in "${_systest_pids[@]}"; do kill -TERM "$pid" 2>/dev/null; done
    for pid in "${_systest_pids[@]}"; do
        for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$pid" 2>/dev/null || break; snooze 0.1; done
        kill -KILL "$pid" 2>/dev/null
    done
    local m
    for m in ${_systest_mounts:-}; do mounted "$m" && umount -l "$m" 2>/dev/null; done
    for m in "${_systest_gpio_devices[@]}"; do _gpio_sim_remove "$m"; done
    # keep the logs of everything spawned (player, arecord, gpiomon …) with the artefacts
    cp "$SYSTEST_WORK"/*.log "$SYSTEST_ARTIFACTS/" 2>/dev/null
    # and the audio behind a failed bit-exact check
    if [ ${#_systest_keep_audio[@]} -gt 0 ] && [ -n "${CAPTURE_FILE:-}" ]; then
        cp "$CAPTURE_FILE" "$SYSTEST_ARTIFACTS/" 2>/dev/null
        echo "capture_epoch_us=$CAPTURE_EPOCH_US" >> "$SYSTEST_ARTIFACTS/figures"
        for m in $(printf '%s\n' "${_systest_keep_audio[@]}" | sort -u); do cp "$m" "$SYSTEST_ARTIFACTS/" 2>/dev/null; done
    fi
    return 0
}
trap _systest_cleanup EXIT

# ---------------------------------------------------------------------------------------------
# Requirements: skip with the exact reason when a piece is missing.

# require_infra NAME... : snd-aloop, uinput, fb, gpio-sim, loop (guest.sh's infra.tsv).
require_infra() {
    local name line
    for name in "$@"; do
        line=$(awk -F'\t' -v n="$name" '$1 == n' "$SYSTEST_OUT/infra.tsv" 2>/dev/null)
        [ -n "$line" ] || skip "$name: not set up by the harness"
        [ "$(echo "$line" | cut -f2)" = ok ] || skip "$name missing: $(echo "$line" | cut -f3)"
    done
}

# require_command NAME... : a program on PATH (host packages are the guest's programs).
require_command() {
    local c
    for c in "$@"; do command -v "$c" > /dev/null || skip "command '$c' not found (install its Debian package on the host)"; done
}

# require_player : the built kiosk-player binary.
require_player() {
    [ -x "$SYSTEST_PLAYER" ] || skip "no player binary at $SYSTEST_PLAYER (run 'swift build' first)"
}

# require_player_run : kiosk-player with the `run` command (the appliance).
require_player_run() {
    require_player
    local output status
    output=$("$SYSTEST_PLAYER" run --help 2>&1)
    status=$?
    if [ $status -ne 0 ]; then
        skip "kiosk-player has no 'run' command yet ('kiosk-player run --help' exits $status: $(echo "$output" | head -n 1))"
    fi
}

# testbench_file NAME : path of a FLAC testbench file (KIOSK_FLAC_TESTBENCH, as for the unit tests).
testbench_file() {
    [ -n "${SYSTEST_TESTBENCH:-}" ] && [ -f "$SYSTEST_TESTBENCH/$1" ] && { echo "$SYSTEST_TESTBENCH/$1"; return 0; }
    return 1
}

# ---------------------------------------------------------------------------------------------
# gpio-sim: a simulated GPIO chip; the test moves the external "pull" of each line.

# gpio_sim_create LABEL NLINES : makes the configfs chip (guest.sh does this once at boot).
gpio_sim_create() {
    local label=$1 lines=$2 dev=/sys/kernel/config/gpio-sim/kiosk bank i
    [ -d /sys/kernel/config/gpio-sim ] || { echo "no /sys/kernel/config/gpio-sim (configfs or gpio-sim missing)"; return 1; }
    bank=$dev/gpio-bank0
    mkdir -p "$bank" || return 1
    echo "$label" > "$bank/label" || return 1
    echo "$lines" > "$bank/num_lines" || return 1
    for ((i = 0; i < lines; i++)); do
        mkdir -p "$bank/line$i"
        echo "${SYSTEST_GPIO_LINE_NAMES[$i]:-line-$i}" > "$bank/line$i/name"
    done
    echo 1 > "$dev/live" || { echo "writing 1 to $dev/live failed"; return 1; }
    echo "chip $(cat "$bank/chip_name") ($(cat "$dev/dev_name")) label $label, $lines named lines"
}

# gpio_sim_board_chip LABEL NLINES : a second simulated chip standing for a board's own GPIO
# controller (exhibit-4 looks for "pinctrl-bcm2835" and the like and uses lines up to 27 of the
# 54), its lines named GPIO0…; from then on the gpio_* and button_* helpers move its lines. It is
# removed when the scenario ends (after the player was stopped).
gpio_sim_board_chip() {
    local label=$1 lines=$2 dev=/sys/kernel/config/gpio-sim/board bank i
    [ -d /sys/kernel/config/gpio-sim ] || { echo "no /sys/kernel/config/gpio-sim"; return 1; }
    [ -d "$dev" ] && _gpio_sim_remove "$dev"
    bank=$dev/gpio-bank0
    mkdir -p "$bank" && echo "$label" > "$bank/label" && echo "$lines" > "$bank/num_lines" || return 1
    for ((i = 0; i < lines; i++)); do
        mkdir -p "$bank/line$i" && echo "GPIO$i" > "$bank/line$i/name" || return 1
    done
    echo 1 > "$dev/live" || { echo "writing 1 to $dev/live failed"; return 1; }
    _systest_gpio_devices+=("$dev")
    _GPIO_SIM_DEV=$dev _GPIO_SIM_BASE=
    echo "chip $(cat "$bank/chip_name") ($(cat "$dev/dev_name")) label $label, $lines lines"
}

# _gpio_sim_remove DEVICE : takes a configfs gpio-sim device down and removes it.
_gpio_sim_remove() {
    local dev=$1 line
    [ "$(cat "$dev/live" 2>/dev/null)" = 1 ] && echo 0 > "$dev/live"
    for line in "$dev"/gpio-bank0/line*; do [ -d "$line" ] && rmdir "$line"; done
    rmdir "$dev/gpio-bank0" "$dev" 2>/dev/null
    return 0
}

# gpio_sim_line_dir LINE : /sys/devices/platform/gpio-sim.N/gpiochipM/sim_gpioLINE
gpio_sim_line_dir() {
    _gpio_line "$1"
    echo "$GPIO_LINE_DIR"
}

# _gpio_line LINE : sets GPIO_LINE_DIR to the line's folder with no subprocess: under TCG a fork
# costs tens of milliseconds, and two lines pulled "together" by two such calls came 180-220 ms
# apart, past the player's 200 ms chord window.
_gpio_line() {
    if [ ! -d "${_GPIO_SIM_BASE:-/nonexistent}" ]; then
        local dev=${_GPIO_SIM_DEV:-/sys/kernel/config/gpio-sim/kiosk} name chip
        read -r name < "$dev/dev_name"
        read -r chip < "$dev/gpio-bank0/chip_name"
        _GPIO_SIM_BASE=/sys/devices/platform/$name/$chip
    fi
    GPIO_LINE_DIR=$_GPIO_SIM_BASE/sim_gpio$1
}

# gpio_chip : the /dev/gpiochipN of the simulated chip, found by its label.
gpio_chip() {
    local chip
    chip=$(gpiodetect 2>/dev/null | awk -v l="[$SYSTEST_GPIO_LABEL]" '$2 == l { print $1; exit }')
    [ -n "$chip" ] && echo "$chip"
}

# gpio_pull LINE up|down : sets the external pull of a line (what a button or encoder contact does).
gpio_pull() {
    _gpio_line "$1"
    echo "pull-$2" > "$GPIO_LINE_DIR/pull"
}

# gpio_value LINE : the line's value as the chip sees it (0/1).
gpio_value() { cat "$(gpio_sim_line_dir "$1")/value"; }

# gpio_samples LINE SECONDS : the line's level every 50 ms for SECONDS, as one string of 0 and 1
# (one python3 process reading the sysfs value: a shell's cat per sample takes ~0.5 s under TCG).
gpio_samples() {
    python3 - "$(gpio_sim_line_dir "$1")/value" "$2" <<'PY'
import sys, time
path, seconds = sys.argv[1], float(sys.argv[2])
text, start = "", time.monotonic()
with open(path) as f:
    while time.monotonic() - start < seconds:
        f.seek(0)
        text += f.read().strip()
        time.sleep(0.05)
print(text)
PY
}

# level_changes TEXT : how many times the level changes along a gpio_samples string.
level_changes() { awk -v s="$1" 'BEGIN { n = 0; for (i = 2; i <= length(s); i++) if (substr(s, i, 1) != substr(s, i - 1, 1)) n++; print n }'; }


# gpio_bounce LINE up|down : moves a line to a level the way a mechanical contact does: two short
# opposite pulses, then steady (tools/gpio-bounce.c, SCHED_FIFO). Each write costs the emulated
# guest about 1 ms of kernel work, so a bounce takes 3–6 ms under TCG; one stretched past 10 ms
# (the host stalled the emulator; BOUNCE_STALL_US) is logged, because a debouncer may then rightly
# see extra edges. BOUNCE_US is how long the last bounce took, BOUNCE_AT_US when its first edge was
# written (µs since the epoch, as the capture's frames are timed).
BOUNCE_STALL_US=10000
gpio_bounce() {
    local took at
    _gpio_line "$1"
    read -r took at < <(gpio-bounce "$GPIO_LINE_DIR/pull" "$2") && [ -n "$at" ] || return 1
    BOUNCE_US=$took BOUNCE_AT_US=$at
    [ "$took" -gt "$BOUNCE_STALL_US" ] && log "warning: the bounce on line $1 took ${took} µs (the emulator stalled)"
    return 0
}

# button_down LINE / button_up LINE : press or release with contact bounce.
# (The pull chosen without a subshell: each fork is tens of ms under TCG, which stretched a 120 ms
# press past the 400 ms after which a held next seeks.)
button_down() { if [ "$SYSTEST_ACTIVE_LOW" = 1 ]; then gpio_bounce "$1" down; else gpio_bounce "$1" up; fi; }
button_up() { if [ "$SYSTEST_ACTIVE_LOW" = 1 ]; then gpio_bounce "$1" up; else gpio_bounce "$1" down; fi; }

# button_press LINE [HOLD_MS] : a short press (default held 120 ms) with bounce on both edges;
# PRESS_BOUNCE_US is how long the press's bounce took, BOUNCE_US the release's.
button_press() {
    local ms=${2:-120} seconds
    printf -v seconds '%d.%03d' $((ms / 1000)) $((ms % 1000))
    button_down "$1"
    PRESS_BOUNCE_US=$BOUNCE_US PRESS_AT_US=$BOUNCE_AT_US
    snooze "$seconds"
    button_up "$1"
}

# button_long_press LINE [HOLD_MS] : held 1500 ms unless given (longer than inputs.longPressMs).
button_long_press() { button_press "$1" "${2:-1500}"; }

# encoder_rest : both encoder contacts open (pulled up): the detent position.
encoder_rest() { gpio_pull "$LINE_ENC_A" up; gpio_pull "$LINE_ENC_B" up; }

# encoder_turn DETENTS cw|ccw [STEP_MS] [BOUNCE] : turns the encoder on lines A/B by stepping the
# Gray sequence, 4 transitions per detent, STEP_MS (default 10) between transitions. With
# BOUNCE=1 each edge chatters once. Clockwise = A leads B: (A,B) 11 → 01 → 00 → 10 → 11 (a
# contact closing pulls its line down); counter-clockwise = B leads: 11 → 10 → 00 → 01 → 11.
# (boards can swap the direction with "reverse": true.)
encoder_turn() {
    local detents=$1 dir=$2 step_s bounce=${4:-0} a b seq d s line level
    step_s=$(awk -v ms="${3:-10}" 'BEGIN { printf "%.4f", ms / 1000 }')
    a=$(gpio_sim_line_dir "$LINE_ENC_A")/pull
    b=$(gpio_sim_line_dir "$LINE_ENC_B")/pull
    if [ "$dir" = cw ]; then seq=("$a down" "$b down" "$a up" "$b up")
    else seq=("$b down" "$a down" "$b up" "$a up"); fi
    for ((d = 0; d < detents; d++)); do
        for s in "${seq[@]}"; do
            line=${s% *} level=${s#* }
            echo "pull-$level" > "$line"
            if [ "$bounce" = 1 ]; then
                snooze 0.0002
                if [ "$level" = up ]; then echo pull-down > "$line"; else echo pull-up > "$line"; fi
                snooze 0.0002
                echo "pull-$level" > "$line"
            fi
            snooze "$step_s"
        done
    done
}

# ---------------------------------------------------------------------------------------------
# uinput: a virtual keyboard (Tests/System/tools/uinput-keys.c).

# uinput_start [NAME] : creates the device (default name "kiosk-systest-keys"); sets UINPUT_NODE.
uinput_start() {
    local name=${1:-kiosk-systest-keys}
    rm -f "$SYSTEST_WORK/uinput.in"
    mkfifo "$SYSTEST_WORK/uinput.in"
    # the child opens the FIFO (opening it here would block until a writer exists)
    spawn uinput sh -c 'exec uinput-keys "$1" < "$2"' uinput-keys "$name" "$SYSTEST_WORK/uinput.in"
    UINPUT_PID=$SPAWNED_PID
    exec {UINPUT_FD}> "$SYSTEST_WORK/uinput.in"
    _uinput_sent=0
    wait_for 10 "uinput device '$name'" grep -q '^ready ' "$SYSTEST_WORK/uinput.log" || {
        cat "$SYSTEST_WORK/uinput.log"
        return 1
    }
    UINPUT_NODE=$(sed -n 's/^ready //p' "$SYSTEST_WORK/uinput.log")
}

# uinput_send COMMAND : one command (press KEY | release KEY | tap KEY [MS] | sleep MS), waits until done.
uinput_send() {
    echo "$*" >&"$UINPUT_FD"
    _uinput_sent=$((_uinput_sent + 1))
    wait_for 10 "uinput: $*" _uinput_done "$_uinput_sent"
}

_uinput_done() { [ "$(grep -c '^ok ' "$SYSTEST_WORK/uinput.log")" -ge "$1" ]; }

key_tap() { uinput_send tap "$1" "${2:-60}"; }
key_press() { uinput_send press "$1"; }
key_release() { uinput_send release "$1"; }

uinput_stop() {
    exec {UINPUT_FD}>&-
    wait "$UINPUT_PID" 2>/dev/null
}

# card_swipe NUMBER : a USB card reader made with uinput_start types NUMBER and Enter (5 ms per key,
# written at once, as a reader does).
card_swipe() {
    local digits=$1 i
    for ((i = 0; i < ${#digits}; i++)); do
        echo "tap KEY_${digits:i:1} 5" >&"$UINPUT_FD"
        _uinput_sent=$((_uinput_sent + 1))
    done
    echo "tap KEY_ENTER 5" >&"$UINPUT_FD"
    _uinput_sent=$((_uinput_sent + 1))
    wait_for 10 "the reader typed $digits" _uinput_done "$_uinput_sent"
}

# ---------------------------------------------------------------------------------------------
# Framebuffer: vfb (stock: red in the low bits) or vfb-rgb (built here: RGB565 / XRGB8888 like
# real panels). Mode strings like 320x240M-32 or 240x240M-16 ("M" = CVT timings; without it vfb
# picked an interlaced mode).

# fb_load MODE [rgb|stock] : (re)loads the virtual framebuffer as /dev/fb0 in MODE.
fb_load() {
    local mode=$1 kind=${2:-rgb} geometry w h bpp size
    geometry=${mode%%@*}; w=${geometry%%x*}; h=${geometry#*x}; h=${h%%[!0-9]*}; bpp=${geometry##*-}
    size=$((w * h * bpp / 8 * 2))
    rmmod vfb_rgb 2>/dev/null; rmmod vfb 2>/dev/null
    if [ "$kind" = rgb ] && [ -n "${SYSTEST_VFB_RGB_KO:-}" ]; then
        insmod "$SYSTEST_VFB_RGB_KO" vfb_enable=1 videomemorysize="$size" mode_option="$mode" || return 1
    else
        [ "$kind" = rgb ] && echo "(vfb-rgb.ko not built: ${SYSTEST_MISSING_vfb_rgb:-unknown}; stock vfb) "
        if [ -n "${SYSTEST_VFB_KO:-}" ]; then
            # a kernel without vfb (Debian arm64): the stock driver built by prepare.sh
            insmod "$SYSTEST_VFB_KO" vfb_enable=1 videomemorysize="$size" mode_option="$mode" || return 1
        else
            modprobe vfb vfb_enable=1 videomemorysize="$size" mode_option="$mode" || return 1
        fi
    fi
    local i
    for ((i = 0; i < 100; i++)); do [ -e /dev/fb0 ] && break; snooze 0.05; done
    [ -e /dev/fb0 ] || { echo "no /dev/fb0 after loading vfb"; return 1; }
    # keep the kernel's text console off the test framebuffer: the guest boots without
    # fbcon=map:9, so fbcon takes every framebuffer that registers, as on a Pi (scenario 19 binds it
    # again and checks deploy/kiosk-console, what the installed service does about it)
    for i in /sys/class/vtconsole/vtcon*; do
        grep -q 'frame buffer' "$i/name" 2>/dev/null && echo 0 > "$i/bind" 2>/dev/null
    done
    fbtool info /dev/fb0
}

# fb_grab OUT.png|OUT.raw : screenshot of /dev/fb0.
fb_grab() { fbtool grab /dev/fb0 "$1"; }

# fb_screenshot NAME : keeps a PNG of the screen with the scenario's artefacts; prints its path.
fb_screenshot() {
    fbtool grab /dev/fb0 "$SYSTEST_ARTIFACTS/$1.png" && echo "$SYSTEST_ARTIFACTS/$1.png"
}

# fb_changed_from FILE.raw : true when the screen differs from an earlier raw grab.
fb_changed_from() {
    fbtool grab /dev/fb0 "$SYSTEST_WORK/fb-now.raw" && ! cmp -s "$1" "$SYSTEST_WORK/fb-now.raw"
}

# fb_count RRGGBB : pixels of that colour on the screen (exact at the framebuffer's depth).
fb_count() { fbtool count /dev/fb0 "$1"; }

# fb_shows RRGGBB [MIN_PIXELS] : at least MIN_PIXELS (default 400, a 20×20 block) of that colour.
fb_shows() { [ "$(fb_count "$1")" -ge "${2:-400}" ]; }

# fb_settle TIMEOUT_S OUT.raw [CHANGED_FROM.raw] : waits until two grabs 0.7 s apart are
# identical (the player finished drawing) and leaves that screen in OUT.raw. With CHANGED_FROM,
# first waits for the screen to differ from it (so a screen not yet drawn is not "settled").
fb_settle() {
    local timeout=${1:-20} out=$2 deadline
    deadline=$(( ${EPOCHREALTIME/./} + timeout * 1000000 ))
    if [ -n "${3:-}" ]; then
        while fb_same_as "$3"; do
            [ "${EPOCHREALTIME/./}" -ge "$deadline" ] && { echo "the screen did not change within $timeout s"; return 1; }
            snooze 0.3
        done
    fi
    fbtool grab /dev/fb0 "$out.prev" || return 1
    while true; do
        snooze 0.7
        fbtool grab /dev/fb0 "$out" || return 1
        cmp -s "$out" "$out.prev" && { rm -f "$out.prev"; return 0; }
        [ "${EPOCHREALTIME/./}" -ge "$deadline" ] && { echo "the screen kept changing for $timeout s"; return 1; }
        mv "$out" "$out.prev"
    done
}

# fb_same_as FILE.raw : the screen now is identical to an earlier grab.
fb_same_as() { fbtool grab /dev/fb0 "$SYSTEST_WORK/fb-now.raw" && cmp -s "$1" "$SYSTEST_WORK/fb-now.raw"; }

# render_expected NAME SCREEN STATE_JSON [RENDER_ARGS...] : what `kiosk-player render SCREEN
# --state STATE_JSON` draws at the framebuffer's size, as $SYSTEST_ARTIFACTS/expected-NAME.png
# (kept with the artefacts); prints the path.
render_expected() {
    local name=$1 screen=$2 state=$3 info out=$SYSTEST_ARTIFACTS/expected-$1.png
    shift 3
    info=$(fbtool info /dev/fb0) || return 1
    "$SYSTEST_PLAYER" render "$screen" --size "${info%% *}" --out "$out" --state "$state" "$@" > /dev/null || return 1
    echo "$out"
}

# fb_matches EXPECTED.png : the screen is exactly that picture (at 16 bpp each channel may differ
# by one 565 step, for the player's dithering); prints how many pixels differ.
fb_matches() {
    local tolerance=0
    [[ "$(fbtool info /dev/fb0)" == *"bpp=16"* ]] && tolerance=8
    fbtool compare /dev/fb0 "$1" --tolerance "$tolerance"
}

# wait_screen TIMEOUT_S EXPECTED.png : until the screen is exactly that picture (artwork arrives
# asynchronously); on a timeout the screen is kept as screen-at-timeout-N.png.
wait_screen() {
    wait_for "$1" "the screen to equal $(basename "$2")" fb_matches "$2" && { fb_matches "$2"; return 0; }
    _shot_count=$(( ${_shot_count:-0} + 1 ))
    fb_screenshot "screen-at-timeout-$_shot_count" > /dev/null
    fb_matches "$2"
    echo "(the screen is kept as screen-at-timeout-$_shot_count.png)"
    return 1
}

# fb_matches_render SCREEN STATE_JSON [RENDER_ARGS...] : render_expected + fb_matches.
fb_matches_render() {
    local expected
    _render_count=$(( ${_render_count:-0} + 1 ))
    expected=$(render_expected "$1-$_render_count" "$@") || return 1
    fb_matches "$expected"
}

# fb_not_blank : true when the screen shows more than one colour.
fb_not_blank() { [ "$(fbtool stats /dev/fb0 | sed 's/^colours=\([0-9]*\).*/\1/')" -gt 1 ]; }

# ---------------------------------------------------------------------------------------------
# Audio: capture what the player sends to hw:Loopback,0 and compare it bit-exactly.

# audio_reference FILE.flac OUT.raw : decodes to raw S16_LE interleaved (the capture format).
audio_reference() {
    flac -d -s -f --force-raw-format --endian=little --sign=signed -o "$2" "$1"
}

# capture_start OUT.raw : records hw:Loopback,1 (S16_LE, 44.1 kHz, stereo, 10 ms periods, a 1 s
# buffer so a busy emulated CPU does not overrun it; SYSTEST_CAPTURE_BUFFER_US for more) and
# estimates CAPTURE_EPOCH_US, the wall-clock time of captured frame 0 (from (time, file size)
# samples: data is written after it was captured, so the earliest estimate is the best).
capture_start() {
    CAPTURE_FILE=$1
    rm -f "$CAPTURE_FILE"
    spawn arecord arecord -q -D "$SYSTEST_CAPTURE_PCM" -f S16_LE -r "$SYSTEST_RATE" -c "$SYSTEST_CHANNELS" \
        -t raw --period-time=10000 --buffer-time="${SYSTEST_CAPTURE_BUFFER_US:-1000000}" "$CAPTURE_FILE"
    CAPTURE_PID=$SPAWNED_PID
    wait_for 10 "arecord writing $CAPTURE_FILE" test -s "$CAPTURE_FILE" || { cat "$SYSTEST_WORK/arecord.log"; return 1; }
    local i t size estimate best=""
    for i in 1 2 3 4 5 6 7 8 9 10; do
        size=$(stat -c %s "$CAPTURE_FILE"); t=${EPOCHREALTIME/./}
        estimate=$((t - size / SYSTEST_FRAME_BYTES * 1000000 / SYSTEST_RATE))
        if [ -z "$best" ] || [ "$estimate" -lt "$best" ]; then best=$estimate; fi
        snooze 0.03
    done
    CAPTURE_EPOCH_US=$best
}

# capture_stop : ends arecord (SIGINT lets it flush). Fails when arecord reported an overrun:
# frames were lost, so capture frame numbers no longer map to time.
capture_stop() {
    kill -INT "$CAPTURE_PID" 2>/dev/null
    wait "$CAPTURE_PID" 2>/dev/null
    if grep -q 'overrun' "$SYSTEST_WORK/arecord.log"; then
        echo "arecord overran (frames lost): $(grep -m 1 overrun "$SYSTEST_WORK/arecord.log")"
        return 1
    fi
    return 0
}

# capture_frames : frames captured so far.
capture_frames() { echo $(( $(stat -c %s "$CAPTURE_FILE") / SYSTEST_FRAME_BYTES )); }

# capture_has N : the capture holds at least N frames.
capture_has() { [ "$(capture_frames)" -ge "$1" ]; }

# capture_frame_at_us TIME_US : the capture frame that was being captured at that time.
capture_frame_at_us() { echo $(( ($1 - CAPTURE_EPOCH_US) * SYSTEST_RATE / 1000000 )); }

# capture_frame_us FRAME : when a captured frame was captured (µs since the epoch).
capture_frame_us() { echo $(( CAPTURE_EPOCH_US + $1 * 1000000 / SYSTEST_RATE )); }

# Bit-exact checks allow digital silence between frames by default (pcm-match --gaps): an output
# underrun of the emulated player inserts silence but loses no sample, so every sounding frame must
# still be there, in order, bit-exact. Inserted silence is reported (gap_frames figure and the
# table's note). SYSTEST_PCM_GAPS=0 demands unbroken frames as well.
SYSTEST_PCM_GAPS=${SYSTEST_PCM_GAPS:-1}
# Artefacts of the emulated sound card, not of the player (Tests/System/README.md, "Facts worth
# knowing"), which the checks excuse — each reported in the table — and nothing else:
# - the guest's timers run late when the host does not schedule the emulator (guest.sh runs
#   stall-watch into $SYSTEST_OUT/stalls.txt): snd-aloop then copies the player's ring buffer round
#   again (frames heard twice) and, when the ALSA core misses that lap, frames in their place never
#   come: excused only where a stall was recorded at that moment;
# - snd-aloop's write race at the edge of an underrun: up to two jiffies of frames replaced in
#   place by silence.
# SYSTEST_PCM_STALLS=0 excuses nothing.
SYSTEST_PCM_STALLS=${SYSTEST_PCM_STALLS:-1}

# _pcm_check_args : the options for pcm-match locate/find/trace that follow from the settings above.
_pcm_check_args() {
    [ "$SYSTEST_PCM_GAPS" = 1 ] && printf '%s\n' --gaps
    if [ "$SYSTEST_PCM_STALLS" = 1 ] && [ -n "${SYSTEST_OUT:-}" ] && [ -n "${CAPTURE_EPOCH_US:-}" ]; then
        printf '%s\n' --stalls "$SYSTEST_OUT/stalls.txt" --epoch-us "$CAPTURE_EPOCH_US"
    fi
}

_pcm_match() {
    local how=$1 reference=$2 out checks=()
    shift 2
    mapfile -t checks < <(_pcm_check_args)
    if ! out=$(pcm-match "$how" "$CAPTURE_FILE" "$reference" "${checks[@]}" "$@"); then
        echo "$out"
        [ -z "${_pcm_polling:-}" ] && _pcm_keep_evidence "$out" "$reference" "$@"
        return 1
    fi
    echo "$out"
    PCM_CAPTURE_FRAME=$(echo "$out" | sed -n 's/.*capture_frame=\([0-9-]*\).*/\1/p')
    PCM_REFERENCE_FRAME=$(echo "$out" | sed -n 's/.*reference_frame=\([0-9-]*\).*/\1/p')
    PCM_TRACK_START=$(echo "$out" | sed -n 's/.*track_start=\([0-9-]*\).*/\1/p')
    PCM_GAP_FRAMES=$(echo "$out" | sed -n 's/.*gap_frames=\([0-9-]*\).*/\1/p')
    PCM_REPLAY_FRAMES=$(echo "$out" | sed -n 's/.*replay_frames=\([0-9-]*\).*/\1/p')
    PCM_LOST_FRAMES=$(echo "$out" | sed -n 's/.*lost_frames=\([0-9-]*\).*/\1/p')
    PCM_REPLACED_FRAMES=$(echo "$out" | sed -n 's/.*replaced_frames=\([0-9-]*\).*/\1/p')
    if [ "${PCM_GAP_FRAMES:-0}" -gt 0 ]; then
        echo "warning: $PCM_GAP_FRAMES frames of silence inside the window (output underruns)"
        echo "gap_frames=$PCM_GAP_FRAMES" >> "$SYSTEST_ARTIFACTS/figures"
    fi
    if [ "${PCM_REPLAY_FRAMES:-0}" -gt 0 ] || [ "${PCM_LOST_FRAMES:-0}" -gt 0 ]; then
        echo "warning: a VM stall inside the window: snd-aloop replayed $PCM_REPLAY_FRAMES frames, ${PCM_LOST_FRAMES:-0} never came"
        echo "stall_replay_frames=$PCM_REPLAY_FRAMES" >> "$SYSTEST_ARTIFACTS/figures"
        echo "stall_lost_frames=${PCM_LOST_FRAMES:-0}" >> "$SYSTEST_ARTIFACTS/figures"
    fi
    if [ "${PCM_REPLACED_FRAMES:-0}" -gt 0 ]; then
        echo "warning: $PCM_REPLACED_FRAMES frames replaced in place by silence (snd-aloop's write race at an underrun)"
        echo "race_replaced_frames=$PCM_REPLACED_FRAMES" >> "$SYSTEST_ARTIFACTS/figures"
    fi
    return 0
}

# _pcm_keep_evidence OUTPUT REFERENCE [ARGS] : after a failed bit-exact check, the capture and the
# reference are kept with the artefacts (at exit) and, when the frames broke off somewhere, a trace.
_pcm_keep_evidence() {
    local out=$1
    shift
    _systest_keep_audio+=("$1")
    [[ $out == *"bit-exact, then"* && $out != *"the capture ends"* ]] && pcm_trace "$@" > /dev/null
    return 0
}

# pcm_trace REFERENCE.raw [--from FRAME] : what each stretch of the capture is (pcm-match trace),
# kept as an artefact (trace-N.txt); prints the summary line.
pcm_trace() {
    local reference=$1 checks=() file
    shift
    mapfile -t checks < <(_pcm_check_args)
    _trace_count=$(( ${_trace_count:-0} + 1 ))
    file=$SYSTEST_ARTIFACTS/trace-$_trace_count.txt
    pcm-match trace "$CAPTURE_FILE" "$reference" "${checks[@]}" "$@" > "$file"
    local status=$?
    grep -v '^match' "$file" | head -n 20
    return $status
}

# pcm_locate REFERENCE.raw [--from FRAME] [--frames N] : finds the first sound in the capture at or
# after FRAME in the reference and checks N frames (default 1 s) bit-exactly. Sets PCM_CAPTURE_FRAME,
# PCM_REFERENCE_FRAME, PCM_TRACK_START (capture frame where the reference's frame 0 would be),
# PCM_GAP_FRAMES (silence inserted), PCM_REPLAY_FRAMES and PCM_LOST_FRAMES (excused VM-stall artefacts).
pcm_locate() { _pcm_match locate "$@"; }

# pcm_find REFERENCE.raw [--from FRAME] [--ref-from RFRAME] [--frames N] : the other direction:
# N frames of the reference (from its first sound at or after RFRAME) appear in the capture at or
# after FRAME ("did track 2 start after the press?"). Sets the same variables as pcm_locate.
pcm_find() { _pcm_match find "$@"; }

# wait_pcm TIMEOUT_S locate|find REFERENCE.raw [ARGS...] : retries pcm_locate / pcm_find every
# 0.5 s while the capture grows, until it matches or the time is up (then prints the last reason).
wait_pcm() {
    local timeout=$1 how=$2 deadline out=$SYSTEST_WORK/.wait-pcm
    shift 2
    deadline=$(( ${EPOCHREALTIME/./} + timeout * 1000000 ))
    while true; do
        _pcm_polling=1 "pcm_$how" "$@" > "$out" 2>&1 && { cat "$out"; return 0; }
        if [ "${EPOCHREALTIME/./}" -ge "$deadline" ]; then
            _pcm_keep_evidence "$(cat "$out")" "$@"
            echo "after ${timeout} s: $(cat "$out")"
            # what does play there, then? (the first sound after --from, looked up in the reference)
            local from=0 i args=("$@")
            for ((i = 1; i < ${#args[@]}; i++)); do [ "${args[i - 1]}" = --from ] && from=${args[i]}; done
            local checks=()
            mapfile -t checks < <(_pcm_check_args)
            echo "meanwhile: $(pcm-match locate "$CAPTURE_FILE" "$1" --gaps "${checks[@]}" --from "$from" --frames 4410 2>&1)"
            return 1
        fi
        snooze 0.5
    done
}

# prompt_between CAPTURE TRACK_START REFERENCE... : a spoken prompt that breaks off the album
# (scenarios 23 and 26): follows the album (the REFERENCEs one after the other, as it plays gapless)
# from TRACK_START until the capture leaves it, then finds where it comes back; prints
# "break=B back=K resumed_at=R expected=E prompt_ms=P rms_db=D peak=X underruns=U" (frames; R: the
# album frame it goes on with, E: the one after the last before the break; P and D over the sounding
# stretch between; U: the short breaks of a busy host's underruns followed past on the way, each
# under half a second of sound). The prompt breaks whichever track plays when it is ready: on a
# loaded host its synthesis can outlast the rest of track 1.
prompt_between() {
    python3 - "$@" <<'PY'
import math, struct, sys
cap = open(sys.argv[1], "rb").read()
ref = b"".join(open(path, "rb").read() for path in sys.argv[3:])
pos = int(sys.argv[2]) * 4  # where the capture follows the reference from
off = 0                      # the reference byte it follows there
underruns = 0
# A break with less than half a second of sound before the track comes back is an underrun on a busy
# host (silence or a replayed period, then the track again), not the prompt: followed past, counted.
for attempt in range(100):
    # the track from here on: the longest run of equal bytes (binary search on slices)
    lo, hi = 0, min(len(cap) - pos, len(ref) - off)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if cap[pos:pos + mid] == ref[off:off + mid]: lo = mid
        else: hi = mid - 1
    brk = (pos + lo) // 4 * 4
    played = (off + lo) // 4
    # where the track comes back: the next 1024 reference frames after the last one played, searched
    # from the break on (allowing up to 50 ms of underrun silence or replay before it)
    back = -1
    for skip in range(0, 2205, 1):
        needle = ref[(played + skip) * 4:(played + skip + 1024) * 4]
        if len(needle) < 4096: break
        at = cap.find(needle, brk + 4)
        if at >= 0 and at % 4 == 0:
            back, resumed = at, played + skip
            break
    if back < 0:
        print("break=%d back=none underruns=%d" % (brk // 4, underruns)); sys.exit(1)
    gap = cap[brk:back]
    samples = struct.unpack("<%dh" % (len(gap) // 2), gap[:len(gap) // 2 * 2])
    sounding = [i for i in range(0, len(samples), 2) if samples[i] or samples[i + 1]]
    if not sounding or (sounding[-1] - sounding[0]) // 2 < 22050:
        underruns += 1
        pos, off = back, resumed * 4
        continue
    first, last = sounding[0], sounding[-1]
    speech = samples[first:last + 2]
    rms = math.sqrt(sum(s * s for s in speech) / len(speech))
    print("break=%d back=%d resumed_at=%d expected=%d prompt_ms=%d rms_db=%.1f peak=%d underruns=%d" % (
        brk // 4, back // 4, resumed, played, (last - first) // 2 * 1000 // 44100,
        20 * math.log10(max(rms, 1) / 32768), max(abs(s) for s in speech), underruns))
    sys.exit(0)
print("no prompt found after %d underruns" % underruns); sys.exit(1)
PY
}

# capture_now : the capture frame being recorded now.
capture_now() { capture_frame_at_us "$(now_us)"; }

# capture_search_start : where to search from for a track that an action taken now starts: the
# capture frame being captured now by the wall clock (capture_now), but never past the frames
# captured so far. When the host starves the guest, snd-aloop's capture falls behind the wall clock,
# and the track an action starts is captured after what is in the file already: 18's card once
# searched from 1.55 s (68 486 frames) after the track it started began. Only for finding a track's
# start (a search that begins earlier finds the same start); silence and loudness checks keep
# capture_now.
capture_search_start() {
    local estimate captured
    estimate=$(capture_now)
    captured=$(capture_frames)
    echo $((captured < estimate ? captured : estimate))
}

# capture_rms FROM TO [WINDOW]: the loudness (RMS of the 16-bit samples) of the capture's frames
# FROM..TO, or with WINDOW of each WINDOW-frame window from FROM on that ends before TO; rounded,
# space-separated. What the fade checks (sleep timer, bedtime) compare.
capture_rms() {
    python3 - "$CAPTURE_FILE" "$1" "$2" "${3:-0}" <<'PY'
import array, math, sys
path, start, end, window = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
data = open(path, "rb").read()
def rms(a, b):
    s = array.array("h", data[4 * a:4 * b])
    return math.sqrt(sum(v * v for v in s) / max(1, len(s)))
levels = [rms(a, a + window) for a in range(start, end - window, window)] if window else [rms(start, end)]
print(" ".join("%.0f" % v for v in levels))
PY
}

# levels_fall LEVEL...: whether each level is at most 5 % (+2) above the one before it: a fade,
# with slack for the music's own changes.
levels_fall() {
    awk -v l="$*" 'BEGIN { n = split(l, v, " "); for (i = 2; i <= n; i++) if (v[i] > v[i-1] * 1.05 + 2) exit 1 }'
}

# wait_sound TIMEOUT_S FROM_FRAME : until the capture has sound at or after FROM_FRAME; sets SOUND_FRAME.
wait_sound() {
    local deadline=$(( ${EPOCHREALTIME/./} + $1 * 1000000 ))
    while true; do
        SOUND_FRAME=$(pcm-match first-sound "$CAPTURE_FILE" --from "$2") && { echo "sound from frame $SOUND_FRAME"; return 0; }
        [ "${EPOCHREALTIME/./}" -ge "$deadline" ] && { echo "no sound after frame $2 within $1 s"; return 1; }
        snooze 0.3
    done
}

# pcm_silent_tail FRAMES : the last FRAMES frames captured so far are digital silence.
pcm_silent_tail() {
    local n
    n=$(capture_frames)
    [ "$n" -ge "$1" ] && pcm-match silent "$CAPTURE_FILE" --from $((n - $1)) --frames "$1" > /dev/null
}

# pcm_silent FROM_FRAME FRAMES : the capture is digital silence over that window.
pcm_silent() { pcm-match silent "$CAPTURE_FILE" --from "$1" --frames "$2"; }

# wait_capture_frames N [TIMEOUT_S] : until the capture holds at least N frames.
wait_capture_frames() {
    wait_for "${2:-30}" "capture to reach frame $1" capture_has "$1" && return 0
    echo "capture has $(capture_frames) frames; arecord: $(tr '\n' ' ' < "$SYSTEST_WORK/arecord.log")"
    echo "loopback: $(grep -A 3 'substream 0' '/proc/asound/Loopback/cable#0' | tr '\n' ' ')"
    return 1
}

# vm_stall MS : the host stops the whole emulator for MS milliseconds (run.sh's stall server), as a
# loaded host does when it does not schedule QEMU; returns when the guest runs again.
vm_stall() {
    local id="$$-${EPOCHREALTIME/./}"
    echo "$id $1" > "$SYSTEST_OUT/vm-stall-request.tmp" && mv "$SYSTEST_OUT/vm-stall-request.tmp" "$SYSTEST_OUT/vm-stall-request" || return 1
    wait_for 10 "the host to stall the VM" grep -qx "$id" "$SYSTEST_OUT/vm-stall-done" || {
        echo "the host did not answer the VM stall request (run.sh's stall server)"
        return 1
    }
}

# stalls_since TIME_US [UNTIL_US] : stall-watch's records (guest timers 20 ms or more late) since TIME_US (until UNTIL_US),
# "LATE_MS" one a line.
stalls_since() {
    awk -v t="$1" -v u="${2:-}" '{ split($2, s, "="); split($3, l, "=")
        if (s[2] >= t && (u == "" || s[2] <= u)) print int(l[2] / 1000) }' "$SYSTEST_OUT/stalls.txt" 2>/dev/null
}

# ---------------------------------------------------------------------------------------------
# Media: small filesystem images, loop-mounted read-only like a USB stick.

# track_reference FLAC : the decoded reference (flac -d) of a track, cached; prints its path.
track_reference() {
    local ref
    ref=$SYSTEST_WORK/refs/$(echo "$1" | md5sum | cut -c1-12).raw
    mkdir -p "$SYSTEST_WORK/refs"
    [ -f "$ref" ] || audio_reference "$1" "$ref" || return 1
    echo "$ref"
}

# media_mount IMAGE MOUNTPOINT : loop-mounts read-only, nosuid, nodev, noexec (as the service does).
media_mount() {
    mkdir -p "$2"
    mount -o loop,ro,nosuid,nodev,noexec "$1" "$2" || return 1
    _systest_mounts="${_systest_mounts:-} $2"
}

# media_unmount MOUNTPOINT : a clean unmount (retries while busy for 5 s).
media_unmount() {
    local i
    for ((i = 0; i < 50; i++)); do umount "$1" 2>/dev/null && return 0; snooze 0.1; done
    umount "$1"
}

# media_pull MOUNTPOINT : the stick is yanked: lazy unmount, whatever has files open.
media_pull() { umount -l "$1"; }

# mounted MOUNTPOINT : listed in /proc/self/mountinfo.
mounted() { awk -v m="$1" '$5 == m { found = 1 } END { exit !found }' /proc/self/mountinfo; }

# ---------------------------------------------------------------------------------------------
# The player under test: `kiosk-player run --config FILE`, as systemd runs it.

# player_config OUT.json MEDIA_ROOT STATE_DIR [EXTRA_JSON_MEMBERS] [EXTRA_INPUTS_MEMBERS] : the appliance's config for
# the qemu-gpio-sim board (gpio-sim chip "kiosk-sim", /dev/fb0, hw:Loopback,0; SYSTEST_BOARD names
# another, whose chip gpio_sim_board_chip makes). Volume 100 so the
# samples reach the loopback unchanged (bit-exact checks). Debounce 25 ms instead of 5: under TCG
# each gpio-sim write costs the guest about a millisecond and a busy host stalls the emulator, so
# a 1 ms bounce can arrive stretched past 5 ms (gpio_bounce logs when it does), which a 5 ms
# debouncer rightly takes for a second press. No declick ramps ("declickMs": 0): the checks
# compare a track's first and resumed samples bit for bit (DeclickTests check the ramps).
player_config() {
    cat > "$1" << EOF
{
  "board": "${SYSTEST_BOARD:-qemu-gpio-sim}",
  "mediaRoots": ["$2"],
  "stateDirectory": "$3",
  "volume": 100,
  "audio": { "device": "$SYSTEST_PLAYBACK_PCM", "fallbackDevices": [], "mixer": null, "declickMs": 0 },
  "screen": { "device": "/dev/fb0", "rotation": 0 },
  "inputs": { "debounceMs": 25${5:+, $5} }${4:+,
  $4}
}
EOF
}

# use_fixture NAME : media built on the host by fixtures.sh; sets FIXTURE (its folder: library/,
# stick.img). SKIPs with the reason when it could not be built.
use_fixture() {
    FIXTURE=${SYSTEST_FIXTURES:-}/$1
    [ -n "${SYSTEST_FIXTURES:-}" ] && [ -f "$FIXTURE/done" ] ||
        skip "fixture $1 missing: ${SYSTEST_MISSING_fixtures:-not built (see prepare.sh)}"
}

# player_stick IMAGE LABEL : the usual start of a player scenario: IMAGE loop-mounted read-only
# at /media/kiosk/LABEL, a state directory and a valid config. Sets MEDIA_ROOT, MOUNTPOINT,
# STICK_IMAGE, STATE_DIR and CONFIG.
player_stick() {
    MEDIA_ROOT=/media/kiosk
    STICK_IMAGE=$1
    MOUNTPOINT=$MEDIA_ROOT/$2
    STATE_DIR=$SYSTEST_WORK/state
    CONFIG=$SYSTEST_WORK/config.json
    mkdir -p "$STATE_DIR"
    media_mount "$STICK_IMAGE" "$MOUNTPOINT" || return 1
    player_config "$CONFIG" "$MEDIA_ROOT" "$STATE_DIR"
    "$SYSTEST_PLAYER" check-config "$CONFIG" > "$SYSTEST_WORK/check-config.log" 2>&1 || {
        cat "$SYSTEST_WORK/check-config.log"
        return 1
    }
}

# player_start CONFIG [ARGS...] : starts `kiosk-player run --config CONFIG`; sets PLAYER_PID and
# PLAYER_START_US (taken just before exec). Log: $SYSTEST_WORK/player.log (kept as an artefact).
player_start() {
    local config=$1
    shift
    (
        echo "${EPOCHREALTIME/./}" > "$SYSTEST_WORK/player.start"
        exec "$SYSTEST_PLAYER" ${SYSTEST_PLAYER_VERBOSE:+--verbose} run --config "$config" "$@"
    ) >> "$SYSTEST_WORK/player.log" 2>&1 &
    PLAYER_PID=$!
    _systest_pids+=("$PLAYER_PID")
    wait_for 5 "player start time" test -s "$SYSTEST_WORK/player.start"
    PLAYER_START_US=$(cat "$SYSTEST_WORK/player.start")
    log "player started, pid $PLAYER_PID"
}

player_alive() { kill -0 "$PLAYER_PID" 2>/dev/null && [ "$(awk '{ print $3 }' "/proc/$PLAYER_PID/stat" 2>/dev/null)" != Z ]; }

# player_stats : CPU time (user+system, ms) and peak RSS (kB) of the running player from /proc;
# records them as the cpu_ms and max_rss_kb figures (the last call before the end wins).
player_stats() {
    local stat ticks hz cpu rss
    stat=$(cat "/proc/$PLAYER_PID/stat" 2>/dev/null) || { echo "player not running"; return 1; }
    stat=${stat##*) }              # fields after the command name; utime/stime are fields 14/15
    set -- $stat
    hz=$(getconf CLK_TCK)
    ticks=$(( ${12} + ${13} ))
    cpu=$((ticks * 1000 / hz))
    rss=$(awk '/^VmHWM:/ { print $2 }' "/proc/$PLAYER_PID/status")
    figure cpu_ms "$cpu"
    figure max_rss_kb "$rss"
}

# player_stop : records player_stats, then SIGTERM; fails when it does not exit within 10 s or
# exits with a non-zero status.
player_stop() {
    player_stats > /dev/null
    kill -TERM "$PLAYER_PID" 2>/dev/null
    local i status
    for ((i = 0; i < 100; i++)); do player_alive || break; snooze 0.1; done
    if player_alive; then echo "player did not exit within 10 s of SIGTERM"; kill -KILL "$PLAYER_PID"; return 1; fi
    wait "$PLAYER_PID"; status=$?
    [ "$status" = 0 ] || { echo "player exited with status $status"; return 1; }
}

# player_kill9 : SIGKILL (power cut for the process), after recording player_stats.
player_kill9() {
    player_stats > /dev/null
    kill -KILL "$PLAYER_PID"
    wait "$PLAYER_PID" 2>/dev/null
    return 0
}

# player_log_has REGEX : the player's log (stderr) matches.
player_log_has() { grep -Eq "$1" "$SYSTEST_WORK/player.log"; }

# first_pcm_figure CAPTURE_FRAME : records first_pcm_ms, from the player's exec to the time that
# capture frame was captured.
first_pcm_figure() {
    figure first_pcm_ms $(( ($(capture_frame_us "$1") - PLAYER_START_US) / 1000 ))
}

# track_references LIBRARY ARTIST ALBUM N : sets ref1…refN to the reference PCM of the album's
# tracks 1…N; fails the scenario when one cannot be decoded.
track_references() {
    local n ref
    for n in $(seq 1 "$4"); do
        ref=$(track_reference "$(track_file "$1" "$2" "$3" "$n")") || fail "decode $3 $n"
        printf -v "ref$n" '%s' "$ref"
    done
}

# black_screen : fills /dev/fb0 with black and grabs it as black.raw, what "the player draws" is
# judged against.
black_screen() {
    fbtool fill /dev/fb0 000000
    fbtool grab /dev/fb0 "$SYSTEST_WORK/black.raw"
}

# player_start_captured : starts the capture into capture.raw, then the player with $CONFIG.
player_start_captured() {
    must "capture $SYSTEST_CAPTURE_PCM" capture_start "$SYSTEST_WORK/capture.raw"
    player_start "$CONFIG"
}

# resume_fixture_play : with `use_fixture resume`: its FAT stick mounted, the player started on
# it with the capture running, play pressed once the screen settled, and Delta 1 heard from its
# start. Sets library, ref1 (Delta 1's reference PCM), press_frame and track_start.
resume_fixture_play() {
    library=$FIXTURE/library
    track_references "$library" "Artist D" Delta 1
    must "the FAT stick mounted read-only; a valid config" player_stick "$FIXTURE/stick.img" KIOSKRES
    black_screen
    player_start_captured
    must "the player draws and the screen settles within 30 s" \
        fb_settle 30 "$SYSTEST_WORK/browse.raw" "$SYSTEST_WORK/black.raw"
    press_frame=$(capture_now)
    button_press "$LINE_PLAY"
    must "play: Delta 1 plays from its start" wait_pcm 15 find "$ref1" --from "$press_frame" --frames 44100
    track_start=$PCM_TRACK_START
}
