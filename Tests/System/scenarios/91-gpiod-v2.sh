#!/bin/bash
# The libgpiod v2 path of kiosk_gpio.c against a real kernel chip (gpio-sim): request with bias,
# value, a falling edge with its CLOCK_MONOTONIC timestamp, the consumer name. The check program
# (Tests/gpiod-v2/build-check.sh: kiosk_gpio.c linked with libgpiod 2 sources) is built and
# cached on the host by prepare.sh (SYSTEST_GPIOD_V2_CHECK).
# timeout: 60
# shellcheck source=../lib.sh
source "$SYSTEST_REPO/Tests/System/lib.sh"
require_infra gpio-sim
check_bin=${SYSTEST_GPIOD_V2_CHECK:-}
[ -n "$check_bin" ] && [ -x "$check_bin" ] ||
    skip "no libgpiod v2 check program: ${SYSTEST_MISSING_gpiod_v2_check:-not built by prepare.sh}"
chip=$(gpio_chip)
must "the gpio-sim chip" test -n "$chip"
gpio_pull 0 up
"$check_bin" "/dev/${chip#/dev/}" "$(gpio_sim_line_dir 0)" > "$SYSTEST_ARTIFACTS/v2.log" 2>&1
status=$?
while read -r line; do log "$line"; done < "$SYSTEST_ARTIFACTS/v2.log"
check "the v2 check passes" test $status = 0
check "nothing skipped" grep -q ', 0 skipped' "$SYSTEST_ARTIFACTS/v2.log"
finish
