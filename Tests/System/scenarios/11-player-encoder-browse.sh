#!/bin/bash
# Player 2: the rotary encoder in browse: slow turns move one collection per detent, a fast turn
# accelerates, a long press changes the category.
#
# Library: 30 one-track albums "Album 01" … "Album 30" (artists "Artist 01" …). Board qemu-gpio-sim: encoder A/B on lines 5/6 (clockwise = "down" = the next
# collection), push on line 7 (long press: next-category), category button on line 4 (long press:
# previous-category). Steps:
#   1. the screen settles on the album list with Album 01 selected, pixel for pixel as
#      `kiosk-player render browse` draws that state;
#   2. three detents clockwise, slowly (40 ms per Gray transition, with contact bounce) → the list
#      with Album 04 selected (three collections down from the first), as rendered;
#   3. three detents counter-clockwise → the screen is exactly the one of step 1;
#   4. long press of the push button → the category changes (the screen differs); long press of the
#      category button (previous-category) → exactly the screen of step 1 again;
#   5. three detents clockwise, then play-pause → Album 04's track plays (bit-exact over 1 s):
#      the selection the screen showed is the one that plays;
#   6. a fresh player (new state): ten detents clockwise fast (10 ms per transition = 40 ms per
#      detent, 25 detents/s; faster steps are not reproduced faithfully under TCG, where each
#      gpio-sim write costs ~1 ms and close edges merge), play-pause → the album that plays is more
#      than ten collections down (acceleration; an accelerated move stops at the last album instead
#      of wrapping, so a faithful fast turn on a fast host lands on Album 30, not back near the top).
# timeout: 240
# shellcheck source=../lib.sh
source "$SYSTEST_REPO/Tests/System/lib.sh"
require_infra snd-aloop fb gpio-sim loop
require_command flac arecord
require_player_run
use_fixture thirty-albums

library=$FIXTURE/library
albums=30
# the album list as `kiosk-player render browse` should draw it with item $1 (0-based) selected
browse_state() {
    local i items=""
    for ((i = 1; i <= albums; i++)); do
        items+="${items:+,}{\"title\":\"Album $(printf %02d "$i")\",\"subtitle\":\"Artist $(printf %02d "$i") · 1 track\"}"
    done
    echo "{\"categoryLabel\":\"Albums\",\"selectedIndex\":$1,\"items\":[$items]}"
}
must "the FAT stick mounted read-only; a valid config" player_stick "$FIXTURE/stick.img" KIOSKMANY
album_ref() { track_reference "$(track_file "$library" "Artist $(printf %02d "$1")" "Album $(printf %02d "$1")" 1)"; }
black_screen

player_start_captured
encoder_rest

# 1.
must "the player draws and the screen settles within 30 s" fb_settle 30 "$SYSTEST_WORK/start.raw" "$SYSTEST_WORK/black.raw"
fb_screenshot 1-start > /dev/null
first=$(render_expected album-01 browse "$(browse_state 0)")
fourth=$(render_expected album-04 browse "$(browse_state 3)")
check "the album list with Album 01 selected, as kiosk-player render draws it" wait_screen 20 "$first"
fbtool grab /dev/fb0 "$SYSTEST_WORK/start.raw"

# 2.
encoder_turn 3 cw 40 1
must "the screen changes and settles after three detents" fb_settle 10 "$SYSTEST_WORK/down3.raw" "$SYSTEST_WORK/start.raw"
fb_screenshot 2-three-down > /dev/null
check "the album list with Album 04 selected, as rendered" wait_screen 10 "$fourth"

# 3.
encoder_turn 3 ccw 40 1
must "the screen changes and settles after three detents back" fb_settle 10 "$SYSTEST_WORK/back.raw" "$SYSTEST_WORK/down3.raw"
check "three detents back: Album 01 selected again, as rendered" wait_screen 10 "$first"

# 4.
button_long_press "$LINE_ENC_PUSH" 1500
check "long press of the push button: the category changes (the screen differs)" \
    fb_settle 10 "$SYSTEST_WORK/category.raw" "$SYSTEST_WORK/back.raw"
fb_screenshot 4-next-category > /dev/null
button_long_press "$LINE_CATEGORY" 1500
must "the screen changes and settles after the category long press" \
    fb_settle 10 "$SYSTEST_WORK/category-back.raw" "$SYSTEST_WORK/category.raw"
check "long press of the category button: back to the album list with Album 01 selected" wait_screen 10 "$first"

# 5.
encoder_turn 3 cw 40 1
must "the screen changes and settles" fb_settle 10 "$SYSTEST_WORK/down3-again.raw" "$SYSTEST_WORK/category-back.raw"
check "three detents down again: Album 04 selected, as rendered" wait_screen 10 "$fourth"
press_frame=$(capture_search_start)
button_press "$LINE_PLAY"
must "play-pause plays Album 04 (the selected collection), bit-exact over 1 s" \
    wait_pcm 15 find "$(album_ref 4)" --from "$press_frame" --frames 44100
first_pcm_figure "$PCM_TRACK_START"
check "SIGTERM: exits 0" player_stop

# 6. a fresh player, a fast turn
rm -rf "$STATE_DIR"; mkdir -p "$STATE_DIR"
fbtool fill /dev/fb0 000000
player_start "$CONFIG"
must "the fresh player draws and its screen settles" fb_settle 30 "$SYSTEST_WORK/fresh.raw" "$SYSTEST_WORK/black.raw"
encoder_turn 10 cw 10
must "the screen changes and settles after the fast turn" fb_settle 10 "$SYSTEST_WORK/fast.raw" "$SYSTEST_WORK/fresh.raw"
fb_screenshot 6-fast-turn > /dev/null
press_frame=$(capture_now)
button_press "$LINE_PLAY"
must "something plays after the fast turn" wait_sound 15 "$press_frame"
playing=""
for ((i = 1; i <= albums; i++)); do
    if pcm_locate "$(album_ref "$i")" --from "$SOUND_FRAME" --frames 22050 > /dev/null; then playing=$i; break; fi
done
must "the playing audio is one of the albums, bit-exact" test -n "$playing"
figure fast_turn_moved $((playing - 1))
check "ten fast detents moved more than ten collections (moved $((playing - 1)))" test $((playing - 1)) -gt 10
check "SIGTERM: exits 0" player_stop
check "arecord lost no frames" capture_stop
finish
