// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskModel

/// What the player remembers of collections: which are audiobooks (never shuffled, bookmarked by
/// default) and, with bookmarks on for them (config `bookmarks`: "audiobooks", the default, "all"
/// or "off"), where each was left (`BookmarkStore`): choosing it again in browse continues there
/// (`play-from-start` starts it from its first track); one played to its end starts over. A card in
/// mode `continue` keeps its collection's place whatever the policy (`alwaysKept`).
///
/// Thread: the loop thread (the player's part).
final class CollectionMemory {
    /// Written again for a playing track only after this much of it.
    static let playingRewriteSeconds = 30

    private let policy: Config.Bookmarks
    private let audiobooks: AudiobookRule
    private let store: BookmarkStore
    /// The last place written: a playing track is written again only after 30 s.
    private var lastWritten: (relativePath: String, frames: Int64, playing: Bool)?
    /// Whether a collection keeps its place whatever the policy (a card's mode `continue`).
    var alwaysKept: (Collection) -> Bool = { _ in false }

    /// Where the bookmarks' file is written (see `BookmarkStore.writeFile`).
    var writeFile: ((_ path: String, _ text: String) -> Void)? {
        get { store.writeFile }
        set { store.writeFile = newValue }
    }

    init(config: Config) {
        policy = config.bookmarks
        audiobooks = AudiobookRule(genres: config.audiobookGenres)
        store = BookmarkStore(directory: config.stateDirectory)
    }

    /// Whether `tracks` are an audiobook's.
    func isAudiobook(_ tracks: [Track]) -> Bool { audiobooks.isAudiobook(tracks) }

    /// Whether a queue made of a collection is bookmarked.
    func applies(audiobook: Bool) -> Bool {
        switch policy {
        case .off: false
        case .all: true
        case .audiobooks: audiobook
        }
    }

    /// Records where `queue`'s collection is now (`frames` into its current track), or that it was
    /// played to its end. A playing track is written again only after 30 s of it, unless `leaving`
    /// (another collection replaces it: its place must be kept to the second).
    func note(
        _ queue: PlayQueue, frames: Int64, sampleRate: Int, playing: Bool, finished: Bool = false,
        leaving: Bool = false
    ) {
        guard let collection = queue.collection, let track = queue.current,
            applies(audiobook: queue.isAudiobook) || alwaysKept(collection)
        else { return }
        let frames = finished ? 0 : frames
        if !finished, !leaving, let last = lastWritten, last.relativePath == track.relativePath,
            last.playing == playing, playing,
            abs(frames - last.frames) < Int64(Self.playingRewriteSeconds * max(1, sampleRate))
        {
            return
        }
        lastWritten = (track.relativePath, frames, playing)
        store.record(
            BookmarkStore.Bookmark(
                volumeID: track.volume.rawValue, category: collection.category.rawValue, key: collection.key,
                relativePath: finished ? (queue.tracks.first?.relativePath ?? track.relativePath) : track.relativePath,
                positionFrames: frames, sampleRate: sampleRate, finished: finished, stamp: 0))
    }

    /// The entry and frame the bookmark of `collection` names in `tracks`, nil when there is none
    /// (no bookmark, bookmarks off for it, played to its end, or the track is gone).
    func place(in tracks: [Track], collection: Collection, audiobook: Bool) -> (index: Int, frame: Int64)? {
        guard applies(audiobook: audiobook) || alwaysKept(collection), let volume = tracks.first?.volume.rawValue,
            let mark = store.bookmark(volumeID: volume, category: collection.category.rawValue, key: collection.key),
            !mark.finished,
            let index = tracks.firstIndex(where: { $0.relativePath == mark.relativePath })
        else { return nil }
        lastWritten = nil
        return (index, tracks[index].sampleRate == mark.sampleRate ? mark.positionFrames : 0)
    }

    /// Every bookmark, oldest change first (for a stick's set, `StickSet`).
    var bookmarks: [BookmarkStore.Bookmark] { store.all }

    /// Replaces every bookmark (an import from a stick, or its undo) and saves.
    func replaceBookmarks(_ list: [BookmarkStore.Bookmark]) {
        lastWritten = nil
        store.replaceAll(list)
    }
}
