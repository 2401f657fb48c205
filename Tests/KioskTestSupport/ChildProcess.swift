// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem

/// A child process that runs while the test goes on (the `kiosk-player` binary, mpd, mpc idle):
/// stdout and stderr appended to a log file, stdin from /dev/null or a pipe the test writes to
/// (`type`). `stop()` ends it politely, `kill()` at once; deinit stops it.
/// Thread: the test's own.
public final class ChildProcess {
    /// Where the child's standard input comes from.
    public enum Input {
        /// /dev/null: the child reads end of file.
        case null
        /// A pipe the test writes to with `type`, closed by `stop()`.
        case pipe
    }

    public let pid: pid_t
    public let logPath: String
    /// CLOCK_MONOTONIC just before the spawn.
    public let startedNs: UInt64
    /// The exit status once reaped: the exit code, or 128 + the signal.
    public private(set) var exitStatus: Int32?
    private var stdinFD: Int32?

    /// `environment`: the child's, else this process's; either way without the journal and systemd
    /// notify sockets, so a child never talks to the service manager of the test's session.
    public init(
        _ executable: String, _ arguments: [String], log: String, environment: [String: String]? = nil,
        input: Input = .null
    ) throws {
        logPath = log
        var env = environment ?? currentEnvironment()
        env["JOURNAL_STREAM"] = nil
        env["NOTIFY_SOCKET"] = nil
        let output = SpawnStream.file(log, flags: O_WRONLY | O_CREAT | O_APPEND)
        startedNs = Syscalls.monotonicNanoseconds()
        switch input {
        case .null:
            pid = try Syscalls.spawn(
                executable, arguments: arguments, environment: env, stdin: .null(writing: false), stdout: output,
                stderr: .duplicate(1))
        case .pipe:
            let (readEnd, writeEnd) = try Syscalls.pipe()
            defer { Syscalls.closeIgnoringErrors(readEnd) }
            do {
                pid = try Syscalls.spawn(
                    executable, arguments: arguments, environment: env, stdin: .duplicate(readEnd), stdout: output,
                    stderr: .duplicate(1))
            } catch {
                Syscalls.closeIgnoringErrors(writeEnd)
                throw error
            }
            stdinFD = writeEnd
        }
    }

    deinit { stop() }

    /// Writes to the child's standard input (`input: .pipe` only).
    public func type(_ text: String) throws {
        guard let stdinFD else { throw TestFailure("\(logPath): the child's input is not a pipe") }
        try Syscalls.writeAll(stdinFD, Array(text.utf8))
    }

    /// Whether it still runs (reaps it when it ended).
    public var isRunning: Bool {
        guard exitStatus == nil else { return false }
        var status: Int32 = 0
        let r = waitpid(pid, &status, WNOHANG)
        if r == pid {
            exitStatus = Self.decode(status)
            return false
        }
        return r == 0
    }

    public func signal(_ signal: Int32) { if exitStatus == nil { Glibc.kill(pid, signal) } }

    /// Waits for the exit (at most `seconds`); its status, nil on timeout.
    @discardableResult
    public func wait(seconds: Double) -> Int32? {
        let deadline = Syscalls.monotonicNanoseconds() + UInt64(seconds * 1e9)
        while isRunning {
            if Syscalls.monotonicNanoseconds() > deadline { return nil }
            Syscalls.sleep(nanoseconds: 5_000_000)
        }
        return exitStatus
    }

    /// Closes its input, sends SIGTERM and waits up to 5 s, then kills it.
    public func stop() {
        // Once only: a second close could hit a descriptor number another test reuses meanwhile.
        if let fd = stdinFD {
            stdinFD = nil
            Syscalls.closeIgnoringErrors(fd)
        }
        guard isRunning else { return }
        Glibc.kill(pid, SIGTERM)
        if wait(seconds: 5) == nil { kill() }
    }

    /// Kills it (SIGKILL) and reaps it, unless it ended already.
    public func kill() {
        guard isRunning else { return }
        Glibc.kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        exitStatus = Self.decode(status)
    }

    /// What the child printed so far.
    public var log: String {
        String(decoding: (try? Syscalls.readFile(logPath, limit: 16 << 20)) ?? [], as: UTF8.self)
    }

    /// A field of /proc/PID/status in kB (VmRSS, VmHWM).
    public func memoryKilobytes(_ field: String) -> Int? {
        guard let bytes = try? Syscalls.readFile("/proc/\(pid)/status", limit: 1 << 16) else { return nil }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where line.hasPrefix(field + ":") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        }
        return nil
    }

    private static func decode(_ status: Int32) -> Int32 {
        (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}
