#!/usr/bin/env bash
# Builds the media of the player scenarios on the host, at native speed (under TCG the guest
# needs about a second per track), into OUT/<name>/: library/ (the files) and stick.img (a FAT or
# ext4 image of them, which the scenario loop-mounts read-only). Run by prepare.sh; the result is
# cached until this file, media.sh or the tools change. Scenarios use them with `use_fixture NAME`.
#   fixtures.sh OUT_DIR [TESTBENCH_DIR]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$1
testbench=${2:-}
# shellcheck source=media.sh
source "$here/media.sh"

# 10: two albums; Alpha 3 × 12 s with a magenta cover.png, Beta 2 × 4 s without a cover (12 s: on
# a slow run, stop must still come while track 2 plays).
fixture_two_albums() {
    make_album "$1/library" "Artist A" Alpha 3 12 1 ff00ff &&
        make_album "$1/library" "Artist B" Beta 2 4 2 &&
        media_image vfat "$1/library" "$1/stick.img" KIOSKLIB
}

# 11: thirty one-track albums, "Album 01" … "Album 30", no covers (so `kiosk-player render` can
# draw the exact expected list: it has one artwork for all).
fixture_thirty_albums() {
    local i n
    for ((i = 1; i <= 30; i++)); do
        n=$(printf %02d "$i")
        make_album "$1/library" "Artist $n" "Album $n" 1 3 $((10 + i)) || return 1
    done
    media_image vfat "$1/library" "$1/stick.img" KIOSKMANY
}

# 12: one album on ext4, a 40 s track and a 5 s one, yellow cover.
fixture_long_track() {
    make_album "$1/library" "Artist C" Gamma 1 40 3 ffff00 &&
        make_tone_flac "$(track_file "$1/library" "Artist C" Gamma 2)" 5 302 "ARTIST=Artist C" "ALBUMARTIST=Artist C" \
            "ALBUM=Gamma" "TITLE=Gamma 2" "TRACKNUMBER=2" &&
        media_image ext4 "$1/library" "$1/stick.img" KIOSKEXT
}

# 13: a 60 s track and a 5 s one.
fixture_resume() {
    make_album "$1/library" "Artist D" Delta 1 60 4 &&
        make_tone_flac "$(track_file "$1/library" "Artist D" Delta 2)" 5 402 "ARTIST=Artist D" "ALBUMARTIST=Artist D" \
            "ALBUM=Delta" "TITLE=Delta 2" "TRACKNUMBER=2" &&
        media_image vfat "$1/library" "$1/stick.img" KIOSKRES
}

# 14: a bad stick (ext4, for the symlinks): two good tracks among faulty files (see the scenario).
fixture_bad_stick() {
    local stick=$1/library good1 good2 deep i tb
    make_album "$stick" Good "Good Album" 2 6 5 || return 1
    : > "$stick/Good/Good Album/cover.jpg"
    good1=$(track_file "$stick" Good "Good Album" 1)
    good2=$(track_file "$stick" Good "Good Album" 2)
    mkdir -p "$stick/Bad" "$stick/Bomb/Album" "$stick/Loop/inner"
    head -c 3000 "$good1" > "$stick/Bad/truncated.flac"
    # "random" bytes that are the same on every run
    pcm-match generate "$stick/Bad/random.flac" --seconds 0.4 --seed 99
    : > "$stick/Bad/empty.flac"
    fbtool make-png "$stick/Bad/picture.flac" 16 16 808080
    cp "$good2" "$stick/Bad/$(printf 'not utf8 \xff\xfe.flac')"
    fbtool png-bomb "$stick/Bomb/Album/cover.png" 60000 60000
    cp "$good1" "$stick/Bomb/Album/01 Bomb.flac"
    ln -s .. "$stick/Loop/inner/up"
    ln -s self "$stick/Loop/self"
    ln -s b "$stick/Loop/a"
    ln -s a "$stick/Loop/b"
    deep=$stick/Deep
    for ((i = 0; i < 40; i++)); do deep=$deep/d$i; done
    mkdir -p "$deep" && cp "$good2" "$deep/deep.flac"
    for tb in "38 - 3 channels (3.0).flac" "21 - samplerate 22050Hz.flac"; do
        [ -n "$testbench" ] && [ -f "$testbench/$tb" ] && cp "$testbench/$tb" "$stick/Bad/"
    done
    {
        echo "#EXTM3U"
        echo "Good/Good Album/missing.flac"
        printf '%s\n' 'C:\Music\Somewhere\track.flac'
        echo "../../../../etc/passwd"
        echo "Good/Good Album/$(basename "$good1")"
        head -c 2000 "$stick/Bad/random.flac"
        echo
        printf '%*s\n' 100000 x
    } > "$stick/broken.m3u"
    media_image ext4 "$stick" "$1/stick.img" KIOSKBAD
}

# 16: the formats most sticks hold: an MP3 (LAME V2) and an M4A (AAC 256 kbit/s), 6 s each, one
# album. (The references are made in the guest: mpg123 and FFmpeg pick their
# SIMD code by CPU, and the emulated CPU is not the host's.)
fixture_formats() {
    local dir=$1/library/"Artist F"/Formats n
    mkdir -p "$dir" || return 1
    for n in 1 2; do
        pcm-match generate "$1/src$n.raw" --seconds 6 --seed $((600 + n)) || return 1
        sox -D -t raw -r 44100 -e signed-integer -b 16 -c 2 "$1/src$n.raw" "$1/src$n.wav" || return 1
    done
    lame --quiet -V2 --tt "Formats 1" --ta "Artist F" --tl Formats --tn 1 "$1/src1.wav" "$dir/01 Formats 1.mp3" || return 1
    # No iTunSMPB here: ffmpeg writes it only with use_metadata_tags, which moves every tag into an
    # mdta box TagLib does not read; 6 s is whole milliseconds, so the edit list is sample-exact.
    ffmpeg -v error -y -i "$1/src2.wav" -c:a aac -b:a 256k \
        -metadata "title=Formats 2" -metadata "artist=Artist F" -metadata album=Formats -metadata track=2 \
        "$dir/02 Formats 2.m4a" || return 1
    rm -f "$1"/src*.raw "$1"/src*.wav
    media_image vfat "$1/library" "$1/stick.img" KIOSKFMT
}

# the SD-card write measurement (writes/sd-writes.sh): three 4-minute tracks, quiet tones that
# FLAC packs small (the audio is not what is measured).
fixture_four_minutes() {
    local dir=$1/library/"Artist W"/Writes n
    mkdir -p "$dir" || return 1
    for n in 1 2 3; do
        sox -n -r 44100 -b 16 -c 2 "$dir/0$n Writes $n.flac" synth 240 sine $((300 + 100 * n)) vol 0.1 &&
            metaflac --set-tag="ARTIST=Artist W" --set-tag="ALBUMARTIST=Artist W" --set-tag="ALBUM=Writes" \
                --set-tag="TITLE=Writes $n" --set-tag="TRACKNUMBER=$n" "$dir/0$n Writes $n.flac" || return 1
    done
    media_image vfat "$1/library" "$1/stick.img" KIOSKWRT
}

status=0
for name in two_albums thirty_albums long_track resume bad_stick formats four_minutes; do
    dir=$out/${name//_/-}
    [ -f "$dir/done" ] && continue
    rm -rf "$dir"
    mkdir -p "$dir"
    if "fixture_$name" "$dir" > "$dir/build.log" 2>&1; then
        touch "$dir/done"
    else
        echo "fixture ${name//_/-} failed: $(tail -n 3 "$dir/build.log" | tr '\n' ' ')" >&2
        status=1
    fi
done
exit $status
