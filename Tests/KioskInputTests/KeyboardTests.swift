// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import Glibc
import KioskInput
import KioskSystem
import KioskTestSupport
import Testing

@Suite struct KeyboardDecoderTests {
    private func keys(_ text: String) -> [String] {
        var decoder = KeyboardDecoder()
        return decoder.keys(from: Array(text.utf8))
    }

    @Test func charactersAndNamedKeys() {
        #expect(keys("n +?") == ["n", "space", "+", "?"])
        #expect(keys("\r\t\u{7f}\u{1b}") == ["enter", "tab", "backspace", "escape"])
        #expect(keys("\u{03}\u{1a}") == ["ctrl-c", "ctrl-z"])
        #expect(keys("é") == ["é"])
    }

    @Test func escapeSequencesOfXtermAndTheConsole() {
        #expect(keys("\u{1b}[A\u{1b}[B\u{1b}[C\u{1b}[D") == ["up", "down", "right", "left"])
        #expect(keys("\u{1b}OA\u{1b}OD\u{1b}OP") == ["up", "left", "f1"])
        #expect(
            keys("\u{1b}[5~\u{1b}[6~\u{1b}[3~\u{1b}[15~\u{1b}[Z") == [
                "page-up", "page-down", "delete", "f5", "backtab",
            ])
        #expect(keys("\u{1b}[1;5A") == ["up"])
        #expect(keys("\u{1b}[99~x") == ["x"])  // unknown sequence: skipped whole
    }

    @Test func sequenceSplitAcrossReadsIsCompletedByTheNextRead() {
        var decoder = KeyboardDecoder()
        #expect(decoder.keys(from: Array("n\u{1b}[".utf8)) == ["n"])
        #expect(decoder.keys(from: Array("Aq".utf8)) == ["up", "q"])
        #expect(decoder.keys(from: [0xc3]) == [])
        #expect(decoder.keys(from: [0xa9]) == ["é"])
    }
}

/// A pseudo-terminal: the test writes to `master` as if typing; the code under test reads `slave`.
final class PseudoTerminal {
    let master: Int32
    let slavePath: String
    let slave: Int32

    init() throws {
        var name = [CChar](repeating: 0, count: 128)
        master = kiosk_pty_open(&name, name.count)
        guard master >= 0 else { throw Errno.current.with("posix_openpt") }
        slavePath = name.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        slave = open(slavePath, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard slave >= 0 else { throw Errno.current.with("open \(slavePath)") }
    }

    deinit {
        close(slave)
        close(master)
    }

    /// The terminal's settings (the master reports the slave's).
    var settings: termios {
        var t = termios()
        tcgetattr(master, &t)
        return t
    }

    var isRaw: Bool { settings.c_lflag & tcflag_t(ICANON | ECHO) == 0 }
    var isCooked: Bool { settings.c_lflag & tcflag_t(ICANON | ECHO) == tcflag_t(ICANON | ECHO) }

    func type(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { write(master, $0.baseAddress, $0.count) }
    }

    /// Reads what the other side writes until it contains `text`, at most `seconds`: whether it did,
    /// and all that was read.
    func output(containing text: String, seconds: Double) -> (found: Bool, output: String) {
        var output = ""
        let found = waitFor(seconds: seconds) {
            output += self.output()
            return output.contains(text)
        }
        return (found, output)
    }

    /// What the other side wrote so far (non-blocking).
    func output() -> String {
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            var pfd = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 0) == 1 else { break }
            let n = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            result += buffer[0..<n]
        }
        return String(decoding: result, as: UTF8.self)
    }
}

/// Starts `kiosk-player ARGS` with the terminal as stdin, stdout and stderr.
/// With `ownGroup`, the child leads a process group of its own (so ^Z can stop it: a stop signal
/// is ignored in an orphaned group).
func spawnOnTerminal(_ terminal: PseudoTerminal, _ arguments: [String], ownGroup: Bool = false) throws -> pid_t {
    // No core file, no Swift backtrace: the test only looks at the terminal afterwards.
    let script = "ulimit -c 0; exec \"$0\" \"$@\""
    do throws(Errno) {
        return try Syscalls.spawn(
            "/bin/sh", arguments: ["-c", script, TestPaths.playerBinary] + arguments,
            environment: ["SWIFT_BACKTRACE": "enable=no", "PATH": "/usr/bin:/bin", "TERM": "xterm"],
            stdin: .file(terminal.slavePath, flags: O_RDWR), stdout: .duplicate(0), stderr: .duplicate(0),
            ownProcessGroup: ownGroup)
    } catch {
        throw Errno(rawValue: error.rawValue, context: "spawn kiosk-player")
    }
}

/// Whether this machine can make pseudo-terminals (a chroot or container without /dev/pts cannot).
let pseudoTerminalsAvailable: Bool = {
    var name = [CChar](repeating: 0, count: 128)
    let fd = kiosk_pty_open(&name, name.count)
    if fd < 0 { return false }
    close(fd)
    return true
}()

@Suite(
    .tags(.integration),
    .serialized,
    .enabled(if: pseudoTerminalsAvailable, "no pseudo-terminals here (posix_openpt failed: /dev/pts missing?)"))
struct KeyboardTerminalTests {
    @Test func rawModeReadsKeysAndStopRestoresTheTerminal() throws {
        let terminal = try PseudoTerminal()
        let h = try ManagerHarness("{}")
        #expect(terminal.isCooked)
        h.manager.startKeyboard(fd: terminal.slave)
        #expect(terminal.isRaw)
        terminal.type("n\u{1b}[Ax ")
        try h.loop.run(until: { h.actions.count == 3 }, timeoutNanoseconds: 10_000_000_000)
        #expect(h.actions.map(\.action) == [.next, .up, .playPause])
        #expect(h.actions.map(\.source) == ["keyboard n", "keyboard up", "keyboard space"])
        #expect(h.raw.contains("keyboard x (not mapped)"))
        h.manager.stop()
        #expect(terminal.isCooked)
    }

    /// The manager's deinit stops it (its backends no longer reach back to it there): dropping it
    /// while the keyboard is read restores the terminal and takes the keyboard off the loop.
    @Test func droppingTheManagerWithoutStopRestoresTheTerminal() throws {
        let terminal = try PseudoTerminal()
        let loop = try EventLoop()
        let profile = try InputProfile.parse(
            try JSONReader.parse(Array("{}".utf8), file: "box.json"), settings: InputSettings())
        var manager: InputManager? = InputManager(loop: loop, profile: profile, settings: InputSettings()) { _ in }
        manager!.startKeyboard(fd: terminal.slave)
        #expect(terminal.isRaw)
        manager = nil
        #expect(terminal.isCooked)
        terminal.type("n")
        try loop.runOnce(timeoutMilliseconds: 50)  // nothing watches the terminal any more
    }

    @Test(arguments: [SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGABRT])
    func terminalIsRestoredWhenTheProcessEndsBySignal(_ signal: Int32) throws {
        let terminal = try PseudoTerminal()
        let pid = try spawnOnTerminal(terminal, ["inputs", "--keyboard", "--no-gpio", "--no-evdev"])
        defer {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        #expect(waitFor(seconds: 20) { terminal.isRaw }, "kiosk-player did not put the terminal in raw mode")
        terminal.type("n")
        let read = terminal.output(containing: "keyboard n → next", seconds: 10)
        #expect(read.found, "output: \(read.output)")
        kill(pid, signal)
        var status: Int32 = 0
        #expect(waitpid(pid, &status, 0) == pid)
        let signalled = status & 0x7f
        if [SIGTERM, SIGINT, SIGHUP].contains(signal) {
            #expect(signalled == 0 && (status >> 8) & 0xff == 0, "ends cleanly through the event loop")
        } else {
            #expect(signalled == signal, "dies of the signal it got, after restoring")
        }
        #expect(terminal.isCooked)
    }

    @Test func terminalIsGivenBackWhileStoppedAndTakenAgainOnContinue() throws {
        let terminal = try PseudoTerminal()
        let pid = try spawnOnTerminal(terminal, ["inputs", "--keyboard", "--no-gpio", "--no-evdev"], ownGroup: true)
        defer {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        #expect(waitFor(seconds: 20) { terminal.isRaw }, "kiosk-player did not put the terminal in raw mode")
        kill(pid, SIGTSTP)
        var status: Int32 = 0
        #expect(waitpid(pid, &status, WUNTRACED) == pid)
        #expect(status & 0xff == 0x7f && (status >> 8) & 0xff == SIGTSTP, "stopped by SIGTSTP")
        #expect(terminal.isCooked, "the terminal is usable while the player is stopped")
        kill(pid, SIGCONT)
        #expect(waitFor(seconds: 10) { terminal.isRaw }, "raw again after SIGCONT")
        terminal.type("n")
        let read = terminal.output(containing: "keyboard n → next", seconds: 10)
        #expect(read.found, "output: \(read.output)")
        kill(pid, SIGTERM)
        #expect(waitpid(pid, &status, 0) == pid)
        #expect(status == 0)
        #expect(terminal.isCooked)
    }
}
