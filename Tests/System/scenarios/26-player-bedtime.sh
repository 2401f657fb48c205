#!/bin/bash
# Player 17: the bedtime rules (issue 51): a card refused outside the window, the bedtime card
# played, the end of the day's listening budget announced, faded and kept to.
#
# A stick made here (Stories: one 90 s track, longer than the budget, so the budget ends it and not
# its end; Lullabies: one 8 s track) and a USB card reader (uinput kiosk-systest-rfid, as in
# scenario 18); card 0004561234 → the album Stories, card 0000000007 → Lullabies. Config
# `bedtime`: a window daily 07:00-19:00, card 0000000007 allowed outside it, "dailyMinutes": 1 and
# "warningMinutes": 1 (the config's smallest units: with a budget of one minute the one-minute
# announcement comes with the start).
# The rules apply the windows only on a synchronised clock, in local time by the player's time zone.
# The guest has no NTP and no known time of day, so the test
#   - creates /run/systemd/timesync/synchronized (what systemd-timesyncd does at its first sync;
#     the guest's /run is its own tmpfs; removed at the end), and
#   - starts the player with TZ set to a POSIX zone whose offset, computed from the guest's UTC clock,
#     puts local time where the step needs it. The wall clock itself is left alone: the capture's
#     frames are timed by it (EPOCHREALTIME), and the run is the same at any hour of any day.
# Morning (local 05:30, before the window opens):
#   1. the player starts on the trusted clock (no "not synchronized" warning);
#   2. the Stories card → refused: the log; "Sleep time. The box plays again at 07:00" said (1-10 s
#      of sound on the loopback, and Stories' first frames never come) and on the screen (pixel for
#      pixel as `kiosk-player render` draws the message); the status light off (stopped);
#   3. the Lullabies card → Lullabies 1, the whole track bit-exact; SIGTERM → exit 0, and
#      bedtime.json has counted nothing (an allowed item is not counted).
# Midday (local 12:00 of the same day; the player restarted on the same state directory):
#   4. the Stories card → Stories 1 from its start, bit-exact; the announcement "One more minute,
#      then listening time is over for today" in the log, on the screen, on the status light (slow
#      blinking, sleepSoon: 6-10 changes in 4 s) and said: the track breaks off for 1-10 s of speech
#      and goes on with the frame after the last before it (within 50 ms);
#   5. the budget's end: "Listening time is over for today. More tomorrow" said and on the screen;
#      before it the fade (loudness in 2 s windows falling over its last 20 s, the last under a tenth
#      of the level after the announcement); then silence while Stories would still be playing; the
#      light off;
#   6. the Stories card again → refused (budget spent), none of Stories; the Lullabies card still
#      plays (allowed after the budget too), bit-exact for 1 s;
#   7. SIGTERM → exit 0; bedtime.json has the budget spent (at least 60 s).
# timeout: 420
# shellcheck source=../lib.sh
source "$SYSTEST_REPO/Tests/System/lib.sh"
require_infra snd-aloop fb gpio-sim loop uinput
require_command flac arecord python3
require_player_run

# Made in the guest, not in fixtures.sh: the fixtures' cache is shared by the machine's worktrees
# and keeps one generation, so a changed fixtures.sh deletes the media under another worktree's
# running system test (and theirs, this one's).
library=$SYSTEST_WORK/library
must "make the Stories album (90 s)" make_album "$library" "Artist S" Stories 1 90 7
must "make the Lullabies album (8 s)" make_album "$library" "Artist L" Lullabies 1 8 8
must "make the stick" media_image vfat "$library" "$SYSTEST_WORK/stick.img" KIOSKBED
stories=$(track_reference "$(track_file "$library" "Artist S" Stories 1)") || fail "decode Stories 1"
lullaby=$(track_reference "$(track_file "$library" "Artist L" Lullabies 1)") || fail "decode Lullabies 1"
must "the FAT stick mounted read-only" player_stick "$SYSTEST_WORK/stick.img" KIOSKBED
player_config "$CONFIG" "$MEDIA_ROOT" "$STATE_DIR" \
    '"cards": {"readers": [{"type": "usb", "device": "kiosk-systest-rfid"}]},
  "bedtime": {"windows": [{"days": "daily", "open": "07:00", "close": "19:00"}],
              "allowed": [{"card": "0000000007"}], "dailyMinutes": 1, "warningMinutes": 1}'
must "a valid config with bedtime rules" "$SYSTEST_PLAYER" check-config "$CONFIG"
must "kiosk-player cards link: card 0004561234 → the album Stories" \
    "$SYSTEST_PLAYER" cards link 0004561234 --album Stories --config "$CONFIG"
must "kiosk-player cards link: card 0000000007 → the album Lullabies" \
    "$SYSTEST_PLAYER" cards link 0000000007 --album Lullabies --config "$CONFIG"

# zone_at HH MM : sets BED_TZ to a POSIX TZ (zone "BED") in which local time is HH:MM now, and
# BED_WEST to its offset west of UTC in seconds, chosen within 12 h of BED_NEAR (default 0): the
# midday zone is taken near the morning one less 6.5 h, so that both are on the same local date.
# (glibc takes offsets up to 24 h.)
zone_at() {
    local now=${EPOCHREALTIME%.*} near=${BED_NEAR:-0} abs sign=+
    BED_WEST=$(( ((now % 86400 - ($1 * 3600 + $2 * 60) - near) % 86400 + 86400 + 43200) % 86400 - 43200 + near ))
    abs=$BED_WEST
    if [ "$BED_WEST" -lt 0 ]; then sign=- abs=$((-BED_WEST)); fi
    printf -v BED_TZ 'BED%s%d:%02d:%02d' "$sign" $((abs / 3600)) $((abs / 60 % 60)) $((abs % 60))
}

# bedtime_player HH MM : starts the player with local time HH:MM and waits until it has grabbed the
# reader and scanned the stick.
bedtime_player() {
    local tz
    zone_at "$1" "$2"
    tz=$BED_TZ
    log "TZ=$tz: local time $(TZ=$tz date '+%a %Y-%m-%d %H:%M:%S'), UTC $(date -u '+%a %Y-%m-%d %H:%M:%S')"
    rm -f "$SYSTEST_WORK/player.start"
    TZ=$tz player_start "$CONFIG"
    must "the player grabs the card reader within 30 s" \
        wait_for 30 "the reader grabbed" player_log_has 'card reader: "kiosk-systest-rfid" at .*, grabbed'
    must "the player has scanned the stick within 30 s" \
        wait_for 30 "the scan" grep -q "scanned" "$SYSTEST_WORK/player.log"
}

# said_count TEXT : how many times the player's log says it spoke TEXT.
said_count() { grep -cF "speech: \"$1\"" "$SYSTEST_WORK/player.log"; }
said_at_least() { [ "$(said_count "$1")" -ge "$2" ]; }

# light_off : the status light is off (stopped) over 1 s of samples.
light_off() {
    local samples
    samples=$(gpio_samples "$LINE_STATUS_LIGHT" 1)
    echo "$samples"
    [ -n "$samples" ] && [ "${samples//0/}" = "" ]
}

# heard_then_silent FROM : there is sound after capture frame FROM, and the last second is silent
# (what was said has ended; its synthesis can take longer than a second, so silence alone is not it).
heard_then_silent() {
    local first
    first=$(pcm-match first-sound "$CAPTURE_FILE" --from "$1") || return 1
    [ "$(capture_frames)" -ge $((first + 2 * SYSTEST_RATE)) ] && pcm_silent_tail "$SYSTEST_RATE"
}

# speech_after FROM : the sound after capture frame FROM is one stretch of 1-10 s; prints its first
# and last frame and length (SPEECH_MS).
speech_after() {
    local first last
    first=$(pcm-match first-sound "$CAPTURE_FILE" --from "$1") || { echo "no sound after frame $1"; return 1; }
    last=$(pcm-match last-sound "$CAPTURE_FILE" --before "$(capture_frames)") || return 1
    SPEECH_MS=$(( (last - first) * 1000 / SYSTEST_RATE ))
    echo "sound from frame $first to $last: $SPEECH_MS ms"
    [ "$SPEECH_MS" -ge 1000 ] && [ "$SPEECH_MS" -le 10000 ]
}

# never_came REFERENCE FROM : the reference's first 0.1 s is nowhere in the capture after FROM.
never_came() { ! _pcm_polling=1 pcm_find "$1" --from "$2" --frames 4410; }

timesync=/run/systemd/timesync/synchronized
log "the guest's RTC: $(cat /sys/class/rtc/rtc0/name 2>/dev/null || echo none), hctosys $(cat /sys/class/rtc/rtc0/hctosys 2>/dev/null || echo -)"
must "the clock marked synchronised ($timesync)" mkdir -p "${timesync%/*}"
touch "$timesync"
trap 'rm -f "$timesync"; _systest_cleanup' EXIT

sleep_time=$(render_expected sleep-time message \
    '{"title":"Sleep time","detail":"The box plays again at 07:00","kind":"info"}') || fail "render the refusal"
warning=$(render_expected warning message \
    '{"title":"One more minute, then listening time is over for today","kind":"info"}') || fail "render the warning"
spent=$(render_expected budget-spent message \
    '{"title":"Listening time is over for today","detail":"More tomorrow","kind":"info"}') || fail "render the end"
must "the uinput card reader exists before the player starts" uinput_start kiosk-systest-rfid
must "capture $SYSTEST_CAPTURE_PCM" capture_start "$SYSTEST_WORK/capture.raw"

# --- morning: 05:30, the window opens at 07:00
# 1.
bedtime_player 5 30
check "the clock is trusted: no waiting for synchronisation" \
    not player_log_has "the windows and the wake time wait for it"

# 2.
swipe_frame=$(capture_now)
card_swipe 0004561234
check "the refusal on the screen, as kiosk-player render draws it" wait_screen 10 "$sleep_time"
check "the Stories card is refused outside the window" \
    wait_for 10 "the refusal" player_log_has 'bedtime: refused: outsideWindow'
check "the refusal is said" wait_for 10 "the spoken refusal" \
    said_at_least "Sleep time. The box plays again at 07:00" 1
check "stopped: the status light is off" light_off
check "the refusal is heard on the loopback, then silence (1 s)" \
    wait_for 30 "the spoken refusal heard" heard_then_silent "$swipe_frame"
check "the sound is one stretch of speech of 1-10 s" speech_after "$swipe_frame"
figure refusal_speech_ms "${SPEECH_MS:-0}"
check "none of Stories came" never_came "$stories" "$swipe_frame"

# 3.
swipe_frame=$(capture_now)
card_swipe 0000000007
must "the bedtime card: Lullabies 1 plays, bit-exact to its last 50 ms" \
    wait_pcm 30 find "$lullaby" --from "$swipe_frame" --frames $((8 * SYSTEST_RATE - SYSTEST_RATE / 20))
check "the bedtime card is not refused" test "$(grep -c 'bedtime: refused' "$SYSTEST_WORK/player.log")" = 1
check "SIGTERM: exits 0 within 10 s" player_stop
used=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["usedSeconds"])' "$STATE_DIR/bedtime.json")
log "bedtime.json after the morning: $(tr -d '\n ' < "$STATE_DIR/bedtime.json")"
check "the bedtime card's track was not counted (usedSeconds ${used:-?})" test "${used:-x}" = 0
mv "$SYSTEST_WORK/player.log" "$SYSTEST_WORK/player-morning.log"

# --- midday: 12:00 of the same local day, inside the window
BED_NEAR=$((BED_WEST - (12 * 60 - (5 * 60 + 30)) * 60))
bedtime_player 12 0

# 4.
swipe_frame=$(capture_now)
card_swipe 0004561234
check "the announcement on the screen, as kiosk-player render draws it" wait_screen 10 "$warning"
check "the announcement is logged" \
    wait_for 10 "the announcement" player_log_has 'bedtime: 1 min left \(budgetSpent'
check "the announcement is said" wait_for 10 "the spoken announcement" \
    said_at_least "One more minute, then listening time is over for today" 1
must "the Stories card: Stories 1 from its start, bit-exact" \
    wait_pcm 15 find "$stories" --from "$swipe_frame" --frames 4410
track_start=$PCM_TRACK_START
ending=$(gpio_samples "$LINE_STATUS_LIGHT" 4)
n=$(level_changes "$ending")
log "announced: $ending ($n changes)"
figure sleep_soon_blink_changes_4s "$n"
check "announced: the light blinks slowly (6-10 changes in 4 s; playing alone is steady)" \
    test "$n" -ge 6 -a "$n" -le 10
# The speech and the track after it: looked for after 10 s more, then every 5 s (up to 30 s in all).
wait_capture_frames $(($(capture_frames) + 10 * SYSTEST_RATE)) 60
for more in 1 2 3 4 5; do
    result=$(prompt_between "$CAPTURE_FILE" "$track_start" "$stories") && break
    log "announcement, not yet back after it: $result"
    [ "$more" = 5 ] || wait_capture_frames $(($(capture_frames) + 5 * SYSTEST_RATE)) 60
done
log "announcement: $result"
eval "$(echo "$result" | tr ' ' '\n' | grep -E '^(back|resumed_at|expected|prompt_ms|rms_db|peak)=' | sed 's/^/p_/')"
figure announcement_ms "${p_prompt_ms:-0}"
figure announcement_rms_dbfs "${p_rms_db:-0}"
check "the track breaks off for the announcement and comes back" test -n "${p_back:-}"
check "the announcement lasts 1-10 s (${p_prompt_ms:-?} ms)" \
    test "${p_prompt_ms:-0}" -ge 1000 -a "${p_prompt_ms:-0}" -le 10000
check "it is loud enough (RMS ${p_rms_db:-?} dBFS > -40)" awk -v d="${p_rms_db:--99}" 'BEGIN { exit !(d > -40) }'
check "the track goes on where it broke off (reference frame ${p_resumed_at:-?} after ${p_expected:-?}, at most 50 ms later)" \
    test "${p_resumed_at:--1}" -ge "${p_expected:-0}" -a "${p_resumed_at:--1}" -le $((${p_expected:-0} + 2205))

# 5. The end is said once playback has stopped; the capture up to then holds the fade.
must "the budget's end within 90 s of the announcement" wait_for 90 "the end" \
    said_at_least "Listening time is over for today. More tomorrow" 1
end_frame=$(capture_now)
check "the end on the screen, as kiosk-player render draws it" wait_screen 5 "$spent"
# Before: the 4 s after the track came back from the announcement (the fade takes the last 30 s);
# then the last 20 s before the end was logged but 2 s (the stop comes before its log line).
window=$((2 * SYSTEST_RATE))
back=${p_back:-$track_start}
levels="$(capture_rms "$back" $((back + 2 * window))) $(capture_rms $((end_frame - 11 * window)) "$end_frame" "$window")" ||
    fail "measure the capture's loudness"
log "loudness after the announcement, then per 2 s window before the end: $levels"
read -r before first rest <<< "$levels"
check "the fade: the loudness falls from window to window (5 % slack for the music's own changes)" levels_fall $first $rest
last=${levels##* }
check "the last window is under a tenth of the level after the announcement ($last vs $before)" \
    awk -v a="$last" -v b="$before" 'BEGIN { exit !(a < b / 10) }'
check "the end is heard on the loopback, then silence (1 s)" \
    wait_for 30 "the spoken end heard" heard_then_silent "$end_frame"
silent_at=$(capture_frames)
check "silent while Stories (90 s) would still be playing ($(( (silent_at - track_start) / SYSTEST_RATE )) s after its start)" \
    test $((silent_at - track_start)) -lt $((85 * SYSTEST_RATE))
check "stopped: the status light is off" light_off

# 6.
swipe_frame=$(capture_now)
card_swipe 0004561234
check "the Stories card is refused: the budget is spent" \
    wait_for 10 "the refusal" player_log_has 'bedtime: refused: budgetSpent'
check "the refusal is said" wait_for 10 "the spoken refusal" \
    said_at_least "Listening time is over for today. More tomorrow" 2
check "the refusal is heard on the loopback, then silence (1 s)" \
    wait_for 30 "the spoken refusal heard" heard_then_silent "$swipe_frame"
check "none of Stories came" never_came "$stories" "$swipe_frame"
swipe_frame=$(capture_now)
card_swipe 0000000007
check "the bedtime card plays after the budget: Lullabies 1 from its start, bit-exact for 1 s" \
    wait_pcm 15 find "$lullaby" --from "$swipe_frame" --frames 44100

# 7.
check "the player is running" player_alive
check "SIGTERM: exits 0 within 10 s" player_stop
used=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["usedSeconds"])' "$STATE_DIR/bedtime.json")
log "bedtime.json: $(tr -d '\n ' < "$STATE_DIR/bedtime.json")"
figure used_seconds "${used:-0}"
check "bedtime.json: the budget is spent (usedSeconds ${used:-?} ≥ 60)" test "${used:-0}" -ge 60
check "arecord lost no frames" capture_stop
uinput_stop
finish
