// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskApp
import KioskCore
import KioskSystem
import KioskTestSupport
import Testing

@Suite struct SystemdNotifyTests {
    /// Binds a datagram socket like systemd's notify socket and returns its fd.
    func listen(at path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        try #require(rc == 0)
        try Syscalls.setNonBlocking(fd)
        return fd
    }

    func receive(_ fd: Int32) -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self) : nil
    }

    @Test func sendsReadyStatusAndWatchdogPings() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file("notify")
        let fd = try listen(at: path)
        defer { close(fd) }
        let env = ["NOTIFY_SOCKET": path, "WATCHDOG_USEC": "40000"]
        let notify = SystemdNotify(environment: { env[$0] })
        #expect(notify.isActive)
        #expect(notify.watchdogIntervalNanoseconds == 20_000_000)
        let loop = try EventLoop()
        notify.ready(loop: loop, status: "No USB stick")
        #expect(receive(fd) == "READY=1\nSTATUS=No USB stick")
        notify.status("No USB stick")  // unchanged: not sent again
        notify.status("Playing Song")
        #expect(receive(fd) == "STATUS=Playing Song")
        var ping: String?
        try loop.run(
            until: {
                if ping == nil { ping = receive(fd) }
                return ping != nil
            }, timeoutNanoseconds: 5_000_000_000)
        #expect(ping == "WATCHDOG=1")
    }

    @Test func doesNothingOutsideSystemd() {
        let notify = SystemdNotify(environment: { _ in nil })
        #expect(!notify.isActive)
        #expect(notify.watchdogIntervalNanoseconds == nil)
        notify.send("READY=1")
    }
}
