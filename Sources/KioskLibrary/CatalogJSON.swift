// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import KioskSystem

extension Catalog {
    /// The catalog as JSON: `tracks` (canonical order), `categories` (each collection with its
    /// tracks as indices into `tracks`, in play order) and `problems`. For `kiosk-player scan --json`
    /// and for tools. Thread: any.
    public func jsonValue() -> JSONValue {
        var positions: [String: Int] = [:]
        for (i, track) in allTracks.enumerated() { positions[track.volume.rawValue + "\u{0}" + track.relativePath] = i }
        func position(_ track: Track) -> Double {
            Double(positions[track.volume.rawValue + "\u{0}" + track.relativePath] ?? -1)
        }
        let tracks = allTracks.map { Catalog.json($0) }
        var categories: [(key: String, value: JSONValue)] = []
        for category in Category.allCases {
            let list = collections(in: category).map { collection -> JSONValue in
                .object([
                    ("key", .string(collection.key)),
                    ("name", .string(collection.name)),
                    ("subtitle", .string(collection.subtitle)),
                    ("representative", .number(position(collection.representative))),
                    ("tracks", .array(self.tracks(of: collection).map { .number(position($0)) })),
                ])
            }
            categories.append((category.rawValue, .array(list)))
        }
        let problems = problems.map { problem -> JSONValue in
            .object([
                ("volume", .string(problem.volume.rawValue)),
                ("path", .string(problem.relativePath)),
                ("reason", .string(problem.reason)),
                ("severity", .string(problem.severity.rawValue)),
            ])
        }
        return .object([
            ("trackCount", .number(Double(trackCount))),
            ("tracks", .array(tracks)),
            ("categories", .object(categories)),
            ("problems", .array(problems)),
        ])
    }

    static func json(_ track: Track) -> JSONValue {
        // Typed helpers and an annotated list: Swift 6.0's type checker gives up on the literal otherwise.
        func optional(_ value: Int?) -> JSONValue { value.map { .number(Double($0)) } ?? .null }
        func optional(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }
        func optional(_ value: Double?) -> JSONValue { value.map { .number($0) } ?? .null }
        let duration: Double? = track.durationSeconds.map { ($0 * 1000).rounded() / 1000 }
        let members: [(String, JSONValue)] = [
            ("volume", .string(track.volume.rawValue)),
            ("path", .string(track.relativePath)),
            ("title", .string(track.title)),
            ("artist", .string(track.artist)),
            ("album", .string(track.album)),
            ("albumArtist", .string(track.albumArtist)),
            ("genre", .string(track.genre)),
            ("date", optional(track.date)),
            ("trackNumber", optional(track.trackNumber)),
            ("trackTotal", optional(track.trackTotal)),
            ("discNumber", optional(track.discNumber)),
            ("sampleRate", .number(Double(track.sampleRate))),
            ("channels", .number(Double(track.channels))),
            ("bitsPerSample", .number(Double(track.bitsPerSample))),
            ("totalFrames", optional(track.totalFrames.map { Double($0) })),
            ("durationSeconds", optional(duration)),
            ("embeddedPicture", .bool(track.hasEmbeddedPicture)),
        ]
        return .object(members)
    }
}
