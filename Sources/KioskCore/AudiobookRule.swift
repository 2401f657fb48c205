// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskModel

/// Which collections are audiobooks: a collection whose tracks mostly carry one of the genres of
/// config `audiobookGenres` (compared without case) or lie in a folder marked with a file named
/// `.audiobook` (`Track.isInAudiobookFolder`). An audiobook plays in its own order whatever
/// the shuffle.
///
/// Thread: any (a value).
public struct AudiobookRule: Sendable, Equatable {
    /// The default genres (`Config.defaultAudiobookGenres`, where the config reads them).
    public static let defaultGenres = Config.defaultAudiobookGenres

    private let genres: Set<String>

    public init(genres: [String] = AudiobookRule.defaultGenres) {
        self.genres = Set(genres.map { $0.lowercased() })
    }

    /// Whether `tracks` are an audiobook: more than half of them have an audiobook genre or lie in
    /// a marked folder.
    public func isAudiobook(_ tracks: [Track]) -> Bool {
        guard !tracks.isEmpty else { return false }
        let spoken = tracks.count { $0.isInAudiobookFolder || genres.contains($0.genre.lowercased()) }
        return spoken * 2 > tracks.count
    }
}
