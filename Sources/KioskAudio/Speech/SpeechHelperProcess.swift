// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem

/// How a speech helper is started: the player's own binary in its `speak` role.
///
/// Thread: a value; any.
public struct SpeechHelperLaunch: Sendable {
    public var program: String
    public var arguments: [String]

    /// This process's own executable (`/proc/self/exe`: the same binary even after an upgrade
    /// replaced the file) with `speak`.
    public static func ownBinary(dataPath: String? = nil) -> SpeechHelperLaunch {
        binary("/proc/self/exe", dataPath: dataPath)
    }

    /// `kiosk-player` at `path` with `speak` (`dataPath`: espeak-ng-data's parent; nil: the installed one).
    public static func binary(_ path: String, dataPath: String? = nil) -> SpeechHelperLaunch {
        SpeechHelperLaunch(program: path, arguments: ["speak"] + (dataPath.map { ["--data", $0] } ?? []))
    }
}

/// The speech helper process (`SpeechHelper`) as the speech worker sees it: started when the
/// first prompt (or `warmUp`) needs it, sent one text at a time over a socket, and killed and
/// started again when it dies, breaks the format or takes longer than `timeoutMilliseconds`.
///
/// Thread: the speech worker thread only (the `Speaker`'s), which it blocks, never the loop; but
/// `cancel` from any thread.
public final class SpeechHelperProcess: @unchecked Sendable {
    /// What one text came to.
    public enum Outcome: Equatable, Sendable {
        case speech(samples: [Int16], truncated: Bool)
        /// The helper could not speak it and said why (an unknown voice); it goes on.
        case refused(String)
        /// The helper died, hung or broke the format on it (it was killed): why, in words.
        case lost(String)
    }

    let launch: SpeechHelperLaunch
    let timeoutMilliseconds: Int
    private var socket = FileDescriptor.invalid
    /// The running helper's pid (0: none).
    public private(set) var pid: pid_t = 0
    /// Its sample rate, once a helper has greeted (0 before).
    public private(set) var sampleRate = 0
    /// Helpers started so far.
    public private(set) var starts = 0
    /// Why no helper can run (espeak-ng missing): said for every prompt, without starting one again.
    private var unavailable: String?
    /// Signalled by `cancel`: a wait for the helper ends at once, and so does every one after.
    private let cancelled: FileDescriptor

    public init(launch: SpeechHelperLaunch, timeoutMilliseconds: Int) throws(Errno) {
        self.launch = launch
        self.timeoutMilliseconds = timeoutMilliseconds
        cancelled = FileDescriptor(owning: try Syscalls.eventfdCreate())
    }

    /// Ends the wait for the helper under way (the player is stopping: its unit gives it 10 s, a
    /// hung helper would take 15); every later `speak` fails at once. Any thread.
    public func cancel() {
        Syscalls.eventfdSignal(cancelled.rawValue)
    }

    deinit {
        stop()
    }

    /// Starts a helper when none runs; nil when one is ready, else why not (the helper "could not
    /// start (…)", or espeak-ng's own message when it cannot load).
    @discardableResult
    func start() -> String? {
        if pid != 0 { return nil }
        if let unavailable { return unavailable }
        let ends: (Int32, Int32)
        do throws(Errno) {
            ends = try Syscalls.socketPair()
        } catch {
            return "could not start (\(error))"
        }
        let ours = FileDescriptor(owning: ends.0)
        let theirs = FileDescriptor(owning: ends.1)
        do throws(Errno) {
            pid = try Syscalls.spawn(
                launch.program, arguments: launch.arguments, stdin: .duplicate(theirs.rawValue),
                stdout: .duplicate(theirs.rawValue))
        } catch {
            return "could not start (\(launch.program): \(error))"
        }
        starts += 1
        socket = ours
        _ = consume theirs
        var source = SocketSource(fd: socket.rawValue, deadline: deadline(), cancel: cancelled.rawValue)
        do throws(SpeechWireError) {
            switch try SpeechWire.readHello(&source) {
            case .hello(let rate) where rate > 0 && rate <= 192_000:
                sampleRate = rate
                return nil
            case .failure(let message):
                end(kill: false)
                unavailable = message
                return message
            default:
                end(kill: true)
                return "greeted wrongly"
            }
        } catch {
            let why = describe(error)
            end(kill: true)
            return "\(why) while starting"
        }
    }

    /// Speaks `text` in `voice`: at most `maxSamples` samples.
    public func speak(_ text: String, voice: String, maxSamples: Int) -> Outcome {
        if let why = start() { return unavailable != nil ? .refused(why) : .lost(why) }
        let request = SpeechWire.encode(SpeechWire.Request(voice: voice, text: text, maxSamples: maxSamples))
        do throws(Errno) {
            try Syscalls.sendAll(socket.rawValue, request)
        } catch {
            end(kill: true)
            return .lost("could not be sent the text (\(error))")
        }
        var source = SocketSource(fd: socket.rawValue, deadline: deadline(), cancel: cancelled.rawValue)
        do throws(SpeechWireError) {
            switch try SpeechWire.readReply(&source, maxSamples: maxSamples) {
            case .speech(let samples, let truncated): return .speech(samples: samples, truncated: truncated)
            case .failure(let message): return .refused(message)
            case .hello: return .lost("answered with a greeting")
            }
        } catch {
            let why = describe(error)
            end(kill: true)
            return .lost(why)
        }
    }

    /// Ends the helper (it exits when its input closes; killed if it has not by then).
    public func stop() {
        guard pid != 0 else { return }
        end(kill: true)
    }

    private func deadline() -> UInt64 {
        Syscalls.monotonicNanoseconds() + UInt64(timeoutMilliseconds) * 1_000_000
    }

    private func describe(_ error: SpeechWireError) -> String {
        switch error {
        case .ended: return "died (\(reap()))"
        case .timedOut: return "took more than \(timeoutMilliseconds) ms"
        case .cancelled: return "was stopped with the player"
        case .malformed(let why): return "sent a broken answer (\(why))"
        case .failed(let errno): return "could not be read (\(errno))"
        }
    }

    /// Closes our end and reaps the helper, killing it first when `kill`.
    private func end(kill: Bool) {
        socket = .invalid
        guard pid != 0 else { return }
        if kill { _ = reap(killing: true) } else { _ = reap() }
    }

    /// Waits for the helper to end (killing it first when `killing` and it still runs); how it
    /// ended, in words. The appliance's SIGCHLD handler may have reaped it already: then "ended".
    @discardableResult
    private func reap(killing: Bool = false) -> String {
        defer { pid = 0 }
        guard pid != 0 else { return "ended" }
        var status: Int32 = 0
        var reaped = waitpid(pid, &status, WNOHANG)
        if reaped == 0 {
            // Still running (or not yet exited after closing its socket): it ends now.
            try? Syscalls.kill(pid, SIGKILL)
            reaped = (try? Syscalls.retrying("waitpid") { waitpid(pid, &status, 0) }) ?? -1
        }
        guard reaped == pid else { return "ended" }
        if status & 0x7f == 0 { return "exit status \((status >> 8) & 0xff)" }
        let signal = status & 0x7f
        return "signal \(signal), \(String(cString: strsignal(signal)))"
    }
}
