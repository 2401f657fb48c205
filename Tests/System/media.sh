# shellcheck shell=bash
# Making test media: FLAC tracks, albums with covers, FAT/ext4 images. Used inside the guest
# (sourced by lib.sh) and on the host by fixtures.sh, so it depends only on PATH holding the
# tools built by prepare.sh (pcm-match, fbtool) plus flac, dosfstools, mtools and e2fsprogs.

# make_tone_flac OUT.flac SECONDS SEED [TAG=VALUE...] : a deterministic 44.1 kHz 16-bit stereo
# FLAC with no repetition (noise + chirps, so a window locates in exactly one place).
make_tone_flac() {
    local out=$1 seconds=$2 seed=$3 tags=() t
    shift 3
    for t in "$@"; do tags+=(-T "$t"); done
    pcm-match generate "$out.raw" --seconds "$seconds" --seed "$seed" || return 1
    flac -s -f --force-raw-format --endian=little --sign=signed --channels=2 --bps=16 --sample-rate=44100 \
        "${tags[@]}" -o "$out" "$out.raw" && rm -f "$out.raw"
}

# make_album LIBRARY ARTIST ALBUM TRACKS SECONDS SEED [COVER_RRGGBB] [GENRE] : writes
# LIBRARY/ARTIST/ALBUM/NN Title.flac (tags ARTIST, ALBUMARTIST, ALBUM, TITLE, TRACKNUMBER, GENRE,
# DATE; audio from make_tone_flac with seed SEED*100+N, so every track is different) and a
# solid-colour cover.png when a colour is given (the screen can then be checked for it).
make_album() {
    local library=$1 artist=$2 album=$3 tracks=$4 seconds=$5 seed=$6 cover=${7:-} genre=${8:-Test} n dir
    dir=$library/$artist/$album
    mkdir -p "$dir"
    for ((n = 1; n <= tracks; n++)); do
        make_tone_flac "$dir/$(printf %02d "$n") $album $n.flac" "$seconds" $((seed * 100 + n)) \
            "ARTIST=$artist" "ALBUMARTIST=$artist" "ALBUM=$album" "TITLE=$album $n" "TRACKNUMBER=$n" \
            "GENRE=$genre" "DATE=2024" || return 1
    done
    if [ -n "$cover" ]; then fbtool make-png "$dir/cover.png" 200 200 "$cover" || return 1; fi
}

# track_file LIBRARY ARTIST ALBUM N : the path make_album gave track N.
track_file() { echo "$1/$2/$3/$(printf %02d "$4") $3 $4.flac"; }

# media_image vfat|ext4 SRC_DIR IMAGE [LABEL] : an image holding SRC_DIR's files.
media_image() {
    local type=$1 src=$2 image=$3 label=${4:-KIOSKTEST} kb
    kb=$(du -sk "$src" | cut -f1)
    kb=$((kb + kb / 4 + 2048))
    rm -f "$image"
    case "$type" in
        vfat)
            mkfs.vfat -n "$label" -C "$image" "$kb" > /dev/null || return 1
            if [ -n "$(ls -A "$src")" ]; then mcopy -s -Q -i "$image" "$src"/* ::/ || return 1; fi
            ;;
        ext4)
            mkfs.ext4 -q -F -L "$label" -d "$src" "$image" "$((kb + 4096))k" || return 1
            ;;
        *) echo "media_image: unknown type '$type' (vfat|ext4)"; return 1 ;;
    esac
}

