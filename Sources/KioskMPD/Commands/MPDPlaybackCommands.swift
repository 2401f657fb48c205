import KioskCore

/// Playing, seeking, modes and volume (MPD's src/command/PlayerCommands.cxx). Thread: loop thread.
enum MPDPlaybackCommands {
    static func play(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        if let argument = r.optional(0) {
            let position = try MPDArgument.int(argument)
            if position >= 0 {
                guard s.player.remotePlay(at: position) else { throw .argument("Bad song index") }
                return s.changed()
            }
        }
        s.player.remotePlay()
        return s.changed()
    }

    static func playID(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        if let argument = r.optional(0) {
            let id = try MPDArgument.int(argument)
            if id >= 0 {
                guard let position = s.state.position(ofID: id) else { throw .noExist("No such song") }
                s.player.remotePlay(at: position)
                return s.changed()
            }
        }
        s.player.remotePlay()
        return s.changed()
    }

    static func pause(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        s.player.remotePause(try r.optional(0).map(MPDArgument.bool))
        return s.changed()
    }

    static func stop(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        s.player.remoteStop()
        return s.changed()
    }

    static func next(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        guard s.player.remoteNext() else { throw MPDError(.playerSync, "Not playing") }
        return s.changed()
    }

    static func previous(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        guard s.player.remotePrevious() else { throw MPDError(.playerSync, "Not playing") }
        return s.changed()
    }

    /// Nothing to clear: playback errors end in the player's own messages.
    static func clearError(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome { .done }

    static func seekCurrent(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let player = s.player
        let argument = r[0]
        let relative = argument.hasPrefix("+") || argument.hasPrefix("-")
        let value = try MPDArgument.double(argument)
        guard player.status != .stopped, player.currentTrack != nil else { throw MPDError(.playerSync, "Not playing") }
        let target = relative ? player.enginePositionSeconds + value : value
        player.remoteSeek(toSeconds: max(0, target))
        return s.changed()
    }

    static func seek(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let position = try MPDArgument.int(r[0])
        let seconds = try MPDArgument.double(r[1])
        guard s.player.remoteSeek(index: position, toSeconds: seconds) else { throw .argument("Bad song index") }
        return s.changed()
    }

    static func seekID(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let id = try MPDArgument.unsigned(r[0])
        let seconds = try MPDArgument.double(r[1])
        guard let position = s.state.position(ofID: id) else { throw .noExist("No such song") }
        s.player.remoteSeek(index: position, toSeconds: seconds)
        return s.changed()
    }

    static func repeatMode(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        s.player.remoteSetRepeat(try MPDArgument.bool(r[0]))
        return s.changed()
    }

    /// `random 1` shuffles the tracks (the box's shuffle; an audiobook keeps its order).
    static func random(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        s.player.remoteSetRandom(try MPDArgument.bool(r[0]))
        return s.changed()
    }

    /// `consume 1`: each entry that has played leaves the queue (at the track border, at the end of
    /// the queue, on `next`), as in MPD 0.23.
    static func consume(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        s.player.remoteSetConsume(try MPDArgument.bool(r[0]))
        return s.changed()
    }

    /// `single 1|oneshot`: stop after the current entry (`SingleMode`).
    static func single(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        guard let mode = SingleMode(rawValue: r[0]) else {
            throw .argument("Unrecognized single mode, expected 0, 1, or oneshot")
        }
        s.player.remoteSetSingle(mode)
        return s.changed()
    }

    static func setVolume(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        guard let value = MPDArgument.parseInt(r[0]) else { throw .argument("Integer expected: \(r[0])") }
        guard (0...100).contains(value) else { throw .argument("Number too large: \(r[0])") }
        s.player.remoteSetVolume(value)
        return s.changed()
    }

    static func volume(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        guard let delta = MPDArgument.parseInt(r[0]) else { throw .argument("Integer expected: \(r[0])") }
        guard (-100...100).contains(delta) else { throw .argument("Number too large: \(r[0])") }
        s.player.remoteSetVolume(s.player.volume + delta)
        return s.changed()
    }

    static func getVolume(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        r.connection.write("volume: \(s.player.volume)\n")
        return .done
    }
}
