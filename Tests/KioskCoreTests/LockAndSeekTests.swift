// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskDisplay
import KioskInput
import KioskLibrary
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskCore

/// A player on the long fixture album ("Long Play": Adagio, Allegro, 40 s each) behind the input
/// path of a shipped board: GPIO edges go into the board's `InputManager` as the chip reader
/// delivers them (debounce, long press, hold-repeat and chords all apply), and its actions and
/// cards into the player. The gestures and the player share the virtual clock's time.
final class BoardBox {
    let rig: PlayerRig
    let loop: EventLoop
    let inputs: InputManager

    init(
        board: String = "rpi4", volumes: [String] = [PlayerFixtures.long], resume: ResumeState? = nil,
        configure: (inout Config) -> Void = { _ in }
    ) throws {
        rig = try PlayerRig(volumes: volumes, resume: resume, configure: configure)
        loop = try EventLoop()
        let profile = try BoardProfile.load(file: TestPaths.repository + "/boards/\(board).json").input
        inputs = InputManager(loop: loop, profile: profile, settings: InputSettings()) { [unowned rig] in
            rig.player.handle($0)
        }
        inputs.onCard = { [unowned rig] in rig.player.handle($0) }
    }

    deinit { inputs.stop() }

    var player: Player { rig.player }

    /// Presses the buttons on GPIO `lines` together for `ms`, then releases them; time passes in
    /// 50 ms steps for the gestures and the player alike.
    func hold(_ lines: [Int], ms: Int) throws {
        for line in lines { inputs.inject(.line(offset: line, active: true), at: rig.nowNs) }
        var left = ms
        while left > 0 {
            let step = min(50, left)
            try rig.idle(step)
            inputs.advance(to: rig.nowNs)
            left -= step
        }
        for line in lines { inputs.inject(.line(offset: line, active: false), at: rig.nowNs) }
        try rig.idle(20)
        inputs.advance(to: rig.nowNs)
    }

    /// A card shown to a reader, as a reader (or an event script) delivers it.
    func show(_ uid: CardUID) throws {
        inputs.inject(.card(uid), at: rig.nowNs)
        try rig.idle(20)
    }

    var message: MessageState? {
        if case .message(let m) = player.screenState() { m } else { nil }
    }

    /// Plays Adagio and pauses it at `seconds` (paused, so that positions are exact).
    func pausedAt(seconds: Double) throws {
        try rig.playFirst(.album)
        try rig.press(.pause)
        player.perform(.seek(entry: nil, seconds: seconds), from: .remote)
    }

    /// The seconds of each seek the engine was asked for, in order.
    var seeks: [Double] {
        (rig.fake?.commands ?? []).compactMap { command in
            guard command.hasPrefix("seek "), let frames = Double(command.dropFirst(5)) else { return nil }
            return frames / Double(PlayerFixtures.longAlbums[0].sampleRate)
        }
    }
}

/// rpi4.json's lines: previous 5, next 6, down 26, select 16 (the lock chord is down+select, 3 s).
private enum Line {
    static let previous = 5
    static let next = 6
    static let lockChord = [26, 16]
}

/// The button lock: a 3 s chord (or a lock card) locks every input but itself; remote clients
/// stay unlocked; the lock is saved at once and survives a restart.
@Suite struct ButtonLockTests {
    @Test func theLockChordLocksAndEveryOtherButtonIsIgnoredUntilItIsHeldAgain() throws {
        let box = try BoardBox()
        try box.rig.playFirst(.album)
        let volume = box.player.volume
        try box.hold(Line.lockChord, ms: 3200)
        #expect(box.player.locked)
        #expect(box.message?.title == "Locked")

        try box.rig.idle(3000)
        try box.hold([Line.next], ms: 120)
        try box.rig.press(.volumeUp)
        try box.rig.press(.stop)
        #expect(box.rig.title == "Adagio")
        #expect(box.player.status == .playing)
        #expect(box.player.volume == volume)
        #expect(box.message?.title == "Locked", "an ignored press says why")

        try box.hold(Line.lockChord, ms: 3200)
        #expect(!box.player.locked)
        #expect(box.message?.title == "Unlocked")
        try box.rig.idle(3000)
        try box.hold([Line.next], ms: 120)
        #expect(box.rig.title == "Allegro")
    }

    @Test func lockedSaysHowToUnlockAndNowPlayingShowsIt() throws {
        let box = try BoardBox()
        box.player.lockGesture = "Hold down+select 3 s"
        try box.rig.playFirst(.album)
        try box.rig.press(.lock)
        #expect(box.message == MessageState(title: "Locked", detail: "Hold down+select 3 s to unlock"))
        try box.rig.idle(3100)
        guard case .nowPlaying(let shown) = box.player.screenState() else {
            Issue.record("not now playing: \(box.player.screenState())")
            return
        }
        #expect(shown.categoryLabel.hasSuffix(" · locked"))
    }

    @Test func theLockChordHeldLessThanThreeSecondsDoesNotLock() throws {
        let box = try BoardBox()
        try box.rig.playFirst(.album)
        try box.hold(Line.lockChord, ms: 2500)
        #expect(!box.player.locked)
    }

    @Test func remoteClientsAreNotLocked() throws {
        let box = try BoardBox()
        try box.rig.playFirst(.album)
        try box.rig.press(.lock)
        #expect(box.player.perform(.next, from: .remote))
        #expect(box.rig.title == "Allegro")
    }

    @Test(.tags(.integration)) func anEventScriptIsLockedLikeTheButtons() throws {
        let box = try BoardBox()
        try box.rig.playFirst(.album)
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try dir.write(
            "lock.jsonl",
            """
            {"t": 0, "key": "l"}
            {"t": 50, "line": "next", "value": 1}
            {"t": 170, "line": "next", "value": 0}
            {"t": 300, "key": "n"}
            {"t": 400, "key": "lock"}
            {"t": 500, "key": "n"}
            {"t": 600, "key": "n"}
            """)
        var finished = false
        _ = try box.inputs.startScript(path: dir.file("lock.jsonl")) { finished = true }
        try box.loop.run(until: { finished }, timeoutNanoseconds: 10_000_000_000)
        try box.loop.run(forNanoseconds: 300_000_000)
        #expect(!box.player.locked)
        // The first press after the unlock dismisses "Unlocked" (as any message); only the last moved on.
        #expect(box.rig.title == "Allegro")
        #expect(box.player.queueIndex == 1)
    }

    @Test func theLockIsSavedAtOnceAndSurvivesARestart() throws {
        let box = try BoardBox()
        try box.rig.playFirst(.album)
        try box.hold(Line.lockChord, ms: 3200)
        // Saved at once: a power cut right after locking keeps it.
        let saved = try #require(box.rig.saved())
        #expect(saved.locked)

        let again = try BoardBox(resume: saved)
        #expect(again.player.locked)
        try again.rig.press(.playPause)
        try again.hold([Line.next], ms: 120)
        #expect(again.rig.title == "Adagio")
        try again.hold(Line.lockChord, ms: 3200)
        #expect(!again.player.locked)
        #expect(again.rig.saved()?.locked == false)
    }

    @Test func aLockCardLocksAndUnlocksAndOtherCardsAreIgnoredMeanwhile() throws {
        let box = try BoardBox()
        let lockCard = CardUID("04A2B3C4")!
        let albumCard = CardUID("0004561234")!
        try box.player.cards.setLink(.action(.lock), for: lockCard)
        let album = try #require(box.rig.collections(.album).first)
        try box.player.cards.setLink(.collection(CardCollection.of(album, in: box.rig.catalog)), for: albumCard)

        try box.show(lockCard)
        #expect(box.player.locked)
        try box.show(albumCard)
        #expect(box.player.status == .stopped)
        #expect(box.message?.title == "Locked")
        let unknown = CardUID("0011223344")!
        try box.show(unknown)
        #expect(box.message?.title == "Locked", "no offer to link a new card while locked")

        try box.show(lockCard)
        #expect(!box.player.locked)
        try box.show(albumCard)
        #expect(box.player.status == .playing)
    }

    @Test func theLockActionRoundTripsAsACardAction() {
        #expect(CardAction("lock") == .lock)
        #expect(CardAction.lock.name == "lock")
        #expect(CardAction.names.contains("lock"))
    }
}

/// Seek by hold: next or previous held on the now-playing screen moves through the track by
/// `inputs.seek`'s steps (10 s, 30 s after 3 s, at most every 500 ms), playing or paused; a short
/// press still skips.
@Suite struct SeekByHoldTests {
    @Test func holdingNextWhilePausedSeeksForwardTenSecondsAtEachStep() throws {
        let box = try BoardBox()
        try box.pausedAt(seconds: 5)
        // Repeats from 400 ms every 150 ms; a step at most every 500 ms: steps at 400 and 1000 ms.
        try box.hold([Line.next], ms: 1100)
        #expect(box.seeks.suffix(2) == [15, 25])
        #expect(abs(box.player.positionSeconds - 25) < 0.001)
        #expect(box.rig.title == "Adagio")
        #expect(box.player.status == .paused)
    }

    @Test func holdingLongerAccelerates() throws {
        let box = try BoardBox {
            $0.inputs.seek = SeekSettings(
                stepSeconds: 2, accelerateAfterMs: 1000, acceleratedStepSeconds: 6, intervalMs: 500)
        }
        try box.pausedAt(seconds: 1)
        // Steps at 400, 1000, 1600 and 2200 ms: the last two come 1 s or more after the first.
        try box.hold([Line.next], ms: 2300)
        #expect(box.seeks.suffix(4) == [3, 5, 11, 17])
    }

    @Test func holdingNextWhilePlayingSeeksAndKeepsPlaying() throws {
        let box = try BoardBox()
        try box.rig.playFirst(.album)
        let before = box.player.enginePositionSeconds
        try box.hold([Line.next], ms: 500)
        #expect(box.player.status == .playing)
        #expect(box.rig.title == "Adagio")
        // One step of 10 s, and the half second the hold lasted.
        let moved = box.player.enginePositionSeconds - before
        #expect(moved > 10.3 && moved < 10.7, "moved \(moved) s")
    }

    @Test func aShortPressOfNextStillSkips() throws {
        let box = try BoardBox()
        try box.rig.playFirst(.album)
        try box.hold([Line.next], ms: 120)
        #expect(box.rig.title == "Allegro")
        #expect(box.seeks.isEmpty)
    }

    @Test func holdingPreviousSeeksBackAndStopsAtTheStartOfTheTrack() throws {
        let box = try BoardBox()
        try box.pausedAt(seconds: 25)
        try box.hold([Line.previous], ms: 1100)
        #expect(abs(box.player.positionSeconds - 5) < 0.001)
        try box.hold([Line.previous], ms: 500)
        #expect(box.player.positionSeconds == 0)
        #expect(box.rig.title == "Adagio")
    }

    @Test func seekingForwardPastTheEndOfTheTrackGoesOnToTheNext() throws {
        let box = try BoardBox()
        try box.pausedAt(seconds: 35)
        try box.hold([Line.next], ms: 500)
        #expect(box.rig.title == "Allegro")
        #expect(box.player.status == .paused)
    }

    @Test func holdingNextInTheBrowseListScrollsIt() throws {
        let box = try BoardBox(volumes: [PlayerFixtures.main])
        try box.rig.selectCategory(.album)
        #expect(box.player.selectedIndex == 0)
        // The first repeat (400 ms) moves one down, as next does; no press on release.
        try box.hold([Line.next], ms: 500)
        #expect(box.player.mode == .browse)
        #expect(box.player.selectedIndex == 1)
        #expect(box.seeks.isEmpty)
    }

    @Test(arguments: [
        (#"{"stepSeconds": 0}"#, "inputs.seek.stepSeconds"),
        (#"{"stepSeconds": 20, "acceleratedStepSeconds": 10}"#, "inputs.seek.acceleratedStepSeconds"),
        (#"{"intervalMs": "fast"}"#, "inputs.seek.intervalMs"),
        (#"{"step": 10}"#, "inputs.seek.step"),
    ])
    func badSeekSettingsAreRefusedNamingTheKey(seek: String, key: String) throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try dir.write("config.json", #"{"inputs": {"seek": \#(seek)}}"#)
        do {
            _ = try Config.load(path: dir.file("config.json"))
            Issue.record("\(seek) was accepted")
        } catch {
            #expect("\(error)".contains(key), "\(error)")
        }
    }

    @Test func seekSettingsAreRead() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try dir.write(
            "config.json",
            #"{"inputs": {"seek": {"stepSeconds": 5, "accelerateAfterMs": 2000, "acceleratedStepSeconds": 20}}}"#)
        let config = try Config.load(path: dir.file("config.json"))
        #expect(
            config.inputs.seek
                == SeekSettings(stepSeconds: 5, accelerateAfterMs: 2000, acceleratedStepSeconds: 20, intervalMs: 500))
    }
}
