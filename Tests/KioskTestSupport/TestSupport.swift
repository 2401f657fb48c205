// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem

/// Renames `folder/name` (a UTF-8 name) to the Windows-1252 bytes of that name, as an old
/// system would have written it. Returns whether it worked.
@discardableResult
public func renameToWindows1252(folder: String, name: String) -> Bool {
    guard let legacy = DiskName.windows1252Bytes(Substring(name)) else { return false }
    let to = (Array("\(folder)/".utf8) + legacy).map { CChar(bitPattern: $0) } + [0]
    return rename(Array("\(folder)/\(name)".utf8CString), to) == 0
}

/// A fresh directory under /tmp, removed (recursively) when `remove()` is called.
public struct TemporaryDirectory: Sendable {
    public let path: String

    public init(_ prefix: String = "kiosk-test") throws {
        var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw Errno.current.with("mkdtemp") }
        path = String(cString: made)
    }

    /// Path of `name` inside the directory.
    public func file(_ name: String) -> String { "\(path)/\(name)" }

    public func write(_ name: String, _ text: String) throws {
        try write(name, Array(text.utf8))
    }

    public func write(_ name: String, _ bytes: [UInt8]) throws {
        let full = file(name)
        if let slash = full.lastIndex(of: "/") { try Syscalls.mkdirs(String(full[..<slash])) }
        let fd = try FileDescriptor.open(full, O_WRONLY | O_CREAT | O_TRUNC)
        try fd.writeAll(bytes)
    }

    /// Removes the directory and everything under it, without following links, in this process (a
    /// spawned `rm -rf` per test cost a fork and 5 ms of polling). Names are passed on as the bytes
    /// they are (a test may leave Windows-1252 names).
    public func remove() {
        let fd = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        if fd >= 0 { removeContents(of: fd) }
        _ = Glibc.rmdir(path)
    }
}

/// Removes what the directory `fd` holds, depth first, and closes `fd`. What cannot be removed stays.
private func removeContents(of fd: Int32) {
    guard let directory = fdopendir(fd) else {
        Glibc.close(fd)
        return
    }
    defer { closedir(directory) }
    let parent = dirfd(directory)
    while let entry = readdir(directory) {
        var name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            raw.prefix { $0 != 0 }.map { CChar(bitPattern: $0) }
        }
        if name == [46] || name == [46, 46] { continue }
        name.append(0)
        if unlinkat(parent, name, 0) == 0 { continue }
        let child = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        if child >= 0 { removeContents(of: child) }
        _ = unlinkat(parent, name, AT_REMOVEDIR)
    }
}

/// What a child process did.
public struct ProcessResult: Sendable {
    public let status: Int32
    public let stdout: [UInt8]
    public let stderr: [UInt8]
    public let timedOut: Bool
    public var output: String { String(decoding: stdout, as: UTF8.self) }
    public var errors: String { String(decoding: stderr, as: UTF8.self) }
}

/// Runs `executable` with `arguments` and waits at most `timeoutSeconds` (then kills it).
/// stdout and stderr are captured through files, so a chatty child cannot dead-lock the test.
@discardableResult
public func run(
    _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
    stdin: String? = nil, timeoutSeconds: Double = 120, workingDirectory: String? = nil
) -> ProcessResult {
    let scratch = try! TemporaryDirectoryNoCleanup()
    let outPath = scratch + "/out"
    let errPath = scratch + "/err"
    let inPath = scratch + "/in"
    _ = try? AtomicFile.replace(inPath, with: Array((stdin ?? "").utf8))
    var env = environment ?? currentEnvironment()
    if environment == nil { env["JOURNAL_STREAM"] = nil }
    // posix_spawn_file_actions_addchdir_np is hidden from Swift: coreutils' env changes directory.
    let (program, argv) =
        workingDirectory.map { ("/usr/bin/env", ["-C", $0, executable] + arguments) } ?? (executable, arguments)
    let pid: pid_t
    do throws(Errno) {
        pid = try Syscalls.spawn(
            program, arguments: argv, environment: env, stdin: .file(inPath, flags: O_RDONLY),
            stdout: .file(outPath, flags: O_WRONLY | O_CREAT | O_TRUNC),
            stderr: .file(errPath, flags: O_WRONLY | O_CREAT | O_TRUNC))
    } catch {
        return ProcessResult(
            status: 127, stdout: [], stderr: Array("spawn \(executable): \(Errno(rawValue: error.rawValue))".utf8),
            timedOut: false)
    }
    var status: Int32 = 0
    var timedOut = false
    let deadline = Syscalls.monotonicNanoseconds() + UInt64(timeoutSeconds * 1e9)
    while true {
        let r = waitpid(pid, &status, WNOHANG)
        if r == pid { break }
        if r < 0 && errno != EINTR { break }
        if Syscalls.monotonicNanoseconds() > deadline {
            kill(pid, SIGKILL)
            timedOut = true
            waitpid(pid, &status, 0)
            break
        }
        Syscalls.sleep(nanoseconds: 5_000_000)
    }
    let exitStatus: Int32 = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    let out = (try? Syscalls.readFile(outPath)) ?? []
    let err = (try? Syscalls.readFile(errPath)) ?? []
    _ = Glibc.unlink(outPath)
    _ = Glibc.unlink(errPath)
    _ = Glibc.unlink(inPath)
    _ = Glibc.rmdir(scratch)
    return ProcessResult(status: exitStatus, stdout: out, stderr: err, timedOut: timedOut)
}

private func TemporaryDirectoryNoCleanup() throws -> String {
    var template = Array("/tmp/kiosk-run-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { throw Errno.current.with("mkdtemp") }
    return String(cString: made)
}

/// The environment of this process as a dictionary.
public func currentEnvironment() -> [String: String] {
    var result: [String: String] = [:]
    var pointer = environ
    while let entry = pointer.pointee {
        let text = String(cString: entry)
        if let eq = text.firstIndex(of: "=") {
            result[String(text[..<eq])] = String(text[text.index(after: eq)...])
        }
        pointer += 1
    }
    return result
}

/// The full path of a program on PATH, or nil.
public func which(_ program: String) -> String? {
    let path = Syscalls.environment("PATH") ?? "/usr/bin:/bin"
    for dir in path.split(separator: ":") {
        let candidate = "\(dir)/\(program)"
        if access(candidate, X_OK) == 0 { return candidate }
    }
    return nil
}

/// Where test fixtures and tools live.
public enum TestPaths {
    /// The repository's top directory: `KIOSK_REPOSITORY` when set (a bundle cross-built in a tree at
    /// /src and run in the aarch64 guest, where the checkout has its own path), else found from this
    /// source file's location.
    public static let repository: String = {
        if let given = Syscalls.environment("KIOSK_REPOSITORY"), !given.isEmpty { return given }
        var path = #filePath
        for _ in 0..<3 {
            if let slash = path.lastIndex(of: "/") { path = String(path[..<slash]) }
        }
        return path
    }()

    /// `../shared/flac-testbench/subset` next to the checkout, when present.
    public static var flacTestbench: String? {
        let candidates = [
            Syscalls.environment("KIOSK_FLAC_TESTBENCH"),
            repository + "/../shared/flac-testbench/subset",
            repository + "/../../shared/flac-testbench/subset",
        ].compactMap { $0 }
        return candidates.first { Syscalls.exists($0) }
    }

    /// The `kiosk-player` binary built next to the test bundle.
    public static var playerBinary: String { buildDirectory + "/kiosk-player" }

    /// The `kiosk-bench` binary (the benchmarks) built next to the test bundle.
    public static var benchBinary: String { buildDirectory + "/kiosk-bench" }

    /// The directory of the test bundle, where SwiftPM puts the executables of the same build.
    static var buildDirectory: String {
        // …/.build/<triple>/debug/KioskPlayerPackageTests.xctest (a file on Linux)
        guard let exe = Syscalls.ownExecutablePath(), let slash = exe.lastIndex(of: "/") else { return "" }
        return String(exe[..<slash])
    }
}

/// Lists the names in a directory (not recursive), sorted.
public func listDirectory(_ path: String) -> [String] {
    guard let listing = try? Syscalls.readDirectory(path) else { return [] }
    return listing.entries.map(\.name).sorted()
}

/// Collects log messages (all levels) while alive; for asserting that an error was reported.
public final class WarningCollector: @unchecked Sendable {
    private let collected = Locked<[String]>([])
    private var token = 0

    public init() {
        token = Log.addObserver { [weak self] level, message in
            guard let self, level <= .warning else { return }
            self.collected.withLock { $0.append(message) }
        }
    }

    public var messages: [String] { collected.withLock { $0 } }

    public func stop() { Log.removeObserver(token) }
}

/// libespeak-ng is one per process (`SpeechSynthesizer`): tests in any suite that make a `Speaker`
/// run their body under this lock, so two suites never hold it at once.
public enum EspeakTestLock {
    private static let lock = Locked<Int>(0)

    public static func run<T>(_ body: () throws -> T) throws -> T {
        try lock.withLock { _ in try body() }
    }
}
