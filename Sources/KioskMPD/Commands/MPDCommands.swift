// SPDX-License-Identifier: GPL-3.0-or-later
/// Every command the server answers, in one table sorted by name, as MPD's
/// src/command/AllCommands.cxx: name, permission, argument counts (min, max; -1 as there), handler.
/// The handlers live in files by kind (`MPDClientCommands`, `MPDStatusCommands`,
/// `MPDPlaybackCommands`, `MPDQueueCommands`, `MPDDatabaseCommands`, `MPDPlaylistCommands`,
/// `MPDOutputCommands`, `MPDPictureCommands`, `MPDStickerCommands`, `MPDFileCommands`, `MPDPhoneCommands`). `commands`/`notcommands`
/// answer from this table; `MPDServer.execute` checks permission and counts from it, once, before any handler runs.
///
/// `command_list_begin`/`_end` and `noidle` are words of the connection (`MPDServer.handleLine`),
/// not commands, as in MPD. Thread: the table is immutable; any.
enum MPDCommands {
    private typealias Client = MPDClientCommands
    private typealias Status = MPDStatusCommands
    private typealias Playback = MPDPlaybackCommands
    private typealias Queue = MPDQueueCommands
    private typealias Database = MPDDatabaseCommands
    private typealias Playlist = MPDPlaylistCommands
    private typealias Output = MPDOutputCommands
    private typealias Picture = MPDPictureCommands
    private typealias Files = MPDFileCommands
    private typealias Sticker = MPDStickerCommands
    private typealias Phone = MPDPhoneCommands

    static let table: [MPDCommand] = [
        MPDCommand("add", .add, 1, 2, Queue.add),
        MPDCommand("addid", .add, 1, 2, Queue.addID),
        MPDCommand("albumart", .read, 2, 2, Picture.albumArt),
        MPDCommand("binarylimit", .anyone, 1, 1, Client.binaryLimit),
        MPDCommand("clear", .player, 0, 0, Queue.clear),
        MPDCommand("clearerror", .player, 0, 0, Playback.clearError),
        MPDCommand("close", .anyone, -1, -1, Client.close),
        MPDCommand("commands", .anyone, 0, 0, Client.commands),
        MPDCommand("consume", .player, 1, 1, Playback.consume),
        MPDCommand("count", .read, 1, -1, Database.count),
        MPDCommand("crossfade", .player, 1, 1, Playback.crossfade),
        MPDCommand("currentsong", .read, 0, 0, Status.currentSong),
        MPDCommand("decoders", .read, 0, 0, Client.decoders),
        MPDCommand("delete", .player, 1, 1, Queue.delete),
        MPDCommand("deleteid", .player, 1, 1, Queue.deleteID),
        MPDCommand("disableoutput", .admin, 1, 1, Output.disable),
        MPDCommand("enableoutput", .admin, 1, 1, Output.enable),
        MPDCommand("find", .read, 1, -1, Database.find),
        MPDCommand("findadd", .add, 1, -1, Database.findAdd),
        MPDCommand("getvol", .read, 0, 0, Playback.getVolume),
        MPDCommand("idle", .read, 0, -1, Client.idle),
        MPDCommand("kioskcardlink", .admin, 4, 5, Phone.link),
        MPDCommand("kioskcardname", .admin, 2, 3, Phone.rename),
        MPDCommand("kioskcards", .read, 0, 0, Phone.cards),
        MPDCommand("kioskcardunlink", .admin, 1, 2, Phone.unlink),
        MPDCommand("kioskcollections", .read, 1, 1, Phone.collections),
        MPDCommand("kioskpaircode", .admin, 2, 2, Phone.pairCode),
        MPDCommand("kioskproblems", .read, 0, 0, Phone.problems),
        MPDCommand("kioskset", .admin, 0, 0, Phone.exportSet),
        MPDCommand("kiosksetimport", .admin, 1, 2, Phone.importSet),
        MPDCommand("kiosksetpiece", .admin, 1, 1, Phone.setPiece),
        MPDCommand("kiosksettings", .read, 0, 0, Phone.settings),
        MPDCommand("kiosksettingsset", .admin, 1, 2, Phone.setSettings),
        MPDCommand("kioskstate", .read, 0, 0, Phone.state),
        MPDCommand("list", .read, 1, -1, Database.list),
        MPDCommand("listall", .read, 0, 1, Database.listAll),
        MPDCommand("listallinfo", .read, 0, 1, Database.listAllInfo),
        MPDCommand("listfiles", .read, 0, 1, Files.listFiles),
        MPDCommand("listplaylist", .read, 1, 2, Playlist.listPlaylist),
        MPDCommand("listplaylistinfo", .read, 1, 2, Playlist.listPlaylistInfo),
        MPDCommand("listplaylists", .read, 0, 0, Playlist.listPlaylists),
        MPDCommand("load", .add, 1, 3, Playlist.load),
        MPDCommand("lsinfo", .read, 0, 1, Database.lsinfo),
        MPDCommand("mixrampdb", .player, 1, 1, Playback.mixRampDB),
        MPDCommand("mixrampdelay", .player, 1, 1, Playback.mixRampDelay),
        MPDCommand("move", .player, 2, 2, Queue.move),
        MPDCommand("moveid", .player, 2, 2, Queue.moveID),
        MPDCommand("next", .player, 0, 0, Playback.next),
        MPDCommand("notcommands", .anyone, 0, 0, Client.notCommands),
        MPDCommand("outputs", .read, 0, 0, Output.outputs),
        MPDCommand("password", .anyone, 1, 1, Client.password),
        MPDCommand("pause", .player, 0, 1, Playback.pause),
        MPDCommand("ping", .anyone, 0, 0, Client.ping),
        MPDCommand("play", .player, 0, 1, Playback.play),
        MPDCommand("playid", .player, 0, 1, Playback.playID),
        MPDCommand("playlist", .read, 0, 0, Queue.playlist),
        MPDCommand("playlistadd", .control, 2, 3, Playlist.add),
        MPDCommand("playlistclear", .control, 1, 1, Playlist.clear),
        MPDCommand("playlistdelete", .control, 2, 2, Playlist.delete),
        MPDCommand("playlistfind", .read, 1, -1, Queue.playlistFind),
        MPDCommand("playlistid", .read, 0, 1, Queue.playlistID),
        MPDCommand("playlistinfo", .read, 0, 1, Queue.playlistInfo),
        MPDCommand("playlistmove", .control, 3, 3, Playlist.move),
        MPDCommand("playlistsearch", .read, 1, -1, Queue.playlistSearch),
        MPDCommand("plchanges", .read, 1, 2, Queue.changes),
        MPDCommand("plchangesposid", .read, 1, 2, Queue.changedPositions),
        MPDCommand("previous", .player, 0, 0, Playback.previous),
        MPDCommand("prio", .player, 2, -1, Queue.priority),
        MPDCommand("prioid", .player, 2, -1, Queue.priorityID),
        MPDCommand("random", .player, 1, 1, Playback.random),
        MPDCommand("rangeid", .add, 2, 2, Queue.rangeID),
        MPDCommand("readpicture", .read, 2, 2, Picture.readPicture),
        MPDCommand("rename", .control, 2, 2, Playlist.rename),
        MPDCommand("repeat", .player, 1, 1, Playback.repeatMode),
        MPDCommand("replay_gain_mode", .player, 1, 1, Playback.replayGainMode),
        MPDCommand("replay_gain_status", .read, 0, 0, Playback.replayGainStatus),
        MPDCommand("rescan", .control, 0, 1, Database.update),
        MPDCommand("rm", .control, 1, 1, Playlist.remove),
        MPDCommand("save", .control, 1, 1, Playlist.save),
        MPDCommand("search", .read, 1, -1, Database.search),
        MPDCommand("searchadd", .add, 1, -1, Database.searchAdd),
        MPDCommand("searchaddpl", .control, 2, -1, Database.searchAddPlaylist),
        MPDCommand("seek", .player, 2, 2, Playback.seek),
        MPDCommand("seekcur", .player, 1, 1, Playback.seekCurrent),
        MPDCommand("seekid", .player, 2, 2, Playback.seekID),
        MPDCommand("setvol", .player, 1, 1, Playback.setVolume),
        MPDCommand("shuffle", .player, 0, 1, Queue.shuffle),
        MPDCommand("single", .player, 1, 1, Playback.single),
        MPDCommand("stats", .read, 0, 0, Status.stats),
        MPDCommand("status", .read, 0, 0, Status.status),
        MPDCommand("sticker", .admin, 3, -1, Sticker.sticker),
        MPDCommand("stop", .player, 0, 0, Playback.stop),
        MPDCommand("swap", .player, 2, 2, Queue.swap),
        MPDCommand("swapid", .player, 2, 2, Queue.swapID),
        MPDCommand("tagtypes", .anyone, 0, -1, Client.tagTypes),
        MPDCommand("toggleoutput", .admin, 1, 1, Output.toggle),
        MPDCommand("update", .control, 0, 1, Database.update),
        MPDCommand("urlhandlers", .read, 0, 0, Client.urlHandlers),
        MPDCommand("volume", .player, 1, 1, Playback.volume),
    ]

    /// The row named `name` (binary search: the table is sorted, which a test checks).
    static func lookup(_ name: String) -> MPDCommand? {
        var low = 0
        var high = table.count
        while low < high {
            let middle = (low + high) / 2
            let candidate = table[middle].name
            if candidate == name { return table[middle] }
            if name < candidate { high = middle } else { low = middle + 1 }
        }
        return nil
    }
}
