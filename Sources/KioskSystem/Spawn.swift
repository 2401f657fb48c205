// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import Glibc

/// How a spawned process gets one of its standard streams.
public enum SpawnStream: Sendable {
    /// Ours, as it is.
    case inherit
    /// The file at `path`, opened with `flags` (created with mode 0644 when `O_CREAT` is set).
    case file(String, flags: Int32)
    /// A duplicate of descriptor `fd` as the child has it by then: one of ours, or a standard
    /// stream set up before this one (stderr `.duplicate(1)`: the same file as stdout).
    case duplicate(Int32)

    /// `/dev/null` for reading (stdin) or writing.
    public static func null(writing: Bool) -> SpawnStream {
        .file("/dev/null", flags: writing ? O_WRONLY : O_RDONLY)
    }
}

extension Syscalls {
    /// Starts `program` with `arguments` (`argv[0]` is `program`) and returns its pid; the caller
    /// reaps it. The child starts with no signal blocked (event loops block the ones they read
    /// through signalfd, and a mask is inherited), the given standard streams and no other
    /// descriptor of ours (a file a library opened without O_CLOEXEC — TagLib's, libFLAC's —
    /// would keep a stick busy, unmountable, for as long as the child runs), and `environment`
    /// (nil: ours). With `ownProcessGroup` it leads a process group of its own. Streams are set up
    /// in order stdin, stdout, stderr.
    public static func spawn(
        _ program: String, arguments: [String], environment: [String: String]? = nil,
        stdin: SpawnStream = .inherit, stdout: SpawnStream = .inherit, stderr: SpawnStream = .inherit,
        ownProcessGroup: Bool = false
    ) throws(Errno) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (fd, stream) in [(Int32(0), stdin), (1, stdout), (2, stderr)] {
            switch stream {
            case .inherit: break
            case .file(let path, let flags): posix_spawn_file_actions_addopen(&actions, fd, path, flags, 0o644)
            case .duplicate(let source): posix_spawn_file_actions_adddup2(&actions, source, fd)
            }
        }
        // After the streams: a `.duplicate` of a descriptor above 2 has been made by then.
        let closing = kiosk_spawn_close_from(&actions, 3)
        if closing != 0 { throw Errno(rawValue: closing, context: "spawn \(program): closefrom") }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETSIGMASK | (ownProcessGroup ? POSIX_SPAWN_SETPGROUP : 0)))
        posix_spawnattr_setpgroup(&attributes, 0)
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        var env = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer {
            for p in argv { free(p) }
            for p in env ?? [] { free(p) }
        }
        var pid: pid_t = 0
        let rc =
            env == nil
            ? posix_spawn(&pid, program, &actions, &attributes, argv, environ)
            : posix_spawn(&pid, program, &actions, &attributes, argv, &env!)
        if rc != 0 { throw Errno(rawValue: rc, context: "spawn \(program)") }
        return pid
    }

    /// Runs `program` with `arguments` (its streams ours) and waits for it: its wait status, -1
    /// when it cannot start. The corresponding C functions are `posix_spawn(3)` and `waitpid(2)`.
    @discardableResult
    public static func runAndWait(_ program: String, arguments: [String]) -> Int32 {
        guard let pid = try? spawn(program, arguments: arguments) else { return -1 }
        var status: Int32 = 0
        _ = try? retrying("waitpid") { waitpid(pid, &status, 0) }
        return status
    }
}
