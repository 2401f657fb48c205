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
