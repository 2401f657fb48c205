#!/bin/bash
# SPI panel on a real kernel spidev: loads spi-record.ko (Tests/SPISystem/kmod: a virtual SPI
# controller with spidev bound that records each transfer with the data/command line's level,
# read from a gpio-sim line; built and cached on the host by prepare.sh), then runs the test
# bundle's SpidevKernelTests and SpidevTests: a Pirate Audio frame and a small update sent
# through /dev/spidevB.0 and libgpiod, decoded back into panel memory, and spidev's bufsiz limit
# (EMSGSIZE). The bundle is the host's `swift build --build-tests` output.
# timeout: 240
# shellcheck source=../lib.sh
source "$SYSTEST_REPO/Tests/System/lib.sh"
require_infra gpio-sim
bin=${SYSTEST_PLAYER%/*}/KioskPlayerPackageTests.xctest
[ -x "$bin" ] || skip "no $bin (run swift build --build-tests first)"
if ! grep -q '^spi_record ' /proc/modules; then
    ko=${SYSTEST_SPI_RECORD_KO:-}
    [ -n "$ko" ] && [ -f "$ko" ] || skip "spi-record.ko was not built: ${SYSTEST_MISSING_spi_record:-see prepare.sh}"
    must "spi-record.ko loads" insmod "$ko"
fi
check "the virtual controller has a spidev device" sh -c "ls /sys/class/spidev/ | grep -q spidev"
log "spidev bufsiz: $(cat /sys/module/spidev/parameters/bufsiz 2>/dev/null || echo 'default 4096')"
"$bin" --testing-library swift-testing --filter "SpidevKernelTests|SpidevTests" > "$SYSTEST_ARTIFACTS/spi-tests.log" 2>&1
status=$?
sed 's/\x1b\[[0-9;]*m//g' "$SYSTEST_ARTIFACTS/spi-tests.log" | grep -v '^◇' | while read -r line; do log "$line"; done
check "SPI panel kernel tests pass" test $status = 0
check "some ran" grep -q 'passed after' "$SYSTEST_ARTIFACTS/spi-tests.log"
check "none of them skipped" sh -c "! grep -q skipped '$SYSTEST_ARTIFACTS/spi-tests.log'"
finish
