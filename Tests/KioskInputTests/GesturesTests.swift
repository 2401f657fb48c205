// SPDX-License-Identifier: GPL-3.0-or-later
import KioskInput
import Testing

@Suite struct GesturesTests {
    @Test func bouncyPressAndReleaseYieldOnePress() {
        let log = GestureLog()
        let a = log.gestures.addButton(source: "button A", binding: ButtonBinding(press: .playPause), debounceMs: 5)
        log.feed(a, Recording.bouncy(0, to: true) + Recording.bouncy(200, to: false))
        log.gestures.advance(to: Recording.ns(1000))
        #expect(log.actionNames == ["play-pause"])
        #expect(log.count(.down) == 1)
        #expect(log.events.filter { if case .up = $0.kind { true } else { false } }.count == 1)
        // Dated at the first edge of the burst, not when the bouncing stopped.
        #expect(log.actions.first?.2 == 0)
    }

    /// Events come in the order they are decided, each dated when it happened: a debounced press
    /// is decided when its line settles but dated at its first edge, so it follows an undebounced
    /// key's press that came in between (found by fuzzing the gestures, `make fuzz`).
    @Test func aDebouncedPressComesAfterAKeyPressedWhileItSettledButKeepsItsTime() {
        let log = GestureLog()
        let a = log.gestures.addButton(source: "button A", binding: ButtonBinding(press: .playPause), debounceMs: 5)
        let key = log.gestures.addButton(source: "key KEY_UP", binding: ButtonBinding(press: .up), debounceMs: 0)
        log.feed(a, [(0, true)])
        log.feed(key, [(2, true)])
        log.gestures.advance(to: Recording.ns(1000))
        let downs = log.events.filter { $0.kind == .down }.map { ($0.source, Recording.ms($0.timestampNs)) }
        #expect(downs.map(\.0) == ["key KEY_UP", "button A"])
        #expect(downs.map(\.1) == [2, 0])
    }

    @Test func glitchShorterThanDebounceCountsNothing() {
        let log = GestureLog()
        let a = log.gestures.addButton(source: "button A", binding: ButtonBinding(press: .playPause), debounceMs: 5)
        log.feed(a, [(10, true), (12, false), (40, true), (40.5, false)])
        log.gestures.advance(to: Recording.ns(1000))
        #expect(log.events.isEmpty)
    }

    @Test func pressWaitsForTheLineToSettle() {
        let log = GestureLog()
        let a = log.gestures.addButton(source: "button A", binding: ButtonBinding(press: .next), debounceMs: 5)
        log.feed(a, Recording.bouncy(0, to: true))  // last bounce at 2.4 ms
        log.gestures.advance(to: Recording.ns(7.3))
        #expect(log.actions.isEmpty)
        #expect(log.gestures.nextDeadline == Recording.ns(7.4))
        log.gestures.advance(to: Recording.ns(7.4))
        #expect(log.actionNames == ["next"])
    }

    @Test func withoutDebounceEveryChangeCounts() {
        let log = GestureLog()
        let key = log.gestures.addButton(source: "key KEY_OK", binding: ButtonBinding(press: .select), debounceMs: 0)
        log.feed(key, [(0, true), (1, false), (2, true), (3, false)])
        #expect(log.actionNames == ["select", "select"])
    }

    @Test func shortPressActsOnRelease() {
        let log = GestureLog()
        let a = log.gestures.addButton(
            source: "button A", binding: ButtonBinding(press: .playPause, longPress: .nextCategory), debounceMs: 5)
        log.feed(a, Recording.bouncy(0, to: true) + Recording.bouncy(300, to: false))
        log.gestures.advance(to: Recording.ns(2000))
        #expect(log.actions.map(\.0) == [.playPause])
        #expect(log.actions.first?.2 == 300)
    }

    @Test func longPressFiresAtLongPressMsAndNotAgainOnRelease() {
        let log = GestureLog()
        let a = log.gestures.addButton(
            source: "button A", binding: ButtonBinding(press: .playPause, longPress: .nextCategory), debounceMs: 5)
        log.feed(a, Recording.bouncy(100, to: true))
        log.gestures.advance(to: Recording.ns(699.9))
        #expect(log.actions.isEmpty)
        #expect(log.gestures.nextDeadline == Recording.ns(700))
        log.gestures.advance(to: Recording.ns(700))
        #expect(log.actionNames == ["next-category"])
        log.feed(a, Recording.bouncy(1500, to: false))
        log.gestures.advance(to: Recording.ns(3000))
        #expect(log.actionNames == ["next-category"])
    }

    @Test func releaseStampedBeforeTheDeadlineIsAShortPressEvenWhenReadLate() {
        // The release edge carries 590 ms but is only delivered at 650 ms: the gesture is decided
        // by the timestamp, so it is a short press.
        let log = GestureLog(InputSettings(debounceMs: 0))
        let a = log.gestures.addButton(
            source: "button A", binding: ButtonBinding(press: .playPause, longPress: .stop), debounceMs: 0)
        log.feed(a, [(0, true), (590, false)])
        log.gestures.advance(to: Recording.ns(650))
        #expect(log.actionNames == ["play-pause"])
    }

    @Test func longPressSettingIsHonoured() {
        let log = GestureLog(InputSettings(longPressMs: 1000))
        let a = log.gestures.addButton(
            source: "button A", binding: ButtonBinding(press: .play, longPress: .stop), debounceMs: 0)
        log.feed(a, [(0, true), (900, false), (2000, true), (3100, false)])
        #expect(log.actions.map(\.0) == [.play, .stop])
        #expect(log.actions.map(\.2) == [900, 3000])
    }

    @Test func holdRepeatsAfterTheDelayAtTheRate() {
        let log = GestureLog()
        let up = log.gestures.addButton(
            source: "button up", binding: ButtonBinding(press: .volumeUp, hold: .volumeUp), debounceMs: 5)
        log.feed(up, Recording.bouncy(0, to: true) + Recording.bouncy(900, to: false))
        log.gestures.advance(to: Recording.ns(5000))
        // Immediate press, then repeats at 400, 550, 700, 850; released at 900.
        #expect(log.actions.map(\.0) == Array(repeating: .volumeUp, count: 5))
        #expect(log.actions.map(\.1) == [0, 1, 2, 3, 4])
        #expect(log.actions.map(\.2) == [0, 400, 550, 700, 850])
    }

    @Test func holdRepeatTimingFollowsSettings() {
        let log = GestureLog(InputSettings(repeatDelayMs: 250, repeatMs: 50))
        let up = log.gestures.addButton(source: "key", binding: ButtonBinding(hold: .down), debounceMs: 0)
        log.feed(up, [(0, true), (420, false)])
        #expect(log.actions.map(\.2) == [0, 250, 300, 350, 400])
    }

    @Test func pressWithADifferentHoldActsOnShortReleaseOnly() {
        let log = GestureLog()
        let b = log.gestures.addButton(
            source: "button B", binding: ButtonBinding(press: .playPause, hold: .volumeUp), debounceMs: 0)
        log.feed(b, [(0, true), (200, false)])
        #expect(log.actionNames == ["play-pause"])
        log.feed(b, [(1000, true), (1800, false)])
        // 1400, 1550, 1700: only repeats, no play-pause.
        #expect(log.actionNames == ["play-pause", "volume-up", "volume-up", "volume-up"])
    }

    /// The one next button of a four-button HAT: next, previous, seek forward and seek back.
    static let nextButton = ButtonBinding(
        press: .next, hold: .seekForward, doublePress: .previous, doubleHold: .seekBackward)

    @Test func aLonePressOfADoublePressButtonActsOnceNoSecondCameInTheWindow() {
        let log = GestureLog()
        let b = log.gestures.addButton(source: "button B", binding: Self.nextButton, debounceMs: 0)
        log.feed(b, [(0, true), (100, false)])
        log.gestures.advance(to: Recording.ns(399))
        #expect(log.actions.isEmpty, "waiting for a second press")
        log.gestures.advance(to: Recording.ns(1000))
        #expect(log.actionNames == ["next"])
        #expect(log.actions.map(\.2) == [400])
    }

    @Test func twoQuickPressesAreOneDoublePressAndNoPress() {
        let log = GestureLog()
        let b = log.gestures.addButton(source: "button B", binding: Self.nextButton, debounceMs: 0)
        log.feed(b, [(0, true), (100, false), (250, true), (350, false)])
        log.gestures.advance(to: Recording.ns(2000))
        #expect(log.actionNames == ["previous"])
        #expect(log.count(.doublePress) == 1 && log.count(.press) == 0)
    }

    @Test func aSecondPressAfterTheWindowIsAPressOfItsOwn() {
        let log = GestureLog()
        let b = log.gestures.addButton(source: "button B", binding: Self.nextButton, debounceMs: 0)
        log.feed(b, [(0, true), (100, false), (500, true), (600, false)])
        log.gestures.advance(to: Recording.ns(2000))
        #expect(log.actionNames == ["next", "next"])
        #expect(log.actions.map(\.2) == [400, 900])
    }

    @Test func holdingSeeksForwardAndPressingAgainAndHoldingSeeksBack() {
        let log = GestureLog()
        let b = log.gestures.addButton(source: "button B", binding: Self.nextButton, debounceMs: 0)
        log.feed(b, [(0, true), (800, false)])
        log.feed(b, [(2000, true), (2100, false), (2300, true), (2950, false)])
        log.gestures.advance(to: Recording.ns(5000))
        // 400, 550, 700 forward; the second press of 2300, held to 2950: 2700, 2850 back; nothing on releases.
        #expect(log.actionNames == ["seek-forward", "seek-forward", "seek-forward", "seek-backward", "seek-backward"])
        #expect(log.actions.map(\.2) == [400, 550, 700, 2700, 2850])
        #expect(log.actions.map(\.1) == [1, 2, 3, 1, 2])
    }

    @Test func chordHeldFiresItsActionAndNotTheButtons() {
        let log = GestureLog()
        let a = log.gestures.addButton(source: "button A", binding: ButtonBinding(press: .playPause), debounceMs: 5)
        let x = log.gestures.addButton(source: "button X", binding: ButtonBinding(press: .stop), debounceMs: 5)
        log.gestures.addChord([a, x], holdMs: 3000, action: .shutdown, source: "chord A+X")
        log.feed(a, Recording.bouncy(0, to: true))
        log.feed(x, Recording.bouncy(60, to: true))
        log.gestures.advance(to: Recording.ns(3059))
        #expect(log.actions.isEmpty)
        log.gestures.advance(to: Recording.ns(3060))
        #expect(log.actionNames == ["shutdown"])
        log.feed(x, Recording.bouncy(3500, to: false))
        log.feed(a, Recording.bouncy(3600, to: false))
        log.gestures.advance(to: Recording.ns(5000))
        #expect(log.actionNames == ["shutdown"])
        #expect(log.count(.chordStart) == 1)
    }

    @Test func chordReleasedTooSoonDoesNothing() {
        let log = GestureLog()
        let a = log.gestures.addButton(source: "button A", binding: ButtonBinding(press: .playPause), debounceMs: 0)
        let x = log.gestures.addButton(source: "button X", binding: ButtonBinding(press: .stop), debounceMs: 0)
        log.gestures.addChord([a, x], holdMs: 3000, action: .shutdown, source: "chord A+X")
        log.feed(a, [(0, true)])
        log.feed(x, [(50, true), (1000, false)])
        log.feed(a, [(1200, false)])
        log.gestures.advance(to: Recording.ns(5000))
        #expect(log.actions.isEmpty)
        #expect(log.count(.chordCancelled) == 1)
    }

    @Test func chordMemberAloneActsOnReleaseOrAfterTheWindow() {
        let log = GestureLog()
        let a = log.gestures.addButton(source: "button A", binding: ButtonBinding(press: .playPause), debounceMs: 0)
        let x = log.gestures.addButton(source: "button X", binding: ButtonBinding(press: .stop), debounceMs: 0)
        log.gestures.addChord([a, x], holdMs: 3000, action: .shutdown, source: "chord A+X")
        log.feed(a, [(0, true), (100, false)])  // released inside the 200 ms window: acts on release
        log.feed(a, [(1000, true)])
        log.gestures.advance(to: Recording.ns(1500))  // still held: acts when the window closes
        log.feed(x, [(1300, true), (1400, false)])  // too late for a chord: X acts alone
        log.feed(a, [(2000, false)])
        #expect(log.actions.map(\.0) == [.playPause, .playPause, .stop])
        #expect(log.actions.map(\.2) == [100, 1200, 1400])
    }

    @Test func chordWithoutHoldTimeFiresWhenComplete() {
        let log = GestureLog()
        let a = log.gestures.addButton(source: "button A", binding: ButtonBinding(press: .up), debounceMs: 0)
        let b = log.gestures.addButton(source: "button B", binding: ButtonBinding(press: .down), debounceMs: 0)
        log.gestures.addChord([a, b], holdMs: 0, action: .menu, source: "chord A+B")
        log.feed(b, [(0, true)])
        log.feed(a, [(30, true), (100, false)])
        log.feed(b, [(120, false)])
        #expect(log.actions.map(\.0) == [.menu])
        #expect(log.actions.map(\.2) == [30])
    }

    @Test func buttonHeldAtStartIsIgnoredUntilReleased() {
        let log = GestureLog()
        let a = log.gestures.addButton(source: "button A", binding: ButtonBinding(press: .playPause), debounceMs: 5)
        log.gestures.sync(a, active: true, at: Recording.ns(0))
        log.feed(a, Recording.bouncy(500, to: false))
        log.feed(a, Recording.bouncy(800, to: true) + Recording.bouncy(900, to: false))
        log.gestures.advance(to: Recording.ns(2000))
        #expect(log.actions.map(\.2) == [800])
    }

    @Test func twoButtonsAreIndependent() {
        let log = GestureLog()
        let a = log.gestures.addButton(
            source: "button A", binding: ButtonBinding(press: .playPause, longPress: .stop), debounceMs: 5)
        let b = log.gestures.addButton(
            source: "button B", binding: ButtonBinding(press: .volumeDown, hold: .volumeDown), debounceMs: 5)
        log.feed(a, Recording.bouncy(0, to: true))
        log.feed(b, Recording.bouncy(100, to: true))
        log.feed(b, Recording.bouncy(600, to: false))
        log.feed(a, Recording.bouncy(800, to: false))
        log.gestures.advance(to: Recording.ns(2000))
        // B: press at 100, repeat at 500; A: long press at 600.
        #expect(log.actions.map(\.0) == [.volumeDown, .volumeDown, .stop])
        #expect(log.actions.map(\.2) == [100, 500, 600])
    }
}
