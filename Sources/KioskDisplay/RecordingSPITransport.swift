// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem

/// A transport that keeps everything sent, in order, and never sleeps: what a logic analyser on
/// the panel's pins would show. Tests decode it into panel memory; the benchmark counts it.
///
/// Thread: any (a lock inside); the surface's worker writes, the test reads after `flush`.
public final class RecordingSPITransport: SPIPanelTransport, Sendable {
    /// One thing that happened on the wires.
    public enum Event: Sendable, Equatable {
        case dataMode(Bool)
        case write([UInt8], speedHz: Int)
        case reset(Bool)
        case backlight(Bool)
        case pause(milliseconds: Int)
    }

    public let maxTransferBytes: Int
    public let hasReset: Bool
    /// Without a backlight line nothing is recorded for it (as the real transport drives nothing).
    public let hasBacklight: Bool
    private let state = Locked<(events: [Event], failure: SPIPanelError?, keep: Bool)>(([], nil, true))

    /// - Parameter keepEvents: false keeps only counts of what was written (long benchmarks).
    public init(
        maxTransferBytes: Int = 4096, hasReset: Bool = false, hasBacklight: Bool = true, keepEvents: Bool = true
    ) {
        self.maxTransferBytes = maxTransferBytes
        self.hasReset = hasReset
        self.hasBacklight = hasBacklight
        state.withLock { $0.keep = keepEvents }
    }

    /// Everything recorded so far.
    public var events: [Event] { state.withLock { $0.events } }

    /// Forgets what was recorded.
    public func clear() { state.withLock { $0.events.removeAll() } }

    /// Makes every following call fail with `failure` (nil: work again), as a vanished device would.
    public func fail(with failure: SPIPanelError?) { state.withLock { $0.failure = failure } }

    private func record(_ event: Event) throws(SPIPanelError) {
        let failure: SPIPanelError? = state.withLock { s in
            if let f = s.failure { return f }
            if s.keep { s.events.append(event) }
            return nil
        }
        if let failure { throw failure }
    }

    public func setDataMode(_ isData: Bool) throws(SPIPanelError) { try record(.dataMode(isData)) }

    public func write(_ bytes: UnsafeRawBufferPointer, speedHz: Int) throws(SPIPanelError) {
        guard bytes.count <= maxTransferBytes else {
            throw SPIPanelError("transfer of \(bytes.count) bytes exceeds the \(maxTransferBytes)-byte limit")
        }
        try record(.write([UInt8](bytes), speedHz: speedHz))
    }

    public func setReset(_ asserted: Bool) throws(SPIPanelError) {
        if hasReset { try record(.reset(asserted)) }
    }

    public func setBacklight(_ on: Bool) throws(SPIPanelError) {
        if hasBacklight { try record(.backlight(on)) }
    }
    public func pause(milliseconds: Int) { try? record(.pause(milliseconds: milliseconds)) }
}
