// SPDX-License-Identifier: GPL-3.0-or-later
import KioskLibrary
import KioskModel

/// What `stats` says of a catalog: its songs, distinct artist and album tag values, and total
/// duration. Made from the catalog alone, so `stats` does not wait for the database view
/// (`MPDDatabase`), whose build is the slowest thing a client can ask for after the catalog
/// changes (the songs of a restart's index are counted before it).
///
/// Thread: any (a value); the server keeps one on the loop thread.
struct MPDCatalogSummary {
    let catalog: any CatalogSnapshot
    let songs: Int
    let artists: Int
    let albums: Int
    let seconds: Int

    init(catalog: any CatalogSnapshot) {
        self.catalog = catalog
        var artists = Set<String>()
        var albums = Set<String>()
        var seconds = 0.0
        for track in catalog.allTracks {
            track.forEachArtistAndAlbumTag(artist: { artists.insert($0) }, album: { albums.insert($0) })
            seconds += track.durationSeconds ?? 0
        }
        songs = catalog.trackCount
        self.artists = artists.count
        self.albums = albums.count
        self.seconds = Int(seconds.rounded())
    }
}
