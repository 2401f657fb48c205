#!/bin/bash
# SPI panel on a real kernel spidev: loads spi-record.ko (Tests/SPISystem/kmod: a virtual SPI
# controller with spidev bound that records each transfer with the data/command line's level,
# read from a gpio-sim line), then runs the test binary's SpidevKernelTests: a Pirate Audio frame
# and a small update sent through /dev/spidevB.0 and libgpiod, decoded back into panel memory,
# and spidev's bufsiz limit (EMSGSIZE). A scenario for Tests/System/scenarios/ (needs
# `swift build --build-tests` and Tests/SPISystem/build-kmod.sh on the host first; the module is
# built here otherwise).
# timeout: 300
source "$SYSTEST_REPO/Tests/System/lib.sh"
require_infra gpio-sim
bin=${SYSTEST_PLAYER%/*}/KioskPlayerPackageTests.xctest
[ -x "$bin" ] || skip "no $bin (run swift build --build-tests first)"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if ! grep -q '^spi_record ' /proc/modules; then
    ko=$(bash "$here/build-kmod.sh" "$(uname -r)" 2> "$SYSTEST_ARTIFACTS/spi-record-build.log") \
        || skip "spi-record.ko cannot be built: $(head -c 300 "$SYSTEST_ARTIFACTS/spi-record-build.log")"
    must "spi-record.ko loads" insmod "$ko"
fi
check "the virtual controller has a spidev device" sh -c "ls /sys/class/spidev/ | grep -q spidev"
log "spidev bufsiz: $(cat /sys/module/spidev/parameters/bufsiz 2>/dev/null || echo 'default 4096')"
"$bin" --testing-library swift-testing --filter "SpidevKernelTests|SpidevTests" > "$SYSTEST_ARTIFACTS/spi-tests.log" 2>&1
status=$?
sed 's/\x1b\[[0-9;]*m//g' "$SYSTEST_ARTIFACTS/spi-tests.log" | grep -v '^◇' | while read -r line; do log "$line"; done
check "SPI panel kernel tests pass" test $status = 0
check "none of them skipped" sh -c "! grep -q skipped $SYSTEST_ARTIFACTS/spi-tests.log"
finish
