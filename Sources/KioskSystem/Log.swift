// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import Synchronization

/// Logging to stderr, one line per message, with journald's `<N>` level prefixes when stderr goes
/// to the journal (`JOURNAL_STREAM` set) or is not a terminal, and a plain `warning: ` style prefix
/// on a terminal.
///
/// Thread: any thread except the audio threads (a line is one `write(2)`, but formatting allocates).
public enum Log {
    /// syslog levels, as journald reads them from the `<N>` prefix.
    public enum Level: Int32, Sendable, Comparable {
        case error = 3, warning = 4, notice = 5, info = 6, debug = 7

        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }

        var word: String {
            switch self {
            case .error: "error"
            case .warning: "warning"
            case .notice: "notice"
            case .info: "info"
            case .debug: "debug"
            }
        }
    }

    private static let verboseFlag = Atomic<Bool>(false)
    private static let quietFlag = Atomic<Bool>(false)
    private static let observers = Locked<[Int: @Sendable (Level, String) -> Void]>([:])
    private static let nextObserver = Atomic<Int>(0)
    private static let journal: Bool = Syscalls.environment("JOURNAL_STREAM") != nil || isatty(2) == 0
    /// Set by `redirect(toFile:)`: plain prefixes, whatever stderr is now.
    private static let toFile = Atomic<Bool>(false)

    /// Whether debug messages are printed (`--verbose`).
    public static var verbose: Bool {
        get { verboseFlag.load(ordering: .relaxed) }
        set { verboseFlag.store(newValue, ordering: .relaxed) }
    }

    /// When set, only errors are printed (observers still see everything). For tests and tools.
    public static var quiet: Bool {
        get { quietFlag.load(ordering: .relaxed) }
        set { quietFlag.store(newValue, ordering: .relaxed) }
    }

    public static func error(_ message: @autoclosure () -> String) { log(.error, message()) }
    public static func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    public static func notice(_ message: @autoclosure () -> String) { log(.notice, message()) }
    public static func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    public static func debug(_ message: @autoclosure () -> String) {
        if verbose || hasObservers { log(.debug, message()) }
    }

    private static var hasObservers: Bool { observers.withLock { !$0.isEmpty } }

    public static func log(_ level: Level, _ message: String) {
        observers.withLock { list in for observer in list.values { observer(level, message) } }
        if level == .debug && !verbose { return }
        if quiet && level > .error { return }
        let prefixed = journal && !toFile.load(ordering: .relaxed)
        // Messages name files from sticks: a newline there must not forge a journal line.
        let text = TerminalText.escaped(message)
        let line = prefixed ? "<\(level.rawValue)>\(text)\n" : "kiosk-player: \(level.word): \(text)\n"
        let bytes = Array(line.utf8)
        bytes.withUnsafeBytes { raw in _ = try? Syscalls.write(2, raw) }
    }

    /// Sends the log (all of stderr) to the end of the file at `path` from now on: for the demo,
    /// whose picture is the terminal, where log lines would be drawn over it.
    public static func redirect(toFile path: String) throws(Errno) {
        let file = try FileDescriptor.open(path, O_WRONLY | O_CREAT | O_APPEND, mode: 0o644)
        toFile.store(true, ordering: .relaxed)
        if dup2(file.rawValue, 2) < 0 { throw Errno.current.with("dup2 \(path)") }
    }

    /// Calls `observer` with every message until the returned token is passed to `removeObserver`.
    /// Tests use it to assert that an error was reported.
    public static func addObserver(_ observer: @escaping @Sendable (Level, String) -> Void) -> Int {
        let token = nextObserver.wrappingAdd(1, ordering: .relaxed).newValue
        observers.withLock { $0[token] = observer }
        return token
    }

    public static func removeObserver(_ token: Int) {
        _ = observers.withLock { $0.removeValue(forKey: token) }
    }
}

/// Writes a line to stdout unbuffered (one `write(2)`); for command output that must not be lost.
public func printLine(_ text: String) {
    var bytes = Array((text + "\n").utf8)
    bytes.withUnsafeMutableBytes { raw in
        var offset = 0
        while offset < raw.count {
            let written = try? Syscalls.write(1, UnsafeRawBufferPointer(rebasing: raw[offset...]))
            guard let n = written, n > 0 else { return }
            offset += n
        }
    }
}
