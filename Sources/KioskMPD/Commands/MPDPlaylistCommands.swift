// SPDX-License-Identifier: GPL-3.0-or-later
import KioskLibrary

/// Stored playlists (MPD's src/command/PlaylistCommands.cxx): the ones clients saved in the state
/// directory (`MPDStoredPlaylists`), editable, and the playlists found on the sticks, read-only.
///
/// A saved playlist wins over a stick's of the same name: the stick's is then listed by its URI
/// (by which it stays reachable). Editing a stick's playlist (`playlistadd`, `playlistdelete`,
/// `playlistmove`, `playlistclear`, `searchaddpl`) saves an edited copy under its name, which then
/// shadows it; `rm` of that copy shows the stick's again. `rm` and `rename` of a stick's playlist
/// answer "No such playlist", as MPD does for a playlist outside its playlist directory; `save`
/// and `rename` onto a stick's name answer that it exists. Thread: loop thread.
enum MPDPlaylistCommands {
    static func listPlaylists(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let playlists = listedPlaylists(s)
        return .stream(ItemProducer(count: playlists.count) { i, out in printListed(playlists[i], to: &out) })
    }

    /// One playlist as `listplaylists` and the root `lsinfo` list it.
    typealias Listed = (name: String, modificationTime: Int64)

    /// Every stored playlist as MPD's print_spl_list lists it, also at the end of the root
    /// `lsinfo`: at most `maxStoredPlaylists` plus the sticks' playlists. Printed one at a time
    /// (`printListed`), as the client reads: a stick's many lists made one piece of megabytes.
    static func listedPlaylists(_ s: MPDServer) -> [Listed] {
        let saved = s.storedPlaylists?.list() ?? []
        let savedNames = Set(saved.map(\.name))
        var result: [Listed] = saved.map { ($0.name, $0.modificationTime) }
        for playlist in s.database.playlists {
            result.append(
                (savedNames.contains(playlist.name) ? playlist.uri : playlist.name, playlist.modificationTime))
        }
        return result
    }

    /// `playlist:` and `Last-Modified:` of one listed playlist.
    static func printListed(_ playlist: Listed, to out: inout [UInt8]) {
        MPDFormat.pair("playlist", playlist.name, to: &out)
        MPDFormat.pair("Last-Modified", MPDTime.iso8601(nanoseconds: playlist.modificationTime), to: &out)
    }

    static func listPlaylist(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        try list(s, r, info: false)
    }

    static func listPlaylistInfo(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        try list(s, r, info: true)
    }

    /// `listplaylist[info] NAME [START:END]`: its songs' URIs, or the songs with their tags (a song
    /// not in the database, its stick absent, as a `file:` line alone, as MPD prints it).
    private static func list(_ s: MPDServer, _ r: MPDRequest, info: Bool) throws(MPDError) -> MPDOutcome {
        var uris = try songs(s, r[0])
        if let argument = r.optional(1) {
            let range = try MPDArgument.range(argument)
            let end = min(range.end ?? uris.count, uris.count)
            uris = range.start < end ? Array(uris[range.start..<end]) : []
        }
        let tags = r.connection.tagMask
        let db = s.database
        return .stream(
            ItemProducer(count: uris.count) { i, out in
                if info, let index = db.trackIndex(uri: uris[i]) {
                    MPDFormat.song(db.catalog.allTracks[index], uri: uris[i], tags: tags, to: &out)
                } else {
                    MPDFormat.pair("file", uris[i], to: &out)
                }
            })
    }

    /// `load NAME [START:END] [POSITION]`: the playlist's songs into the queue (those not in the
    /// database are skipped, as MPD skips songs it cannot load).
    static func load(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        var uris = try songs(s, r[0])
        if let argument = r.optional(1) {
            let range = try MPDArgument.range(argument)
            let end = min(range.end ?? uris.count, uris.count)
            guard range.start <= end else { throw .argument("Bad song index") }
            uris = Array(uris[range.start..<end])
        }
        let position = try MPDQueueCommands.insertPosition(s, r.optional(2))
        let db = s.database
        let tracks = uris.compactMap { db.trackIndex(uri: $0).map { db.catalog.allTracks[$0] } }
        try s.checkQueueRoom(for: tracks.count)
        s.player.perform(.insert(tracks, at: position), from: .remote)
        return s.changed()
    }

    /// The URIs of the playlist `name`: the saved one, else the stick's.
    private static func songs(_ s: MPDServer, _ name: String) throws(MPDError) -> [String] {
        if let store = s.storedPlaylists, (try? MPDStoredPlaylists.check(name: name)) != nil,
            let uris = try store.load(name)
        {
            return uris
        }
        let db = s.database
        guard let playlist = db.playlist(named: name) else { throw .noExist("No such playlist") }
        return db.catalog.tracks(of: playlist.collection).map { s.uri(of: $0) }
    }

    // MARK: - editing

    /// The store, or MPD's answer when stored playlists are disabled (no state directory).
    private static func store(_ s: MPDServer) throws(MPDError) -> MPDStoredPlaylists {
        guard let store = s.storedPlaylists else { throw MPDError(.unknown, "Stored playlists are disabled") }
        return store
    }

    /// Whether `name` is taken by a saved playlist or a stick's.
    private static func isTaken(_ s: MPDServer, _ store: MPDStoredPlaylists, _ name: String) -> Bool {
        store.exists(name) || s.database.playlist(named: name) != nil
    }

    /// Runs `edit` on the songs of playlist `name` (a stick's as a copy; none when `mustExist` is
    /// false and there is no such playlist) and saves the result when `edit` returns true.
    private static func edit(
        _ s: MPDServer, _ name: String, mustExist: Bool, _ edit: (inout [String]) throws(MPDError) -> Bool
    ) throws(MPDError) {
        let store = try store(s)
        try MPDStoredPlaylists.check(name: name)
        var uris: [String]
        if let saved = try store.load(name) {
            uris = saved
        } else if let playlist = s.database.playlist(named: name) {
            uris = s.database.catalog.tracks(of: playlist.collection).map { s.uri(of: $0) }
        } else if mustExist {
            throw .noExist("No such playlist")
        } else {
            uris = []
        }
        guard try edit(&uris) else { return }
        try store.write(name, uris)
        s.broadcast(.storedPlaylist)
    }

    /// Inserts `uris` into playlist `name` at `position` (nil: at the end; a missing playlist is
    /// created), as MPD's `playlistadd`/`searchaddpl`: nothing is written when `uris` is empty.
    static func insert(_ s: MPDServer, _ name: String, _ uris: [String], at position: Int?) throws(MPDError) {
        // Appending nothing does not even open the playlist in MPD (spl_append_song per song).
        if position == nil && uris.isEmpty { return }
        try edit(s, name, mustExist: false) { (songs: inout [String]) throws(MPDError) -> Bool in
            let at = position ?? songs.count
            guard at <= songs.count else { throw .argument("Bad position") }
            if uris.isEmpty { return false }
            songs.insert(contentsOf: uris, at: at)
            return true
        }
    }

    /// `save NAME`: the queue as a new stored playlist.
    static func save(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let store = try store(s)
        let name = r[0]
        try MPDStoredPlaylists.check(name: name)
        if isTaken(s, store, name) { throw MPDError(.exist, "Playlist already exists") }
        try store.write(name, s.player.queue.map { s.uri(of: $0) })
        s.broadcast(.storedPlaylist)
        return .done
    }

    /// `rm NAME`: a saved playlist.
    static func remove(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let store = try store(s)
        try MPDStoredPlaylists.check(name: r[0])
        try store.delete(r[0])
        s.broadcast(.storedPlaylist)
        return .done
    }

    /// `rename FROM TO`: a saved playlist; TO may not exist (MPD checks it first).
    static func rename(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let store = try store(s)
        try MPDStoredPlaylists.check(name: r[0])
        try MPDStoredPlaylists.check(name: r[1])
        if isTaken(s, store, r[1]) { throw MPDError(.exist, "Playlist exists already") }
        try store.rename(r[0], to: r[1])
        s.broadcast(.storedPlaylist)
        return .done
    }

    /// `playlistclear NAME`: empties it (an existing one only).
    static func clear(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        try edit(s, r[0], mustExist: true) { (songs: inout [String]) throws(MPDError) -> Bool in
            songs = []
            return true
        }
        return .done
    }

    /// `playlistadd NAME URI [POSITION]`: a song, or every song under a directory.
    static func add(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        var position: Int?
        if let argument = r.optional(2) { position = try MPDArgument.unsigned(argument) }
        // MPD opens the playlist (and checks the position) before it looks the URI up.
        if let position {
            try edit(s, r[0], mustExist: false) { (songs: inout [String]) throws(MPDError) -> Bool in
                guard position <= songs.count else { throw .argument("Bad position") }
                return false
            }
        }
        let uris = try MPDQueueCommands.tracksForAdd(s, r[1]).map { s.uri(of: $0) }
        try insert(s, r[0], uris, at: position)
        return .done
    }

    /// `playlistdelete NAME POSITION|START:END`.
    static func delete(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let range = try MPDArgument.range(r[1])
        try edit(s, r[0], mustExist: true) { (songs: inout [String]) throws(MPDError) -> Bool in
            // MPD's RangeArg::CheckClip: a start at the end removes nothing, but is no error.
            guard range.start <= songs.count else { throw .argument("Bad song index") }
            songs.removeSubrange(range.start..<min(range.end ?? songs.count, songs.count))
            return true
        }
        return .done
    }

    /// `playlistmove NAME FROM TO`.
    static func move(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let from = try MPDArgument.unsigned(r[1])
        let to = try MPDArgument.unsigned(r[2])
        // As MPD: nothing to do, and the playlist is not even looked at.
        if from == to { return .done }
        try edit(s, r[0], mustExist: true) { (songs: inout [String]) throws(MPDError) -> Bool in
            guard from < songs.count, to < songs.count else { throw .argument("Bad range") }
            songs.insert(songs.remove(at: from), at: to)
            return true
        }
        return .done
    }
}
