#!/bin/bash
# Player 10: a device that takes only 2 channels at one rate (a DAC HAT, an HDMI sink) still plays
# every playable track: the output stage converts what the device refuses (issue 30).
#
# snd-aloop's capture side (hw:Loopback,1) is opened FIRST, at exactly S16_LE / 48000 Hz / 2 ch.
# snd-aloop then offers the playback side (hw:Loopback,0) only those parameters: the two sides share
# a cable whose hw (formats, rate_min/max, channels_min/max) loopback_prepare() narrows to the
# first prepared side's parameters (params_change(), when the other side is not prepared), and
# loopback_open() adds hw rules (rule_format, rule_rate, rule_channels) that refine every opener's
# parameters to the cable's (sound/drivers/aloop.c; guest.sh loads it without pcm_notify, which
# would let the playback side change them instead).
#   0. before the capture, the playback side offers 1-32 channels, 8000-192000 Hz (768000 in 6.12)
#      (aplay --dump-hw-params); with the capture open only S16_LE, 48000 Hz, 2 ch, and aplay of a
#      mono stream fails;
#   1. four files made here, 2 s each: a mono 48 kHz 16-bit FLAC (no resampling, so its channels
#      can be compared bit for bit), a 6-channel 44.1 kHz FLAC, a 2-channel 96 kHz 24-bit FLAC and
#      a mono 22.05 kHz MP3 (the last three of sines);
#   2. all four in one `kiosk-player play --device hw:Loopback,0` (an album of mixed files on such a
#      device): exit status 0, nothing "cannot play", four tracks started, for each the device line
#      "S16_LE 48000 Hz 2 ch (converted: …)" naming the conversion it needs; the mono FLAC (first)
#      in the capture with its left and right channels each bit-identical to the file's samples (all
#      but its last 50 ms: snd-aloop drops a stopping stream's last timer period); 8 s of sound in
#      all (sounding frames, within -5/+20 %: an output underrun of the emulated player inserts
#      silence, reported as a figure; a VM stall makes snd-aloop play frames twice);
#   3. the other three one at a time, for each one's length and level: exit 0, its device line, 2 s
#      of sound; the 96 kHz file's and the MP3's level within 1 dB of their sines', the 6-channel
#      file's downmix as loud in both channels.
# timeout: 240
# shellcheck source=../lib.sh
source "$SYSTEST_REPO/Tests/System/lib.sh"
require_infra snd-aloop
require_command aplay arecord flac sox lame python3
require_player

# The capture, and so the device the player gets: 2 ch, S16_LE (capture_start's), at 48 kHz. A 4 s
# capture buffer: with the host loaded, the arm64 guest stalled 1.7 s once, and arecord's usual 1 s
# buffer overran (697 ms lost).
SYSTEST_RATE=48000
SYSTEST_CAPTURE_BUFFER_US=4000000
seconds=2
frames=$((seconds * SYSTEST_RATE))
src=$SYSTEST_WORK/src
mkdir -p "$src"

# hw_space LOG : the FORMAT, CHANNELS and RATE lines of an `aplay --dump-hw-params` log, on one line.
hw_space() { awk '/^(FORMAT|CHANNELS|RATE):/ { $1 = $1; printf "%s%s", sep, $0; sep = " | " }' "$1"; }

# 1. the files, made all at once and in the background (at nice 10) while step 0 runs: under TCG
# each process start costs the guest a second or more.
# The mono FLAC's samples: the left channel of pcm-match's non-repeating signal; its reference for the
# capture: each of those samples in both channels.
make_files() {
    (
        pcm-match generate "$src/signal.raw" --seconds $((seconds + 1)) --seed 2001 &&
            python3 - "$src/signal.raw" "$frames" "$src/mono.raw" "$src/mono-as-stereo.raw" << 'PY' &&
import array, sys
signal, frames, mono, stereo = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
m = array.array("h", open(signal, "rb").read())[0::2][:frames]  # made at 44.1 kHz, taken as 48 kHz
m.tofile(open(mono, "wb"))
s = array.array("h", bytes(len(m) * 4))
s[0::2] = m
s[1::2] = m
s.tofile(open(stereo, "wb"))
PY
            flac -s -f --force-raw-format --endian=little --sign=signed --channels=1 --bps=16 --sample-rate=48000 \
                -o "$src/mono-48k.flac" "$src/mono.raw"
    ) &
    local mono=$!
    sox -D -n -r 44100 -b 16 -c 6 "$src/six-44k.flac" synth "$seconds" sine 220 sine 330 sine 440 sine 550 sine 660 sine 770 vol 0.3 &
    local six=$!
    sox -D -n -r 96000 -b 24 -c 2 "$src/stereo-96k.flac" synth "$seconds" sine 1000 sine 1500 vol 0.5 &
    local hires=$!
    sox -D -n -r 22050 -b 16 -c 1 "$src/mono-22k.wav" synth "$seconds" sine 440 vol 0.5 &&
        lame --quiet -m m -V 4 "$src/mono-22k.wav" "$src/mono-22k.mp3"
    local status=$? pid
    for pid in $mono $six $hires; do wait "$pid" || status=1; done
    ls "$src"/*.flac "$src"/*.mp3 | xargs -n 1 basename | tr '\n' ' '
    return $status
}
(renice -n 10 -p "$BASHPID" > /dev/null; make_files) > "$SYSTEST_WORK/make-files.log" 2>&1 &
files_pid=$!
_systest_pids+=("$files_pid")
files_made() { wait "$files_pid"; local status=$?; cat "$SYSTEST_WORK/make-files.log"; return $status; }

# 0. the playback side's choices before and after the capture opened
head -c $((SYSTEST_RATE / 100 * 4)) /dev/zero > "$src/stereo-10ms.raw"
head -c $((SYSTEST_RATE / 100 * 2)) /dev/zero > "$src/mono-10ms.raw"
aplay -D "$SYSTEST_PLAYBACK_PCM" --dump-hw-params -t raw -f S16_LE -c 2 -r "$SYSTEST_RATE" "$src/stereo-10ms.raw" \
    > "$SYSTEST_WORK/aplay-before.log" 2>&1
before=$(hw_space "$SYSTEST_WORK/aplay-before.log")
log "playback side, nothing else open: $before"
# (measured: up to 192000 Hz in the x86 guest's 6.1 kernel, 768000 Hz in the arm64 guest's 6.12)
check "before the capture, the playback side takes 1 to 32 channels and 8000 Hz up" \
    test "$(echo "$before" | grep -c 'CHANNELS: \[1 32\] | RATE: \[8000 [0-9]*\]$')" = 1

must "capture $SYSTEST_CAPTURE_PCM at S16_LE, $SYSTEST_RATE Hz, 2 ch, opened first" capture_start "$SYSTEST_WORK/capture.raw"
aplay -D "$SYSTEST_PLAYBACK_PCM" --dump-hw-params -t raw -f S16_LE -c 1 -r "$SYSTEST_RATE" "$src/mono-10ms.raw" \
    > "$SYSTEST_WORK/aplay-mono.log" 2>&1
aplay_status=$?
after=$(hw_space "$SYSTEST_WORK/aplay-mono.log")
log "playback side, capture open: $after"
check "with the capture open, the playback side takes only S16_LE, 48000 Hz, 2 ch" \
    test "$after" = "FORMAT: S16_LE | CHANNELS: 2 | RATE: 48000"
check "aplay of a mono stream fails there: 'Channels count non available' (status $aplay_status)" \
    eval 'test "$aplay_status" != 0 && grep -q "Channels count non available" "$SYSTEST_WORK/aplay-mono.log"'

must "a mono 48 kHz 16-bit FLAC, a 6-channel 44.1 kHz FLAC, a 2-channel 96 kHz 24-bit FLAC, a mono 22.05 kHz MP3" files_made
ref=$src/mono-as-stereo.raw
ref_frames=$(pcm-match frames "$ref")
ref_first=$(pcm-match first-sound "$ref")
tail_frames=$((SYSTEST_RATE / 20))

# sound_stats FROM TO : the capture between frames FROM and TO, as variables: S_first and S_last (the
# first and last sounding frame), S_span (frames from one to the other), S_sound (those not digital
# silence: an output underrun inserts silence, it does not stretch the track), S_l_cdb and S_r_cdb (each
# channel's RMS level over the sounding frames, in hundredths of a dB below full scale), S_lr_equal
# (1: the two channels identical).
sound_stats() {
    STATS=$(python3 - "$CAPTURE_FILE" "$1" "$2" << 'PY'
import array, math, sys
path, a, b = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(path, "rb") as f:
    f.seek(a * 4)
    data = f.read(max(0, b - a) * 4)
data = data[: len(data) // 4 * 4]
lead = len(data) - len(data.lstrip(b"\0"))
if lead == len(data):
    print("first=-1 last=-1 span=0 sound=0 l_cdb=-99999 r_cdb=-99999 lr_equal=0")
    sys.exit(0)
first = lead // 4
last = (len(data.rstrip(b"\0")) - 1) // 4
chunk = data[first * 4 : (last + 1) * 4]
span = last - first + 1
sound = span - array.array("i", chunk).count(0)
samples = array.array("h", chunk)
def cdb(channel):
    part = channel[::7]  # every 7th sample is plenty for a level
    mean = sum(x * x for x in part) / len(part) * span / sound  # over the sounding frames only
    return round(2000 * math.log10(math.sqrt(mean) / 32768)) if mean > 0 else -99999
print("first=%d last=%d span=%d sound=%d l_cdb=%d r_cdb=%d lr_equal=%d" % (
    a + first, a + last, span, sound, cdb(samples[0::2]), cdb(samples[1::2]), samples[0::2] == samples[1::2]))
PY
    )
    local kv
    for kv in $STATS; do declare -g "S_${kv%%=*}=${kv#*=}"; done
}

# play_on_device NAME FILE... : `kiosk-player play` on the constrained device, its output in
# play-NAME.log; sets RUN_STATUS, RUN_MS, RUN_CPU_MS (its user + system time), RUN_FROM and RUN_TO (the
# capture frames around the run, its tail captured), then sound_stats of that stretch of the capture.
play_on_device() {
    local name=$1 t0
    shift
    # what the capture file holds now: before the run's first frame even after an arecord overrun
    # (which leaves capture_now's frame numbers ahead of the file's)
    RUN_FROM=$(capture_frames)
    t0=$(now_us)
    local TIMEFORMAT='%3U %3S' cpu
    { time timeout 90 "$SYSTEST_PLAYER" play --device "$SYSTEST_PLAYBACK_PCM" "$@" > "$SYSTEST_WORK/play-$name.log" 2>&1; } \
        2> "$SYSTEST_WORK/cpu-$name"
    RUN_STATUS=$?
    RUN_MS=$(( ($(now_us) - t0) / 1000 ))
    read -r -a cpu < "$SYSTEST_WORK/cpu-$name"
    RUN_CPU_MS=$(( 10#${cpu[0]/./} + 10#${cpu[1]/./} ))
    wait_capture_frames $(( $(capture_now) + SYSTEST_RATE / 4 )) > /dev/null
    RUN_TO=$(capture_frames)
    log "play $name: status $RUN_STATUS after $RUN_MS ms: $(grep -v 'ran out of audio' "$SYSTEST_WORK/play-$name.log" | tr '\n' ' ')"
    sound_stats "$RUN_FROM" "$RUN_TO"
    log "$name in the capture: $STATS ($(grep -c 'ran out of audio' "$SYSTEST_WORK/play-$name.log") underruns logged)"
    figure "${name}_play_ms" "$RUN_MS"
    figure "${name}_cpu_ms" "$RUN_CPU_MS"  # user + system, the player's whole run (under TCG)
    figure "${name}_sound_ms" $((S_sound * 1000 / SYSTEST_RATE))
    figure "${name}_underrun_silence_ms" $(((S_span - S_sound) * 1000 / SYSTEST_RATE))
}

# length_ok FRAMES : the sounding frames are FRAMES, less at most 5 % (snd-aloop drops a stopping
# stream's last timer period, <= 11 ms measured, and loses frames at a VM stall), more at most 20 %
# (frames snd-aloop copies twice when the host stalls the emulator: 117 ms in 2 s with the host's
# load at 11). What it is for: a track skipped or cut short (in the album, a quarter of the sound).
length_ok() { [ "$S_sound" -ge $(($1 * 95 / 100)) ] && [ "$S_sound" -le $(($1 * 120 / 100)) ]; }

# level_ok CDB : both channels' levels within 1 dB of CDB (hundredths of a dB).
level_ok() { [ $((S_l_cdb - $1)) -ge -100 ] && [ $((S_l_cdb - $1)) -le 100 ] && [ $((S_r_cdb - $1)) -ge -100 ] && [ $((S_r_cdb - $1)) -le 100 ]; }

ms() { echo "$(($1 * 1000 / SYSTEST_RATE)) ms"; }
db() { printf '%d.%02d dBFS' $(($1 / 100)) $(((${1#-} % 100))); }

declare -A expect=(
    [mono-48k.flac]="converted: 1 → 2 ch (copied))"
    [six-44k.flac]="converted: 6 → 2 ch (downmixed, ITU-R BS.775), 44100 → 48000 Hz (libsoxr HQ))"
    [stereo-96k.flac]="converted: 96000 → 48000 Hz (libsoxr HQ))"
    [mono-22k.mp3]="converted: 1 → 2 ch (copied), 22050 → 48000 Hz (libsoxr HQ))"
)
album=(mono-48k.flac six-44k.flac stereo-96k.flac mono-22k.mp3)

# device_lines LOG FILE... : LOG holds the expected device line of each FILE, in that order.
device_lines() {
    local log=$1 file line=0 found
    shift
    for file in "$@"; do
        found=$(grep -nF "device $SYSTEST_PLAYBACK_PCM: S16_LE 48000 Hz 2 ch (${expect[$file]}" "$log" | head -n 1)
        [ -n "$found" ] && [ "${found%%:*}" -gt "$line" ] || { echo "no device line '${expect[$file]}' for $file (after line $line)"; return 1; }
        line=${found%%:*}
    done
}

# 2. all four in one run, as an album of mixed files
play_on_device album "${album[@]/#/$src/}"
figure cpu_ms "$RUN_CPU_MS"
check "the four files in one run: exit 0, nothing it cannot play" \
    eval 'test "$RUN_STATUS" = 0 && ! grep -q "cannot play" "$SYSTEST_WORK/play-album.log"'
check "the four files in one run: four tracks started" test "$(grep -c '^\[[1-4]/4\]' "$SYSTEST_WORK/play-album.log")" = 4
check "the four files in one run: each one's device line naming its conversion, in order" \
    device_lines "$SYSTEST_WORK/play-album.log" "${album[@]}"
check "mono-48k.flac: left and right each bit-identical to the file's samples (all but the last 50 ms)" \
    pcm_locate "$ref" --from "$RUN_FROM" --frames $((ref_frames - ref_first - tail_frames)) --rate "$SYSTEST_RATE"
check "mono-48k.flac: its first sound is the file's first sound" test "$PCM_REFERENCE_FRAME" = "$ref_first"
check "the four files in one run: $((4 * seconds)) s of sound ($(ms "$S_sound"), and $(ms $((S_span - S_sound))) of underrun silence)" \
    length_ok $((4 * frames))

# 3. the other three one at a time: each one's length and level
sine_cdb=-903  # a sine of amplitude 0.5: -9.03 dBFS
for file in six-44k.flac stereo-96k.flac mono-22k.mp3; do
    name=${file%.*}
    play_on_device "$name" "$src/$file"
    check "$file alone: exit 0, nothing it cannot play, its device line" \
        eval 'test "$RUN_STATUS" = 0 && ! grep -q "cannot play" "$SYSTEST_WORK/play-$name.log" && device_lines "$SYSTEST_WORK/play-$name.log" "$file"'
    check "$file: $seconds s of sound in the capture ($(ms "$S_sound"), and $(ms $((S_span - S_sound))) of underrun silence)" \
        length_ok "$frames"
    case "$file" in
        six-44k.flac)
            # six sines of amplitude 0.3 (-13.5 dBFS each) mixed with the BS.775 weights: loud, alike
            check "$file: sound in both channels, at one level ($(db "$S_l_cdb"), $(db "$S_r_cdb"))" \
                eval 'test "$S_l_cdb" -gt -3000 && level_ok "$S_l_cdb"'
            ;;
        *)
            check "$file: both channels at the sines' level, $(db $sine_cdb) ($(db "$S_l_cdb"), $(db "$S_r_cdb"))" level_ok $sine_cdb
            ;;
    esac
done
figure mp3_left_right_identical "$S_lr_equal"
check "arecord lost no frames" capture_stop
finish
