// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel

/// The tag fields the library uses, how comment and property names map to them, and how values
/// are added to `TrackTags` (one home for FLAC's Vorbis comments and TagLib's property maps).
///
/// The box's own fields take the names it always took; the `ExtraTag`s are read as MPD 0.23 reads
/// them: a Vorbis comment named as the tag (plus MPD's DESCRIPTION, MOVEMENTNAME, MOVEMENT), and
/// from ID3v2 only the frames MPD reads (TPE4 is Performer, TIT1 Grouping, handed over by
/// kiosk_tags.cpp as "ID3 TPE4" and "ID3 TIT1"; the MusicBrainz ids from TXXX and UFID), through
/// the names TagLib gives those frames.
///
/// Thread: stateless; any.
enum TagFields {
    static let maxValuesPerField = 16

    enum Field {
        case title, artist, album, albumArtist, genre, date, trackNumber, trackTotal, discNumber, discTotal
        case extra(ExtraTag)
        case replayGain(ReplayGainField)
    }

    /// The ReplayGain tags (REPLAYGAIN_* in any format; Opus's R128_* in Q7.8 dB).
    enum ReplayGainField { case trackGain, trackPeak, albumGain, albumPeak, r128Track, r128Album }

    /// Read from every format, under the same names (TagLib gives ID3v2 TXXX, APE and MP4 freeform
    /// items their description as name; any case, as MPD compares them).
    private static let replayGainFields: [(String, Field)] = [
        ("REPLAYGAIN_TRACK_GAIN", .replayGain(.trackGain)), ("REPLAYGAIN_TRACK_PEAK", .replayGain(.trackPeak)),
        ("REPLAYGAIN_ALBUM_GAIN", .replayGain(.albumGain)), ("REPLAYGAIN_ALBUM_PEAK", .replayGain(.albumPeak)),
        ("R128_TRACK_GAIN", .replayGain(.r128Track)), ("R128_ALBUM_GAIN", .replayGain(.r128Album)),
    ]

    private static let boxFields: [(String, Field)] = [
        ("TITLE", .title), ("ARTIST", .artist), ("ALBUM", .album), ("ALBUMARTIST", .albumArtist),
        ("ALBUM ARTIST", .albumArtist), ("ALBUM_ARTIST", .albumArtist), ("GENRE", .genre), ("DATE", .date),
        ("YEAR", .date), ("TRACKNUMBER", .trackNumber), ("TRACKTOTAL", .trackTotal), ("TOTALTRACKS", .trackTotal),
        ("DISCNUMBER", .discNumber), ("DISCTOTAL", .discTotal), ("TOTALDISCS", .discTotal),
    ]

    /// Vorbis comments (FLAC, Ogg, Opus) and TagLib's names of MP4 atoms: MPD's tag names, where
    /// MPD's own table (src/lib/xiph/XiphTags.cxx) comes first: MOVEMENT is the movement's number.
    static let fields: [(name: [UInt8], field: Field)] =
        (boxFields
        + ExtraTag.allCases.filter { $0 != .movement }.map { ($0.rawValue.uppercased(), Field.extra($0)) }
        + [("MOVEMENTNAME", .extra(.movement)), ("MOVEMENT", .extra(.movementNumber))] + replayGainFields)
        .map { (Array($0.0.utf8), $0.1) }

    /// TagLib's names of the ID3v2 frames MPD reads (src/tag/Id3Scan.cxx, Id3MusicBrainz.cxx).
    static let id3Fields: [(name: [UInt8], field: Field)] =
        (boxFields
        + [
            ("ARTISTSORT", .extra(.artistSort)), ("ALBUMSORT", .extra(.albumSort)),
            ("ALBUMARTISTSORT", .extra(.albumArtistSort)), ("ORIGINALDATE", .extra(.originalDate)),
            ("COMPOSER", .extra(.composer)), ("CONDUCTOR", .extra(.conductor)), ("ID3 TPE4", .extra(.performer)),
            ("ID3 TIT1", .extra(.grouping)), ("LABEL", .extra(.label)),
            ("MUSICBRAINZ_ARTISTID", .extra(.musicBrainzArtistID)),
            ("MUSICBRAINZ_ALBUMID", .extra(.musicBrainzAlbumID)),
            ("MUSICBRAINZ_ALBUMARTISTID", .extra(.musicBrainzAlbumArtistID)),
            ("MUSICBRAINZ_TRACKID", .extra(.musicBrainzTrackID)),
            ("MUSICBRAINZ TRACK ID", .extra(.musicBrainzTrackID)),
            ("MUSICBRAINZ_RELEASETRACKID", .extra(.musicBrainzReleaseTrackID)),
            ("MUSICBRAINZ_WORKID", .extra(.musicBrainzWorkID)),
        ] + replayGainFields)
        .map { (Array($0.0.utf8), $0.1) }

    /// The field a comment name stands for (ASCII, any case), without making a String; `id3` for
    /// TagLib's names of ID3v2 frames.
    static func field(named name: Slice<UnsafeBufferPointer<UInt8>>, id3: Bool = false) -> Field? {
        candidates: for (known, field) in id3 ? id3Fields : fields where known.count == name.count {
            for (a, b) in zip(known, name) where a != (b >= 0x61 && b <= 0x7A ? b - 0x20 : b) {
                continue candidates
            }
            return field
        }
        return nil
    }

    /// "3", "03", "3/12", " 3 / 12 " → (3, 12). Numbers above 9999 are ignored.
    ///
    /// Splits like `split(separator: "/", maxSplits: 1)` (empty parts dropped: "/12" gives
    /// (12, nil)); each part is read as leading spaces, then 1…4 ASCII digits, the rest ignored.
    /// ASCII text is read byte by byte; other text by Character (`numberAndTotalOfCharacters`).
    static func numberAndTotal(_ text: String) -> (Int?, Int?) {
        var utf8Text = text
        return utf8Text.withUTF8 { bytes -> (Int?, Int?) in
            // A combining mark can join a digit or "/" into another Character: compare by Character.
            if bytes.contains(where: { $0 >= 0x80 }) { return numberAndTotalOfCharacters(text) }
            func number(_ part: Slice<UnsafeBufferPointer<UInt8>>) -> Int? {
                var i = part.startIndex
                while i < part.endIndex && part[i] == UInt8(ascii: " ") { i += 1 }
                var value = 0
                var digits = 0
                while i < part.endIndex, part[i] >= UInt8(ascii: "0"), part[i] <= UInt8(ascii: "9") {
                    digits += 1
                    if digits > 4 { return nil }
                    value = value * 10 + Int(part[i] - UInt8(ascii: "0"))
                    i += 1
                }
                return digits == 0 ? nil : value
            }
            var first: Slice<UnsafeBufferPointer<UInt8>>?
            var second: Slice<UnsafeBufferPointer<UInt8>>?
            var start = 0
            var i = 0
            while i < bytes.count {
                if bytes[i] == UInt8(ascii: "/") {
                    let appended = i > start
                    if appended { first = bytes[start..<i] }
                    i += 1
                    start = i
                    if appended { break }
                    continue
                }
                i += 1
            }
            if start < bytes.count {
                if first == nil { first = bytes[start...] } else { second = bytes[start...] }
            }
            return (first.flatMap(number), second.flatMap(number))
        }
    }

    /// `numberAndTotal` for text that is not ASCII (also the reference the tests compare with).
    static func numberAndTotalOfCharacters(_ text: String) -> (Int?, Int?) {
        let parts = text.split(separator: "/", maxSplits: 1)
        func number(_ part: Substring?) -> Int? {
            guard let part else { return nil }
            let digits = part.drop(while: { $0 == " " }).prefix(while: \.isASCII).prefix(while: \.isNumber)
            guard !digits.isEmpty, digits.count <= 4, let n = Int(digits) else { return nil }
            return n
        }
        return (number(parts.first), parts.count > 1 ? number(parts[1]) : nil)
    }

    /// Adds `value` (already cut to the length limit) for `field`.
    static func add(_ field: Field, _ raw: String, to tags: inout TrackTags) {
        let value = Track.clean(raw)
        if value.isEmpty { return }
        // Repeated values are kept once; at most `maxValuesPerField` different ones.
        func add(_ list: inout [String]) {
            if list.count < maxValuesPerField && !list.contains(value) { list.append(value) }
        }
        switch field {
        case .title: add(&tags.titles)
        case .artist: add(&tags.artists)
        case .album: add(&tags.albums)
        case .albumArtist: add(&tags.albumArtists)
        case .genre: add(&tags.genres)
        case .date: add(&tags.dates)
        case .trackNumber:
            let (n, total) = numberAndTotal(value)
            if tags.trackNumber == nil { tags.trackNumber = n }
            if tags.trackTotal == nil { tags.trackTotal = total }
        case .trackTotal:
            if tags.trackTotal == nil { tags.trackTotal = numberAndTotal(value).0 }
        case .discNumber:
            let (n, total) = numberAndTotal(value)
            if tags.discNumber == nil { tags.discNumber = n }
            if tags.discTotal == nil { tags.discTotal = total }
        case .discTotal:
            if tags.discTotal == nil { tags.discTotal = numberAndTotal(value).0 }
        case .replayGain(let which):
            // The first readable value counts, as in MPD (later ones overwrite there; files have one).
            switch which {
            case .trackGain:
                if tags.replayGain.trackGain.isNaN { tags.replayGain.trackGain = ReplayGainInfo.number(value) ?? .nan }
            case .trackPeak:
                if tags.replayGain.trackPeak.isNaN { tags.replayGain.trackPeak = ReplayGainInfo.number(value) ?? .nan }
            case .albumGain:
                if tags.replayGain.albumGain.isNaN { tags.replayGain.albumGain = ReplayGainInfo.number(value) ?? .nan }
            case .albumPeak:
                if tags.replayGain.albumPeak.isNaN { tags.replayGain.albumPeak = ReplayGainInfo.number(value) ?? .nan }
            case .r128Track:
                if tags.replayGain.trackGain.isNaN { tags.replayGain.trackGain = ReplayGainInfo.r128(value) ?? .nan }
            case .r128Album:
                if tags.replayGain.albumGain.isNaN { tags.replayGain.albumGain = ReplayGainInfo.r128(value) ?? .nan }
            }
        case .extra(let tag):
            let entry = ExtraTagValue(tag, value)
            if !tags.extras.contains(entry) && tags.extras.lazy.filter({ $0.tag == tag }).count < maxValuesPerField {
                tags.extras.append(entry)
            }
        }
    }
}
