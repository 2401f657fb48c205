// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import Glibc
import KioskSystem

/// One requested GPIO input line with edge events (libgpiod through CKioskShims' kiosk_gpio),
/// consumer "kiosk-player": a button or one contact of an encoder. Releases the line when it ends.
///
/// Thread: the event-loop thread (which watches `fd`).
public final class GPIOInputLine {
    /// One edge the kernel saw: when (CLOCK_MONOTONIC on kernels from 5.7, else realtime), on
    /// which line, and whether the line became active.
    public typealias Edge = (timestampNs: UInt64, offset: Int, active: Bool)

    public let chip: GPIOChip
    public let offset: Int
    public let use: String
    private let handle: OpaquePointer

    /// Requests `offset` as an input with both-edge events.
    /// - Parameter activeLow: the line is active (logical 1) at the low physical level.
    public init(chip: GPIOChip, offset: Int, bias: GPIOBias, activeLow: Bool, use: String) throws(HardwareError) {
        self.chip = chip
        self.offset = offset
        self.use = use
        let biasValue: Int32 =
            switch bias {
            case .asIs: Int32(KIOSK_GPIO_BIAS_AS_IS.rawValue)
            case .disable: Int32(KIOSK_GPIO_BIAS_DISABLE.rawValue)
            case .pullUp: Int32(KIOSK_GPIO_BIAS_PULL_UP.rawValue)
            case .pullDown: Int32(KIOSK_GPIO_BIAS_PULL_DOWN.rawValue)
            }
        guard offset >= 0, offset < chip.lineCount else {
            throw HardwareError.request(Errno(rawValue: EINVAL), chip: chip, line: offset, use: use)
        }
        guard
            let handle = kiosk_gpio_line_request(
                chip.path, UInt32(offset), biasValue, activeLow ? 1 : 0, "kiosk-player")
        else {
            throw HardwareError.requestFailed(chip: chip, line: offset, use: use)
        }
        self.handle = handle
    }

    deinit {
        kiosk_gpio_line_release(handle)
    }

    /// The descriptor that becomes readable when edges are pending (owned by the line).
    public var fd: Int32 { kiosk_gpio_line_fd(handle) }

    /// The current logical value.
    public func value() throws(Errno) -> Bool {
        let v = kiosk_gpio_line_value(handle)
        if v < 0 { throw Errno.current.with("read line \(offset) on \(chip.path)") }
        return v == 1
    }

    /// Appends the pending edges to `edges`. Throws when the line cannot be read (chip gone).
    public func readEdges(into edges: inout [Edge]) throws(Errno) {
        var buffer = [kiosk_gpio_edge](repeating: kiosk_gpio_edge(), count: 16)
        while true {
            let n = kiosk_gpio_line_read_edges(handle, &buffer, Int32(buffer.count))
            if n < 0 { throw Errno.current.with("read events of line \(offset) on \(chip.path)") }
            for edge in buffer[0..<Int(n)] {
                edges.append((edge.timestamp_ns, Int(edge.offset), edge.rising != 0))
            }
            if n < Int32(buffer.count) { return }
        }
    }
}
