#!/bin/bash
# Player 5: a bad stick. An ext4 stick with two good tracks among: a truncated FLAC, random bytes
# named .flac, an empty .flac, a PNG named .flac, testbench files the loopback cannot take as they
# are (3 channels, 22.05 kHz; when the testbench is present), a symlink loop and a self-link, a
# 40-level folder nest, a name that is not UTF-8, a 0-byte cover.jpg next to a good track, a PNG
# cover that claims 60000×60000 pixels, and a playlist of missing, Windows, escaping and binary
# entries. Expected:
#   1. the player keeps running through the scan (30 s budget) and shows a screen;
#   2. `kiosk-player scan STICK --json` (when the command exists) lists the two good tracks as
#      playable and names the truncated, random and empty files among the problems;
#   3. play-pause plays one of the good tracks, bit-exact over 1 s;
#   4. the log shows no crash; SIGTERM → exit 0.
# timeout: 180
# shellcheck source=../lib.sh
source "$SYSTEST_REPO/Tests/System/lib.sh"
require_infra snd-aloop fb gpio-sim loop
require_command flac arecord
require_player_run
use_fixture bad-stick  # fixtures.sh: the files listed above

good1=$(track_file "$FIXTURE/library" Good "Good Album" 1)
good2=$(track_file "$FIXTURE/library" Good "Good Album" 2)
ref_good1=$(track_reference "$good1") && ref_good2=$(track_reference "$good2") || fail "decode the good tracks"

must "the ext4 stick mounted read-only; a valid config" player_stick "$FIXTURE/stick.img" KIOSKBAD
black_screen
player_start_captured

# 1.
must "the player draws and the screen settles within 30 s" fb_settle 30 "$SYSTEST_WORK/screen.raw" "$SYSTEST_WORK/black.raw"
fb_screenshot 1-bad-stick > /dev/null
check "the player is running after the scan" player_alive
check "the screen is not blank" fb_not_blank

# 2.
if "$SYSTEST_PLAYER" scan --help > /dev/null 2>&1; then
    if check "kiosk-player scan STICK --json exits 0" sh -c "'$SYSTEST_PLAYER' scan '$MOUNTPOINT' --json > '$SYSTEST_WORK/scan.json'"; then
        cp "$SYSTEST_WORK/scan.json" "$SYSTEST_ARTIFACTS/"
        check "scan lists Good Album 1" grep -q "Good Album 1" "$SYSTEST_WORK/scan.json"
        check "scan lists Good Album 2" grep -q "Good Album 2" "$SYSTEST_WORK/scan.json"
        for bad in truncated.flac random.flac empty.flac; do
            check "scan reports $bad" grep -q "$bad" "$SYSTEST_WORK/scan.json"
        done
    fi
else
    log "kiosk-player has no 'scan' command: the listing checks are left out"
fi

# 3.
press_frame=$(capture_now)
button_press "$LINE_PLAY"
must "play-pause: something plays" wait_sound 15 "$press_frame"
wait_capture_frames $((SOUND_FRAME + SYSTEST_RATE * 3 / 2))
if pcm_locate "$ref_good1" --from "$SOUND_FRAME" --frames 44100; then
    log "Good Album 1 plays"
else
    check "a good track plays, bit-exact over 1 s" pcm_locate "$ref_good2" --from "$SOUND_FRAME" --frames 44100
fi
first_pcm_figure "$SOUND_FRAME"

# 4.
check "still running" player_alive
check "no crash in the log" not grep -Eqi 'fatal error|segmentation|sigsegv|sigill|stack dump|crash' "$SYSTEST_WORK/player.log"
check "SIGTERM: exits 0" player_stop
check "arecord lost no frames" capture_stop
finish
