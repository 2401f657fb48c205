// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskBlueZ

/// What went wrong talking to BlueZ, in words ("no adapter hci0: Unknown object '/org/bluez/hci0'").
///
/// Thread: any (a value).
public struct BlueZError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// One connection to BlueZ's D-Bus API (org.bluez on the system bus) for one adapter, through
/// libsystemd's sd-bus: the adapter (Adapter1: address, power, discovery), its devices (Device1:
/// paired, trusted, connected, an audio sink; a MediaTransport1 under one means its A2DP stream is
/// set up, which is when bluez-alsa's PCM exists), and the long calls Pair, Connect and Disconnect,
/// made asynchronously so that the connection keeps answering bluetoothd's calls to the pairing
/// agent (NoInputNoOutput: Just Works, PIN 0000 for old headphones) while they run.
///
/// Thread: the thread that made it, only (its calls block on the bus: never the loop thread).
public final class BlueZ {
    /// A device of the adapter.
    public struct Device: Sendable, Equatable {
        public var address: String
        public var name: String
        public var paired: Bool
        public var trusted: Bool
        public var connected: Bool
        /// An audio sink: headphones or a loudspeaker (A2DP sink UUID, or Audio/Video class).
        public var audioSink: Bool
        /// Its A2DP stream is set up (a MediaTransport1 under it).
        public var transport: Bool
    }

    /// The long calls.
    public enum Method: String, Sendable {
        case pair = "Pair"
        case connect = "Connect"
        case disconnect = "Disconnect"
    }

    /// Where the last long call is.
    public enum CallState: Sendable, Equatable {
        case none
        case running
        case done
        case failed(String)
    }

    private let handle: OpaquePointer
    public let adapterName: String

    /// Connects to the system bus and finds `adapter`; `agent`: registers the pairing agent as
    /// the default one (the player; the doctor only looks).
    public init(adapter: String, agent: Bool) throws(BlueZError) {
        var err = [CChar](repeating: 0, count: 256)
        guard let handle = kiosk_bt_open(adapter, agent ? 1 : 0, &err, err.count) else {
            throw BlueZError(Self.text(err))
        }
        self.handle = handle
        adapterName = adapter
    }

    deinit { kiosk_bt_close(handle) }

    /// A C string in a buffer, up to its NUL.
    static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private func check(_ r: Int32, _ err: [CChar]) throws(BlueZError) {
        if r < 0 { throw BlueZError(Self.text(err)) }
    }

    /// The adapter's address and state.
    public func adapter() throws(BlueZError) -> (address: String, powered: Bool, discovering: Bool) {
        var err = [CChar](repeating: 0, count: 256)
        var address = [CChar](repeating: 0, count: 18)
        var powered: Int32 = 0
        var discovering: Int32 = 0
        try check(kiosk_bt_adapter(handle, &address, &powered, &discovering, &err, err.count), err)
        return (Self.text(address), powered != 0, discovering != 0)
    }

    public func setPowered(_ on: Bool) throws(BlueZError) {
        var err = [CChar](repeating: 0, count: 256)
        try check(kiosk_bt_set_powered(handle, on ? 1 : 0, &err, err.count), err)
    }

    public func discovery(_ on: Bool) throws(BlueZError) {
        var err = [CChar](repeating: 0, count: 256)
        try check(kiosk_bt_discovery(handle, on ? 1 : 0, &err, err.count), err)
    }

    public func setTrusted(_ address: String) throws(BlueZError) {
        var err = [CChar](repeating: 0, count: 256)
        try check(kiosk_bt_set_trusted(handle, address, 1, &err, err.count), err)
    }

    /// The adapter's devices (at most 64).
    public func devices() throws(BlueZError) -> [Device] {
        var err = [CChar](repeating: 0, count: 256)
        var raw = [kiosk_bt_device](repeating: kiosk_bt_device(), count: 64)
        let n = kiosk_bt_devices(handle, &raw, Int32(raw.count), &err, err.count)
        try check(n, err)
        return raw.prefix(Int(n)).map { d in
            var d = d
            let address = withUnsafeBytes(of: &d.address) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            let name = withUnsafeBytes(of: &d.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            return Device(
                address: address, name: name, paired: d.paired != 0, trusted: d.trusted != 0,
                connected: d.connected != 0, audioSink: d.audio_sink != 0, transport: d.transport != 0)
        }
    }

    /// Starts Device1.`method` on `address`; `callState` follows it (one at a time).
    public func call(_ method: Method, _ address: String, timeoutSeconds: Int) throws(BlueZError) {
        var err = [CChar](repeating: 0, count: 256)
        try check(
            kiosk_bt_call(handle, address, method.rawValue, UInt64(timeoutSeconds) * 1_000_000, &err, err.count), err)
    }

    public var callState: CallState {
        var err = [CChar](repeating: 0, count: 256)
        switch kiosk_bt_call_result(handle, &err, err.count) {
        case 1: return .running
        case 0: return .done
        case -1: return .failed(Self.text(err))
        default: return .none
        }
    }

    /// Answers what the bus brought, then waits up to `milliseconds` for more.
    public func run(waitingMilliseconds milliseconds: Int) throws(BlueZError) {
        let r = kiosk_bt_run(handle, UInt64(milliseconds) * 1000)
        if r < 0 { throw BlueZError("the system bus connection failed (errno \(-r))") }
    }

    /// Whether a program owns `name` on the system bus ("org.bluealsa": bluez-alsa runs).
    public static func nameHasOwner(_ name: String) -> Result<Bool, BlueZError> {
        var err = [CChar](repeating: 0, count: 256)
        let r = kiosk_bus_name_has_owner(name, &err, err.count)
        return r < 0 ? .failure(BlueZError(Self.text(err))) : .success(r == 1)
    }
}
