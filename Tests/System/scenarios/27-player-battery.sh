#!/bin/bash
# Player: a box on a battery, through the kernel's own gauge driver. i2c-stub holds a virtual
# SMBus chip at 0x0b (the Smart Battery System's address; guest.sh loads it with chip_addr=0x0b),
# sbs-battery is bound to it with new_device, and the test scripts the chip's
# registers through /dev/i2c-N (tools/smbus-word.py): RelativeStateOfCharge 0x0d (capacity %),
# BatteryStatus 0x16 (0x40 discharging), Current 0x0a (its sign corrects the status), Voltage 0x09.
# config.json: "battery": {"powerSupply": "sbs-N-000b", "pollSeconds": 1, "confirmSeconds": 3}.
#   1. the driver registers /sys/class/power_supply/sbs-N-000b: capacity 80, Discharging;
#      `kiosk-player doctor` shows the gauge and its readings;
#   2. the player plays Delta 1 (60 s) from its start;
#   3. capacity 15 → "Battery low" said (speech: the log's line), the player plays on; once the
#      message has gone the status light (line 8) blinks fast (batteryLow: ≥ 6 changes in 2 s);
#   4. capacity 3 → "Battery almost empty, turning off" said and the power-off requested (the flag
#      in $RUNTIME_DIRECTORY, which kiosk-player-poweroff.path watches on a real box); SIGTERM → 0;
#   5. the gauge now says Charging at 3% (nothing is turned off on a charger); the player started
#      again resumes Delta 1 where the sound ended (not from its start): the resume point was saved
#      before the power-off request;
#   6. the gauge taken away (delete_device) → the log names the missing file, the player plays on;
#   7. a voltage-only gauge, the Waveshare UPS HAT's INA219 (i2c-stub's second chip, 0x42) bound
#      to the IIO driver ina2xx-adc with new_device ("ina219 0x42"; the hwmon ina2xx driver is not
#      in this kernel): bus voltage register 0x02 = 1900 × 4 mV (bits 15..3; regmap swaps the
#      SMBus word, as the chip is big-endian) → in_voltage1_raw 1900, in_voltage1_scale 4; the
#      doctor, with "voltage": {"path": ".../in_voltage1_raw", "cells": 2}, shows 7.600 V as 40%.
# timeout: 240
# shellcheck source=../lib.sh
source "$SYSTEST_REPO/Tests/System/lib.sh"
require_infra snd-aloop fb gpio-sim loop i2c-stub
require_command flac arecord python3
require_player_run
use_fixture resume  # fixtures.sh: Delta: 60 s + 5 s

smbus() { python3 "$SYSTEST_REPO/Tests/System/tools/smbus-word.py" "$bus" 0x0b "$@"; }
capacity() { cat "$gauge/capacity"; }

# 1. the gauge
adapter=""
for dir in /sys/bus/i2c/devices/i2c-*; do
    [ "$(cat "$dir/name" 2>/dev/null)" = "SMBus stub driver" ] && adapter=$dir
done
bus=${adapter##*-}
must "the registers are scripted: 80%, discharging at 400 mA, 3.950 V" \
    smbus 0x0d=80 0x16=0xc0 0x0a=-400 0x09=3950
echo "sbs-battery 0x0b" > "$adapter/new_device"
gauge=/sys/class/power_supply/sbs-$bus-000b
must "sbs-battery registers $gauge" wait_for 10 "the power supply" test -r "$gauge/capacity"
check "the driver reads capacity 80" test "$(capacity)" = 80
check "the driver reads status Discharging" test "$(cat "$gauge/status")" = Discharging
log "$gauge: type $(cat "$gauge/type"), capacity $(capacity), status $(cat "$gauge/status"), voltage_now $(cat "$gauge/voltage_now")"

library=$FIXTURE/library
track_references "$library" "Artist D" Delta 1
must "the FAT stick mounted read-only" player_stick "$FIXTURE/stick.img" KIOSKRES
player_config "$CONFIG" "$MEDIA_ROOT" "$STATE_DIR" \
    "\"battery\": {\"powerSupply\": \"sbs-$bus-000b\", \"pollSeconds\": 1, \"confirmSeconds\": 3}"
must "a valid config with the battery" \
    sh -c '"$1" check-config "$2" > "$3" 2>&1 || { cat "$3"; exit 1; }' _ "$SYSTEST_PLAYER" "$CONFIG" "$SYSTEST_WORK/check-config.log"
output=$("$SYSTEST_PLAYER" doctor --config "$CONFIG" 2>&1)
echo "$output" | grep -F "battery"
check "doctor shows the gauge and its readings" sh -c 'printf "%s\n" "$1" | grep -F "battery:" | grep -qF "$2"' _ \
    "$output" "$gauge: 80%, 3.950 V, Discharging; low at 20%, turns off at 5% (each held 3 s)"

# 2. play
export RUNTIME_DIRECTORY=$SYSTEST_WORK/run
mkdir -p "$RUNTIME_DIRECTORY"
black_screen
player_start_captured
must "the player draws and the screen settles within 30 s" \
    fb_settle 30 "$SYSTEST_WORK/browse.raw" "$SYSTEST_WORK/black.raw"
check "the player reads the gauge" player_log_has "battery: reading .*sbs-$bus-000b"
press_frame=$(capture_search_start)
button_press "$LINE_PLAY"
must "play: Delta 1 plays from its start" wait_pcm 15 find "$ref1" --from "$press_frame" --frames 44100
track_start=$PCM_TRACK_START

# 3. low
smbus 0x0d=15
must "\"Battery low\" is said" wait_for 20 "Battery low" player_log_has 'speech: "Battery low"'
check "it was said once the level held 3 s" player_log_has 'battery: 15% for 3 s \(low at 20%\)'
check "the player plays on" player_alive
snooze 9  # the message's 8 s
blink=$(gpio_samples "$LINE_STATUS_LIGHT" 2)
n=$(level_changes "$blink")
log "battery low, playing: $blink ($n changes)"
figure battery_low_blink_changes_2s "$n"
check "the status light blinks fast (batteryLow: ≥ 6 changes in 2 s)" test "$n" -ge 6
set_frame=$(capture_now)
wait_capture_frames $((set_frame + SYSTEST_RATE / 2)) 10
must "Delta 1 still plays before the battery runs out" pcm_locate "$ref1" --from "$set_frame" --frames 4410
position_before=$PCM_REFERENCE_FRAME
log "Delta 1 at $((position_before * 1000 / SYSTEST_RATE)) ms when the battery reads 3%"

# 4. empty
smbus 0x0d=3
must "\"Battery almost empty, turning off\" is said" \
    wait_for 20 "the last warning" player_log_has 'speech: "Battery almost empty, turning off"'
must "the power-off is requested" wait_for 10 "the poweroff flag" test -s "$RUNTIME_DIRECTORY/poweroff"
check "the log says why" player_log_has 'battery: 3% for 3 s \(empty at 5%\): turning off'
check "the log says the power-off was requested" player_log_has "power-off requested"
check "SIGTERM: exit status 0" player_stop

# 5. on the charger: the resume point
must "the gauge now says Charging at 3%" smbus 0x16=0x80 0x0a=500
check "the driver reads status Charging" test "$(cat "$gauge/status")" = Charging
rm -f "$RUNTIME_DIRECTORY/poweroff"
restart_frame=$(capture_now)
player_start "$CONFIG"
if ! wait_sound 15 "$restart_frame" > /dev/null; then
    log "no sound within 15 s of the restart: pressing play-pause"
    button_press "$LINE_PLAY"
fi
must "after the restart Delta 1 plays again" wait_pcm 20 locate "$ref1" --from "$restart_frame" --frames 44100
resumed_at=$PCM_REFERENCE_FRAME
log "resumed Delta 1 at $((resumed_at * 1000 / SYSTEST_RATE)) ms"
figure battery_resume_ms $((resumed_at * 1000 / SYSTEST_RATE))
check "it resumed where the sound ended, not from the start (at or after the position at 3%)" \
    test "$resumed_at" -ge "$position_before"
check "within 15 s of the position at 3% (3 s held, 1 s polls, the prompt)" \
    test $((resumed_at - position_before)) -le $((15 * SYSTEST_RATE))
check "charging at 3%: no power-off requested" not test -e "$RUNTIME_DIRECTORY/poweroff"

# 6. the gauge goes away
echo 0x0b > "$adapter/delete_device"
check "a missing gauge is logged with its file" \
    wait_for 10 "the missing gauge" player_log_has "battery: no reading: .*sbs-$bus-000b is missing"
snooze 5
check "nothing is turned off on a missing reading" not test -e "$RUNTIME_DIRECTORY/poweroff"
check "the player runs on" player_alive
check "SIGTERM: exit status 0" player_stop
check "arecord lost no frames" capture_stop

# 7. a voltage alone: INA219 through IIO
ina() { python3 "$SYSTEST_REPO/Tests/System/tools/smbus-word.py" "$bus" 0x42 "$@"; }
must "the INA219's bus voltage register reads 7.600 V (1900 × 4 mV, swapped)" ina 0x02=0x603b
echo "ina219 0x42" > "$adapter/new_device"
iio=""
find_iio() {
    local d
    for d in /sys/bus/iio/devices/iio:device*; do
        [ "$(cat "$d/name" 2>/dev/null)" = ina219 ] && iio=$d && return 0
    done
    return 1
}
must "ina2xx-adc registers an IIO device named ina219" wait_for 10 "the IIO device" find_iio
find_iio
log "$iio: in_voltage1_raw $(cat "$iio/in_voltage1_raw"), in_voltage1_scale $(cat "$iio/in_voltage1_scale")"
check "the driver reads the bus voltage as 1900" test "$(cat "$iio/in_voltage1_raw")" = 1900
player_config "$CONFIG" "$MEDIA_ROOT" "$STATE_DIR" \
    "\"battery\": {\"voltage\": {\"path\": \"$iio/in_voltage1_raw\", \"cells\": 2}}"
output=$("$SYSTEST_PLAYER" doctor --config "$CONFIG" 2>&1)
echo "$output" | grep -F "battery"
check "doctor shows the voltage gauge: 7.600 V is 40% for two cells" \
    sh -c 'printf "%s\n" "$1" | grep -F "battery:" | grep -qF "$2"' _ "$output" \
    "$iio/in_voltage1_raw: 40%, 7.600 V, no status (a voltage alone)"
echo 0x42 > "$adapter/delete_device"
finish
