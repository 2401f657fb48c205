import KioskLibrary

/// Stored playlists: the playlists found on the sticks, read-only (MPD's
/// src/command/PlaylistCommands.cxx). Thread: loop thread.
enum MPDPlaylistCommands {
    static func listPlaylists(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let c = r.connection
        for playlist in s.database.playlists {
            c.write("playlist: \(playlist.name)\n")
            c.write("Last-Modified: \(MPDTime.iso8601(nanoseconds: playlist.modificationTime))\n")
        }
        return .done
    }

    static func listPlaylist(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        try list(s, r, info: false)
    }

    static func listPlaylistInfo(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        try list(s, r, info: true)
    }

    /// `listplaylist[info] NAME [START:END]`: its songs' URIs, or the songs with their tags.
    private static func list(_ s: MPDServer, _ r: MPDRequest, info: Bool) throws(MPDError) -> MPDOutcome {
        var tracks = try tracks(s, r[0])
        if let argument = r.optional(1) {
            let range = try MPDArgument.range(argument)
            let end = min(range.end ?? tracks.count, tracks.count)
            tracks = range.start < end ? Array(tracks[range.start..<end]) : []
        }
        let tags = r.connection.tagMask
        return .stream(
            ItemProducer(count: tracks.count) { [unowned s] i, out in
                if info {
                    MPDFormat.song(tracks[i], uri: s.uri(of: tracks[i]), tags: tags, to: &out)
                } else {
                    MPDFormat.pair("file", s.uri(of: tracks[i]), to: &out)
                }
            })
    }

    /// `load NAME [START:END] [POSITION]`: the playlist's songs into the queue.
    static func load(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        var tracks = try tracks(s, r[0])
        if let argument = r.optional(1) {
            let range = try MPDArgument.range(argument)
            let end = min(range.end ?? tracks.count, tracks.count)
            guard range.start <= end else { throw .argument("Bad song index") }
            tracks = Array(tracks[range.start..<end])
        }
        let position = try MPDQueueCommands.insertPosition(s, r.optional(2))
        s.player.perform(.insert(tracks, at: position), from: .remote)
        return s.changed()
    }

    private static func tracks(_ s: MPDServer, _ name: String) throws(MPDError) -> [Track] {
        let db = s.database
        guard let playlist = db.playlist(named: name) else { throw .noExist("No such playlist") }
        return db.catalog.tracks(of: playlist.collection)
    }
}
