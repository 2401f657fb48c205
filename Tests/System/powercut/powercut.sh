#!/usr/bin/env bash
# The power-cut test (`make powercut POWERCUT_CYCLES=N`, default 50): boots the QEMU guest of the
# system test N times on the same state disk and cuts its power at a random instant of each boot.
#
#   - the state disk: a raw ext4 image (mkfs.ext4 defaults, 4 KiB blocks, a journal), virtio,
#     mounted defaults,noatime as Raspberry Pi OS mounts its root; the music stick and a "new"
#     stick (one of two sets of 150 files on one FAT volume: a rescan rewrites its SQLite index)
#     as read-only virtio disks;
#   - the cut: `kill -9` of QEMU, in turn at a random time 0…POWERCUT_MAX_MS (10 000) ms after
#     the player's exec (its start, the scans, the resume) or after its MPD socket answers
#     (guest.sh keeps it saving: periodic saves, pause, next, volume), or 0…20 ms after it logs
#     that it starts writing a resume record (to land inside saves). The disks are `cache=none` (O_DIRECT on the
#     host), so a write QEMU acknowledged to the guest is in the image file, and what the guest
#     had not yet written (its page cache, an uncommitted journal transaction, a request not yet
#     submitted) is lost: what survives is what the guest had sent to the disk, as on a card
#     that keeps what it acknowledged. (Not emulated: a card's volatile write cache losing or
#     reordering writes that were acknowledged but not flushed: QEMU has no such mode, and
#     `cache=unsafe`, which drops the guest's flushes, changes nothing when only QEMU dies: the
#     host's page cache survives the kill.)
#   - after each cut, the next boot checks (guest.sh, state-check.py) and analyze.py judges:
#     the player starts; the state found is the last record the player had written, or the one
#     it was writing when the power went (never an older one, never none); the player reads the
#     same; bookmarks.json parses; each index passes PRAGMA integrity_check and the player opens
#     it (or rebuilds it, saying so).
#
# Environment: POWERCUT_CYCLES (50), POWERCUT_SEED (random; printed, to repeat a run),
# POWERCUT_MAX_MS (10000), POWERCUT_OUT (.build/systest/powercut), SYSTEST_PLAYER
# (.build/debug/kiosk-player), SYSTEST_CPU, SYSTEST_MEMORY. x86 guests only (TCG).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
system=$(cd "$here/.." && pwd)
repo=$(cd "$system/../.." && pwd)
say() { echo "powercut: $*"; }
cycles=${POWERCUT_CYCLES:-50}
seed=${POWERCUT_SEED:-$((RANDOM * 32768 + RANDOM))}
RANDOM=$seed
max_ms=${POWERCUT_MAX_MS:-10000}
out=${POWERCUT_OUT:-$repo/.build/systest/powercut}
player=${SYSTEST_PLAYER:-$repo/.build/debug/kiosk-player}
start=$(date +%s.%N)

[ -x "$player" ] || { say "no player at $player (swift build first)"; exit 1; }
launcher=$repo/deploy/qemu-launch.sh
bash "$launcher" --which > /dev/null || { say "qemu-system-x86_64 not found (deploy/install-deps.sh --system-test)"; exit 1; }
for tool in sox metaflac mkfs.vfat mcopy mkfs.ext4 mpc python3; do
    command -v "$tool" > /dev/null || { say "$tool not found (deploy/install-deps.sh --system-test)"; exit 1; }
done
declare -A art=()
while IFS='=' read -r key value; do [ -n "$key" ] && art[$key]=$value; done < <(bash "$system/prepare.sh" 2> /dev/null)
kernel_image=${art[VMLINUX]:-${art[BZIMAGE]:-}}
[ -n "$kernel_image" ] && [ -n "${art[INITRAMFS]:-}" ] || { say "no guest kernel or initramfs: ${art[MISSING_kernel]:-}${art[MISSING_initramfs]:-}"; exit 1; }

rm -rf "$out"
mkdir -p "$out"
# --- media, cached: the music stick (three 90 s tracks) and the two file sets of the new stick
media=$repo/.build/systest/powercut-media
key=$(cat "$0" | sha256sum | cut -c1-16)
if [ "$(cat "$media/key" 2>/dev/null)" != "$key" ]; then
    say "making the sticks in $media"
    rm -rf "$media"
    mkdir -p "$media/music/Artist P/Power" "$media/new-0" "$media/new-1"
    for n in 1 2 3; do
        f="$media/music/Artist P/Power/0$n Power $n.flac"
        sox -n -r 44100 -b 16 -c 2 "$f" synth 90 sine $((200 + 100 * n)) vol 0.1 &&
            metaflac --set-tag="ARTIST=Artist P" --set-tag="ALBUMARTIST=Artist P" --set-tag="ALBUM=Power" \
                --set-tag="TITLE=Power $n" --set-tag="TRACKNUMBER=$n" "$f" || exit 1
    done
    for v in 0 1; do
        for ((n = 1; n <= 150; n++)); do
            album=$((n / 15))
            d="$media/new-$v/Set $v/Album $album"
            mkdir -p "$d"
            sox -n -r 44100 -b 16 -c 2 "$d/$n.flac" synth 1 sine $((300 + n)) vol 0.1 &&
                metaflac --set-tag="ARTIST=Set $v" --set-tag="ALBUM=Album $album" --set-tag="TITLE=Track $n" \
                    --set-tag="TRACKNUMBER=$n" "$d/$n.flac" || exit 1
        done
    done
    # FAT images; the two sets share one volume serial (the same stick, its files changed)
    mkfs.vfat -n KIOSKPWR -C "$media/music.img" 8192 > /dev/null && mcopy -s -Q -i "$media/music.img" "$media/music"/* ::/ || exit 1
    for v in 0 1; do
        mkfs.vfat -n KIOSKNEW -i 4B505752 -C "$media/new-$v.img" 16384 > /dev/null &&
            mcopy -s -Q -i "$media/new-$v.img" "$media/new-$v"/* ::/ || exit 1
    done
    echo "$key" > "$media/key"
fi
# the state disk: 1 GiB sparse, so mke2fs makes what it makes for a card (not its "small" type)
truncate -s 1G "$out/state.img"
mkfs.ext4 -q -F -L kiosk-state "$out/state.img" || exit 1

# boot_guest CYCLE_DIR VARIANT : QEMU with the state disk and the two sticks (the new one's file set
# VARIANT), until it is killed; the guest runs guest.sh for CYCLE_DIR (powercut.env).
boot_guest() {
    exec bash "$launcher" --machine pc --accel tcg --cpu "${SYSTEST_CPU:-qemu64}" --memory "${SYSTEST_MEMORY:-1024}" \
        --smp 2 --bare --kernel "$kernel_image" --initrd "${art[INITRAMFS]}" --host-root / --out "$out" \
        --append "console=ttyS0 quiet loglevel=3 panic=-1 mitigations=off systest.out=$out systest.exec=$here/guest.sh" -- \
        -drive "file=$out/state.img,if=virtio,format=raw,cache=none,aio=threads" \
        -drive "file=$media/music.img,if=virtio,format=raw,readonly=on" \
        -drive "file=$media/new-$2.img,if=virtio,format=raw,readonly=on" \
        -chardev "file,id=console,path=$1/console.log" -serial chardev:console \
        < /dev/null > "$1/qemu.log" 2>&1
}

say "seed $seed, $cycles cycles, cut within $max_ms ms of the player's MPD socket answering; output in $out"
printf 'cycle\tstick\tcut\tarmed_after_s\tcycle_s\n' > "$out/cycles.tsv"
for ((i = 1; i <= cycles; i++)); do
    cycle_dir=$out/cycle-$(printf %03d "$i")
    mkdir -p "$cycle_dir"
    variant=$((RANDOM % 2))
    cut_ms=$(( (RANDOM * 32768 + RANDOM) % (max_ms + 1) ))
    {
        echo "POWERCUT_REPO=$(printf %q "$repo")"
        echo "POWERCUT_PLAYER=$(printf %q "$player")"
        echo "POWERCUT_CYCLE_DIR=$(printf %q "$cycle_dir")"
        echo "POWERCUT_SEED=$RANDOM"
    } > "$out/powercut.env"
    t0=$(date +%s.%N)
    boot_guest "$cycle_dir" "$variant" &
    qemu_pid=$!
    # four kinds of cut, in turn: at a random instant after the player's exec (its start, the
    # scans, the resume), after its MPD socket answers (playing and saving), or just after it
    # logs that it starts writing a resume record or a bookmarks.json (so that many cuts land
    # inside a save)
    mode=$(( i % 4 )) kind=""
    armed="" wait_for=$([ "$mode" = 1 ] && echo started || echo armed)
    for ((w = 0; w < 1800; w++)); do
        [ -f "$cycle_dir/$wait_for" ] && { armed=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'); break; }
        kill -0 "$qemu_pid" 2> /dev/null || break
        sleep 0.1
    done
    if [ -n "$armed" ] && [ "$mode" = 0 ]; then
        cut_ms=$((cut_ms % 21))
        timeout 20 tail -n 0 -F "$cycle_dir/player.log" 2> /dev/null | grep -m 1 -q "resume: writing record"
        kind="at a save + $cut_ms ms"
    elif [ -n "$armed" ] && [ "$mode" = 3 ]; then
        cut_ms=$((cut_ms % 21))
        timeout 40 tail -n 0 -F "$cycle_dir/player.log" 2> /dev/null | grep -m 1 -q "bookmarks: writing save"
        kind="at a bookmarks save + $cut_ms ms"
    elif [ -n "$armed" ]; then
        kind="$cut_ms ms after the player $([ "$mode" = 1 ] && echo started || echo answered)"
    fi
    [ -n "$armed" ] && sleep "$(awk -v m="$cut_ms" 'BEGIN { printf "%.3f", m / 1000 }')"
    # the power cut: nothing is synced, QEMU is gone at once
    kill -KILL "$qemu_pid" 2> /dev/null
    wait "$qemu_pid" 2> /dev/null
    seconds=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    printf '%s\t%s\t%s\t%s\t%s\n' "$i" "$variant" "${kind:-not armed}" "${armed:--}" "$seconds" >> "$out/cycles.tsv"
    say "cycle $i: new stick set $variant, ${armed:+armed after $armed s, cut }${kind:-not armed}; $seconds s"
done

# one more boot that is not cut: it reads what the last cut left (guest.sh's checks), then stops
cycle_dir=$out/cycle-$(printf %03d $((cycles + 1)))
mkdir -p "$cycle_dir"
printf '%s\t0\tnone (the last boot)\t-\t-\n' $((cycles + 1)) >> "$out/cycles.tsv"
sed -i "s|^POWERCUT_CYCLE_DIR=.*|POWERCUT_CYCLE_DIR=$(printf %q "$cycle_dir")|" "$out/powercut.env"
boot_guest "$cycle_dir" 0 &
qemu_pid=$!
for ((w = 0; w < 1800; w++)); do [ -f "$cycle_dir/armed" ] && break; kill -0 "$qemu_pid" 2> /dev/null || break; sleep 0.1; done
sleep 3
kill -KILL "$qemu_pid" 2> /dev/null
wait "$qemu_pid" 2> /dev/null

say "$cycles cycles in $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }') s (seed $seed)"
python3 "$here/analyze.py" "$out" "$cycles"
