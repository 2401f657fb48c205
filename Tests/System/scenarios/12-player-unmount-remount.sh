#!/bin/bash
# Player 3: the stick goes away mid-track and comes back.
#
# An ext4 stick with one album (a 40 s track and a 5 s one, yellow cover) plays; then:
#   1. lazy unmount mid-track (umount -l, like a yanked stick: open files stay readable, so only
#      the player's mount watching can notice) → silence within 5 s; the process stays up; the
#      screen says "USB stick removed" (exactly as `kiosk-player render message` draws it);
#   2. 3 s later the player is still running and the capture still silent;
#   0. the album list shows Gamma, and its cover.png as the thumbnail within 20 s;
#   3. the same image mounted again → within 20 s the album list is back on screen (as rendered);
#      the per-volume index in the state directory is the same file as before (not rebuilt);
#      remount_ms = mount → screen shows the album;
#   4. play-pause → the track plays again (bit-exact over 1 s at whatever position it resumes).
# timeout: 180
# shellcheck source=../lib.sh
source "$SYSTEST_REPO/Tests/System/lib.sh"
require_infra snd-aloop fb gpio-sim loop
require_command flac arecord
require_player_run
use_fixture long-track  # fixtures.sh: ext4, Gamma: 40 s + 5 s, yellow cover

library=$FIXTURE/library
track_references "$library" "Artist C" Gamma 1
must "the ext4 stick mounted read-only; a valid config" player_stick "$FIXTURE/stick.img" KIOSKEXT
black_screen

player_start_captured
must "the player draws and the screen settles within 30 s" fb_settle 30 "$SYSTEST_WORK/browse.raw" "$SYSTEST_WORK/black.raw"
browse='{"categoryLabel":"Albums","selectedIndex":0,"items":[{"title":"Gamma","subtitle":"Artist C · 2 tracks","artworkKey":"gamma"}]}'
expected=$(render_expected browse-gamma browse "$browse" --artwork "$FIXTURE/library/Artist C/Gamma/cover.png")
without_cover=$(render_expected browse-gamma-no-cover browse "${browse/,\"artworkKey\":\"gamma\"/}")
screen_is_list() { fb_matches "$expected" || fb_matches "$without_cover"; }
check "the album list shows Gamma, as kiosk-player render draws it" wait_for 10 "the album list" screen_is_list
check "Gamma's cover.png shows as its thumbnail within 20 s" wait_screen 20 "$expected"
removed=$(render_expected stick-removed message '{"title":"USB stick removed","detail":"Playback stopped","kind":"info"}')
insert=$(render_expected insert-stick message '{"title":"Insert a USB stick with music","kind":"info"}')
press_frame=$(capture_search_start)
button_press "$LINE_PLAY"
must "play: Gamma 1 plays, bit-exact over 1 s" wait_pcm 15 find "$ref1" --from "$press_frame" --frames 44100
wait_capture_frames $((PCM_TRACK_START + 4 * SYSTEST_RATE))
fbtool grab /dev/fb0 "$SYSTEST_WORK/playing.raw"
index_before=$(find "$STATE_DIR" -name '*.sqlite' -printf '%p %i\n' 2>/dev/null | sort)
log "index files: ${index_before:-none}"

# 1.
must "yank the stick (lazy unmount)" media_pull "$MOUNTPOINT"
check "the screen says \"USB stick removed\", as kiosk-player render draws it" wait_screen 4 "$removed"
fb_screenshot 1-stick-gone > /dev/null
must "silence within 5 s" wait_for 5 "silence after the unmount" pcm_silent_tail $((SYSTEST_RATE / 2))
check "the player is still running" player_alive

# 2.
silent_from=$(capture_now)
snooze 3
wait_capture_frames $((silent_from + 3 * SYSTEST_RATE))
check "3 s later: still running" player_alive
check "3 s later: still silent" pcm_silent "$silent_from" $((3 * SYSTEST_RATE))
check "then it asks for a stick, as rendered" wait_screen 10 "$insert"

# 3.
mount_us=$(now_us)
must "mount the stick again" media_mount "$STICK_IMAGE" "$MOUNTPOINT"
check "the album list with Gamma is back within 20 s, as rendered" wait_for 20 "the album list" screen_is_list
figure remount_ms $(( ($(now_us) - mount_us) / 1000 ))
fb_screenshot 3-back > /dev/null
index_after=$(find "$STATE_DIR" -name '*.sqlite' -printf '%p %i\n' 2>/dev/null | sort)
check "an index file exists for the volume" test -n "$index_after"
check "the volume's index is the same file as before the unmount (not rebuilt)" test "$index_before" = "$index_after"

# 4.
press_frame=$(capture_now)
button_press "$LINE_PLAY"
must "play after the remount: Gamma 1 plays again, bit-exact over 1 s" \
    wait_pcm 15 locate "$ref1" --from "$press_frame" --frames 44100
check "SIGTERM: exits 0" player_stop
check "arecord lost no frames" capture_stop
finish
