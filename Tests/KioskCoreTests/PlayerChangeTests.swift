// SPDX-License-Identifier: GPL-3.0-or-later
import Testing

@testable import KioskCore

/// What the player tells its listeners, typed (`PlayerChange`): remote clients hear which aspects
/// changed, each change once, without reading the player back.
@Suite struct PlayerChangeTests {
    /// The aspects of every `.remote` change heard while `body` ran.
    private static func remote(_ rig: PlayerRig, _ body: () throws -> Void) rethrows -> [PlayerAspects] {
        var heard: [PlayerAspects] = []
        let id = rig.player.listen(to: .remote) { change in
            if case .remote(let aspects) = change { heard.append(aspects) }
        }
        defer { rig.player.stopListening(id) }
        try body()
        return heard
    }

    @Test func aVolumeChangeIsAVolumeChangeAndNothingElse() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        defer { rig.shutdown() }
        try rig.playFirst()
        let heard = Self.remote(rig) { rig.player.perform(.setVolume(rig.player.volume - 10), from: .remote) }
        #expect(heard == [.volume])
    }

    @Test func aOneSecondSeekIsAPlaybackChange() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        defer { rig.shutdown() }
        try rig.playFirst()
        try rig.idle(1_500)
        let heard = Self.remote(rig) {
            rig.player.perform(.seek(entry: nil, seconds: rig.player.positionSeconds + 1), from: .remote)
        }
        #expect(heard.contains { $0.contains(.playback) }, "heard \(heard)")
    }

    @Test func aListenerForOneKindHearsNoOther() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        defer { rig.shutdown() }
        var kinds: [PlayerChange.Kinds] = []
        rig.player.listen(to: .light) { kinds.append($0.kind) }
        try rig.playFirst()
        #expect(!kinds.isEmpty)
        #expect(kinds.allSatisfy { $0 == .light })
    }

    @Test func aRemovedListenerHearsNothingMore() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main])
        defer { rig.shutdown() }
        var heard = 0
        let id = rig.player.listen { _ in heard += 1 }
        rig.player.stopListening(id)
        try rig.playFirst()
        #expect(heard == 0)
    }
}

/// `RemoteChanges` on its own: the queue's counters moving are the events.
struct RemoteChangesTests {
    private static func queue(_ count: Int) throws -> PlayQueue {
        var queue = PlayQueue(repeats: false)
        queue.replace(with: Array(try PlayQueueFixture.tracks().prefix(count)), collection: nil)
        return queue
    }

    @Test func aNewQueueVersionIsAQueueChangeTakenOnce() throws {
        var changes = RemoteChanges()
        changes.queueChanged(PlayQueue(repeats: false))
        #expect(changes.take() == [], "the first look is where it starts")
        changes.queueChanged(try Self.queue(2))
        #expect(changes.take() == [.queue])
        #expect(changes.take() == [])
    }

    @Test func anOptionChangeIsAnOptionsChange() throws {
        var changes = RemoteChanges()
        var queue = try Self.queue(2)
        changes.queueChanged(queue)
        queue.consume = true
        changes.queueChanged(queue)
        #expect(changes.take() == [.options])
    }

    @Test func noteAddsToWhatIsPendingUntilTaken() {
        var changes = RemoteChanges()
        changes.note(.volume)
        changes.note([.output, .volume])
        #expect(changes.take() == [.volume, .output])
    }
}
