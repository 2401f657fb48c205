#!/bin/bash
# Player 13: the status light and the power latch of the qemu-gpio-sim board (outputs: light on
# line 8, latch on line 9), read from gpio-sim while the player runs:
#   1. at start the latch is held (1) and the light is off (stopped);
#   2. play (line 0) → sound; the light is steady on (every sample 1 over 2 s);
#   3. play/pause again → paused; the light blinks at 1 Hz: over 4 s sampled every 50 ms, both
#      levels, 6 to 10 changes (8 at exactly 1 Hz; the emulator's stalls blur the edges);
#      the samples are taken by one python3 process (a shell's cat per sample is too slow under TCG);
#   4. SIGTERM → exit 0; `kiosk-player power-latch release --config` releases line 9 (exit 0).
# timeout: 180
# shellcheck source=../lib.sh
source "$SYSTEST_REPO/Tests/System/lib.sh"
require_infra snd-aloop fb gpio-sim loop
require_command python3
require_player_run
use_fixture two-albums  # fixtures.sh: Alpha 3 × 12 s, Beta 2 × 4 s

must "the FAT stick mounted read-only; a valid config" player_stick "$FIXTURE/stick.img" KIOSKLIB
must "capture $SYSTEST_CAPTURE_PCM" capture_start "$SYSTEST_WORK/capture.raw"
player_start "$CONFIG"
must "the player has scanned the stick within 30 s" \
    wait_for 30 "the scan" grep -q "scanned" "$SYSTEST_WORK/player.log"
snooze 1


# 1. held latch, light off
check "the player holds the power latch (line $LINE_POWER_LATCH is 1)" test "$(gpio_value "$LINE_POWER_LATCH")" = 1
check "the log says so" player_log_has "power latch: holding line $LINE_POWER_LATCH"
stopped=$(gpio_samples "$LINE_STATUS_LIGHT" 1)
log "stopped: $stopped"
check "stopped: the light is off" sh -c 'case $1 in *1*) exit 1 ;; esac; [ -n "$1" ]' _ "$stopped"

# 2. playing: steady
button_press "$LINE_PLAY"
must "play: sound within 15 s" wait_for 15 "sound" pcm-match first-sound "$CAPTURE_FILE"
playing=$(gpio_samples "$LINE_STATUS_LIGHT" 2)
log "playing: $playing"
check "playing: the light is steady on" sh -c 'case $1 in *0*) exit 1 ;; esac; [ -n "$1" ]' _ "$playing"

# 3. paused: 1 Hz
button_press "$LINE_PLAY"
snooze 0.5
paused=$(gpio_samples "$LINE_STATUS_LIGHT" 4)
n=$(level_changes "$paused")
log "paused: $paused ($n changes)"
figure paused_blink_changes_4s "$n"
check "paused: the light is on and off" sh -c 'case $1 in *0*1* | *1*0*) ;; *) exit 1 ;; esac' _ "$paused"
check "paused: it blinks at about 1 Hz (6-10 changes in 4 s)" test "$n" -ge 6 -a "$n" -le 10

# 4. exit, then the shutdown hook's command
check "SIGTERM: exit status 0" player_stop
out=$("$SYSTEST_PLAYER" power-latch release --config "$CONFIG" --hold-ms 0 2>&1)
status=$?
log "power-latch release: $out"
check "power-latch release exits 0" test "$status" = 0
check "power-latch release names the line" sh -c 'printf "%s" "$1" | grep -q "released line 9 on /dev/gpiochip"' _ "$out"
finish
