// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel

/// Whether a card lies on a polled reader, from what each poll saw: a card is presented when it is
/// first seen, and removed after `missesToRemove` polls in a row without it (one poll can miss a
/// card at the edge of the field, or one taken for a garbled reply). A different card replacing it
/// removes the first.
///
/// Thread: a value; one thread at a time.
public struct CardPresence: Sendable {
    public static let defaultMissesToRemove = 2

    public let missesToRemove: Int
    public private(set) var present: CardUID?
    private var misses = 0

    public init(missesToRemove: Int = CardPresence.defaultMissesToRemove) {
        self.missesToRemove = max(1, missesToRemove)
    }

    /// One poll's result (nil: no card, or no readable one); returns what changed, in order.
    public mutating func observe(_ seen: CardUID?) -> [(CardEvent.Kind, CardUID)] {
        guard let seen else {
            guard let card = present else { return [] }
            misses += 1
            if misses < missesToRemove { return [] }
            present = nil
            misses = 0
            return [(.removed, card)]
        }
        misses = 0
        if seen == present { return [] }
        var changes: [(CardEvent.Kind, CardUID)] = []
        if let old = present { changes.append((.removed, old)) }
        present = seen
        changes.append((.presented, seen))
        return changes
    }

    /// The reader is gone: a card on it is removed at once.
    public mutating func forget() -> [(CardEvent.Kind, CardUID)] {
        defer {
            present = nil
            misses = 0
        }
        return present.map { [(.removed, $0)] } ?? []
    }
}
