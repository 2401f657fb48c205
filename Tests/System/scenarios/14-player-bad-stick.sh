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
source "$SYSTEST_REPO/Tests/System/lib.sh"
require_infra snd-aloop fb gpio-sim loop
require_command flac arecord mkfs.ext4
require_player_run

stick=$SYSTEST_WORK/stick
must "make the good album (2 × 6 s, a 0-byte cover.jpg)" make_album "$stick" Good "Good Album" 2 6 5
: > "$stick/Good/Good Album/cover.jpg"
good1=$(track_file "$stick" Good "Good Album" 1)
good2=$(track_file "$stick" Good "Good Album" 2)
ref_good1=$(track_reference "$good1") && ref_good2=$(track_reference "$good2") || fail "decode the good tracks"

mkdir -p "$stick/Bad" "$stick/Bomb/Album" "$stick/Loop/inner"
head -c 3000 "$good1" > "$stick/Bad/truncated.flac"
head -c 65536 /dev/urandom > "$stick/Bad/random.flac"
: > "$stick/Bad/empty.flac"
fbtool make-png "$stick/Bad/picture.flac" 16 16 808080
cp "$good2" "$stick/Bad/$(printf 'not utf8 \xff\xfe.flac')"
fbtool png-bomb "$stick/Bomb/Album/cover.png" 60000 60000
cp "$good1" "$stick/Bomb/Album/01 Bomb.flac"
ln -s .. "$stick/Loop/inner/up"
ln -s self "$stick/Loop/self"
ln -s b "$stick/Loop/a"; ln -s a "$stick/Loop/b"
deep=$stick/Deep; for ((i = 0; i < 40; i++)); do deep=$deep/d$i; done
mkdir -p "$deep" && cp "$good2" "$deep/deep.flac"
if tb=$(testbench_file "38 - 3 channels (3.0).flac"); then cp "$tb" "$stick/Bad/"; fi
if tb=$(testbench_file "21 - samplerate 22050Hz.flac"); then cp "$tb" "$stick/Bad/"; fi
{
    echo "#EXTM3U"
    echo "Good/Good Album/missing.flac"
    echo 'C:\Music\Somewhere\track.flac'
    echo "../../../../etc/passwd"
    echo "Good/Good Album/$(basename "$good1")"
    head -c 2000 /dev/urandom
    echo
    printf '%*s\n' 100000 x
} > "$stick/broken.m3u"

must "an ext4 stick, mounted read-only; a valid config" player_stick ext4 "$stick" KIOSKBAD
fbtool fill /dev/fb0 000000
must "capture $SYSTEST_CAPTURE_PCM" capture_start "$SYSTEST_WORK/capture.raw"
player_start "$CONFIG"

# 1.
must "the screen settles within 30 s" fb_settle 30 "$SYSTEST_WORK/screen.raw"
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
