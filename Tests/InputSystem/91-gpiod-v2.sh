#!/bin/bash
# The libgpiod v2 path of kiosk_gpio.c against a real kernel chip (gpio-sim): request with bias,
# value, a falling edge with its CLOCK_MONOTONIC timestamp, the consumer name. The check program is
# built on the host by `GPIOD_V2_KEEP=.build/gpiod-v2-check Tests/gpiod-v2/build-check.sh` (next to
# the .build/debug of SYSTEST_PLAYER; GPIOD_V2_CHECK=FILE to point elsewhere).
# A scenario for Tests/System/scenarios/.
# timeout: 60
source "$SYSTEST_REPO/Tests/System/lib.sh"
require_infra gpio-sim
check_bin=${GPIOD_V2_CHECK:-${SYSTEST_PLAYER%/*/*}/gpiod-v2-check}
[ -x "$check_bin" ] || skip "no $check_bin (GPIOD_V2_KEEP=.build/gpiod-v2-check Tests/gpiod-v2/build-check.sh)"
chip=$(gpio_chip)
gpio_pull 0 up
"$check_bin" "/dev/${chip#/dev/}" "$(gpio_sim_line_dir 0)" > "$SYSTEST_ARTIFACTS/v2.log" 2>&1
status=$?
while read -r line; do log "$line"; done < "$SYSTEST_ARTIFACTS/v2.log"
check "the v2 check passes" test $status = 0
check "nothing skipped" grep -q ', 0 skipped' "$SYSTEST_ARTIFACTS/v2.log"
finish
