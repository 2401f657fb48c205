// SPDX-License-Identifier: GPL-3.0-or-later
/// A tag the box does not show but MPD clients ask for: MPD 0.23's tag types beyond the eight the
/// box has its own fields for (Comment aside, which MPD does not keep unless configured to), named
/// as MPD names them, in MPD's order (src/tag/Type.h). Thread: any (a value).
public enum ExtraTag: String, CaseIterable, Sendable, Hashable {
    case artistSort = "ArtistSort"
    case albumSort = "AlbumSort"
    case albumArtistSort = "AlbumArtistSort"
    case name = "Name"
    case originalDate = "OriginalDate"
    case composer = "Composer"
    case composerSort = "ComposerSort"
    case performer = "Performer"
    case conductor = "Conductor"
    case work = "Work"
    case movement = "Movement"
    case movementNumber = "MovementNumber"
    case ensemble = "Ensemble"
    case location = "Location"
    case grouping = "Grouping"
    case label = "Label"
    case musicBrainzArtistID = "MUSICBRAINZ_ARTISTID"
    case musicBrainzAlbumID = "MUSICBRAINZ_ALBUMID"
    case musicBrainzAlbumArtistID = "MUSICBRAINZ_ALBUMARTISTID"
    case musicBrainzTrackID = "MUSICBRAINZ_TRACKID"
    case musicBrainzReleaseTrackID = "MUSICBRAINZ_RELEASETRACKID"
    case musicBrainzWorkID = "MUSICBRAINZ_WORKID"
}

/// One value of an `ExtraTag`, as the file has it. Thread: any (a value).
public struct ExtraTagValue: Sendable, Hashable {
    public let tag: ExtraTag
    public let value: String

    public init(_ tag: ExtraTag, _ value: String) {
        self.tag = tag
        self.value = value
    }
}
