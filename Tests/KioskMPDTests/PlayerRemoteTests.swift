import KioskCore
import KioskInput
import KioskLibrary
import KioskMPD
import KioskSystem
import Testing

/// The operations `Player+Remote.swift` adds, called directly on the loop thread.
@Suite(.tags(.integration), .serialized) struct PlayerRemoteTests {
    func tracks(_ h: Harness, _ folder: String) -> [Track] {
        (h.player.catalog?.allTracks ?? []).filter { $0.relativePath.hasPrefix(folder) }.sorted {
            $0.relativePath < $1.relativePath
        }
    }

    @Test func insertingBeforeTheCurrentEntryKeepsItPlaying() throws {
        let h = try Harness()
        h.player.remoteInsert(tracks(h, "Aurora Quartet/Northern Lights"))
        #expect(h.player.remotePlay(at: 1))
        _ = try h.loop.run(until: { h.player.positionSeconds > 0.2 }, timeoutNanoseconds: 10_000_000_000)
        let position = h.player.enginePositionSeconds
        h.player.remoteInsert(tracks(h, "The Field Recorders"), at: 0)
        #expect(h.player.queue.count == 5)
        #expect(h.player.queueIndex == 3)
        #expect(h.player.currentTrack?.title == "Green Curtain")
        #expect(h.player.status == .playing)
        // The engine plays the same entry on from where it was (not from its start).
        #expect(h.player.positionSeconds >= position)
        let advanced = try h.loop.run(
            until: { h.player.positionSeconds > position + 0.2 }, timeoutNanoseconds: 10_000_000_000)
        #expect(advanced)
        #expect(h.player.currentTrack?.title == "Green Curtain")
    }

    /// `add` while the last entry plays its final seconds: the engine already reached the end of
    /// the queue it knew, and still goes on into the appended entries instead of stopping.
    @Test func entriesAppendedWhileTheLastOnePlaysFollowIt() throws {
        let h = try Harness()
        let album = tracks(h, "Aurora Quartet/Northern Lights")
        h.player.remoteInsert(album)
        #expect(h.player.remotePlay(at: album.count - 1))
        let last = try #require(album.last)
        #expect(h.player.remoteSeek(toSeconds: max(0, (last.durationSeconds ?? 3) - 2)))
        try h.spin(milliseconds: 200)
        let more = tracks(h, "The Field Recorders")
        h.player.remoteInsert(more)
        #expect(h.player.queue.count == album.count + more.count)
        #expect(h.player.currentTrack?.title == last.title, "the playing entry goes on")
        #expect(h.player.status == .playing)
        let advanced = try h.loop.run(
            until: { h.player.queueIndex == album.count }, timeoutNanoseconds: 10_000_000_000)
        #expect(advanced)
        #expect(h.player.status == .playing)
        #expect(h.player.currentTrack?.title == more.first?.title)
    }

    @Test func deletingTheCurrentEntryGoesOnWithTheNext() throws {
        let h = try Harness()
        h.player.remoteInsert(tracks(h, "Aurora Quartet/Northern Lights"))
        h.player.remotePlay(at: 1)
        h.player.remoteDelete(1..<2)
        #expect(h.player.queue.map(\.title) == ["Polar Night", "Solar Wind"])
        #expect(h.player.currentTrack?.title == "Solar Wind")
        #expect(h.player.status == .playing)
        // The last one: the player stops at the start of the queue.
        h.player.remoteDelete(1..<2)
        #expect(h.player.status == .stopped)
        #expect(h.player.queueIndex == 0)
        h.player.remoteClear()
        #expect(h.player.queue.isEmpty)
    }

    @Test func movingEntriesFollowsTheCurrentOne() throws {
        let h = try Harness()
        h.player.remoteInsert(tracks(h, "Aurora Quartet/Northern Lights"))
        h.player.remotePlay(at: 0)
        #expect(h.player.remoteMove(0..<1, to: 2))
        #expect(h.player.queue.map(\.title) == ["Green Curtain", "Solar Wind", "Polar Night"])
        #expect(h.player.queueIndex == 2)
        #expect(h.player.currentTrack?.title == "Polar Night")
        #expect(!h.player.remoteMove(0..<2, to: 2))
    }

    @Test func pauseResumeAndSeekKeepThePosition() throws {
        let h = try Harness()
        h.player.remoteInsert(tracks(h, "Aurora Quartet/Northern Lights"))
        h.player.remotePlay(at: 0)
        #expect(h.player.remoteSeek(toSeconds: 10))
        #expect(h.player.positionSeconds == 10)
        h.player.remotePause(true)
        #expect(h.player.status == .paused)
        h.player.remotePause(nil)
        #expect(h.player.status == .playing)
        try h.spin(milliseconds: 600)
        #expect(h.player.positionSeconds >= 10)
        h.player.remoteStop()
        #expect(!h.player.remoteSeek(toSeconds: 3))
        #expect(!h.player.remoteNext())
    }

    @Test func aButtonResumesAfterARemoteQueueEditWhilePaused() throws {
        let h = try Harness()
        h.player.remoteInsert(tracks(h, "Aurora Quartet/Northern Lights"))
        h.player.remotePlay(at: 0)
        try h.spin(milliseconds: 300)
        h.player.remotePause(true)
        // The edit hands the engine a new queue, positioned; the button must still resume it.
        h.player.remoteInsert(tracks(h, "Loose"))
        #expect(h.player.status == .paused)
        h.pressButton(line: 5)
        #expect(h.player.status == .playing)
        let before = h.player.positionSeconds
        let advanced = try h.loop.run(
            until: { h.player.positionSeconds > before + 0.1 }, timeoutNanoseconds: 10_000_000_000)
        #expect(advanced)
    }
}
