// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import Glibc

/// Stream sockets (Unix and TCP), non-blocking, for servers on the event loop, plus blocking
/// connects for tools and tests. Part of the syscall seam; the sockaddr work is in kiosk_net.c.
extension Syscalls {
    /// Listens on a Unix socket at `path` with permissions `mode`. A socket file left there by an
    /// earlier run is replaced; any other kind of file there is an `EEXIST` error.
    /// The corresponding C functions are `socket(2)`, `bind(2)`, `chmod(2)` and `listen(2)`.
    public static func listenUnix(path: String, backlog: Int32 = 64, mode: mode_t = 0o660) throws(Errno) -> Int32 {
        var st = stat.init()
        if kiosk_lstat(path, &st) == 0 {
            guard st.st_mode & S_IFMT == S_IFSOCK else {
                throw Errno(rawValue: EEXIST, context: "listen on \(path): exists and is not a socket")
            }
            try unlink(path)
        }
        return try retrying("listen on \(path)") { kiosk_net_listen_unix(path, backlog, mode) }
    }

    /// Listens on TCP `address` (numeric IPv4 or IPv6) and `port` (0: any free port).
    /// The corresponding C functions are `socket(2)`, `bind(2)` and `listen(2)`.
    public static func listenTCP(address: String, port: UInt16, backlog: Int32 = 64) throws(Errno) -> Int32 {
        try retrying("listen on \(address) port \(port)") { kiosk_net_listen_tcp(address, port, backlog) }
    }

    /// The local port of a TCP socket. The corresponding C function is `getsockname(2)`.
    public static func localPort(_ fd: Int32) throws(Errno) -> UInt16 {
        UInt16(try retrying("getsockname") { kiosk_net_local_port(fd) })
    }

    /// Accepts one connection, non-blocking and close-on-exec; nil when none is waiting.
    /// The corresponding C function is `accept4(2)`.
    public static func accept(_ fd: Int32) throws(Errno) -> Int32? {
        do throws(Errno) {
            return try retrying("accept") { kiosk_net_accept(fd) }
        } catch  where [EAGAIN, EWOULDBLOCK, ECONNABORTED].contains(error.rawValue) {
            return nil  // a connection reset before it was accepted is not the listener's problem
        }
    }

    /// Sends what fits without blocking; returns the number of bytes taken (0 when the socket's
    /// buffer is full). A closed peer is `EPIPE` (never SIGPIPE). The corresponding C function is
    /// `send(2)` with `MSG_NOSIGNAL | MSG_DONTWAIT`.
    public static func send(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) throws(Errno) -> Int {
        do throws(Errno) {
            return try retrying("send") { kiosk_net_send(fd, buffer.baseAddress, buffer.count) }
        } catch  where error.rawValue == EAGAIN || error.rawValue == EWOULDBLOCK {
            return 0
        }
    }

    /// A connected pair of Unix stream sockets, both close-on-exec (a helper process gets one end
    /// as its standard streams). The corresponding C function is `socketpair(2)`.
    public static func socketPair() throws(Errno) -> (Int32, Int32) {
        var pair: [Int32] = [-1, -1]
        _ = try retrying("socketpair") {
            socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair)
        }
        return (pair[0], pair[1])
    }

    /// Sends all of `bytes` on a blocking socket; a closed peer is `EPIPE` (never SIGPIPE).
    /// The corresponding C function is `send(2)` with `MSG_NOSIGNAL`.
    public static func sendAll(_ fd: Int32, _ bytes: [UInt8]) throws(Errno) {
        var offset = 0
        while offset < bytes.count {
            offset += try retrying("send") {
                bytes.withUnsafeBytes { raw in
                    Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                }
            }
        }
    }

    /// Receives what is there without blocking: nil when nothing is, 0 at end of stream.
    /// The corresponding C function is `recv(2)` with `MSG_DONTWAIT`.
    public static func receive(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int? {
        do throws(Errno) {
            return try retrying("recv") { kiosk_net_receive(fd, buffer.baseAddress, buffer.count) }
        } catch  where error.rawValue == EAGAIN || error.rawValue == EWOULDBLOCK {
            return nil
        }
    }

    /// The peer of a connected socket as text: "127.0.0.1:40000", "[::1]:40000" or "unix".
    /// The corresponding C function is `getpeername(2)`.
    public static func peerName(_ fd: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 80)
        guard kiosk_net_peer_name(fd, &buffer, buffer.count) == 0 else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A blocking connection to the Unix socket at `path` (tools and tests).
    /// The corresponding C functions are `socket(2)` and `connect(2)`.
    public static func connectUnix(path: String) throws(Errno) -> Int32 {
        try retrying("connect to \(path)") { kiosk_net_connect_unix(path) }
    }

    /// A blocking TCP connection to numeric `address` and `port` (tools and tests).
    public static func connectTCP(address: String, port: UInt16) throws(Errno) -> Int32 {
        try retrying("connect to \(address) port \(port)") { kiosk_net_connect_tcp(address, port) }
    }

    /// Sets the kernel's send (`send: true`) or receive buffer size of a socket (`SO_SNDBUF`,
    /// `SO_RCVBUF`). The corresponding C function is `setsockopt(2)`.
    public static func setSocketBufferSize(_ fd: Int32, send: Bool, bytes: Int32) throws(Errno) {
        _ = try retrying("setsockopt") { kiosk_net_set_buffer_size(fd, send ? 1 : 0, bytes) }
    }

    /// Bounds how long a blocking socket's reads and writes wait (`SO_RCVTIMEO`, `SO_SNDTIMEO`): past
    /// it they fail with `EAGAIN`. The corresponding C function is `setsockopt(2)`.
    public static func setTimeouts(_ fd: Int32, milliseconds: Int) throws(Errno) {
        var time = timeval(tv_sec: milliseconds / 1000, tv_usec: (milliseconds % 1000) * 1000)
        for option in [SO_RCVTIMEO, SO_SNDTIMEO] {
            _ = try retrying("setsockopt") {
                setsockopt(fd, SOL_SOCKET, option, &time, socklen_t(MemoryLayout<timeval>.size))
            }
        }
    }
}
