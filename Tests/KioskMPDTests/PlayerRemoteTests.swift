// SPDX-License-Identifier: GPL-3.0-or-later
import KioskCore
import KioskInput
import KioskLibrary
import KioskMPD
import KioskModel
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
        h.player.perform(.insert(tracks(h, "Aurora Quartet/Northern Lights"), at: nil), from: .remote)
        #expect(h.player.perform(.playEntry(1), from: .remote))
        _ = try h.loop.run(until: { h.player.positionSeconds > 0.2 }, timeoutNanoseconds: 10_000_000_000)
        let position = h.player.enginePositionSeconds
        h.player.perform(.insert(tracks(h, "The Field Recorders"), at: 0), from: .remote)
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
        h.player.perform(.insert(album, at: nil), from: .remote)
        #expect(h.player.perform(.playEntry(album.count - 1), from: .remote))
        let last = try #require(album.last)
        #expect(h.player.perform(.seek(entry: nil, seconds: max(0, (last.durationSeconds ?? 3) - 2)), from: .remote))
        try h.spin(milliseconds: 200)
        let more = tracks(h, "The Field Recorders")
        h.player.perform(.insert(more, at: nil), from: .remote)
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
        h.player.perform(.insert(tracks(h, "Aurora Quartet/Northern Lights"), at: nil), from: .remote)
        h.player.perform(.playEntry(1), from: .remote)
        h.player.perform(.delete(1..<2), from: .remote)
        #expect(h.player.queue.map(\.title) == ["Polar Night", "Solar Wind"])
        #expect(h.player.currentTrack?.title == "Solar Wind")
        #expect(h.player.status == .playing)
        // The last one: the player stops at the start of the queue.
        h.player.perform(.delete(1..<2), from: .remote)
        #expect(h.player.status == .stopped)
        #expect(h.player.queueIndex == 0)
        h.player.perform(.clear, from: .remote)
        #expect(h.player.queue.isEmpty)
    }

    @Test func movingEntriesFollowsTheCurrentOne() throws {
        let h = try Harness()
        h.player.perform(.insert(tracks(h, "Aurora Quartet/Northern Lights"), at: nil), from: .remote)
        h.player.perform(.playEntry(0), from: .remote)
        #expect(h.player.perform(.move(0..<1, to: 2), from: .remote))
        #expect(h.player.queue.map(\.title) == ["Green Curtain", "Solar Wind", "Polar Night"])
        #expect(h.player.queueIndex == 2)
        #expect(h.player.currentTrack?.title == "Polar Night")
        #expect(!h.player.perform(.move(0..<2, to: 2), from: .remote))
    }

    @Test func pauseResumeAndSeekKeepThePosition() throws {
        let h = try Harness()
        h.player.perform(.insert(tracks(h, "Aurora Quartet/Northern Lights"), at: nil), from: .remote)
        h.player.perform(.playEntry(0), from: .remote)
        #expect(h.player.perform(.seek(entry: nil, seconds: 10), from: .remote))
        #expect(h.player.positionSeconds == 10)
        h.player.perform(.pause, from: .remote)
        #expect(h.player.status == .paused)
        h.player.perform(.togglePause, from: .remote)
        #expect(h.player.status == .playing)
        try h.spin(milliseconds: 600)
        #expect(h.player.positionSeconds >= 10)
        h.player.perform(.stop, from: .remote)
        #expect(!h.player.perform(.seek(entry: nil, seconds: 3), from: .remote))
        #expect(!h.player.perform(.next, from: .remote))
    }

    @Test func aButtonResumesAfterARemoteQueueEditWhilePaused() throws {
        let h = try Harness()
        h.player.perform(.insert(tracks(h, "Aurora Quartet/Northern Lights"), at: nil), from: .remote)
        h.player.perform(.playEntry(0), from: .remote)
        try h.spin(milliseconds: 300)
        h.player.perform(.pause, from: .remote)
        // The edit hands the engine a new queue, positioned; the button must still resume it.
        h.player.perform(.insert(tracks(h, "Loose"), at: nil), from: .remote)
        #expect(h.player.status == .paused)
        h.pressButton(line: 5)
        #expect(h.player.status == .playing)
        let before = h.player.positionSeconds
        let advanced = try h.loop.run(
            until: { h.player.positionSeconds > before + 0.1 }, timeoutNanoseconds: 10_000_000_000)
        #expect(advanced)
    }
}
