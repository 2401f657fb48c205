import KioskLibrary

/// Bookmarks (config `bookmarks`: "audiobooks", the default, "all" or "off"): a collection that
/// qualifies remembers its track and position in `BookmarkStore`; choosing it again in browse
/// continues there (`play-from-start` starts it from its first track); one played to its end
/// starts over. Thread: the loop thread, like `Player`.
extension Player {
    /// Whether a queue made of a collection is bookmarked.
    func bookmarksApply(audiobook: Bool) -> Bool {
        switch config.bookmarks {
        case .off: false
        case .all: true
        case .audiobooks: audiobook
        }
    }

    /// Records where the queue's collection is now (at each save of the resume state), or that it
    /// was played to its end. A playing track is written again only after 30 s of it, unless
    /// `leaving` (another collection replaces it: its place must be kept to the second).
    func noteBookmark(finished: Bool = false, leaving: Bool = false) {
        guard let collection = queueCollection, let track = currentTrack, !engineQueueIsProvisional,
            bookmarksApply(audiobook: playQueue.isAudiobook)
        else { return }
        let frames = finished ? 0 : livePositionFrames
        let playing = status == .playing
        if !finished, !leaving, let last = lastBookmarked, last.relativePath == track.relativePath,
            last.playing == playing,
            playing, abs(frames - last.frames) < Int64(30 * max(1, sampleRate))
        {
            return
        }
        lastBookmarked = (track.relativePath, frames, playing)
        bookmarks.record(
            BookmarkStore.Bookmark(
                volumeID: track.volume.rawValue, category: collection.category.rawValue, key: collection.key,
                relativePath: finished ? (queue.first?.relativePath ?? track.relativePath) : track.relativePath,
                positionFrames: frames, sampleRate: sampleRate, finished: finished, stamp: 0))
    }

    /// The entry and frame the bookmark of `collection` names in `tracks`, nil when there is none
    /// (no bookmark, bookmarks off for it, played to its end, or the track is gone).
    func bookmarkedPlace(in tracks: [Track], collection: Collection, audiobook: Bool) -> (index: Int, frame: Int64)? {
        guard bookmarksApply(audiobook: audiobook), let volume = tracks.first?.volume.rawValue,
            let mark = bookmarks.bookmark(
                volumeID: volume, category: collection.category.rawValue, key: collection.key),
            !mark.finished,
            let index = tracks.firstIndex(where: { $0.relativePath == mark.relativePath })
        else { return nil }
        lastBookmarked = nil
        return (index, tracks[index].sampleRate == mark.sampleRate ? mark.positionFrames : 0)
    }
}
