// SPDX-License-Identifier: GPL-3.0-or-later
import KioskCore
import KioskLibrary
import KioskModel

/// Playing, seeking, modes and volume (MPD's src/command/PlayerCommands.cxx). Thread: loop thread.
enum MPDPlaybackCommands {
    static func play(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        if let argument = r.optional(0) {
            let position = try MPDArgument.int(argument)
            if position >= 0 {
                guard s.player.perform(.playEntry(position), from: .remote) else { throw .argument("Bad song index") }
                return s.changed()
            }
        }
        s.player.perform(.play, from: .remote)
        return s.changed()
    }

    static func playID(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        if let argument = r.optional(0) {
            let id = try MPDArgument.int(argument)
            if id >= 0 {
                let position = try s.position(ofID: argument)
                s.player.perform(.playEntry(position), from: .remote)
                return s.changed()
            }
        }
        s.player.perform(.play, from: .remote)
        return s.changed()
    }

    static func pause(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let pause = try r.optional(0).map(MPDArgument.bool)
        s.player.perform(pause.map { $0 ? .pause : .resume } ?? .togglePause, from: .remote)
        return s.changed()
    }

    static func stop(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        s.player.perform(.stop, from: .remote)
        return s.changed()
    }

    static func next(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        guard s.player.perform(.next, from: .remote) else { throw MPDError(.playerSync, "Not playing") }
        return s.changed()
    }

    static func previous(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        guard s.player.perform(.previous, from: .remote) else { throw MPDError(.playerSync, "Not playing") }
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
        // MPD's times in a ranged song count from the range's start; the player's from the file's.
        let start = s.rangeStartSeconds(ofEntry: player.mpdCurrentPosition)
        let target = relative ? player.enginePositionSeconds - start + value : value
        player.perform(.seek(entry: nil, seconds: start + max(0, target)), from: .remote)
        return s.changed()
    }

    static func seek(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let position = try MPDArgument.int(r[0])
        let seconds = try MPDArgument.double(r[1]) + s.rangeStartSeconds(ofEntry: position)
        guard s.player.perform(.seek(entry: position, seconds: seconds), from: .remote) else {
            throw .argument("Bad song index")
        }
        return s.changed()
    }

    static func seekID(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let seconds = try MPDArgument.double(r[1])
        let position = try s.position(ofID: r[0])
        s.player.perform(
            .seek(entry: position, seconds: seconds + s.rangeStartSeconds(ofEntry: position)), from: .remote)
        return s.changed()
    }

    static func repeatMode(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        s.player.perform(.setRepeat(try MPDArgument.bool(r[0])), from: .remote)
        return s.changed()
    }

    /// `random 1` shuffles the tracks (the box's shuffle; an audiobook keeps its order).
    static func random(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        s.player.perform(.setShuffle(try MPDArgument.bool(r[0]) ? .tracks : .off), from: .remote)
        return s.changed()
    }

    /// `consume 1`: each entry that has played leaves the queue (at the track border, at the end of
    /// the queue, on `next`), as in MPD 0.23.
    static func consume(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        s.player.perform(.setConsume(try MPDArgument.bool(r[0])), from: .remote)
        return s.changed()
    }

    /// `single 1|oneshot`: stop after the current entry (`SingleMode`).
    static func single(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        guard let mode = SingleMode(rawValue: r[0]) else {
            throw .argument("Unrecognized single mode, expected 0, 1, or oneshot")
        }
        s.player.perform(.setSingle(mode), from: .remote)
        return s.changed()
    }

    static func setVolume(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        guard let value = MPDArgument.parseInt(r[0]) else { throw .argument("Integer expected: \(r[0])") }
        guard (0...100).contains(value) else { throw .argument("Number too large: \(r[0])") }
        s.player.perform(.setVolume(value), from: .remote)
        return s.changed()
    }

    static func volume(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        guard let delta = MPDArgument.parseInt(r[0]) else { throw .argument("Integer expected: \(r[0])") }
        guard (-100...100).contains(delta) else { throw .argument("Number too large: \(r[0])") }
        s.player.perform(.setVolume(s.player.volume + delta), from: .remote)
        return s.changed()
    }

    static func getVolume(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        r.connection.write("volume: \(s.player.volume)\n")
        return .done
    }

    /// `crossfade SECONDS`: accepted, as every client's settings screen sends it; the box plays
    /// gapless and does not crossfade, so `status` goes on reporting none (no `xfade:`).
    static func crossfade(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        _ = try MPDArgument.unsigned(r[0], max: Int(UInt32.max))
        return .done
    }

    /// `mixrampdb DB` and `mixrampdelay SECONDS`: accepted; the box does no MixRamp overlap, so
    /// `status` reports `mixrampdb: 0` and no `mixrampdelay`.
    static func mixRampDB(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        _ = try MPDArgument.anyFloat(r[0])
        return .done
    }

    static func mixRampDelay(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        _ = try MPDArgument.anyFloat(r[0])
        return .done
    }

    /// `replay_gain_mode off|track|album|auto`: the player's ReplayGain mode until the next start
    /// (the config's `replayGain` is the mode at boot); applied at once to what plays.
    static func replayGainMode(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        guard let mode = ReplayGainMode(rawValue: r[0]) else { throw .argument("Unrecognized replay gain mode") }
        s.player.perform(.setReplayGain(mode), from: .remote)
        return .done
    }

    static func replayGainStatus(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        r.connection.write("replay_gain_mode: \(s.player.replayGainMode.rawValue)\n")
        return .done
    }
}
