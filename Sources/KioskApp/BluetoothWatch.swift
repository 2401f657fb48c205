// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskCore
import KioskHardware
import KioskSystem

/// Bluetooth headphones (config `bluetooth`): carries out what the player asks of BlueZ (pair,
/// connect, disconnect: `PlayerChange.bluetooth`) and tells it what BlueZ says (paired, the
/// headphones' audio link up or down: `Player.bluetoothReport`). It talks to bluetoothd over the
/// system bus (`BlueZ`, sd-bus), whose calls block (Pair takes seconds, a bus or daemon that hangs
/// takes the call's timeout), so everything runs on a thread of its own (`kiosk-bluetooth`), which
/// also answers bluetoothd's calls to the pairing agent; results come back to the loop through a
/// `Mailbox`. A pair's link counts as up when BlueZ has it connected with an A2DP transport (the
/// stream bluez-alsa set up: its PCM exists); the thread looks every `pollMilliseconds`.
///
/// Thread: `start`, `stop` and `request` on the loop thread; the bus on `kiosk-bluetooth`.
public final class BluetoothWatch: ApplianceService {
    private let config: BluetoothConfig
    private let shared: Shared
    private var thread: KioskThread?

    /// What the loop thread and `kiosk-bluetooth` share.
    private final class Shared: Sendable {
        let requests = Locked<(queue: [BluetoothRequest], stopping: Bool)>(([], false))
        let reports: Mailbox<BluetoothReport>
        init(reports: Mailbox<BluetoothReport>) { self.reports = reports }
    }

    /// How often the thread looks at BlueZ's devices (and how soon it sees a request).
    static let pollMilliseconds = 250

    init(config: BluetoothConfig, loop: any EventLoopProtocol, onReport: @escaping (BluetoothReport) -> Void) {
        self.config = config
        shared = Shared(reports: Mailbox(loop: loop, handler: onReport))
    }

    /// Starts the thread.
    func start() throws(Errno) {
        let shared = shared
        let config = config
        thread = try KioskThread(name: "kiosk-bluetooth") {
            var session = Session(config: config, shared: shared)
            session.run()
        }
    }

    /// Hands a request to the thread (loop thread).
    func request(_ request: BluetoothRequest) {
        shared.requests.withLock { $0.queue.append(request) }
    }

    public func stop() {
        shared.requests.withLock { $0.stopping = true }
        thread?.join()
        thread = nil
    }

    /// Follows BlueZ when config.json has a `bluetooth` section.
    public static func make(_ context: ApplianceContext) throws -> (any ApplianceService)? {
        guard let config = context.resolved.config.bluetooth else { return nil }
        let player = context.player
        let inputs = context.inputs
        let watch = BluetoothWatch(config: config, loop: context.loop) { [weak player] report in
            // The buttons read are those of the headphones that connected: BlueZ makes a
            // "<name> (AVRCP)" device for every remote with AVRCP, not only headphones.
            if case .connected(let headphones) = report {
                inputs?.retargetComingAndGoing(to: "\(headphones.name) (AVRCP)")
            }
            player?.bluetoothReport(report)
        }
        player.listen(to: .bluetooth) { [weak watch] change in
            if case .bluetooth(let request) = change { watch?.request(request) }
        }
        Log.info(
            "bluetooth: adapter \(config.adapter), headphones at most \(config.maxVolume)%, pairing \(config.pairSeconds) s"
        )
        try watch.start()
        player.bluetoothStart()
        return watch
    }

    /// The thread's state: the bus, what it was asked, which links are up.
    ///
    /// Thread: `kiosk-bluetooth` only.
    private struct Session {
        let config: BluetoothConfig
        let shared: Shared
        var bluez: BlueZ?
        /// When to try the bus again after a failure (monotonic ns), and why it failed.
        var retryAt: UInt64 = 0
        var failure: String?
        /// Headphones whose audio link is up, by address.
        var up: [String: Headphones] = [:]
        var pairing: Pairing?
        var connecting: Connecting?

        /// A connection asked for: tried again 2 s after each failure until its deadline
        /// (headphones busy or just switched on refuse the first page; BlueZ ends some attempts
        /// with br-connection-canceled).
        struct Connecting {
            var address: String
            var deadline: UInt64
            /// When to call Connect again (nil: a call is running, or none failed yet).
            var retryAt: UInt64?
            var tries = 1
            var reason = "no audio link within the time allowed"
        }

        struct Pairing {
            var deadline: UInt64
            /// The headphones being paired (Pair called), nil while looking.
            var candidate: Headphones?
        }

        init(config: BluetoothConfig, shared: Shared) {
            self.config = config
            self.shared = shared
        }

        static func now() -> UInt64 { Syscalls.monotonicNanoseconds() }

        func report(_ report: BluetoothReport) { shared.reports.send(report) }

        mutating func run() {
            while true {
                let (requests, stopping) = shared.requests.withLock { state in
                    defer { state.queue.removeAll() }
                    return (state.queue, state.stopping)
                }
                if stopping { break }
                openIfNeeded()
                for request in requests { handle(request) }
                guard let bluez else {
                    Syscalls.sleep(nanoseconds: UInt64(BluetoothWatch.pollMilliseconds) * 1_000_000)
                    continue
                }
                do throws(BlueZError) {
                    try bluez.run(waitingMilliseconds: BluetoothWatch.pollMilliseconds)
                    try look(bluez)
                } catch {
                    lost(error.message)
                }
            }
            if pairing != nil { try? bluez?.discovery(false) }
        }

        /// The bus and the adapter, powered; tried again every 5 s after a failure.
        mutating func openIfNeeded() {
            guard bluez == nil, Self.now() >= retryAt else { return }
            do throws(BlueZError) {
                let bus = try BlueZ(adapter: config.adapter, agent: true)
                let adapter = try bus.adapter()
                if !adapter.powered { try bus.setPowered(true) }
                bluez = bus
                failure = nil
                Log.notice(
                    "bluetooth: \(config.adapter) (\(adapter.address)) through bluetoothd; pairing agent registered")
            } catch {
                retryAt = Self.now() + 5_000_000_000
                if failure != error.message {
                    failure = error.message
                    report(.unavailable(error.message))
                }
            }
        }

        /// The bus went away (bluetoothd restarted, the adapter unplugged): every link is down.
        mutating func lost(_ reason: String) {
            Log.warning("bluetooth: \(reason); trying again in 5 s")
            bluez = nil
            retryAt = Self.now() + 5_000_000_000
            for address in up.keys.sorted() { report(.disconnected(address: address)) }
            up.removeAll()
            if pairing != nil { report(.pairFailed(reason)) }
            if let connecting { report(.connectFailed(address: connecting.address, reason: reason)) }
            pairing = nil
            connecting = nil
            failure = reason
            report(.unavailable(reason))
        }

        mutating func handle(_ request: BluetoothRequest) {
            guard let bluez else {
                report(.unavailable(failure ?? "bluetoothd does not answer"))
                return
            }
            let now = Self.now()
            do throws(BlueZError) {
                switch request {
                case .pair(let seconds):
                    Log.notice("bluetooth: looking for headphones in pairing mode for \(seconds) s")
                    try bluez.discovery(true)
                    pairing = Pairing(deadline: now + UInt64(seconds) * 1_000_000_000)
                case .cancelPairing:
                    pairing = nil
                    try bluez.discovery(false)
                case .connect(let address, let seconds):
                    Log.notice("bluetooth: connecting \(address) (up to \(seconds) s)")
                    connecting = Connecting(address: address, deadline: now + UInt64(seconds) * 1_000_000_000)
                    if up[address] == nil { try bluez.call(.connect, address, timeoutSeconds: seconds) }
                case .disconnect(let address):
                    if connecting?.address == address { connecting = nil }
                    try bluez.call(.disconnect, address, timeoutSeconds: 10)
                }
            } catch {
                Log.warning("bluetooth: \(request): \(error.message)")
                switch request {
                case .pair:
                    pairing = nil
                    report(.pairFailed(error.message))
                case .connect(let address, _):
                    connecting = nil
                    report(.connectFailed(address: address, reason: error.message))
                case .cancelPairing, .disconnect: break
                }
            }
        }

        /// One look at the devices: links up and down, pairing and connecting moved on.
        mutating func look(_ bluez: BlueZ) throws(BlueZError) {
            let devices = try bluez.devices()
            let now = Self.now()
            var nowUp: [String: Headphones] = [:]
            for d in devices where d.connected && d.transport {
                nowUp[d.address] = Headphones(address: d.address, name: d.name)
            }
            for address in up.keys.sorted() where nowUp[address] == nil {
                Log.notice("bluetooth: \(address): audio link down")
                report(.disconnected(address: address))
            }
            for (address, pair) in nowUp.sorted(by: { $0.key < $1.key }) where up[address] == nil {
                Log.notice("bluetooth: \(pair.name) (\(address)): audio link up")
                report(.connected(pair))
                if connecting?.address == address { connecting = nil }
            }
            up = nowUp
            try movePairing(bluez, devices, now: now)
            try moveConnecting(bluez, now: now)
        }

        mutating func moveConnecting(_ bluez: BlueZ, now: UInt64) throws(BlueZError) {
            guard var attempt = connecting else { return }
            if let at = attempt.retryAt {
                if now >= at && now < attempt.deadline {
                    attempt.retryAt = nil
                    attempt.tries += 1
                    let left = Int((attempt.deadline - now) / 1_000_000_000) + 1
                    Log.notice("bluetooth: connecting \(attempt.address) again (try \(attempt.tries))")
                    try bluez.call(.connect, attempt.address, timeoutSeconds: left)
                }
            } else if case .failed(let reason) = bluez.callState {
                attempt.reason = reason
                Log.notice("bluetooth: connecting \(attempt.address) failed: \(reason)")
                attempt.retryAt = now + 2_000_000_000
            }
            if now >= attempt.deadline || attempt.retryAt.map({ $0 >= attempt.deadline }) == true {
                connecting = nil
                report(.connectFailed(address: attempt.address, reason: attempt.reason))
                return
            }
            connecting = attempt
        }

        mutating func movePairing(_ bluez: BlueZ, _ devices: [BlueZ.Device], now: UInt64) throws(BlueZError) {
            guard var attempt = pairing else { return }
            if let candidate = attempt.candidate {
                switch bluez.callState {
                case .done:
                    try bluez.setTrusted(candidate.address)
                    pairing = nil
                    report(.paired(candidate))
                case .failed(let reason) where reason.contains("Already Paired"):
                    // Both ends bonded while the reply was on its way (the other side's own
                    // bonding won the race): paired all the same.
                    Log.notice("bluetooth: \(candidate.name) (\(candidate.address)): \(reason)")
                    try bluez.setTrusted(candidate.address)
                    pairing = nil
                    report(.paired(candidate))
                case .failed(let reason):
                    Log.warning("bluetooth: pairing \(candidate.name) (\(candidate.address)) failed: \(reason)")
                    pairing = nil
                    report(.pairFailed(reason))
                case .running, .none:
                    break
                }
                return
            }
            if let found = devices.first(where: { $0.audioSink && !$0.paired }) {
                try bluez.discovery(false)
                attempt.candidate = Headphones(address: found.address, name: found.name)
                Log.notice("bluetooth: pairing \(found.name) (\(found.address))")
                try bluez.call(.pair, found.address, timeoutSeconds: 30)
                pairing = attempt
            } else if now >= attempt.deadline {
                try bluez.discovery(false)
                pairing = nil
                report(.pairFailed("no headphones in pairing mode within \(config.pairSeconds) s"))
            }
        }
    }
}
