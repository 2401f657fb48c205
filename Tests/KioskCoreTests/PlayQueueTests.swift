// SPDX-License-Identifier: GPL-3.0-or-later
import KioskLibrary
import KioskModel
import Testing

@testable import KioskCore

/// The queue's rules: where next and previous go, at the ends, with and without repeat. The player
/// (buttons, the end of the queue, the restored track, MPD) asks only these.
@Suite struct PlayQueueTests {
    /// A queue of `count` tracks of the fixture library's first album, at entry `index`.
    private func queue(_ count: Int, at index: Int, repeats: Bool = false) throws -> PlayQueue {
        let tracks = try PlayQueueFixture.tracks()
        #expect(tracks.count >= count)
        var queue = PlayQueue(repeats: repeats)
        queue.replace(with: Array(tracks.prefix(count)), collection: nil)
        queue.index = index
        return queue
    }

    @Test func nextGoesToTheFollowingEntry() throws {
        #expect(try queue(3, at: 0).afterCurrent == .entry(1))
        #expect(try queue(3, at: 1, repeats: true).afterCurrent == .entry(2))
    }

    @Test func nextOnTheLastEntryEndsTheQueue() throws {
        #expect(try queue(3, at: 2).afterCurrent == .end)
    }

    @Test func nextOnTheLastEntryWithRepeatWrapsToTheFirst() throws {
        #expect(try queue(3, at: 2, repeats: true).afterCurrent == .wrapped)
    }

    @Test func theEndOfTheWholeQueueFollowsTheSameRule() throws {
        #expect(try queue(3, at: 0).step(after: 2) == .end)
        #expect(try queue(3, at: 0, repeats: true).step(after: 2) == .wrapped)
    }

    @Test func anEmptyQueueEndsEvenWithRepeat() {
        #expect(PlayQueue(repeats: true).afterCurrent == .end)
    }

    @Test func previousEarlyInATrackGoesBack() throws {
        #expect(try queue(3, at: 2).beforeCurrent(playedSeconds: 1) == .entry(1))
    }

    @Test func previousMoreThanThreeSecondsInRestartsTheTrack() throws {
        #expect(try queue(3, at: 2).beforeCurrent(playedSeconds: 3.5) == .restart)
        #expect(try queue(3, at: 2).beforeCurrent(playedSeconds: 3.0) == .entry(1), "3 s exactly still goes back")
    }

    @Test func previousOnTheFirstEntryRestartsIt() throws {
        #expect(try queue(3, at: 0).beforeCurrent(playedSeconds: 0) == .restart)
        #expect(try queue(3, at: 0, repeats: true).beforeCurrent(playedSeconds: 0) == .restart)
    }

    @Test func aRemoteClientsPreviousOnTheFirstEntryWrapsOnlyWithRepeat() throws {
        #expect(try queue(3, at: 1).remotePrevious == 0)
        #expect(try queue(3, at: 0).remotePrevious == 0)
        #expect(try queue(3, at: 0, repeats: true).remotePrevious == 2)
    }

    @Test func engineIDsOfAnOldGenerationNameNoEntry() throws {
        var q = try queue(3, at: 0)
        let old = q.engineID(ofEntry: 1)
        #expect(q.entry(ofEngineID: old) == 1)
        q.renewIDs()
        #expect(q.entry(ofEngineID: old) == nil)
        #expect(q.entry(ofEngineID: q.engineID(ofEntry: 2)) == 2)
        #expect(q.requests.map(\.id) == [0, 1, 2].map(q.engineID(ofEntry:)))
    }

    @Test func anAdoptedIDNamesTheGivenEntry() throws {
        var q = try queue(3, at: 0)
        q.adoptID(1 << 62, forEntry: 2)
        #expect(q.entry(ofEngineID: 1 << 62) == 2)
        #expect(q.entry(ofEngineID: (1 << 62) - 2) == 0)
    }

    @Test func appendingMakesTheQueueNoLongerACollections() throws {
        var q = try queue(2, at: 0)
        let tracks = try PlayQueueFixture.tracks()
        q.replace(with: Array(tracks.prefix(2)), collection: try PlayQueueFixture.album())
        q.append([tracks[2]])
        #expect(q.count == 3)
        #expect(q.collection == nil)
    }
}

/// Tracks of the fixture library (scanned once).
enum PlayQueueFixture {
    /// The fixture's main volume, scanned by the real scanner (no library, no loop).
    private static let scanned: Result<Catalog, any Error> = Result {
        let root = try PlayerFixtures.prepare() + "/main"
        let id = VolumeIdentity.identify(directory: root)
        let scan = try VolumeScanner(readerThreads: 1).scan(volume: id, mountPoint: root, indexPath: nil)
        return Catalog(volumes: [scan.contents])
    }

    static func album() throws -> Collection {
        let catalog = try scanned.get()
        return catalog.collections(in: .album)[0]
    }

    static func tracks() throws -> [Track] {
        let catalog = try scanned.get()
        return catalog.tracks(of: try album())
    }

    /// Every track of the fixture (two albums: three tracks and two), in album order.
    static func allTracks() throws -> [Track] {
        let catalog = try scanned.get()
        return catalog.collections(in: .album).flatMap { catalog.tracks(of: $0) }
    }
}
