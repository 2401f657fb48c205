// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskSystem

/// A pair of Bluetooth headphones: their address and the name they give.
///
/// Thread: any (a value).
public struct Headphones: Sendable, Equatable {
    /// "AA:BB:CC:DD:EE:FF".
    public var address: String
    public var name: String

    public init(address: String, name: String) {
        self.address = address
        self.name = name
    }

    /// The bluez-alsa ALSA PCM that plays to them.
    public var pcm: String { BluetoothConfig.pcm(address: address) }
}

/// What the player asks of BlueZ (the app's `BluetoothWatch` carries it out on its own thread and
/// answers with `Player.bluetoothReport`).
///
/// Thread: any (a value).
public enum BluetoothRequest: Sendable, Equatable {
    /// Look for headphones in pairing mode for `seconds`, pair, trust and connect the first.
    case pair(seconds: Int)
    /// Connect the known headphones at `address`, giving up after `seconds`.
    case connect(address: String, seconds: Int)
    /// Disconnect them (the way back to the speaker).
    case disconnect(address: String)
    /// Stop looking (pairing given up by the person).
    case cancelPairing
}

/// What BlueZ reported (the app's `BluetoothWatch`).
///
/// Thread: any (a value).
public enum BluetoothReport: Sendable, Equatable {
    /// Pairing found, paired and trusted these headphones.
    case paired(Headphones)
    /// Pairing ended without headphones, for this reason.
    case pairFailed(String)
    /// The headphones' audio link is up (their bluez-alsa PCM exists).
    case connected(Headphones)
    /// Connecting to them failed, for this reason.
    case connectFailed(address: String, reason: String)
    /// Their link went down.
    case disconnected(address: String)
    /// BlueZ cannot be used (no adapter, no bluetoothd), for this reason.
    case unavailable(String)
}

/// Bluetooth headphones (config `bluetooth`) as a part of the player: the person's wish (headphones
/// or the speaker), pairing, the remembered pair, and where the sound goes. The speaker is where a
/// box starts, whatever it played to before: the sound moves to the headphones only once BlueZ
/// says their link is up, so a boot that finds no headphones plays on the speaker, and the
/// `bluetooth` action always brings the sound back to it, whether the headphones are there or not.
/// When the headphones go away while they play, playback pauses first, then the speaker takes
/// over and the box says so. Their own volume limit (`maxVolume`) holds while they play.
///
/// A part of the player: its state changes only in `handle`, which returns what the player carries
/// out (`PlayerEffect.bluetooth`); it holds no scheduler and talks to no bus.
///
/// Thread: any (a value); the player's copy lives on the loop thread.
struct BluetoothLink {
    /// What the player shows, says and does, in order.
    enum Outcome: Equatable {
        /// Show and say this (progress, a result).
        case say(String)
        /// Ask BlueZ (through the app's watch).
        case request(BluetoothRequest)
        /// Pause playback (before the sound moves to the speaker).
        case pause
        /// Play to these headphones' PCM (nil: the speaker, the output chosen as before).
        case route(Headphones?)
        /// The headphones' volume limit (nil: none, back on the speaker).
        case volumeCeiling(Int?)
        /// Remember these headphones (bluetooth.json in the state directory).
        case remember(Headphones)
    }

    /// What happens.
    enum Event: Equatable {
        /// The player starts; `remembered` is the pair bluetooth.json names.
        case started(remembered: Headphones?)
        /// The `bluetooth` action: headphones on, or back to the speaker.
        case toggle
        /// The `bluetooth-pair` action.
        case pair
        /// BlueZ reported.
        case report(BluetoothReport)
    }

    /// What the part is waiting for.
    enum Pending: Equatable {
        case none
        case pairing
        /// A connection to the remembered pair; `asked`: by a person (a failure is said), not by
        /// the start (a failure is only logged).
        case connecting(asked: Bool)
    }

    let config: BluetoothConfig
    /// The last headphones paired.
    private(set) var remembered: Headphones?
    /// The person wants the headphones (the remembered pair) rather than the speaker.
    private(set) var wanted = false
    private(set) var pending = Pending.none
    /// The headphones whose link is up.
    private(set) var connected: Headphones?
    /// The headphones the sound goes to (nil: the speaker).
    private(set) var route: Headphones?
    /// BlueZ's last reason for being unusable, said once.
    private var unavailable: String?

    init(config: BluetoothConfig) {
        self.config = config
    }

    /// Spoken and shown words.
    static let pairingStarted = "Pairing: put the headphones in pairing mode"
    static func pairedWith(_ name: String) -> String { "Paired with \(name)" }
    static let noHeadphonesFound = "No headphones found"
    static let connecting = "Connecting the headphones"
    static let headphonesOn = "Headphones on"
    static let headphonesNotFound = "Headphones not found: playing on the speaker"
    static let speakerOn = "Speaker on"
    static let headphonesGone = "Headphones disconnected: paused, the speaker is on"
    static let pairingCancelled = "Pairing cancelled"
    static let notWorking = "Bluetooth does not work"

    mutating func handle(_ event: Event) -> [Outcome] {
        switch event {
        case .started(let pair):
            remembered = pair
            guard let pair else { return [] }
            // The last pair is wanted again; the box plays on the speaker until their link is up.
            wanted = true
            pending = .connecting(asked: false)
            return [.request(.connect(address: pair.address, seconds: config.connectSeconds))]
        case .toggle:
            if route != nil || pending != .none || wanted && connected != nil {
                return backToSpeaker()
            }
            guard let pair = remembered else { return startPairing() }
            wanted = true
            if connected == pair { return useHeadphones(pair) }
            pending = .connecting(asked: true)
            return [.say(Self.connecting), .request(.connect(address: pair.address, seconds: config.connectSeconds))]
        case .pair:
            if pending == .pairing {
                pending = .none
                return [.say(Self.pairingCancelled), .request(.cancelPairing)]
            }
            var effects: [Outcome] = []
            if route != nil { effects += backToSpeaker() }
            return effects + startPairing()
        case .report(let report):
            return handle(report)
        }
    }

    private mutating func handle(_ report: BluetoothReport) -> [Outcome] {
        switch report {
        case .paired(let pair):
            guard pending == .pairing else { return [] }
            remembered = pair
            wanted = true
            pending = .connecting(asked: true)
            Log.notice("bluetooth: paired with \(pair.name) (\(pair.address))")
            return [
                .remember(pair), .say(Self.pairedWith(pair.name)),
                .request(.connect(address: pair.address, seconds: config.connectSeconds)),
            ]
        case .pairFailed(let reason):
            guard pending == .pairing else { return [] }
            pending = .none
            Log.warning("bluetooth: pairing ended without headphones: \(reason)")
            return [.say(Self.noHeadphonesFound)]
        case .connected(let pair):
            connected = pair
            guard pair.address == remembered?.address else {
                Log.notice("bluetooth: \(pair.name) (\(pair.address)) connected; not the remembered pair")
                return []
            }
            let wasPending = pending
            pending = .none
            guard wanted, route == nil else { return [] }
            Log.notice("bluetooth: \(pair.name) (\(pair.address)) connected\(wasPending == .none ? " by itself" : "")")
            return useHeadphones(pair)
        case .connectFailed(let address, let reason):
            guard case .connecting(let asked) = pending, address == remembered?.address else { return [] }
            pending = .none
            Log.warning("bluetooth: cannot connect \(address): \(reason); playing on the speaker")
            return asked ? [.say(Self.headphonesNotFound)] : []
        case .disconnected(let address):
            guard connected?.address == address else { return [] }
            connected = nil
            guard let pair = route, pair.address == address else { return [] }
            route = nil
            Log.warning("bluetooth: \(pair.name) (\(address)) disconnected; paused, back to the speaker")
            // Paused first: nothing meant for the headphones comes out of the speaker.
            return [.pause, .route(nil), .volumeCeiling(nil), .say(Self.headphonesGone)]
        case .unavailable(let reason):
            let wasAsked: Bool
            switch pending {
            case .pairing, .connecting(asked: true): wasAsked = true
            default: wasAsked = false
            }
            pending = .none
            let first = unavailable != reason
            unavailable = reason
            if first { Log.warning("bluetooth: \(reason); playing on the speaker") }
            return wasAsked ? [.say(Self.notWorking)] : []
        }
    }

    private mutating func startPairing() -> [Outcome] {
        pending = .pairing
        return [.say(Self.pairingStarted), .request(.pair(seconds: config.pairSeconds))]
    }

    private mutating func useHeadphones(_ pair: Headphones) -> [Outcome] {
        route = pair
        unavailable = nil
        return [.route(pair), .volumeCeiling(config.maxVolume), .say(Self.headphonesOn)]
    }

    /// The way out: the speaker now, the headphones let go, whatever state they are in.
    private mutating func backToSpeaker() -> [Outcome] {
        var effects: [Outcome] = []
        if pending == .pairing { effects.append(.request(.cancelPairing)) }
        pending = .none
        wanted = false
        if route != nil {
            route = nil
            effects += [.route(nil), .volumeCeiling(nil)]
        }
        if let address = connected?.address ?? remembered?.address {
            effects.append(.request(.disconnect(address: address)))
        }
        Log.notice("bluetooth: back to the speaker")
        return effects + [.say(Self.speakerOn)]
    }
}
