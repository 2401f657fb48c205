import KioskCore
import KioskLibrary
import KioskSystem

/// How a command ended.
enum MPDOutcome {
    case done
    /// The response continues in a producer (long lists).
    case stream(any MPDProducer)
    /// The response comes later (a picture is being read).
    case wait
    case failed(MPDError, String)
    /// Answer, then close the connection (a client that does not speak the protocol).
    case failedAndClose(MPDError, String)
    case close
}

/// The commands: their argument counts and whether they need the password, then their handlers.
extension MPDServer {
    struct CommandSpec {
        let min: Int
        let max: Int
        /// Allowed before `password` (MPD's PERMISSION_NONE).
        let open: Bool

        init(_ min: Int, _ max: Int, open: Bool = false) {
            self.min = min
            self.max = max
            self.open = open
        }
    }

    static let commandTable: [String: CommandSpec] = [
        "add": CommandSpec(1, 2), "addid": CommandSpec(1, 2), "albumart": CommandSpec(2, 2),
        "binarylimit": CommandSpec(1, 1, open: true), "clear": CommandSpec(0, 0), "clearerror": CommandSpec(0, 0),
        "close": CommandSpec(-1, -1, open: true), "commands": CommandSpec(0, 0, open: true),
        "count": CommandSpec(1, -1), "currentsong": CommandSpec(0, 0), "decoders": CommandSpec(0, 0),
        "delete": CommandSpec(1, 1), "deleteid": CommandSpec(1, 1), "disableoutput": CommandSpec(1, 1),
        "enableoutput": CommandSpec(1, 1), "find": CommandSpec(1, -1), "findadd": CommandSpec(1, -1),
        "getvol": CommandSpec(0, 0), "idle": CommandSpec(0, -1), "list": CommandSpec(1, -1),
        "listall": CommandSpec(0, 1), "listallinfo": CommandSpec(0, 1), "listplaylist": CommandSpec(1, 2),
        "listplaylistinfo": CommandSpec(1, 2), "listplaylists": CommandSpec(0, 0), "load": CommandSpec(1, 3),
        "lsinfo": CommandSpec(0, 1), "move": CommandSpec(2, 2), "next": CommandSpec(0, 0),
        "notcommands": CommandSpec(0, 0, open: true), "outputs": CommandSpec(0, 0),
        "password": CommandSpec(1, 1, open: true), "pause": CommandSpec(0, 1), "ping": CommandSpec(0, 0, open: true),
        "play": CommandSpec(0, 1), "playid": CommandSpec(0, 1), "playlistid": CommandSpec(0, 1),
        "playlistinfo": CommandSpec(0, 1), "plchanges": CommandSpec(1, 2), "plchangesposid": CommandSpec(1, 2),
        "previous": CommandSpec(0, 0), "random": CommandSpec(1, 1), "consume": CommandSpec(1, 1),
        "single": CommandSpec(1, 1), "readpicture": CommandSpec(2, 2), "repeat": CommandSpec(1, 1),
        "rescan": CommandSpec(0, 1), "search": CommandSpec(1, -1), "searchadd": CommandSpec(1, -1),
        "seek": CommandSpec(2, 2), "seekcur": CommandSpec(1, 1), "seekid": CommandSpec(2, 2),
        "setvol": CommandSpec(1, 1), "stats": CommandSpec(0, 0), "status": CommandSpec(0, 0),
        "stop": CommandSpec(0, 0), "tagtypes": CommandSpec(0, -1, open: true), "toggleoutput": CommandSpec(1, 1),
        "update": CommandSpec(0, 1), "urlhandlers": CommandSpec(0, 0), "volume": CommandSpec(1, 1),
    ]

    /// Runs one command line (tokenize, look up, check permission and arguments, run).
    func execute(_ connection: MPDConnection, _ line: [UInt8]) -> MPDOutcome {
        let command: String
        let arguments: [String]
        do throws(MPDTokenizer.Failure) {
            (command, arguments) = try MPDTokenizer.split(line)
        } catch {
            switch error {
            case .badCommand(let message): return .failedAndClose(MPDError(.unknown, message), "")
            case .badArgument(let message): return .failed(MPDError(.unknown, message), "")
            case .tooManyArguments: return .failed(MPDError(.argument, "Too many arguments"), "")
            }
        }
        guard let spec = MPDServer.commandTable[command] else {
            return .failed(MPDError(.unknown, "unknown command \"\(command)\""), "")
        }
        if !connection.authenticated && !spec.open {
            return .failed(MPDError(.permission, "you don't have permission for \"\(command)\""), command)
        }
        if spec.min >= 0 {
            let count = arguments.count
            if spec.min == spec.max && count != spec.max {
                return .failed(.argument("wrong number of arguments for \"\(command)\""), command)
            } else if count < spec.min {
                return .failed(.argument("too few arguments for \"\(command)\""), command)
            } else if spec.max >= 0 && count > spec.max {
                return .failed(.argument("too many arguments for \"\(command)\""), command)
            }
        }
        do throws(MPDError) {
            return try run(command, arguments, connection)
        } catch {
            return .failed(error, command)
        }
    }

    // swiftlint-style dispatch: one case per command.
    private func run(_ command: String, _ a: [String], _ c: MPDConnection) throws(MPDError) -> MPDOutcome {
        switch command {
        // Connection.
        case "ping", "clearerror": return .done
        case "close": return .close
        case "password": return try password(a[0], c)
        case "commands": return listCommands(c, available: true)
        case "notcommands": return listCommands(c, available: false)
        case "tagtypes": return try tagTypes(a, c)
        case "binarylimit":
            let value = try MPDArgument.unsigned(a[0])
            guard value >= 64 else { throw .argument("Value too small") }
            c.binaryLimit = min(value, settings.maxBinaryChunk)
            return .done
        case "urlhandlers": return .done
        case "decoders":
            c.write("plugin: flac\nsuffix: flac\nmime_type: audio/flac\nmime_type: audio/x-flac\n")
            return .done
        case "idle":
            // Only reached inside a command list, where MPD does not allow it either.
            return .close
        // Status.
        case "status": return status(c)
        case "currentsong": return currentSong(c)
        case "stats": return stats(c)
        // Playback.
        case "play": return try play(a.first)
        case "playid": return try playID(a.first)
        case "pause":
            player.remotePause(try a.first.map(MPDArgument.bool))
            return changed()
        case "stop":
            player.remoteStop()
            return changed()
        case "next":
            guard player.remoteNext() else { throw MPDError(.playerSync, "Not playing") }
            return changed()
        case "previous":
            guard player.remotePrevious() else { throw MPDError(.playerSync, "Not playing") }
            return changed()
        case "seekcur": return try seekCurrent(a[0])
        case "seek":
            let position = try MPDArgument.int(a[0])
            let seconds = try MPDArgument.double(a[1])
            guard player.remoteSeek(index: position, toSeconds: seconds) else { throw .argument("Bad song index") }
            return changed()
        case "seekid":
            let id = try MPDArgument.unsigned(a[0])
            let seconds = try MPDArgument.double(a[1])
            guard let position = state.position(ofID: id) else { throw .noExist("No such song") }
            player.remoteSeek(index: position, toSeconds: seconds)
            return changed()
        case "repeat":
            player.remoteSetRepeat(try MPDArgument.bool(a[0]))
            return changed()
        case "random", "consume", "single":
            // Off is this player's only mode: clients that switch it off (or read it back) work;
            // switching it on gets a clear refusal rather than "unknown command".
            let on = a[0] == "oneshot" && command == "single" ? true : try MPDArgument.bool(a[0])
            if on { throw .argument("\(command) mode is not supported by this player") }
            return .done
        // Volume.
        case "setvol":
            guard let value = MPDArgument.parseInt(a[0]) else { throw .argument("Integer expected: \(a[0])") }
            guard (0...100).contains(value) else { throw .argument("Number too large: \(a[0])") }
            player.remoteSetVolume(value)
            return changed()
        case "volume":
            guard let delta = MPDArgument.parseInt(a[0]) else { throw .argument("Integer expected: \(a[0])") }
            guard (-100...100).contains(delta) else { throw .argument("Number too large: \(a[0])") }
            player.remoteSetVolume(player.volume + delta)
            return changed()
        case "getvol":
            c.write("volume: \(player.volume)\n")
            return .done
        // Outputs.
        case "outputs": return outputs(c)
        case "enableoutput", "disableoutput", "toggleoutput": return try setOutput(command, a[0])
        // The queue.
        case "playlistinfo": return try queueInfo(c, a.first)
        case "playlistid": return try queueByID(c, a.first)
        case "plchanges", "plchangesposid": return try queueChanges(c, a, positionsOnly: command == "plchangesposid")
        case "add", "addid": return try add(c, a, withID: command == "addid")
        case "delete":
            let range = try MPDArgument.range(a[0])
            guard range.start < player.queue.count else { throw .argument("Bad song index") }
            player.remoteDelete(range.start..<min(range.end ?? player.queue.count, player.queue.count))
            return changed()
        case "deleteid":
            let id = try MPDArgument.unsigned(a[0])
            guard let position = state.position(ofID: id) else { throw .noExist("No such song") }
            player.remoteDelete(position..<position + 1)
            return changed()
        case "clear":
            player.remoteClear()
            return changed()
        case "move":
            let range = try MPDArgument.range(a[0])
            let to = try MPDArgument.int(a[1])
            let end = min(range.end ?? player.queue.count, player.queue.count)
            guard range.start < end, player.remoteMove(range.start..<end, to: to) else {
                throw .argument("Bad song index")
            }
            return changed()
        // The database.
        case "lsinfo": return try lsinfo(c, a.first ?? "")
        case "listall", "listallinfo": return try listAll(c, a.first ?? "", info: command == "listallinfo")
        case "find", "search": return try find(c, a, foldCase: command == "search", addToQueue: false)
        case "findadd", "searchadd": return try find(c, a, foldCase: command == "searchadd", addToQueue: true)
        case "list": return try list(c, a)
        case "count": return try count(c, a)
        case "update", "rescan":
            if let path = a.first, !path.isEmpty, database.locate(path) == nil {
                throw .argument("Malformed path")
            }
            library?.rescanAll()
            // Seen as scanning now, so that its end is an "update" change (mpc update --wait).
            noteChanges()
            c.write("updating_db: 1\n")
            return .done
        case "listplaylists": return listPlaylists(c)
        case "listplaylist", "listplaylistinfo": return try listPlaylist(c, a, info: command == "listplaylistinfo")
        case "load": return try load(a)
        // Pictures.
        case "albumart": return try picture(c, a, kind: .cover, command: command)
        case "readpicture": return try picture(c, a, kind: .embedded, command: command)
        default:
            return .failed(MPDError(.unknown, "unknown command \"\(command)\""), "")
        }
    }

    /// After a command that changed the player: note the change now (idle clients wake at once).
    private func changed() -> MPDOutcome {
        noteChanges()
        return .done
    }

    // MARK: - connection

    private func password(_ attempt: String, _ c: MPDConnection) throws(MPDError) -> MPDOutcome {
        // Without a configured password every attempt is wrong, as in MPD.
        guard let expected = settings.password else { throw MPDError(.password, "incorrect password") }
        // Constant time over the attempt's length, so timing tells nothing about the password.
        let a = Array(attempt.utf8)
        let b = Array(expected.utf8)
        var difference = a.count == b.count ? 0 : 1
        for i in 0..<a.count { difference |= Int(a[i] ^ (i < b.count ? b[i] : 0)) }
        guard difference == 0 else { throw MPDError(.password, "incorrect password") }
        c.authenticated = true
        return .done
    }

    private func listCommands(_ c: MPDConnection, available: Bool) -> MPDOutcome {
        for (name, spec) in MPDServer.commandTable.sorted(by: { $0.key < $1.key }) {
            let allowed = c.authenticated || spec.open
            if allowed == available { c.write("command: \(name)\n") }
        }
        if available && c.authenticated { c.write("command: noidle\n") }
        return .done
    }

    private func tagTypes(_ a: [String], _ c: MPDConnection) throws(MPDError) -> MPDOutcome {
        guard let sub = a.first else {
            for tag in MPDTag.allCases where c.tagMask.contains(tag) { c.write("tagtype: \(tag.rawValue)\n") }
            return .done
        }
        func tags(_ names: ArraySlice<String>) throws(MPDError) -> [MPDTag] {
            guard !names.isEmpty else { throw .argument("Not enough arguments") }
            var result: [MPDTag] = []
            for name in names {
                guard MPDTag.knownNames.contains(name.lowercased()) else {
                    throw .argument("Unknown tag type: \(name)")
                }
                if let tag = MPDTag(name: name) { result.append(tag) }
            }
            return result
        }
        switch sub {
        case "clear": c.tagMask = []
        case "all": c.tagMask = Set(MPDTag.allCases)
        case "enable": c.tagMask.formUnion(try tags(a.dropFirst()))
        case "disable": c.tagMask.subtract(try tags(a.dropFirst()))
        default: throw .argument("Unknown sub command")
        }
        return .done
    }

    // MARK: - status

    private func status(_ c: MPDConnection) -> MPDOutcome {
        let queue = player.queue
        var out: [UInt8] = []
        MPDFormat.pair("volume", "\(player.volume)", to: &out)
        MPDFormat.pair("repeat", player.repeatQueue ? "1" : "0", to: &out)
        for name in ["random", "single", "consume"] { MPDFormat.pair(name, "0", to: &out) }
        MPDFormat.pair("partition", "default", to: &out)
        MPDFormat.pair("playlist", "\(state.playlistVersion)", to: &out)
        MPDFormat.pair("playlistlength", "\(queue.count)", to: &out)
        MPDFormat.pair("mixrampdb", "0", to: &out)
        let stateName: String =
            switch player.status {
            case .playing: "play"
            case .paused: "pause"
            case .stopped: "stop"
            }
        MPDFormat.pair("state", stateName, to: &out)
        if queue.indices.contains(player.queueIndex) {
            let index = player.queueIndex
            let track = queue[index]
            MPDFormat.pair("song", "\(index)", to: &out)
            if index < state.ids.count { MPDFormat.pair("songid", "\(state.ids[index])", to: &out) }
            if player.status != .stopped {
                let elapsed = player.enginePositionSeconds
                let duration = track.durationSeconds ?? 0
                MPDFormat.pair("time", "\(Int(elapsed.rounded())):\(Int(duration.rounded()))", to: &out)
                MPDFormat.pair("elapsed", MPDFormat.fixed3(elapsed), to: &out)
                if duration > 0 {
                    MPDFormat.pair("bitrate", "\(Int(Double(track.fileSize) * 8 / duration / 1000))", to: &out)
                }
                if track.durationSeconds != nil { MPDFormat.pair("duration", MPDFormat.fixed3(duration), to: &out) }
                MPDFormat.pair("audio", "\(track.sampleRate):\(track.bitsPerSample):\(track.channels)", to: &out)
            }
            let next = index + 1 < queue.count ? index + 1 : (player.repeatQueue ? 0 : nil)
            if let next, next < state.ids.count {
                MPDFormat.pair("nextsong", "\(next)", to: &out)
                MPDFormat.pair("nextsongid", "\(state.ids[next])", to: &out)
            }
        }
        if state.scanning { MPDFormat.pair("updating_db", "1", to: &out) }
        c.output.append(contentsOf: out)
        return .done
    }

    private func currentSong(_ c: MPDConnection) -> MPDOutcome {
        let queue = player.queue
        let index = player.queueIndex
        guard queue.indices.contains(index) else { return .done }
        MPDFormat.song(
            queue[index], uri: uri(of: queue[index]), tags: c.tagMask,
            queue: (index, index < state.ids.count ? state.ids[index] : 0), to: &c.output)
        return .done
    }

    private func stats(_ c: MPDConnection) -> MPDOutcome {
        let db = database
        let summary = db.summary
        c.write("uptime: \((Syscalls.monotonicNanoseconds() - startedAtNs) / 1_000_000_000)\n")
        c.write("playtime: \(state.playedNs / 1_000_000_000)\n")
        c.write("artists: \(summary.artists)\nalbums: \(summary.albums)\nsongs: \(db.catalog.trackCount)\n")
        c.write("db_playtime: \(summary.seconds)\ndb_update: \(state.databaseUpdated)\n")
        return .done
    }

    /// The URI of a queue entry (its volume may have left the catalog since).
    func uri(of track: Track) -> String {
        database.uri(of: track) ?? track.volume.rawValue + "/" + track.relativePath
    }

    // MARK: - playback

    private func play(_ argument: String?) throws(MPDError) -> MPDOutcome {
        if let argument {
            let position = try MPDArgument.int(argument)
            if position >= 0 {
                guard player.remotePlay(at: position) else { throw .argument("Bad song index") }
                return changed()
            }
        }
        player.remotePlay()
        return changed()
    }

    private func playID(_ argument: String?) throws(MPDError) -> MPDOutcome {
        if let argument {
            let id = try MPDArgument.int(argument)
            if id >= 0 {
                guard let position = state.position(ofID: id) else { throw .noExist("No such song") }
                player.remotePlay(at: position)
                return changed()
            }
        }
        player.remotePlay()
        return changed()
    }

    private func seekCurrent(_ argument: String) throws(MPDError) -> MPDOutcome {
        let relative = argument.hasPrefix("+") || argument.hasPrefix("-")
        let value = try MPDArgument.double(argument)
        guard player.status != .stopped, player.currentTrack != nil else { throw MPDError(.playerSync, "Not playing") }
        let target = relative ? player.enginePositionSeconds + value : value
        player.remoteSeek(toSeconds: max(0, target))
        return changed()
    }

    // MARK: - outputs

    /// The outputs clients see: the configured ALSA devices (not the silent sink).
    var outputDevices: [String] { player.outputDevices.filter { $0 != Player.silentOutput } }

    private func outputs(_ c: MPDConnection) -> MPDOutcome {
        for (i, device) in outputDevices.enumerated() {
            c.write("outputid: \(i)\noutputname: \(device)\nplugin: alsa\n")
            c.write("outputenabled: \(device == player.outputDevice ? 1 : 0)\n")
        }
        return .done
    }

    private func setOutput(_ command: String, _ argument: String) throws(MPDError) -> MPDOutcome {
        let index = try MPDArgument.unsigned(argument)
        let devices = outputDevices
        guard index < devices.count else { throw .noExist("No such audio output") }
        let device = devices[index]
        let enabled = device == player.outputDevice
        let enable = command == "enableoutput" || (command == "toggleoutput" && !enabled)
        if enable {
            player.remoteSetOutput(device)
        } else if enabled {
            // Only one device plays at a time: disabling it leaves the silent sink.
            player.remoteSetOutput(Player.silentOutput)
        }
        return changed()
    }

    // MARK: - the queue

    /// Writes queue entries `range` with their positions and IDs.
    private func queueProducer(_ c: MPDConnection, _ range: Range<Int>) -> MPDOutcome {
        let queue = player.queue
        let ids = state.ids
        let tags = c.tagMask
        let start = range.lowerBound
        return .stream(
            ItemProducer(count: range.count) { [unowned self] i, out in
                let position = start + i
                MPDFormat.song(
                    queue[position], uri: self.uri(of: queue[position]), tags: tags,
                    queue: (position, position < ids.count ? ids[position] : 0), to: &out)
            })
    }

    private func queueInfo(_ c: MPDConnection, _ argument: String?) throws(MPDError) -> MPDOutcome {
        let count = player.queue.count
        guard let argument else { return queueProducer(c, 0..<count) }
        let range = try MPDArgument.range(argument)
        let end = min(range.end ?? count, count)
        guard range.start < end || (range.start == 0 && count == 0 && range.end == nil) else {
            throw .argument("Bad song index")
        }
        return queueProducer(c, range.start..<max(range.start, end))
    }

    private func queueByID(_ c: MPDConnection, _ argument: String?) throws(MPDError) -> MPDOutcome {
        guard let argument else { return queueProducer(c, 0..<player.queue.count) }
        let id = try MPDArgument.unsigned(argument)
        guard let position = state.position(ofID: id) else { throw .noExist("No such song") }
        return queueProducer(c, position..<position + 1)
    }

    private func queueChanges(_ c: MPDConnection, _ a: [String], positionsOnly: Bool) throws(MPDError) -> MPDOutcome {
        let version = try MPDArgument.int(a[0])
        let count = player.queue.count
        var range = 0..<count
        if a.count > 1 {
            let r = try MPDArgument.range(a[1])
            range = min(r.start, count)..<min(r.end ?? count, count)
        }
        let changedPositions = range.filter { $0 < state.entryVersions.count && state.entryVersions[$0] > version }
        if positionsOnly {
            let ids = state.ids
            for position in changedPositions { c.write("cpos: \(position)\nId: \(ids[position])\n") }
            return .done
        }
        let queue = player.queue
        let ids = state.ids
        let tags = c.tagMask
        return .stream(
            ItemProducer(count: changedPositions.count) { [unowned self] i, out in
                let position = changedPositions[i]
                MPDFormat.song(
                    queue[position], uri: self.uri(of: queue[position]), tags: tags, queue: (position, ids[position]),
                    to: &out)
            })
    }

    /// The tracks a URI names for `add`: one song, or everything under a directory.
    private func tracksForAdd(_ uri: String) throws(MPDError) -> [Track] {
        let db = database
        if uri.hasPrefix("/") && uri != "/" || uri.hasPrefix("file:") { throw .noExist("No such song") }
        if uri.contains("://") { throw .noExist("Unsupported URI scheme") }
        switch db.locate(uri) {
        case .song(let index): return [db.catalog.allTracks[index]]
        case .directory(let path): return db.tracks(under: path).map { db.catalog.allTracks[$0] }
        case .root: return db.tracks(under: "").map { db.catalog.allTracks[$0] }
        case nil: throw .noExist("No such directory")
        }
    }

    /// A queue position argument: `N`, or `+N`/`-N` relative to the current entry.
    private func insertPosition(_ argument: String?) throws(MPDError) -> Int? {
        guard let argument else { return nil }
        let count = player.queue.count
        let value = try MPDArgument.int(argument)
        var position = value
        if argument.hasPrefix("+") {
            position = player.queueIndex + 1 + value
        } else if argument.hasPrefix("-") {
            position = player.queueIndex + value
        }
        guard position >= 0, position <= count else { throw .argument("Bad song index") }
        return position
    }

    private func add(_ c: MPDConnection, _ a: [String], withID: Bool) throws(MPDError) -> MPDOutcome {
        let tracks = try tracksForAdd(a[0])
        if withID && tracks.count != 1 { throw .noExist("No such song") }
        let position = try insertPosition(a.count > 1 ? a[1] : nil)
        let first = player.remoteInsert(tracks, at: position)
        noteChanges()
        if withID, first < state.ids.count { c.write("Id: \(state.ids[first])\n") }
        return .done
    }

    // MARK: - the database

    private func lsinfo(_ c: MPDConnection, _ uri: String) throws(MPDError) -> MPDOutcome {
        let db = database
        if uri.hasPrefix("/") && uri != "/" || uri.contains("://") { throw .noExist("No such file") }
        switch db.locate(uri) {
        case .song(let index):
            MPDFormat.song(db.catalog.allTracks[index], uri: db.uri(ofTrackAt: index), tags: c.tagMask, to: &c.output)
            return .done
        case .root:
            return directoryListing(c, db, "")
        case .directory(let path):
            return directoryListing(c, db, path)
        case nil:
            throw .noExist("No such directory")
        }
    }

    private func directoryListing(_ c: MPDConnection, _ db: MPDDatabase, _ path: String) -> MPDOutcome {
        guard let node = db.directories[path] else { return .done }
        for sub in node.subdirectories { c.write("directory: \(path.isEmpty ? sub : path + "/" + sub)\n") }
        let tags = c.tagMask
        let tracks = node.tracks
        let playlists = node.playlists
        return .stream(
            ItemProducer(count: tracks.count + playlists.count) { i, out in
                if i < tracks.count {
                    let index = tracks[i]
                    MPDFormat.song(db.catalog.allTracks[index], uri: db.uri(ofTrackAt: index), tags: tags, to: &out)
                } else {
                    let playlist = db.playlists[playlists[i - tracks.count]]
                    MPDFormat.pair("playlist", playlist.uri, to: &out)
                    MPDFormat.pair(
                        "Last-Modified", MPDTime.iso8601(nanoseconds: playlist.modificationTime), to: &out)
                }
            })
    }

    private func listAll(_ c: MPDConnection, _ uri: String, info: Bool) throws(MPDError) -> MPDOutcome {
        let db = database
        var root = ""
        switch db.locate(uri) {
        case .song(let index):
            if info {
                MPDFormat.song(
                    db.catalog.allTracks[index], uri: db.uri(ofTrackAt: index), tags: c.tagMask, to: &c.output)
            } else {
                c.write("file: \(db.uri(ofTrackAt: index))\n")
            }
            return .done
        case .directory(let path): root = path
        case .root: root = ""
        case nil: throw .noExist("No such directory")
        }
        // Depth first: a directory line, then its subdirectories, then its songs.
        var entries: [(directory: String?, track: Int?)] = []
        func walk(_ path: String) {
            guard let node = db.directories[path] else { return }
            if !path.isEmpty { entries.append((path, nil)) }
            for sub in node.subdirectories { walk(path.isEmpty ? sub : path + "/" + sub) }
            for track in node.tracks { entries.append((nil, track)) }
        }
        walk(root)
        let tags = c.tagMask
        return .stream(
            ItemProducer(count: entries.count) { i, out in
                if let directory = entries[i].directory {
                    MPDFormat.pair("directory", directory, to: &out)
                } else if let index = entries[i].track {
                    if info {
                        MPDFormat.song(db.catalog.allTracks[index], uri: db.uri(ofTrackAt: index), tags: tags, to: &out)
                    } else {
                        MPDFormat.pair("file", db.uri(ofTrackAt: index), to: &out)
                    }
                }
            })
    }

    /// Splits `sort TAG` and `window START:END` off the end of find/search arguments.
    private func findOptions(_ a: [String]) throws(MPDError) -> (
        filter: ArraySlice<String>, sort: (tag: MPDTag?, descending: Bool)?, window: (Int, Int?)?
    ) {
        var rest = a[...]
        var sort: (MPDTag?, Bool)?
        var window: (Int, Int?)?
        while rest.count >= 3 {
            let name = rest[rest.endIndex - 2]
            let value = rest[rest.endIndex - 1]
            if name == "window" {
                let range = try MPDArgument.range(value)
                window = (range.start, range.end)
            } else if name == "sort" {
                let descending = value.hasPrefix("-")
                let tagName = descending ? String(value.dropFirst()) : value
                guard MPDTag.knownNames.contains(tagName.lowercased()) || tagName == "Last-Modified" else {
                    throw .argument("Unknown sort tag")
                }
                sort = (MPDTag(name: tagName), descending)
            } else {
                break
            }
            rest = rest.dropLast(2)
        }
        return (rest, sort, window)
    }

    /// The catalog's tracks that match (indices into `allTracks`, in canonical order).
    private func matching(_ filter: MPDFilter, _ db: MPDDatabase) -> [Int] {
        var result: [Int] = []
        for (i, track) in db.catalog.allTracks.enumerated() where filter.matches(track, uri: db.uri(ofTrackAt: i)) {
            result.append(i)
        }
        return result
    }

    private func find(_ c: MPDConnection, _ a: [String], foldCase: Bool, addToQueue: Bool) throws(MPDError)
        -> MPDOutcome
    {
        let options = try findOptions(a)
        let filter = try MPDFilter.parse(options.filter, foldCase: foldCase)
        let db = database
        var found = matching(filter, db)
        if let sort = options.sort {
            let tracks = db.catalog.allTracks
            func key(_ i: Int) -> String { sort.tag.flatMap { $0.values(of: tracks[i]).first } ?? "" }
            found.sort { sort.descending ? key($0) > key($1) : key($0) < key($1) }
        }
        if let (start, end) = options.window {
            let upper = min(end ?? found.count, found.count)
            found = start < upper ? Array(found[start..<upper]) : []
        }
        if addToQueue {
            player.remoteInsert(found.map { db.catalog.allTracks[$0] })
            return changed()
        }
        let tags = c.tagMask
        return .stream(
            ItemProducer(count: found.count) { i, out in
                let index = found[i]
                MPDFormat.song(db.catalog.allTracks[index], uri: db.uri(ofTrackAt: index), tags: tags, to: &out)
            })
    }

    /// `list TYPE [FILTER] [group GROUPTYPE ...]`.
    private func list(_ c: MPDConnection, _ a: [String]) throws(MPDError) -> MPDOutcome {
        let typeName = a[0]
        let isFile = typeName.lowercased() == "file"
        guard isFile || MPDTag.knownNames.contains(typeName.lowercased()) else {
            throw .argument("Unknown tag type: \(typeName)")
        }
        var rest = a.dropFirst()
        var groups: [String] = []
        while rest.count >= 2 && rest[rest.endIndex - 2] == "group" {
            let name = rest[rest.endIndex - 1]
            guard MPDTag.knownNames.contains(name.lowercased()) else { throw .argument("Unknown tag type: \(name)") }
            groups.insert(name, at: 0)
            rest = rest.dropLast(2)
        }
        var filter: MPDFilter?
        if rest.count == 1 && !(rest.first?.hasPrefix("(") ?? false) {
            // The old "list album ARTIST".
            guard typeName.lowercased() == "album" else {
                throw .argument("should be \"Album\" for 3 arguments")
            }
            filter = .tag(
                .tag(.artist), .init(rest[rest.startIndex], foldCase: false, substring: false, negated: false))
        } else if !rest.isEmpty {
            filter = try MPDFilter.parse(rest, foldCase: false)
        }
        let db = database
        let tracks = filter.map { matching($0, db) } ?? Array(db.catalog.allTracks.indices)
        func values(_ name: String, _ index: Int) -> [String] {
            if name.lowercased() == "file" { return [db.uri(ofTrackAt: index)] }
            let found = MPDTag(name: name)?.values(of: db.catalog.allTracks[index]) ?? []
            // A song without the tag counts as an empty value, as in MPD.
            return found.isEmpty ? [""] : found
        }
        let typeLabel = isFile ? "file" : MPDTag.canonicalName(typeName)
        // Grouping: each combination of group values, then the type's values in it.
        var lines: [String] = []
        func emit(_ subset: [Int], level: Int) {
            if level == groups.count {
                var seen = Set<String>()
                for index in subset { for value in values(typeName, index) { seen.insert(value) } }
                for value in seen.sorted() where !(isFile && value.isEmpty) { lines.append("\(typeLabel): \(value)") }
                return
            }
            var byValue: [String: [Int]] = [:]
            for index in subset {
                for value in values(groups[level], index) { byValue[value, default: []].append(index) }
            }
            let label = MPDTag.canonicalName(groups[level])
            for value in byValue.keys.sorted() {
                lines.append("\(label): \(value)")
                emit(byValue[value]!, level: level + 1)
            }
        }
        emit(tracks, level: 0)
        return .stream(
            ItemProducer(count: lines.count) { i, out in
                out.append(contentsOf: lines[i].utf8)
                out.append(0x0A)
            })
    }

    private func count(_ c: MPDConnection, _ a: [String]) throws(MPDError) -> MPDOutcome {
        var rest = a[...]
        var group: String?
        if rest.count >= 2 && rest[rest.endIndex - 2] == "group" {
            let name = rest[rest.endIndex - 1]
            guard MPDTag.knownNames.contains(name.lowercased()) else { throw .argument("Unknown tag type: \(name)") }
            group = name
            rest = rest.dropLast(2)
        }
        let db = database
        let found =
            rest.isEmpty
            ? Array(db.catalog.allTracks.indices) : matching(try MPDFilter.parse(rest, foldCase: false), db)
        func seconds(_ list: [Int]) -> Int {
            Int(list.reduce(0.0) { $0 + (db.catalog.allTracks[$1].durationSeconds ?? 0) }.rounded())
        }
        guard let group else {
            c.write("songs: \(found.count)\nplaytime: \(seconds(found))\n")
            return .done
        }
        var byValue: [String: [Int]] = [:]
        for index in found {
            let values = MPDTag(name: group)?.values(of: db.catalog.allTracks[index]) ?? []
            for value in values.isEmpty ? [""] : values { byValue[value, default: []].append(index) }
        }
        for value in byValue.keys.sorted() {
            let list = byValue[value]!
            c.write("\(MPDTag.canonicalName(group)): \(value)\nsongs: \(list.count)\nplaytime: \(seconds(list))\n")
        }
        return .done
    }

    // MARK: - stored playlists (the sticks' playlists)

    private func listPlaylists(_ c: MPDConnection) -> MPDOutcome {
        for playlist in database.playlists {
            c.write("playlist: \(playlist.name)\n")
            c.write("Last-Modified: \(MPDTime.iso8601(nanoseconds: playlist.modificationTime))\n")
        }
        return .done
    }

    private func playlistTracks(_ name: String) throws(MPDError) -> [Track] {
        let db = database
        guard let playlist = db.playlist(named: name) else { throw .noExist("No such playlist") }
        return db.catalog.tracks(of: playlist.collection)
    }

    private func listPlaylist(_ c: MPDConnection, _ a: [String], info: Bool) throws(MPDError) -> MPDOutcome {
        var tracks = try playlistTracks(a[0])
        if a.count > 1 {
            let range = try MPDArgument.range(a[1])
            let end = min(range.end ?? tracks.count, tracks.count)
            tracks = range.start < end ? Array(tracks[range.start..<end]) : []
        }
        let tags = c.tagMask
        return .stream(
            ItemProducer(count: tracks.count) { [unowned self] i, out in
                if info {
                    MPDFormat.song(tracks[i], uri: self.uri(of: tracks[i]), tags: tags, to: &out)
                } else {
                    MPDFormat.pair("file", self.uri(of: tracks[i]), to: &out)
                }
            })
    }

    private func load(_ a: [String]) throws(MPDError) -> MPDOutcome {
        var tracks = try playlistTracks(a[0])
        if a.count > 1 {
            let range = try MPDArgument.range(a[1])
            let end = min(range.end ?? tracks.count, tracks.count)
            guard range.start <= end else { throw .argument("Bad song index") }
            tracks = Array(tracks[range.start..<end])
        }
        let position = try insertPosition(a.count > 2 ? a[2] : nil)
        player.remoteInsert(tracks, at: position)
        return changed()
    }

    // MARK: - pictures

    /// `albumart URI OFFSET` / `readpicture URI OFFSET`: a chunk of the picture, at most
    /// `binarylimit` bytes: `size: N`, (`type: MIME`), `binary: n`, the bytes, a newline.
    private func picture(_ c: MPDConnection, _ a: [String], kind: MPDArtworkLoader.Kind, command: String)
        throws(MPDError) -> MPDOutcome
    {
        let offset = try MPDArgument.unsigned(a[1])
        let db = database
        let index: Int?
        switch db.locate(a[0]) {
        case .song(let i): index = i
        case .directory(let path): index = db.tracks(under: path).first
        default: index = nil
        }
        guard let index, let mountPoint = db.mountPoints[db.catalog.allTracks[index].volume] else {
            throw .noExist(kind == .cover ? "No file exists" : "No such song")
        }
        let track = db.catalog.allTracks[index]
        let key = MPDArtworkLoader.Key(kind: kind, path: track.path)
        if let cached = artwork.cached(key) {
            try writePicture(cached, offset: offset, kind: kind, to: c)
            return .done
        }
        artwork.load(kind, track: track, mountPoint: mountPoint, catalog: db.catalog) { [weak self, weak c] picture in
            guard let self, let c, !c.closed, c.waitingForArtwork else { return }
            c.waitingForArtwork = false
            do throws(MPDError) {
                try self.writePicture(picture, offset: offset, kind: kind, to: c)
                self.commandFinished(c)
            } catch {
                self.commandFailed(c, error, command: command)
            }
            self.process(c)
        }
        return .wait
    }

    private func writePicture(
        _ picture: MPDArtworkLoader.Picture?, offset: Int, kind: MPDArtworkLoader.Kind,
        to c: MPDConnection
    ) throws(MPDError) {
        guard let picture else {
            if kind == .cover { throw .noExist("No file exists") }
            return
        }
        let size = picture.bytes.count
        guard offset <= size else { throw .argument(kind == .cover ? "Offset too large" : "Bad file offset") }
        let length = min(c.binaryLimit, size - offset)
        c.write("size: \(size)\n")
        if kind == .embedded { c.write("type: \(picture.mimeType)\n") }
        c.write("binary: \(length)\n")
        c.write(bytes: picture.bytes[offset..<offset + length])
        c.write("\n")
    }
}
