// SPDX-License-Identifier: GPL-3.0-or-later
import Testing

@testable import KioskAudio

/// How an underrun's log line names its cause (the soak tells the player's dropouts from the
/// machine's by it).
@Suite struct UnderrunAccountTests {
    private func account(away: Int = 5, wait: Int = 20, queued: Int = 60, ringWasEmpty: Bool = false) -> UnderrunAccount
    {
        UnderrunAccount(
            awayMilliseconds: away, waitMilliseconds: wait, queuedMilliseconds: queued, bufferMilliseconds: 60,
            ringWasEmpty: ringWasEmpty)
    }

    @Test func anEmptyRingIsTheDecodersCause() {
        #expect(account(away: 90, wait: 0, ringWasEmpty: true).cause == .decoder)
    }

    @Test func aWriteThatWaitedLongerThanTheBufferIsTheDevicesCause() {
        #expect(account(away: 0, wait: 70, queued: 0).cause == .device)
        #expect(account(away: 17, wait: 181, queued: 8).cause == .device)
    }

    @Test func aThreadAwayWithAudioReadyIsTheOutputsCause() {
        #expect(account(away: 64, wait: 20, queued: 60).cause == .output)
    }

    @Test func theLogLineEndsWithTheCause() {
        #expect(
            account(away: 17, wait: 181, queued: 8).description
                == "17 ms after the output's last write, which waited 181 ms for room and left 8 ms of a 60 ms buffer queued; cause: device"
        )
    }
}

/// How long the output thread was away from the device between writes (`UnderrunWatch.away`, the
/// storm bench's figure of its lateness).
@Suite struct OutputAwayTests {
    private let ms: UInt64 = 1_000_000

    private func watchAfterAWrite(at end: UInt64 = 100_000_000) -> UnderrunWatch {
        var watch = UnderrunWatch()
        watch.wrote(start: end - 2 * ms, end: end, queued: 441)
        return watch
    }

    @Test func theTimeAwayRunsFromTheLastWritesReturn() {
        #expect(watchAfterAWrite().away(at: 104 * ms) == 4 * ms)
    }

    @Test func aWaitForTheDecoderIsNotTheOutputThreadsLateness() {
        var watch = watchAfterAWrite()
        watch.waitingForDecoder()
        #expect(watch.away(at: 104 * ms) == nil)
    }

    @Test func nothingIsAwayBeforeTheFirstWrite() {
        #expect(UnderrunWatch().away(at: 5 * ms) == nil)
    }
}
