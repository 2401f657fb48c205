// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import Glibc
import KioskCore
import KioskSystem

/// The systemd service notification protocol (`sd_notify(3)`), spoken directly: one datagram to
/// `$NOTIFY_SOCKET` per message, so the player needs no libsystemd.
///
/// Sends `READY=1` once the loop runs, `STATUS=…` lines for `systemctl status`, `WATCHDOG=1`
/// pings when `$WATCHDOG_USEC` is set, `STOPPING=1` on shutdown. Without `$NOTIFY_SOCKET`
/// (not under systemd) every call does nothing. Thread: loop thread.
public final class SystemdNotify {
    private let socketPath: String?
    private let socketFD: FileDescriptor
    private var fd: Int32 { socketFD.rawValue }
    /// Half of `$WATCHDOG_USEC` (systemd's recommendation), when the watchdog is on.
    public let watchdogIntervalNanoseconds: UInt64?
    private var lastStatus = ""

    public init(environment: (String) -> String? = Syscalls.environment) {
        let path = environment("NOTIFY_SOCKET")
        if let path, path.hasPrefix("/") || path.hasPrefix("@") {
            socketPath = path
            socketFD = FileDescriptor(
                owning: socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0))
        } else {
            socketPath = nil
            socketFD = .invalid
        }
        if let usec = environment("WATCHDOG_USEC").flatMap({ UInt64($0) }), usec > 0,
            environment("WATCHDOG_PID").map({ Int32($0) == getpid() }) ?? true
        {
            watchdogIntervalNanoseconds = usec * 1000 / 2
        } else {
            watchdogIntervalNanoseconds = nil
        }
    }

    /// Whether the process runs under systemd with a notification socket.
    public var isActive: Bool { socketPath != nil && fd >= 0 }

    /// Sends `READY=1` and pings the watchdog from `loop` from now on.
    public func ready(loop: EventLoop, status: String) {
        send("READY=1\nSTATUS=\(status)")
        lastStatus = status
        if let interval = watchdogIntervalNanoseconds {
            loop.schedule(afterNanoseconds: interval, repeating: interval) { [weak self] in self?.send("WATCHDOG=1") }
        }
    }

    /// Updates the one-line status shown by `systemctl status` (sent only when it changes).
    public func status(_ text: String) {
        guard text != lastStatus else { return }
        lastStatus = text
        send("STATUS=\(text)")
    }

    public func stopping() { send("STOPPING=1") }

    /// Sends one notification datagram; errors are ignored as sd_notify does.
    public func send(_ message: String) {
        guard let path = socketPath, fd >= 0 else { return }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var pathBytes = Array(path.utf8)
        // "@name" is an abstract socket: a leading NUL byte instead of the '@'.
        if pathBytes.first == UInt8(ascii: "@") { pathBytes[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard pathBytes.count < capacity else { return }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: pathBytes)
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + pathBytes.count)
        var bytes = Array(message.utf8)
        _ = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                bytes.withUnsafeMutableBytes { raw in
                    sendto(fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL), sa, length)
                }
            }
        }
    }
}
