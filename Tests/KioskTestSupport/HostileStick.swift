// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem

/// What a hostile stick puts where a file is expected (issue 44): made in the test, never committed.
///
/// Thread: the values any; `make` the calling thread's.
public enum HostileEntry: String, CaseIterable, Sendable, CustomStringConvertible {
    /// A named pipe: an open for reading without O_NONBLOCK waits for a writer forever.
    case fifo
    /// A UNIX socket (bound, so the name exists).
    case socket
    /// A symbolic link to /dev/zero: endless bytes.
    case linkToDevZero
    /// A symbolic link out of the volume, to a file of the "state directory" (`outside`).
    case linkOutOfVolume
    /// A folder where a file is expected.
    case directory

    public var description: String { rawValue }

    /// The words a clear error uses for this kind.
    public var expectedWords: String {
        switch self {
        case .fifo: "a FIFO"
        case .socket: "a socket"
        case .linkToDevZero, .linkOutOfVolume: "symbolic link"
        case .directory: "a directory"
        }
    }

    /// Makes `path` this kind of entry; `outside` is the file a link out of the volume points to.
    public func make(at path: String, outside: String) throws {
        switch self {
        case .fifo:
            guard mkfifo(path, 0o644) == 0 else { throw Errno.current.with("mkfifo \(path)") }
        case .socket:
            let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw Errno.current.with("socket") }
            defer { close(fd) }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(path.utf8)
            guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
                throw Errno(rawValue: ENAMETOOLONG, context: "socket \(path)")
            }
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (i, byte) in bytes.enumerated() { raw[i] = byte }
            }
            let rc = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            guard rc == 0 else { throw Errno.current.with("bind \(path)") }
        case .linkToDevZero:
            guard symlink("/dev/zero", path) == 0 else { throw Errno.current.with("symlink \(path)") }
        case .linkOutOfVolume:
            guard symlink(outside, path) == 0 else { throw Errno.current.with("symlink \(path)") }
        case .directory:
            try Syscalls.mkdir(path)
        }
    }
}

/// Keeps a test from hanging when the code under test opens a FIFO for reading and waits for a
/// writer (the bug of issue 44): after `graceSeconds` a watcher opens the FIFOs for writing once,
/// which lets such an open return, and `rescued` says it had to. The grace is a guard against a
/// hang, not a measurement: a test asserts `rescued == false`, never a duration.
///
/// Thread: `init` and `finish` on the test's thread; the watcher on its own.
public final class FIFORescue: Sendable {
    private let state = Locked<(done: Bool, rescued: Bool)>((false, false))
    private let wake = EventCount()
    private let thread: KioskThread?

    public init(fifos: [String], graceSeconds: Double = 30) {
        let state = state
        let wake = wake
        thread = try? KioskThread(name: "fifo-rescue") {
            if wake.wait(until: { state.withLock { $0.done } }, timeoutNanoseconds: Int64(graceSeconds * 1e9)) {
                return
            }
            state.withLock { $0.rescued = true }
            // O_NONBLOCK: succeeds only while a reader waits (ENXIO otherwise), and never blocks here.
            for fifo in fifos {
                let fd = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
                if fd >= 0 { close(fd) }
            }
        }
    }

    /// Stops the watcher; returns whether it had to let a waiting reader go.
    @discardableResult
    public func finish() -> Bool {
        state.withLock { $0.done = true }
        wake.signal()
        thread?.join()
        return state.withLock { $0.rescued }
    }
}
