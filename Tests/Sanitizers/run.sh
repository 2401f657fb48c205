#!/usr/bin/env bash
# The whole suite under a sanitizer, in its own build directory (.build/tsan, .build/asan):
#   Tests/Sanitizers/run.sh thread      ThreadSanitizer (Swift -sanitize=thread, the C shims -fsanitize=thread)
#   Tests/Sanitizers/run.sh address     AddressSanitizer (and UndefinedBehaviorSanitizer for the C shims)
# More arguments go to `swift test` (--filter, --skip). A report fails the run (exit code 66 from
# the sanitizer runtime at exit, or the report lines in the log); suppressions name one third-party
# frame each, in Tests/Sanitizers/*.supp, with the reason.
set -euo pipefail
cd "$(dirname "$0")/../.."
mode=${1:?usage: Tests/Sanitizers/run.sh thread|address [swift test arguments]}
shift
case "$mode" in
thread) dir=.build/tsan flags=(--sanitize=thread) ;;
# Swift itself has no UBSan on Linux (its arithmetic and bounds are checked anyway): the C shims
# get -fsanitize=undefined, and the link its runtime.
address)
    dir=.build/asan
    flags=(--sanitize=address -Xcc -fsanitize=undefined -Xcc -fno-sanitize-recover=undefined
        -Xswiftc -Xclang-linker -Xswiftc -fsanitize=undefined)
    ;;
*) echo "sanitizers: unknown mode '$mode' (thread or address)" >&2; exit 2 ;;
esac
SWIFT=${SWIFT:-swift}
supp=$PWD/Tests/Sanitizers
log=$dir/sanitizer-test.log
mkdir -p "$dir"
start=$(date +%s)
"$SWIFT" build --build-tests "${flags[@]}" --scratch-path "$dir"
built=$(date +%s)
export TSAN_OPTIONS="halt_on_error=0 second_deadlock_stack=1 exitcode=66"
export ASAN_OPTIONS="detect_leaks=1 exitcode=66"
export UBSAN_OPTIONS="print_stacktrace=1 halt_on_error=1"
export LSAN_OPTIONS="suppressions=$supp/lsan.supp"
rc=0
"$SWIFT" test --skip-build "${flags[@]}" --scratch-path "$dir" "$@" 2>&1 | tee "$log" || rc=$?
# Also the reports of child processes (the player run by a test), which the test's output indents.
reports=$(grep -cE '^ *(WARNING: ThreadSanitizer|==[0-9]+==ERROR: (Address|Leak)Sanitizer)|runtime error:' "$log" || true)
summary=$(grep -E '(✔|✘) Test run with' "$log" | tail -n 1 || true)
echo "sanitizers: $mode: build $((built - start)) s, tests $(($(date +%s) - built)) s; ${summary:-no summary}; $reports sanitizer report(s)"
if [ "$reports" != 0 ]; then
    grep -E 'SUMMARY: (ThreadSanitizer|AddressSanitizer|UndefinedBehaviorSanitizer)|runtime error:' "$log" | sort | uniq -c | head -n 40
    exit 1
fi
exit "$rc"
