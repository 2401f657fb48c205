#!/bin/bash
# Tests for deploy/kiosk-power-latch (the systemd-shutdown hook) with a stand-in player: it releases
# the latch at poweroff and halt only, never at reboot or kexec (the box must come back), and does
# nothing without a player. The release itself against a GPIO line is KioskAppTests'
# StatusLightGPIOSimTests (gpio-sim). Needs nothing but sh. Prints "test-power-latch: N passed, N failed".
set -uo pipefail
export LC_ALL=C
here=$(cd "$(dirname "$0")/.." && pwd)
hook="$here/kiosk-power-latch"
work=$(mktemp -d /tmp/kiosk-power-latch-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
# shellcheck source=harness.sh
source "$here/tests/harness.sh"

cat >"$work/player" <<'PLAYER'
#!/bin/sh
echo "$*" >>"$CALLS"
PLAYER
chmod +x "$work/player"
export CALLS=$work/calls

for action in poweroff halt reboot kexec ""; do
    rm -f "$CALLS"
    KIOSK_PLAYER=$work/player sh "$hook" $action
    status=$?
    calls=$(cat "$CALLS" 2>/dev/null)
    case $action in
        poweroff | halt) expect_eq "at ${action}: the latch is released" "$status:$calls" "0:power-latch release" ;;
        *) expect_eq "at ${action:-no action}: the latch stays held" "$status:$calls" "0:" ;;
    esac
done
KIOSK_PLAYER=$work/missing sh "$hook" poweroff
result "without a player the hook does nothing and succeeds" $?
harness_end
