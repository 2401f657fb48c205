// SPDX-License-Identifier: GPL-3.0-or-later
/// A condition on tracks for `Catalog.query`, like MPMediaPropertyPredicate: a field, a
/// comparison and a value. Comparison ignores case and accents. Thread: any.
public struct Predicate: Sendable, Hashable {
    /// The track property compared.
    public enum Field: String, Sendable, Hashable, CaseIterable {
        /// Any of the track's artists (or the fallback "Unknown Artist").
        case artist
        case album
        case albumArtist
        /// Any of the track's genres (or "Unknown Genre").
        case genre
        case title
        case date
        /// The folder part of the relative path.
        case folder
        /// The volume's ID.
        case volume
    }

    public enum Comparison: String, Sendable, Hashable {
        case equalTo
        case contains
    }

    public let field: Field
    public let comparison: Comparison
    public let value: String

    public init(_ field: Field, _ comparison: Comparison = .equalTo, _ value: String) {
        self.field = field
        self.comparison = comparison
        self.value = value
    }

    public static func artist(_ value: String) -> Predicate { Predicate(.artist, .equalTo, value) }
    public static func album(_ value: String) -> Predicate { Predicate(.album, .equalTo, value) }
    public static func albumArtist(_ value: String) -> Predicate { Predicate(.albumArtist, .equalTo, value) }
    public static func genre(_ value: String) -> Predicate { Predicate(.genre, .equalTo, value) }
    public static func title(_ value: String) -> Predicate { Predicate(.title, .equalTo, value) }
}
