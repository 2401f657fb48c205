// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskCore

/// resume.state: state and position records in alternating slots, what a torn write leaves, and
/// the old resume.json.
@Suite struct ResumeStoreTests {
    func state(track: Int = 1, seconds: Double = 0, playing: Bool = true, volume: Int = 70) -> ResumeState {
        var state = ResumeState()
        state.volumeID = "1234-ABCD"
        state.relativePath = "Artist/Album/0\(track) Song.flac"
        state.collection = .init(category: "album", key: "Artist\u{1F}Album")
        state.queueIndex = track - 1
        state.queueCount = 9
        state.sampleRate = 44_100
        state.positionFrames = Int64(seconds * 44_100)
        state.playing = playing
        state.volumePercent = volume
        state.title = "Song \(track)"
        return state
    }

    func contents(_ dir: TemporaryDirectory) throws -> [UInt8] {
        try Syscalls.readFile(dir.file(ResumeStore.fileName))
    }

    /// Spoils the record in `slot` of `region` as a write torn in its first sector does.
    func tear(_ dir: TemporaryDirectory, region: Int, slot: Int) throws {
        let file = ResumeStore.slotFile(directory: dir.path)
        let fd = try FileDescriptor.open(file.path, O_RDWR)
        let garbage = [UInt8](repeating: 0xA5, count: 100)
        _ = try garbage.withUnsafeBytes {
            try Syscalls.pwrite(fd.rawValue, $0, offset: Int64(file.slotOffset(region: region, slot: slot) + 8))
        }
    }

    func newestSlot(_ dir: TemporaryDirectory, region: Int) -> Int? {
        let bytes = (try? contents(dir)) ?? []
        return ResumeStore.slotFile(directory: dir.path).records(in: bytes, region: region).first?.slot
    }

    /// A damaged client-queue.json is ignored with a warning: the state still loads (and resumes
    /// the current track's folder), nothing crashes.
    @Test func aDamagedClientQueueFileLeavesTheStateWithoutIt() throws {
        let dir = try TemporaryDirectory("kiosk-resume")
        defer { dir.remove() }
        var saved = state()
        saved.collection = nil
        saved.clientQueueVersion = 7
        try saved.save(directory: dir.path)
        let file = ClientQueueFile(directory: dir.path)
        try AtomicFile.replace(file.path, with: "{\"format\": \"kiosk-player-client-queue\", \"entr")
        let loaded = try #require(ResumeState.load(directory: dir.path))
        #expect(loaded.clientQueueVersion == 7)
        #expect(loaded.clientQueue == nil)
    }

    /// Up to 64 MB of it were parsed at start (250 MB of memory): a file over the cap is not read.
    @Test func aClientQueueFileOverItsByteCapIsNotRead() throws {
        let dir = try TemporaryDirectory("kiosk-resume")
        defer { dir.remove() }
        var saved = state()
        saved.collection = nil
        saved.clientQueueVersion = 7
        try saved.save(directory: dir.path)
        let entry = "\"vol\\u001f" + String(repeating: "x", count: 1000) + "\""
        let entries = Array(repeating: entry, count: ClientQueueFile.maxBytes / 1000).joined(separator: ",")
        try AtomicFile.replace(
            ClientQueueFile(directory: dir.path).path,
            with: "{\"format\": \"kiosk-player-client-queue\", \"queueVersion\": 7, \"entries\": [\(entries)]}")
        // The count, not the entries: a failure should not print 4 MB.
        #expect(ResumeState.load(directory: dir.path)?.clientQueue?.count == nil)
    }

    @Test func aClientQueueFileOfAnotherVersionIsNotUsed() throws {
        let dir = try TemporaryDirectory("kiosk-resume")
        defer { dir.remove() }
        var saved = state()
        saved.collection = nil
        saved.clientQueueVersion = 7
        try saved.save(directory: dir.path)
        #expect(try ClientQueueFile(directory: dir.path).save([], version: 6))
        #expect(ResumeState.load(directory: dir.path)?.clientQueue == nil)
        #expect(try ClientQueueFile(directory: dir.path).save([], version: 7))
        #expect(ResumeState.load(directory: dir.path)?.clientQueue == [])
    }

    @Test func theLatestSaveIsLoaded() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = ResumeStore(directory: dir.path)
        try store.save(state(seconds: 1))
        try store.save(state(seconds: 5.5))
        try store.save(state(seconds: 10, playing: false))
        #expect(ResumeState.load(directory: dir.path) == state(seconds: 10, playing: false))
        #expect(!Syscalls.exists(dir.file(ResumeState.legacyFileName)))
    }

    /// The save every 4.5 s of playing rewrites a 512-byte position record, not the whole state.
    @Test func aNewPositionWritesOnlyAPositionRecord() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = ResumeStore(directory: dir.path)
        try store.save(state(seconds: 1))
        let file = ResumeStore.slotFile(directory: dir.path)
        let stateRegion = file.records(in: try contents(dir), region: ResumeStore.stateRegion)
        for seconds in [5.5, 10.0, 14.5] { try store.save(state(seconds: seconds)) }
        try store.save(state(seconds: 15, playing: false))
        let after = try contents(dir)
        #expect(file.records(in: after, region: ResumeStore.stateRegion).map(\.record) == stateRegion.map(\.record))
        #expect(file.records(in: after, region: ResumeStore.positionRegion).map(\.record.sequence) == [5, 4])
        #expect(ResumeState.load(directory: dir.path) == state(seconds: 15, playing: false))
    }

    @Test func anotherTrackOrVolumeWritesAStateRecordInTheOtherSlot() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = ResumeStore(directory: dir.path)
        try store.save(state(track: 1))
        #expect(newestSlot(dir, region: ResumeStore.stateRegion) == 0)
        try store.save(state(track: 2))
        #expect(newestSlot(dir, region: ResumeStore.stateRegion) == 1)
        try store.save(state(track: 2, volume: 40))
        #expect(newestSlot(dir, region: ResumeStore.stateRegion) == 0)
        #expect(ResumeState.load(directory: dir.path) == state(track: 2, volume: 40))
    }

    /// A cut while the new state record is written: the state before, with its last position.
    @Test func aTornStateRecordLeavesThePreviousStateAndItsPosition() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = ResumeStore(directory: dir.path)
        try store.save(state(track: 1))
        try store.save(state(track: 1, seconds: 200))
        try store.save(state(track: 2))
        try tear(dir, region: ResumeStore.stateRegion, slot: 1)
        #expect(ResumeState.load(directory: dir.path) == state(track: 1, seconds: 200))
    }

    /// A cut while a position record is written, in either slot: the position before.
    @Test(arguments: [0, 1])
    func aTornPositionRecordLeavesThePositionBefore(slot: Int) throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = ResumeStore(directory: dir.path)
        try store.save(state(seconds: 0))
        try store.save(state(seconds: 4.5))
        try store.save(state(seconds: 9))
        if slot == 0 { try store.save(state(seconds: 13.5)) }
        // slot 0 holds 4.5 s then 13.5 s, slot 1 holds 9 s: the newest is in `slot`
        #expect(newestSlot(dir, region: ResumeStore.positionRegion) == slot)
        try tear(dir, region: ResumeStore.positionRegion, slot: slot)
        #expect(ResumeState.load(directory: dir.path) == state(seconds: slot == 0 ? 9 : 4.5))
    }

    /// Position records name their state record: after a newer state record, an older position
    /// (of the track before) is never applied to it.
    @Test func aPositionOfAnotherStateRecordIsNotApplied() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = ResumeStore(directory: dir.path)
        try store.save(state(track: 1))
        try store.save(state(track: 1, seconds: 100))
        try store.save(state(track: 2, seconds: 0))
        #expect(ResumeState.load(directory: dir.path) == state(track: 2, seconds: 0))
    }

    /// A restarted player (a new store) continues the sequence and writes beside the newest record.
    @Test func aRestartContinuesTheSequence() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let first = ResumeStore(directory: dir.path)
        for track in 1...3 { try first.save(state(track: track)) }
        try first.save(state(track: 3, seconds: 30))
        let second = ResumeStore(directory: dir.path)
        let newest = newestSlot(dir, region: ResumeStore.stateRegion)
        try second.save(state(track: 3, seconds: 31))
        #expect(newestSlot(dir, region: ResumeStore.stateRegion) == newest.map { 1 - $0 })
        try second.save(state(track: 3, seconds: 35))
        #expect(ResumeState.load(directory: dir.path) == state(track: 3, seconds: 35))
        // and a cut in its next state record leaves the restarted player's last state
        try second.save(state(track: 4))
        try tear(dir, region: ResumeStore.stateRegion, slot: try #require(newestSlot(dir, region: 1)))
        #expect(ResumeState.load(directory: dir.path) == state(track: 3, seconds: 35))
    }

    @Test func theOldResumeJSONIsReadOnceThenReplaced() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try dir.write(ResumeState.legacyFileName, state(track: 5, seconds: 42).json().serialized(pretty: true))
        #expect(ResumeState.load(directory: dir.path) == state(track: 5, seconds: 42))
        try ResumeStore(directory: dir.path).save(state(track: 5, seconds: 43))
        #expect(!Syscalls.exists(dir.file(ResumeState.legacyFileName)), "resume.json is removed once replaced")
        #expect(ResumeState.load(directory: dir.path) == state(track: 5, seconds: 43))
    }

    @Test func bothStateSlotsBadFallsBackToTheOldFileWithAWarning() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = ResumeStore(directory: dir.path)
        try store.save(state(track: 1))
        try store.save(state(track: 2))
        try tear(dir, region: ResumeStore.stateRegion, slot: 0)
        try tear(dir, region: ResumeStore.stateRegion, slot: 1)
        try dir.write(ResumeState.legacyFileName, state(track: 7).json().serialized())
        let warnings = WarningCollector()
        defer { warnings.stop() }
        #expect(ResumeState.load(directory: dir.path) == state(track: 7))
        #expect(
            warnings.messages.contains {
                $0.contains("resume.state: no valid record in either slot")
                    && $0.contains("reading the old resume.json")
            })
    }

    @Test func bothStateSlotsBadAndNoOldFileWarnsAndStartsFresh() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = ResumeStore(directory: dir.path)
        try store.save(state(track: 1))
        try store.save(state(track: 2))
        try store.save(state(track: 2, seconds: 9))
        try tear(dir, region: ResumeStore.stateRegion, slot: 0)
        try tear(dir, region: ResumeStore.stateRegion, slot: 1)
        let warnings = WarningCollector()
        defer { warnings.stop() }
        #expect(ResumeState.load(directory: dir.path) == nil)
        #expect(
            warnings.messages.contains {
                $0.contains("no valid record in either slot") && $0.contains("starting without it")
            })
        // the next save makes a good file again, past the sequence numbers still there
        try ResumeStore(directory: dir.path).save(state(track: 3))
        #expect(ResumeState.load(directory: dir.path) == state(track: 3))
    }

    /// A removed or truncated file is made anew at the next save, with a state record first.
    @Test func aRemovedFileIsMadeAnew() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = ResumeStore(directory: dir.path)
        try store.save(state(seconds: 1))
        unlink(dir.file(ResumeStore.fileName))
        try store.save(state(seconds: 1))
        #expect(ResumeState.load(directory: dir.path) == state(seconds: 1))
        try dir.write(ResumeStore.fileName, [1, 2, 3])
        try store.save(state(seconds: 6))
        #expect(ResumeState.load(directory: dir.path) == state(seconds: 6))
    }

    @Test func aStateTooLargeForItsSlotIsSavedWithoutTheScreenTexts() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        var big = state()
        big.title = String(repeating: "t", count: 20_000)
        try ResumeStore(directory: dir.path).save(big)
        big.title = nil
        #expect(ResumeState.load(directory: dir.path) == big)
    }
}
