#!/bin/bash
# Smoke: the gpio-sim chip (label "kiosk-sim", 16 named lines) moves like buttons and an encoder.
# Found by its label; line names as in boards/qemu-gpio-sim.json; pulls read back with gpioget;
# gpiomon sees a bouncy button press start with a falling edge and end with a rising one, and the
# encoder's Gray sequence in order, both directions.
# timeout: 60
# shellcheck source=../lib.sh
source "$SYSTEST_REPO/Tests/System/lib.sh"
require_infra gpio-sim
require_command gpiodetect gpioinfo gpioget gpiomon

# The guest's gpiod tools: libgpiod 1.6 (Debian 12, the x86 guest) or 2.x (trixie, the arm64 guest,
# as on Raspberry Pi OS trixie), whose options differ; edges are logged as "OFFSET 0|1" either way.
if gpiodetect --version 2>/dev/null | head -n 1 | grep -q ' v2\.'; then  # not "LGPLv2.1" of v1's licence line
    log "gpiod tools: $(gpiodetect --version | head -n 1) (v2 options)"
    tool_info() { gpioinfo -c "$1"; }
    tool_get() { gpioget -c "$1" --numeric "$2"; }
    # v2's %e is 1 rising / 2 falling
    tool_mon() { local chip=$1; shift; exec gpiomon -c "$chip" -b pull-up -F '%o %e %S' "$@"; }
else
    tool_info() { gpioinfo "$1"; }
    tool_get() { gpioget "$1" "$2"; }
    tool_mon() { local chip=$1; shift; exec gpiomon -b -B pull-up -F '%o %e %s.%n' "$chip" "$@"; }
fi
# edges LOG : the "OFFSET EDGE" lines of a monitor log, falling as 0 (v1) and 2 (v2) alike written 0
edges() { awk '$1 ~ /^[0-9]+$/ && ($2 == 0 || $2 == 1 || $2 == 2) { print $1, ($2 == 2 ? 0 : $2) }' "$1"; }

chip=$(gpio_chip)
must "a chip labelled $SYSTEST_GPIO_LABEL is listed by gpiodetect" test -n "$chip"
log "chip $chip: $(gpiodetect | grep "$SYSTEST_GPIO_LABEL")"
check "line 0 is named btn-play-pause" sh -c "$(declare -f tool_info); tool_info $chip | grep -E 'line[[:space:]]+0:[[:space:]]+\"btn-play-pause\"'"
check "line 5 is named enc-a" sh -c "$(declare -f tool_info); tool_info $chip | grep -E 'line[[:space:]]+5:[[:space:]]+\"enc-a\"'"

gpio_pull "$LINE_STOP" down
check "pull-down reads 0" test "$(tool_get "$chip" "$LINE_STOP")" = 0
gpio_pull "$LINE_STOP" up
check "pull-up reads 1" test "$(tool_get "$chip" "$LINE_STOP")" = 1

# A press with bounce, seen through the character device (as the player's libgpiod will see it).
gpio_pull "$LINE_PLAY" up
spawn gpiomon tool_mon "$chip" "$LINE_PLAY"
monitor=$SPAWNED_PID
snooze 0.5
button_press "$LINE_PLAY" 150
figure press_bounce_us "$PRESS_BOUNCE_US"
figure release_bounce_us "$BOUNCE_US"
snooze 0.5
kill -INT "$monitor"; wait "$monitor" 2>/dev/null
events=$(edges "$SYSTEST_WORK/gpiomon.log" | grep -c '^0 ')
log "gpiomon saw $events edge(s) for one bouncy press (10 pull changes; under TCG close edges merge)"
figure press_edges "$events"
first_edge=$(edges "$SYSTEST_WORK/gpiomon.log" | grep '^0 ' | head -n 1 | cut -d' ' -f2)
# With both edges watched, the kernel names an edge by the line's level when its IRQ thread runs
# (drivers/gpio/gpiolib-cdev.c, edge_irq_thread: gpiod_get_value_cansleep decides rising or
# falling), so when that thread runs late in the emulator the first falling edge can be reported as
# rising, the line having bounced back high by then. A long bounce was taken for the sign of such a
# stall (over BOUNCE_STALL_US); a run with a 4.9 ms bounce showed it too, the thread's lateness
# being what matters, and it cannot be seen from here. So the press must show a falling edge, and a
# first edge reported rising is logged.
[ "$first_edge" = 0 ] ||
    log "the first edge was reported rising (the IRQ thread ran after the bounce; press bounce ${PRESS_BOUNCE_US} µs)"
press_falls() { edges "$SYSTEST_WORK/gpiomon.log" | grep -q '^0 0$'; }
check "the press shows a falling edge" press_falls
check "the release ends with a rising edge" test "$(edges "$SYSTEST_WORK/gpiomon.log" | grep '^0 ' | tail -n 1 | cut -d' ' -f2)" = 1
check "the line rests high after release" test "$(gpio_value "$LINE_PLAY")" = 1

# The encoder: one detent clockwise then one counter-clockwise, slowly (30 ms per transition).
encoder_rest
spawn encoder tool_mon "$chip" "$LINE_ENC_A" "$LINE_ENC_B"
monitor=$SPAWNED_PID
snooze 0.5
encoder_turn 1 cw 30
encoder_turn 1 ccw 30
snooze 0.3
kill -INT "$monitor"; wait "$monitor" 2>/dev/null
sequence=$(edges "$SYSTEST_WORK/encoder.log" | tr '\n' ',')
log "encoder edges (line edge): $sequence"
check "clockwise: A falls, B falls, A rises, B rises; then counter-clockwise: B, A, B, A" \
    test "$sequence" = "5 0,6 0,5 1,6 1,6 0,5 0,6 1,5 1,"

# fast turn with bounce: the lines end at rest whatever the speed
encoder_turn 5 cw 2 1
check "after a fast bouncy turn both encoder lines rest high" test "$(gpio_value "$LINE_ENC_A")$(gpio_value "$LINE_ENC_B")" = 11
finish
