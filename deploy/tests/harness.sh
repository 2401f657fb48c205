# shellcheck shell=bash
# The pass/fail harness of the deployment checks, sourced by deploy/check-units.sh and
# deploy/tests/test-*.sh (the system test's scenarios have their own, Tests/System/lib.sh: they run
# in a guest, log with timestamps and end with an exit status the runner tabulates).
#
#   harness_name=test-foo; source "$repo/deploy/tests/harness.sh"
#   pass NAME | fail NAME [DETAIL] | skip NAME REASON | check NAME COMMAND... | result NAME STATUS [DETAIL]
#   expect_eq NAME GOT WANTED | expect_in NAME TEXT PART | built_player
#   harness_end   # prints "test-foo: N passed, N failed[, N skipped]"; returns 1 if any failed
#
# Lines are "<prefix>ok    NAME", "<prefix>FAIL  NAME" (DETAIL indented below, at most 20 lines) and
# "<prefix>skip  NAME (REASON)"; the prefix is two spaces, or $harness_prefix when set.
# shellcheck disable=SC2034  # passed/failed/skipped are read by the sourcing script too
passed=0
failed=0
skipped=0
harness_name=${harness_name:-$(basename "$0" .sh)}
harness_prefix=${harness_prefix:-  }

pass() { passed=$((passed + 1)); echo "${harness_prefix}ok    $1"; }
fail() {
    failed=$((failed + 1))
    echo "${harness_prefix}FAIL  $1"
    [ -z "${2:-}" ] || printf '%s\n' "$2" | head -n 20 | sed 's/^/        /'
}
skip() { skipped=$((skipped + 1)); echo "${harness_prefix}skip  $1 ($2)"; }
# check NAME COMMAND...: passes when COMMAND exits 0; its output is the failure's detail.
check() {
    local name=$1 out
    shift
    if out=$("$@" 2>&1); then pass "$name"; else fail "$name" "$out"; fi
}
# result NAME STATUS [DETAIL]: passes when STATUS is 0.
result() { if [ "$2" = 0 ]; then pass "$1"; else fail "$1" "${3:-}"; fi; }
expect_eq() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "expected '$3', got '$2'"; fi; }
expect_in() { case $2 in *"$3"*) pass "$1" ;; *) fail "$1" "expected '$3' in: $2" ;; esac; }
# built_player: the kiosk-player to check with ($KIOSK_PLAYER, else this checkout's debug or release
# build); nothing when there is none.
built_player() {
    local root b
    root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
    for b in "${KIOSK_PLAYER:-}" "$root/.build/debug/kiosk-player" "$root/.build/release/kiosk-player"; do
        if [ -n "$b" ] && [ -x "$b" ]; then echo "$b"; return; fi
    done
}
harness_end() {
    echo "$harness_name: $passed passed, $failed failed$([ "$skipped" = 0 ] || echo ", $skipped skipped")"
    [ "$failed" = 0 ]
}
