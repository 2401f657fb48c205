// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem
import KioskWeb
import KioskWebServer
import KioskWebSettings

/// The phone page's server as a client on the network meets it: the request parser is
/// libmicrohttpd's own, driven through its API (a real daemon on a loopback port, started by
/// `WebDaemon` with the page's limits), and every route behind it is `PhoneAPI`'s. The input is sent
/// on a fresh connection, which is then half-closed, and the answer read. A session is paired
/// before the first input: `@SESSION@` in an input becomes its cookie's token and `@CSRF@` its
/// CSRF token, so the fuzzer reaches what only a paired phone can. Uploads go to a scratch music folder;
/// the player's socket does not exist, so routes that ask the player answer 503.
///
/// Thread: `run` on one thread at a time; the daemon's threads answer.
final class WebFuzzRig {
    nonisolated(unsafe) static let shared = WebFuzzRig()

    let port: UInt16
    let token: [UInt8]
    let csrf: [UInt8]
    let music: String

    private init() {
        signal(SIGPIPE, SIG_IGN)
        // In the process's own directory (removed at exit).
        music = FuzzFiles.directory + "/web-music"
        try? Syscalls.mkdirs(music)
        let json = """
            {"web": {"enabled": true, "allowOutsideSubnet": true, "musicFolder": "\(music)", "maxUploadMB": 1},
             "mpd": {"socket": "\(music)/no-player.socket"}}
            """
        let settings = try! WebSettings.pageConfig(Array(json.utf8), file: "fuzz.json")
        var access = PhoneAccess()
        let now = Syscalls.monotonicNanoseconds()
        guard case .new(let code) = access.requestCode(now: now),
            case .paired(let session) = access.attempt(code, from: "127.0.0.1", now: now)
        else { fatalError("the fuzz rig could not pair") }
        token = Array(session.token.utf8)
        csrf = Array(session.csrf.utf8)
        let server = WebServer(api: PhoneAPI(settings: settings, events: PlayerEvents(), access: access))
        // A port the kernel had free a moment ago (libmicrohttpd is given a number, not 0).
        var found: UInt16 = 0
        for candidate in UInt16(41_000)...UInt16(41_999) {
            if WebDaemon.start(server: server, port: Int(candidate), bind: "127.0.0.1") != nil {
                found = candidate
                break
            }
        }
        guard found != 0 else { fatalError("the fuzz rig found no free port for the web server") }
        port = found
    }

    /// `bytes` with every `word` replaced by `value`.
    static func replacing(_ word: [UInt8], with value: [UInt8], in bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if i + word.count <= bytes.count, bytes[i..<(i + word.count)].elementsEqual(word) {
                out += value
                i += word.count
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return out
    }

    /// Sends one input as a request (or several, pipelined) and reads the answer, for at most 2 s.
    func run(_ data: [UInt8]) {
        let request = Self.replacing(
            Array("@CSRF@".utf8), with: csrf, in: Self.replacing(Array("@SESSION@".utf8), with: token, in: data))
        guard let fd = try? Syscalls.connectTCP(address: "127.0.0.1", port: port) else { return }
        defer { Syscalls.closeIgnoringErrors(fd) }
        try? Syscalls.setTimeouts(fd, milliseconds: 1000)
        _ = try? Syscalls.writeAll(fd, request)
        shutdown(fd, Int32(SHUT_WR))
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        let deadline = Syscalls.monotonicNanoseconds() + 2_000_000_000
        while Syscalls.monotonicNanoseconds() < deadline {
            let n = (try? buffer.withUnsafeMutableBytes { try Syscalls.read(fd, $0) }) ?? 0
            if n <= 0 { break }
        }
    }
}
