// SPDX-License-Identifier: GPL-3.0-or-later
import KioskLibrary
import KioskModel
import KioskSystem

/// What the player is doing: status, current song, statistics (MPD's src/command/PlayerCommands.cxx
/// and OtherCommands.cxx). Thread: loop thread.
enum MPDStatusCommands {
    static func status(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let player = s.player
        let state = s.state
        let queue = player.queue
        var out: [UInt8] = []
        MPDFormat.pair("volume", "\(player.volume)", to: &out)
        MPDFormat.pair("repeat", player.repeatQueue ? "1" : "0", to: &out)
        MPDFormat.pair("random", player.shuffle != .off ? "1" : "0", to: &out)
        MPDFormat.pair("single", player.single.rawValue, to: &out)
        MPDFormat.pair("consume", player.consume ? "1" : "0", to: &out)
        MPDFormat.pair("partition", "default", to: &out)
        MPDFormat.pair("playlist", "\(player.playQueue.identity.version)", to: &out)
        MPDFormat.pair("playlistlength", "\(queue.count)", to: &out)
        MPDFormat.pair("mixrampdb", "0", to: &out)
        let stateName: String =
            switch player.status {
            case .playing: "play"
            case .paused: "pause"
            case .stopped: "stop"
            }
        MPDFormat.pair("state", stateName, to: &out)
        let ids = player.playQueue.identity.songIDs
        if let index = player.mpdCurrentPosition {
            MPDFormat.pair("song", "\(index)", to: &out)
            MPDFormat.pair("songid", "\(ids[index])", to: &out)
        }
        if player.status != .stopped, let track = player.currentTrack {
            // A ranged song (`rangeid`) counts from its range's start and lasts its range, as in MPD.
            let range = player.mpdCurrentPosition.map { player.playQueue.identity.marks[$0].range } ?? .whole
            let elapsed = max(0, player.enginePositionSeconds - Double(range.startMS) / 1000)
            let songDuration = range.duration(ofFileSeconds: track.durationSeconds)
            let duration = songDuration ?? 0
            MPDFormat.pair("time", "\(Int(elapsed.rounded())):\(Int(duration.rounded()))", to: &out)
            MPDFormat.pair("elapsed", MPDFormat.fixed3(elapsed), to: &out)
            if duration > 0 {
                MPDFormat.pair("bitrate", "\(Int(Double(track.fileSize) * 8 / duration / 1000))", to: &out)
            }
            if songDuration != nil { MPDFormat.pair("duration", MPDFormat.fixed3(duration), to: &out) }
            MPDFormat.pair("audio", "\(track.sampleRate):\(track.bitsPerSample):\(track.channels)", to: &out)
        }
        if player.mpdCurrentPosition != nil, let next = player.upcomingEntry {
            MPDFormat.pair("nextsong", "\(next)", to: &out)
            MPDFormat.pair("nextsongid", "\(ids[next])", to: &out)
        }
        if state.scanning { MPDFormat.pair("updating_db", "1", to: &out) }
        r.connection.output.append(contentsOf: out)
        return .done
    }

    static func currentSong(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let queue = s.player.queue
        guard let index = s.player.mpdCurrentPosition else { return .done }
        let mark = s.player.playQueue.identity.marks[index]
        MPDFormat.song(
            queue[index], uri: s.uri(of: queue[index]), tags: r.connection.tagMask, queue: (index, Int(mark.songID)),
            priority: mark.priority, range: mark.range, to: &r.connection.output)
        return .done
    }

    static func stats(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let c = r.connection
        let summary = s.catalogSummary
        c.write("uptime: \((Syscalls.monotonicNanoseconds() - s.startedAtNs) / 1_000_000_000)\n")
        c.write("playtime: \(s.state.playedNs / 1_000_000_000)\n")
        c.write("artists: \(summary.artists)\nalbums: \(summary.albums)\nsongs: \(summary.songs)\n")
        c.write("db_playtime: \(summary.seconds)\ndb_update: \(s.state.databaseUpdated)\n")
        return .done
    }
}

extension MPDServer {
    /// The URI of a queue entry (its volume may have left the catalog since).
    func uri(of track: Track) -> String {
        database.uri(of: track) ?? track.volume.rawValue + "/" + MPDDatabase.uriText(track.relativePath)
    }
}
