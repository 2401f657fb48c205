// SPDX-License-Identifier: GPL-3.0-or-later
import KioskCore

/// The audio outputs: the configured ALSA devices, one playing at a time (MPD's
/// src/command/OutputCommands.cxx). Thread: loop thread.
enum MPDOutputCommands {
    static func outputs(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let c = r.connection
        for (i, device) in s.outputDevices.enumerated() {
            c.write("outputid: \(i)\noutputname: \(device)\nplugin: alsa\n")
            c.write("outputenabled: \(device == s.player.outputDevice ? 1 : 0)\n")
        }
        return .done
    }

    static func enable(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        try set(s, r[0]) { _ in true }
    }

    static func disable(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        try set(s, r[0]) { _ in false }
    }

    static func toggle(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        try set(s, r[0]) { enabled in !enabled }
    }

    /// Enables or disables output `argument`, `enable` deciding from whether it is enabled now.
    private static func set(_ s: MPDServer, _ argument: String, enable: (Bool) -> Bool) throws(MPDError)
        -> MPDOutcome
    {
        let index = try MPDArgument.unsigned(argument)
        let devices = s.outputDevices
        guard index < devices.count else { throw .noExist("No such audio output") }
        let device = devices[index]
        let enabled = device == s.player.outputDevice
        if enable(enabled) {
            s.player.perform(.chooseOutput(device), from: .remote)
        } else if enabled {
            // Only one device plays at a time: disabling it leaves the silent sink.
            s.player.perform(.chooseOutput(Player.silentOutput), from: .remote)
        }
        return s.changed()
    }
}

extension MPDServer {
    /// The outputs clients see: the configured ALSA devices (not the silent sink).
    var outputDevices: [String] { player.outputDevices.filter { $0 != Player.silentOutput } }
}
