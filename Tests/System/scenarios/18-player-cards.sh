#!/bin/bash
# Player 9: cards through a USB card reader, as a child uses the box.
#
# The two-albums stick; config `cards.readers` names a USB reader, which the test makes with
# uinput (a keyboard called kiosk-systest-rfid that types a card's number and Enter, as the common
# 125 kHz/13.56 MHz readers do). Before the player starts, `kiosk-player cards link` links card
# 0004561234 to the album Alpha (found through the stick's index) and card 0000000042 to `next`.
#   1. the player grabs the reader (the log says so);
#   2. card 0004561234 typed → Alpha track 1 plays from its first frame, bit-exact for 1 s;
#   3. card 0000000042 (next) → Alpha track 2 from its start, bit-exact for 1 s;
#   4. card 0004561234 again (cards.again = toggle-pause, the default) → silence within 1 s;
#   5. an unknown card → the log and the screen (pixel for pixel as `kiosk-player render` draws it)
#      offer to link it to what plays; SIGTERM → exit 0.
# That the reader's keys reach nothing else (the grab) is checked by scenario 90's kernel-device
# tests (UInputCardReaderTests: a second reader of the device sees none of them).
# timeout: 150
# shellcheck source=../lib.sh
source "$SYSTEST_REPO/Tests/System/lib.sh"
require_infra snd-aloop fb gpio-sim loop uinput
require_command flac arecord
require_player_run
use_fixture two-albums  # fixtures.sh: Alpha 3 × 12 s (magenta cover), Beta 2 × 4 s (no cover)

library=$FIXTURE/library
track_references "$library" "Artist A" Alpha 2
must "the FAT stick mounted read-only" player_stick "$FIXTURE/stick.img" KIOSKLIB
player_config "$CONFIG" "$MEDIA_ROOT" "$STATE_DIR" \
    '"cards": {"readers": [{"type": "usb", "device": "kiosk-systest-rfid"}]}'
must "a valid config with the card reader" "$SYSTEST_PLAYER" check-config "$CONFIG"
must "kiosk-player cards link: card 0004561234 → the album Alpha" \
    "$SYSTEST_PLAYER" cards link 0004561234 --album Alpha --config "$CONFIG"
must "kiosk-player cards link: card 0000000042 → next" \
    "$SYSTEST_PLAYER" cards link 0000000042 --action next --config "$CONFIG"
"$SYSTEST_PLAYER" cards list --config "$CONFIG" | while read -r line; do log "cards: $line"; done

must "the uinput card reader exists before the player starts" uinput_start kiosk-systest-rfid
must "capture $SYSTEST_CAPTURE_PCM" capture_start "$SYSTEST_WORK/capture.raw"
player_start "$CONFIG"

# 1. grabbed
must "the player grabs the card reader within 30 s" \
    wait_for 30 "the reader grabbed" player_log_has 'card reader: "kiosk-systest-rfid" at .*, grabbed'
must "the player has scanned the stick within 30 s" \
    wait_for 30 "the scan" grep -q "scanned" "$SYSTEST_WORK/player.log"

# 2. the album card
press_frame=$(capture_search_start)
card_swipe 0004561234
must "card 0004561234: Alpha track 1 plays from its start, bit-exact for 1 s" \
    wait_pcm 15 find "$ref1" --from "$press_frame" --frames 44100
check "the card was read as 0004561234" player_log_has 'card 0004561234: Album "Alpha"'
fb_screenshot 2-card-album > /dev/null
wait_capture_frames $((PCM_TRACK_START + 2 * SYSTEST_RATE))

# 3. the action card
press_frame=$(capture_search_start)
card_swipe 0000000042
must "card 0000000042 (next): Alpha track 2 from its start, bit-exact for 1 s" \
    wait_pcm 15 find "$ref2" --from "$press_frame" --frames 44100
track2_start=$PCM_TRACK_START
wait_capture_frames $((track2_start + 2 * SYSTEST_RATE))

# 4. the album card again: toggles pause
card_swipe 0004561234
must "the same card again pauses: silence within 1 s" wait_for 10 "silence after the second swipe" \
    pcm_silent_tail $((SYSTEST_RATE / 2))

# 5. an unknown card: offered for linking, nothing else
card_swipe 1111
check "an unknown card is offered for linking" \
    wait_for 10 "the new-card offer" player_log_has "card 1111: not linked; offering Alpha"
new_card=$(render_expected new-card message '{"title":"New card: album","detail":"Hold play+push to link it to '"'"'Alpha'"'"'. Press push: another mode","kind":"info"}') ||
    fail "render the new-card prompt"
check "the screen offers the card for linking, as kiosk-player render draws it" wait_screen 10 "$new_card"
check "the player is running" player_alive
check "SIGTERM: exits 0 within 10 s" player_stop
check "arecord lost no frames" capture_stop
uinput_stop
finish
