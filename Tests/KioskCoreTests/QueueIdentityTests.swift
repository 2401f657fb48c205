// SPDX-License-Identifier: GPL-3.0-or-later
import KioskLibrary
import KioskModel
import Testing

@testable import KioskCore

/// What remote clients know queue entries by (`QueueIdentity`, kept by `PlayQueue`'s edits): a
/// song id names one entry from its add until it leaves, whatever happens in between, and the
/// queue's version moves forward with every change.
@Suite struct QueueIdentityTests {
    /// The queue as a client would model it: (id, track) in queue order.
    struct Model {
        var entries: [(id: UInt32, track: Track)] = []
        var ids: [UInt32] { entries.map(\.id) }
    }

    /// Random add/addid/move/moveid/swap/shuffle/delete/consume/prio sequences (and shuffle mode
    /// switched on and off): after each step the queue and a client's model agree on every entry,
    /// every remembered id names its song, removed ids name nothing, and the version went up.
    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func everyRememberedIDStillNamesItsSongAfterRandomEdits(seed: UInt64) throws {
        let pool = try PlayQueueFixture.allTracks()
        var random = SplitMix(seed: seed)
        func pick(_ n: Int) -> Int { Int(random.next() % UInt64(max(1, n))) }
        var queue = PlayQueue(seed: seed)
        var model = Model()
        var removed: Set<UInt32> = []
        var lastVersion = queue.identity.version
        for step in 0..<1500 {
            let count = model.entries.count
            var operation = ""
            // MPD leaves the version alone for a move to where the range is and a shuffle of < 2.
            var changes = true
            switch pick(count < 3 ? 3 : 11) {
            case 0:
                let tracks = (0..<(1 + pick(3))).map { _ in pool[pick(pool.count)] }
                operation = "add \(tracks.count)"
                queue.append(tracks)
                let ids = Array(queue.identity.songIDs.suffix(tracks.count))
                model.entries += zip(ids, tracks).map { ($0, $1) }
            case 1, 2:
                let track = pool[pick(pool.count)]
                let at = pick(count + 1)
                operation = "addid at \(at)"
                let ids = queue.insert([track], at: at)
                try #require(ids.count == 1)
                #expect(
                    !model.ids.contains(ids[0]) && !removed.contains(ids[0]), "a new id was given before: \(ids[0])")
                model.entries.insert((ids[0], track), at: at)
            case 3:
                let start = pick(count)
                let length = 1 + pick(count - start)
                let to = pick(count - length + 1)
                operation = "move \(start):\(start + length) \(to)"
                changes = start != to
                let applied = queue.move(start..<start + length, to: to)
                #expect(applied)
                let moved = Array(model.entries[start..<start + length])
                model.entries.removeSubrange(start..<start + length)
                model.entries.insert(contentsOf: moved, at: to)
            case 4:
                // moveid: by the id the client remembers.
                let id = model.ids[pick(count)]
                let to = pick(count)
                let from = try #require(queue.identity.position(ofSongID: id))
                operation = "moveid \(id) \(to)"
                changes = from != to
                let applied = queue.move(from..<from + 1, to: to)
                #expect(applied)
                let entry = model.entries.remove(at: from)
                model.entries.insert(entry, at: to)
            case 5:
                let (a, b) = (pick(count), pick(count))
                operation = "swap \(a) \(b)"
                let applied = queue.swap(a, b)
                #expect(applied)
                model.entries.swapAt(a, b)
            case 6:
                let start = pick(count)
                let end = start + pick(count - start + 1)
                operation = "shuffle \(start):\(end)"
                changes = end - start >= 2
                queue.shuffleEntries(start..<end, keepingCurrentFirst: false)
                // Only the range is rearranged: the model takes the queue's new arrangement of it,
                // checked below to keep every id with its song.
                let ids = queue.identity.songIDs
                #expect(Set(ids[start..<end]) == Set(model.ids[start..<end]))
                #expect(Array(ids[..<start]) == Array(model.ids[..<start]))
                #expect(Array(ids[end...]) == Array(model.ids[end...]))
                let byID = Dictionary(uniqueKeysWithValues: model.entries.map { ($0.id, $0.track) })
                model.entries = ids.map { ($0, byID[$0]!) }
            case 7:
                let start = pick(count)
                let end = start + 1 + pick(min(3, count - start))
                operation = "delete \(start):\(end)"
                queue.removeEntries(Set(start..<end))
                removed.formUnion(model.ids[start..<end])
                model.entries.removeSubrange(start..<end)
            case 8:
                let entry = pick(count)
                operation = "consume \(entry)"
                queue.remove(entry: entry)
                removed.insert(model.entries[entry].id)
                model.entries.remove(at: entry)
            case 9:
                let start = pick(count)
                let end = start + pick(count - start + 1)
                operation = "prio \(start):\(end)"
                changes = end > start
                queue.setPriority(UInt8(pick(256)), for: start..<end)
            default:
                let mode = PlayQueue.Shuffle.allCases[pick(3)]
                operation = "random \(mode)"
                changes = false
                queue.setShuffle(mode)
            }
            let context = Comment(rawValue: "step \(step): \(operation)")
            #expect(queue.identity.songIDs == model.ids, context)
            #expect(queue.tracks == model.entries.map(\.track), context)
            #expect(Set(model.ids).count == model.ids.count, "an id names two entries; \(context)")
            for (position, entry) in model.entries.enumerated() {
                #expect(queue.identity.position(ofSongID: entry.id) == position, context)
            }
            for id in removed { #expect(queue.identity.position(ofSongID: id) == nil, context) }
            #expect(queue.order.sorted() == Array(queue.tracks.indices), "the play order is a permutation; \(context)")
            if changes {
                #expect(queue.identity.version > lastVersion, "the version did not move on; \(context)")
            }
            lastVersion = queue.identity.version
            if count > 40 {
                // Keep the queue short enough for every kind of edit to matter.
                queue.removeEntries(Set(0..<20))
                removed.formUnion(model.ids[0..<20])
                model.entries.removeSubrange(0..<20)
                lastVersion = queue.identity.version
            }
        }
    }

    @Test func aMoveKeepsTheIDsOfEveryEntryIncludingThePlayingOne() throws {
        var queue = PlayQueue()
        queue.replace(with: try PlayQueueFixture.allTracks(), collection: nil, current: 2)
        let before = queue.identity.songIDs
        let applied = queue.move(4..<5, to: 0)
        #expect(applied)
        #expect(queue.identity.songIDs == [before[4]] + before[0..<4])
        #expect(queue.index == 3, "the current entry is followed")
        #expect(queue.identity.marks[queue.index].songID == before[2])
    }

    /// A range (`rangeid`) belongs to its entry: it follows the entry through a move, and the
    /// engine's request for the entry carries it in frames of the track's sample rate.
    @Test func aRangeFollowsItsEntryAndReachesTheEngineInFrames() throws {
        var queue = PlayQueue()
        queue.replace(with: try PlayQueueFixture.allTracks(), collection: nil, current: 0)
        let id = queue.identity.songIDs[3]
        queue.setRange(SongRange(startMS: 1_500, endMS: 2_250), at: 3)
        let moved = queue.move(3..<4, to: 0)
        #expect(moved)
        #expect(queue.identity.marks[0].songID == id)
        #expect(queue.identity.marks[0].range == SongRange(startMS: 1_500, endMS: 2_250))
        #expect(queue.identity.marks[4].range == .whole)
        let rate = Int64(queue.tracks[0].sampleRate)
        let request = queue.request(0)
        #expect(request.startFrame == 1_500 * rate / 1000 && request.endFrame == 2_250 * rate / 1000)
    }

    @Test func theSameSongAddedTwiceHasTwoIDs() throws {
        var queue = PlayQueue()
        let song = try PlayQueueFixture.allTracks()[0]
        let first = queue.insert([song], at: 0)
        let second = queue.insert([song], at: 1)
        #expect(first != second)
        queue.removeEntries([queue.identity.position(ofSongID: second[0])!])
        #expect(queue.identity.songIDs == first, "deleting one copy by its id leaves the other")
    }

    @Test func entriesChangedSinceAVersionAreTheMovedAndShiftedOnes() throws {
        var queue = PlayQueue()
        queue.replace(with: try PlayQueueFixture.allTracks(), collection: nil)
        let version = queue.identity.version
        let applied = queue.swap(1, 3)
        #expect(applied)
        #expect(queue.identity.changed(since: version, in: 0..<5) == [1, 3])
        #expect(queue.identity.changed(since: queue.identity.version, in: 0..<5) == [])
    }

    @Test func aVersionFromTheFutureGetsTheWholeQueue() throws {
        var queue = PlayQueue()
        queue.replace(with: try PlayQueueFixture.allTracks(), collection: nil)
        #expect(queue.identity.changed(since: queue.identity.version + 100, in: 0..<5) == [0, 1, 2, 3, 4])
    }

    @Test func aRestartContinuesTheIDsAndTheVersionOfTheRunBefore() throws {
        let tracks = try PlayQueueFixture.allTracks()
        var before = PlayQueue()
        before.replace(with: tracks, collection: nil)
        before.removeEntries([0])
        before.append([tracks[0]])
        let saved = QueueIdentity.runs(of: before.identity.songIDs)
        var after = PlayQueue()
        after.continueIdentity(version: before.identity.version, nextSongID: before.identity.nextSongID)
        after.replace(with: before.tracks, collection: nil)
        after.adoptSongIDs(try #require(saved.flatMap { QueueIdentity.ids(fromRuns: $0) }))
        #expect(after.identity.songIDs == before.identity.songIDs)
        #expect(after.identity.version > before.identity.version)
        #expect(after.insert([tracks[1]], at: 0).allSatisfy { $0 >= before.identity.nextSongID })
    }

    @Test func aRestoredQueueOfAnotherLengthGetsIDsNoClientHasSeen() throws {
        let tracks = try PlayQueueFixture.allTracks()
        var after = PlayQueue()
        after.continueIdentity(version: 50, nextSongID: 900)
        after.replace(with: tracks, collection: nil)
        after.adoptSongIDs([3, 4])
        #expect(after.identity.songIDs == [900, 901, 902, 903, 904])
    }

    @Test func songIDRunsAreShortForACollectionAndBounded() {
        #expect(QueueIdentity.runs(of: [5, 6, 7, 9, 12, 13]) == "5-7,9,12-13")
        #expect(QueueIdentity.ids(fromRuns: "5-7,9,12-13") == [5, 6, 7, 9, 12, 13])
        #expect(QueueIdentity.runs(of: Array(stride(from: 1, to: 300, by: 2))) == nil)
        #expect(QueueIdentity.ids(fromRuns: "1-4000000000") == nil, "a damaged file cannot allocate billions")
        #expect(QueueIdentity.ids(fromRuns: "7-3") == nil)
        #expect(QueueIdentity.ids(fromRuns: "x") == nil)
    }

    /// In random mode the entries after the current one play in priority order (MPD's `prio`).
    @Test func higherPrioritiesPlayFirstInAShuffle() throws {
        var queue = PlayQueue(seed: 7)
        queue.replace(with: try PlayQueueFixture.allTracks(), collection: nil, current: 0)
        queue.chooseCurrent()
        queue.setShuffle(.tracks)
        queue.setPriority(200, for: 4..<5)
        queue.setPriority(100, for: 2..<3)
        #expect(queue.order.first == 0, "the current entry stays first")
        #expect(Array(queue.order[1...2]) == [4, 2])
    }

    /// A jump in a shuffle (MPD's `play N` in random mode) takes the current entry's place in the
    /// play order: what was still to play still plays, nothing is skipped or repeated.
    @Test func aJumpInAShuffleKeepsWhatWasStillToPlay() throws {
        var queue = PlayQueue(seed: 3)
        queue.replace(with: try PlayQueueFixture.allTracks(), collection: nil, current: 0)
        queue.chooseCurrent()
        queue.setShuffle(.tracks)
        let toPlay = Set(queue.order.dropFirst())
        let target = queue.order[3]
        queue.jump(to: target)
        let at = queue.orderPosition(of: target)
        #expect(Set(queue.order[(at + 1)...]) == toPlay.subtracting([target]))
    }
}
