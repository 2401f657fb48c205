#!/usr/bin/env bash
# libFuzzer on every parser of untrusted input (Sources/KioskFuzzTargets), FUZZ_SECONDS each:
#   FUZZ_SECONDS=60 Tests/Fuzz/run.sh [TARGET...]        (make fuzz FUZZ_SECONDS=60 FUZZ_TARGETS="mpd json")
# kiosk-fuzz is built with -sanitize=fuzzer,address (and the C shims with -fsanitize=fuzzer-no-link,address)
# in .build/fuzz-build. Each target starts from its seeds (kiosk-fuzz seeds: the shipped config and
# boards, files of every format, MPD sessions...) and the corpus earlier runs kept in
# .build/fuzz/corpus/TARGET; inputs that crash, leak or hang are written to .build/fuzz/crashes/TARGET/.
# Prints a table (target, executions, coverage, crashes, peak RSS) and keeps it in .build/fuzz/results.md.
# Memory budget per target (FUZZ_RSS_BUDGET_MB overrides it for all): libFuzzer's -rss_limit_mb and
# -malloc_limit_mb are set to it, so growing past it or one allocation over it is a crash with its
# input saved, and a peak RSS (stat::peak_rss_mb) over it fails the run. Measured with ASan
# (make fuzz FUZZ_SECONDS=20, 2026-12-04, all 15 targets): 205 MB (mpd-line) to 332 MB (cards),
# image 242, mpd 298; most of it is ASan's quarantine of freed memory (256 MB by default), so the
# budget is 512 MB for every target: room for the corpus to grow, far below a bomb's gigabytes. The
# image target also aborts on its own when a decode holds more than its bound (ImageFuzz).
# A crash becomes a regression test by copying its file to Tests/Fuzz/regressions/TARGET/ (the
# suite replays them, FuzzCorpusTests).
set -euo pipefail
cd "$(dirname "$0")/../.."
SWIFT=${SWIFT:-swift}
seconds=${FUZZ_SECONDS:-60}
data=.build/fuzz
mkdir -p "$data"
"$SWIFT" build --product kiosk-fuzz >/dev/null
# The speech-text target sends its inputs to a real speech helper: the player's binary, unsanitized.
"$SWIFT" build --product kiosk-player >/dev/null
export KIOSK_PLAYER_BINARY=$PWD/.build/debug/kiosk-player
rm -rf "$data/seeds"
.build/debug/kiosk-fuzz seeds "$data/seeds" "$PWD" >/dev/null
"$SWIFT" build --product kiosk-fuzz --scratch-path .build/fuzz-build \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING -Xcc -fsanitize=fuzzer-no-link,address
fuzzer=$(ls -d .build/fuzz-build/*-unknown-linux-gnu/debug/kiosk-fuzz | head -n 1)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || mapfile -t targets < <(.build/debug/kiosk-fuzz list)
export LSAN_OPTIONS="suppressions=$PWD/Tests/Sanitizers/lsan.supp"
# libFuzzer reports a crash and saves its input itself; Swift's backtracer, started too, can hang
# on an ASan process (seen: swift-backtrace still waiting minutes after an abort).
export SWIFT_BACKTRACE=enable=no
results=$data/results.md
{
    echo "| target | seconds | executions | coverage (edges) | corpus | crashes | peak RSS (MB) | budget (MB) |"
    echo "|---|---|---|---|---|---|---|---|"
} >"$results"
failed=0
for target in "${targets[@]}"; do
    case "$target" in
    flac | tags | image | pcm-header | scan | stick-files) max_len=65536 ;;
    mpd | mpd-totals) max_len=8192 ;;
    *) max_len=4096 ;;
    esac
    budget=${FUZZ_RSS_BUDGET_MB:-512}
    corpus=$data/corpus/$target
    crashes=$data/crashes/$target
    mkdir -p "$corpus" "$crashes"
    log=$data/$target.log
    echo "== fuzz $target for $seconds s (max_len $max_len, budget $budget MB)"
    KIOSK_FUZZ_TARGET=$target "$fuzzer" -max_total_time="$seconds" -max_len="$max_len" -timeout=10 \
        -rss_limit_mb="$budget" -malloc_limit_mb="$budget" -print_final_stats=1 -artifact_prefix="$crashes/" \
        "$corpus" "$data/seeds/$target" >"$log" 2>&1 || true
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    cov=$(grep -aoE 'cov: [0-9]+' "$log" | tail -n 1 | cut -d' ' -f2)
    units=$(find "$corpus" -type f | wc -l)
    found=$(find "$crashes" -type f | wc -l)
    peak=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -n 1)
    echo "| $target | $seconds | ${runs:-?} | ${cov:-?} | $units | $found | ${peak:-?} | $budget |" >>"$results"
    echo "fuzz: $target: ${runs:-?} executions, coverage ${cov:-?}, corpus $units, crashes $found, peak RSS ${peak:-?} MB"
    if [ "$found" != 0 ] || [ -z "$runs" ]; then
        failed=1
        grep -aE 'ERROR|SUMMARY|Test unit written|out-of-memory|malloc\(|held' "$log" | head -n 5 || tail -n 20 "$log"
    elif [ -n "$peak" ] && [ "$peak" -gt "$budget" ]; then
        failed=1
        echo "fuzz: $target: peak RSS $peak MB is over its budget of $budget MB"
    fi
done
echo
cat "$results"
if [ "$failed" != 0 ]; then
    echo "fuzz: a target crashed, went over its memory budget or did not run (logs in $data/TARGET.log, inputs in $data/crashes/)"
    exit 1
fi
