// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel

/// How a scan makes tracks from what the reader found (the track itself is `KioskModel`'s).
extension Track {
    /// A track from what the reader found.
    ///
    /// - Parameters:
    ///   - sameFolderAs: a track made just before, whose folder string is shared when this one
    ///     lies in the same folder (tracks of an album then share one allocation).
    ///   - strings: shares equal artist, album, genre and date strings between tracks.
    init(
        volume: TrackVolume, file: ScannedFile, info: TrackInfo, sameFolderAs previous: Track? = nil,
        strings: inout StringPool
    ) {
        let tags = info.tags
        // Values come cleaned (no control characters, trimmed, non-empty) from the reader.
        func joined(_ values: [String]) -> String? {
            values.isEmpty ? nil : values.count == 1 ? values[0] : values.joined(separator: ", ")
        }
        func pooled(_ values: [String]) -> String? { joined(values).map { strings.shared($0) } }
        let values = Values(
            title: joined(tags.titles), artist: pooled(tags.artists), album: pooled(tags.albums),
            albumArtist: pooled(tags.albumArtists), genre: pooled(tags.genres),
            date: tags.dates.first.map { strings.shared($0) }, trackNumber: tags.trackNumber,
            trackTotal: tags.trackTotal, discNumber: tags.discNumber, discTotal: tags.discTotal,
            sampleRate: info.sampleRate, channels: info.channels, bitsPerSample: info.bitsPerSample,
            totalFrames: info.totalFrames, hasPicture: info.hasPicture)
        var kept = tags
        // Album-wide extra values (MusicBrainz album and artist ids, sort names) are shared too.
        for i in kept.extras.indices {
            kept.extras[i] = ExtraTagValue(kept.extras[i].tag, strings.shared(kept.extras[i].value))
        }
        // RawTags.make keeps what the display values cannot stand for, nothing for most files.
        self.init(volume: volume, file: file, values: values, rawTags: kept, sameFolderAs: previous)
    }

    /// A track of `file` from its values (`Track.init(volume:relativePath:…)`).
    init(volume: TrackVolume, file: ScannedFile, values: Values, rawTags: TrackTags?, sameFolderAs previous: Track?) {
        self.init(
            volume: volume, relativePath: file.relativePath, fileSize: file.size,
            modificationTime: file.modificationTime, values: values, rawTags: rawTags, sameFolderAs: previous)
    }

    /// What the reader found, as the index stores it.
    var info: TrackInfo {
        TrackInfo(
            sampleRate: sampleRate, channels: channels, bitsPerSample: bitsPerSample, totalFrames: totalFrames,
            tags: tags, hasPicture: hasEmbeddedPicture)
    }
}
