// SPDX-License-Identifier: GPL-3.0-or-later
/// How the queue's entries are ordered for playing (`PlayQueue.Shuffle`; config `shuffle`).
///
/// Thread: a value; any thread.
public enum ShuffleMode: String, Equatable, Sendable, CaseIterable {
    /// The queue's own order.
    case off
    /// Every track once, in random order.
    case tracks
    /// Whole albums in random order, each album's tracks in their order.
    case albums
}
