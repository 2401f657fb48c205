// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskModel
import KioskSystem

/// Bluetooth headphones (config `bluetooth`, the `BluetoothLink` part) as the player applies it:
/// the `bluetooth` and `bluetooth-pair` actions (a held chord, a card) and BlueZ's reports go to
/// the part; its words show and are said, its requests go to the app's `BluetoothWatch` as
/// `PlayerChange.bluetooth`, the sound moves between the speaker and the headphones' bluez-alsa
/// PCM through the `OutputSupervisor`, and the headphones' volume limit holds while they play.
/// The last pair paired is kept in `bluetooth.json` in the state directory.
/// Thread: the loop thread, like `Player`.
extension Player {
    /// How long Bluetooth's words show.
    static let bluetoothMessageSeconds = 4

    /// The app's watch is listening: the part starts, with the remembered pair connected again.
    public func bluetoothStart() {
        scheduler.assertInLoop()
        let remembered = BluetoothStore.load(directory: config.stateDirectory)
        apply(bluetooth?.handle(.started(remembered: remembered)).map(PlayerEffect.bluetooth) ?? [])
    }

    /// What BlueZ reported (the app's `BluetoothWatch`).
    public func bluetoothReport(_ report: BluetoothReport) {
        scheduler.assertInLoop()
        guard !shuttingDown else { return }
        apply(bluetooth?.handle(.report(report)).map(PlayerEffect.bluetooth) ?? [])
    }

    /// The `bluetooth` action: headphones on, or the speaker again (the way out, always).
    func toggleHeadphones() {
        guard bluetooth != nil else {
            Log.notice("bluetooth: not configured (config.json has no bluetooth section)")
            return
        }
        apply(bluetooth?.handle(.toggle).map(PlayerEffect.bluetooth) ?? [])
    }

    /// The `bluetooth-pair` action.
    func pairHeadphones() {
        guard bluetooth != nil else {
            Log.notice("bluetooth: not configured (config.json has no bluetooth section)")
            return
        }
        apply(bluetooth?.handle(.pair).map(PlayerEffect.bluetooth) ?? [])
    }

    /// The headphones the sound goes to (nil: the speaker, or Bluetooth off).
    public var headphonesInUse: Headphones? { bluetooth?.route }

    /// Carries out what the part decided.
    func carryOut(_ outcome: BluetoothLink.Outcome) {
        switch outcome {
        case .say(let words):
            Log.notice("bluetooth: \(words)")
            let message = MessageState(title: words)
            showTransient(message, seconds: Self.bluetoothMessageSeconds)
            // A box without a screen says its progress even with speech off.
            if announcer.mode == .off, config.bluetooth?.speak ?? false { send(.speak(SpokenForm.text(message))) }
        case .request(let request):
            send(.bluetooth(request))
        case .pause:
            if status == .playing { apply(transport.handle(.pause)) }
        case .route(let pair):
            output.useHeadphones(pair?.pcm)
            outbox.remoteChanges.note(.output)
        case .volumeCeiling(let percent):
            apply(transport.handle(.headphonesCeiling(percent)))
            if volume > volumeLimits.range.upperBound { changeVolume(by: volumeLimits.range.upperBound - volume) }
        case .remember(let pair):
            recorder.writer.submitFile(
                BluetoothStore.path(directory: config.stateDirectory), text: BluetoothStore.text(pair))
        }
        refreshScreen()
    }
}

/// Where the last pair is remembered (`bluetooth.json` in the state directory): their address and
/// name. BlueZ keeps the pairing's keys itself (`/var/lib/bluetooth`); this file says which of
/// its devices the box connects at start. A file that does not parse is set aside as
/// `bluetooth.json.bad` with a warning, and no pair is remembered.
///
/// Thread: any (functions of values; `load` reads the file on the caller's thread).
enum BluetoothStore {
    static let fileName = "bluetooth.json"
    static let format = "kiosk-player-bluetooth"
    static let version = 1

    static func path(directory: String) -> String { "\(directory)/\(fileName)" }

    static func text(_ pair: Headphones) -> String {
        let document = JSONValue.object([
            ("format", .string(format)), ("version", .number(Double(version))),
            ("address", .string(pair.address)), ("name", .string(pair.name)),
        ])
        return document.serialized(pretty: true) + "\n"
    }

    static func load(directory: String) -> Headphones? {
        let path = path(directory: directory)
        guard Syscalls.exists(path) else { return nil }
        do {
            let r = try JSONReader.stateFile(
                try ConfigError.contents(of: path), file: path, format: format, version: version, what: "\(format) file"
            )
            guard let address = try r.string("address"), BluetoothConfig.isAddress(address) else {
                throw r.error("address", "expected a Bluetooth address AA:BB:CC:DD:EE:FF")
            }
            let name = try r.string("name", nonEmpty: false) ?? address
            try r.finish()
            return Headphones(address: address.uppercased(), name: name)
        } catch {
            Log.warning("ignoring the remembered headphones (kept as \(fileName).bad): \(error)")
            try? Syscalls.rename(path, path + ".bad")
            return nil
        }
    }
}
