// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem

/// A blocking MPD client on the player's Unix socket, for the benchmarks that drive the server from
/// a thread of their own (`bench mpd`, `bench storm`).
///
/// Thread: the one thread that made it.
final class BenchMPDClient {
    private let fd: Int32
    private var pending: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: 1 << 16)

    /// Connects and reads the greeting ("OK MPD 0.23.0"); nil when the server is not there.
    init?(path: String) {
        guard let fd = try? Syscalls.connectUnix(path: path) else { return nil }
        self.fd = fd
        while !pending.contains(0x0A) {
            guard receive() else {
                Syscalls.closeIgnoringErrors(fd)
                return nil
            }
        }
        pending.removeFirst(pending.firstIndex(of: 0x0A)! + 1)
    }

    deinit { Syscalls.closeIgnoringErrors(fd) }

    /// Sends `command` and reads its response to the OK or ACK line; returns the response's bytes
    /// (0 when the server went away).
    @discardableResult
    func command(_ command: String) -> Int {
        send(command + "\n")
        return response()
    }

    /// Sends a whole command (the socket is blocking; MSG_NOSIGNAL: no SIGPIPE).
    func send(_ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw in
                (try? Syscalls.send(fd, UnsafeRawBufferPointer(rebasing: raw[offset...]))) ?? -1
            }
            if sent < 0 { return }
            offset += sent
        }
    }

    /// Reads one response; returns its byte count.
    func response() -> Int {
        var total = 0
        while true {
            if let newline = pending.firstIndex(of: 0x0A) {
                let line = pending[..<newline]
                total += newline + 1
                let last = line.elementsEqual("OK".utf8) || line.starts(with: "ACK".utf8)
                pending.removeFirst(newline + 1)
                if last { return total }
                continue
            }
            guard receive() else { return total }
        }
    }

    private func receive() -> Bool {
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return false }
        pending += chunk[0..<n]
        return true
    }
}
