// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import Testing

@testable import KioskCore

/// The overlays part on its own, no loop and no screen: what each event shows, and what the player
/// must do about it (a timer for a message's end, a redraw).
struct OverlaysTests {
    private let removed = MessageState(title: "USB stick removed", detail: nil, kind: .info)
    private let shuffle = MessageState(title: "Shuffle: tracks", detail: nil, kind: .info)

    @Test func aMessageShowsAndAsksForATimerOfItsSeconds() {
        var overlays = Overlays()
        #expect(
            overlays.handle(.show(removed, seconds: 4)) == [.after(milliseconds: 4000, .messageTimedOut(generation: 1))]
        )
        #expect(overlays.message == removed)
    }

    @Test func aMessageGoesWhenItsTimerFiresAndTheScreenIsRedrawn() {
        var overlays = Overlays()
        _ = overlays.handle(.show(removed, seconds: 4))
        #expect(overlays.handle(.messageTimedOut(generation: 1)) == [.redraw])
        #expect(overlays.message == nil)
    }

    @Test func theTimerOfAReplacedMessageEndsNothing() {
        var overlays = Overlays()
        _ = overlays.handle(.show(removed, seconds: 4))
        _ = overlays.handle(.show(shuffle, seconds: 2))
        #expect(overlays.handle(.messageTimedOut(generation: 1)).isEmpty)
        #expect(overlays.message == shuffle)
    }

    @Test func aClearedMessageIsNotRedrawnAgainWhenItsTimerFires() {
        var overlays = Overlays()
        _ = overlays.handle(.show(removed, seconds: 4))
        #expect(overlays.handle(.clearMessage).isEmpty)
        #expect(overlays.handle(.messageTimedOut(generation: 1)).isEmpty)
    }

    @Test func theVolumeOverlayShowsTheLevelUntilDropped() {
        var overlays = Overlays()
        _ = overlays.handle(.volume(35))
        #expect(overlays.volume == 35)
        _ = overlays.handle(.dropVolume)
        #expect(overlays.volume == nil)
    }

    @Test func theUnderVoltageWarningTakesTheStatusLineBeforeTheOutputsLine() {
        var overlays = Overlays()
        _ = overlays.handle(.outputLine("Output: hdmi"))
        #expect(overlays.statusLine == "Output: hdmi")
        #expect(overlays.handle(.powerWarning("Low power")) == [.redraw])
        #expect(overlays.statusLine == "Low power")
    }

    @Test func theSameWarningAgainAsksForNoRedraw() {
        var overlays = Overlays()
        _ = overlays.handle(.powerWarning("Low power"))
        #expect(overlays.handle(.powerWarning("Low power")).isEmpty)
    }
}
