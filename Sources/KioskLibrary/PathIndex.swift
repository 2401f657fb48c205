// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import KioskSystem

/// Finds a track by volume and relative path: an open-addressing hash table of track indices
/// (4 bytes a slot, at most two thirds full), the keys being the tracks' own strings, so no path
/// is stored twice. Paths are hashed and compared by their bytes (`PathKey`): two names that
/// differ only in Unicode normalization are two files. Thread: any (a value).
struct PathIndex: Sendable {
    /// Track index + 1; 0 is an empty slot.
    private let slots: [UInt32]

    init(_ tracks: [Track]) {
        var capacity = 16
        while capacity < tracks.count + tracks.count / 2 { capacity <<= 1 }
        var slots = [UInt32](repeating: 0, count: capacity)
        let mask = capacity - 1
        for (i, track) in tracks.enumerated() {
            var slot = PathIndex.hash(track.volume, track.relativePath) & mask
            while slots[slot] != 0 {
                let other = tracks[Int(slots[slot]) - 1]
                // The same file twice: the later one wins, as a dictionary would have it.
                if PathKey.sameBytes(other.relativePath, track.relativePath) && other.volume == track.volume { break }
                slot = (slot + 1) & mask
            }
            slots[slot] = UInt32(i + 1)
        }
        self.slots = slots
    }

    /// The index in `tracks` (those the index was made of) of the track at `relativePath` on `volume`.
    func find(volume: VolumeID, relativePath: String, in tracks: [Track]) -> Int? {
        let mask = slots.count - 1
        var slot = PathIndex.hash(volume, relativePath) & mask
        while slots[slot] != 0 {
            let i = Int(slots[slot]) - 1
            if PathKey.sameBytes(tracks[i].relativePath, relativePath) && tracks[i].volume == volume { return i }
            slot = (slot + 1) & mask
        }
        return nil
    }

    private static func hash(_ volume: VolumeID, _ relativePath: String) -> Int {
        var hasher = Hasher()
        hasher.combine(volume)
        hasher.combine(PathKey(relativePath))
        return hasher.finalize()
    }
}
