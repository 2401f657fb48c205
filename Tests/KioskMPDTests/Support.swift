// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskAudio
import KioskConfig
import KioskCore
import KioskInput
import KioskLibrary
import KioskMPD
import KioskSystem
import KioskTestSupport
import Testing

/// The music every test plays with: two artists, three albums (one with an embedded cover, one
/// with a cover.jpg), a playlist, and a file without tags.
enum Fixture {
    static let coverJPEG: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 0x42, count: 20_000) + [0xFF, 0xD9]
    static let embeddedPNG: [UInt8] = [0x89, 0x50, 0x4E, 0x47] + Array(repeating: 0x17, count: 5_000)

    /// Writes the library under `root`; returns the number of tracks.
    @discardableResult
    static func write(under root: String, seconds: Double = 20) throws -> Int {
        var count = 0
        func track(_ path: String, _ tags: [(String, String)], picture: EmbeddedPicture? = nil) throws {
            try SyntheticLibrary.write(
                SyntheticTrack(
                    relativePath: path, tags: tags.map { (name: $0.0, value: $0.1) }, picture: picture,
                    seconds: seconds, sampleRate: 44_100),
                under: root, compressionLevel: 0)
            count += 1
        }
        let picture = EmbeddedPicture(bytes: embeddedPNG, mimeType: "image/png")
        for (n, title) in ["Polar Night", "Green Curtain", "Solar Wind"].enumerated() {
            try track(
                "Aurora Quartet/Northern Lights/0\(n + 1) \(title).flac",
                [
                    ("TITLE", title), ("ARTIST", "Aurora Quartet"), ("ALBUM", "Northern Lights"), ("GENRE", "Jazz"),
                    ("DATE", "2019"), ("TRACKNUMBER", "\(n + 1)"),
                ], picture: picture)
        }
        for (n, title) in ["Opening", "Blue Hour"].enumerated() {
            try track(
                "Aurora Quartet/Live at the Lighthouse/0\(n + 1) \(title).flac",
                [
                    ("TITLE", title), ("ARTIST", "Aurora Quartet"), ("ALBUM", "Live at the Lighthouse"),
                    ("GENRE", "Jazz"), ("TRACKNUMBER", "\(n + 1)"),
                ])
        }
        for (n, title) in ["Low Tide", "Gulls"].enumerated() {
            try track(
                "The Field Recorders/Coastline/0\(n + 1) \(title).flac",
                [
                    ("TITLE", title), ("ARTIST", "The Field Recorders"), ("ALBUM", "Coastline"),
                    ("GENRE", "Ambient"), ("TRACKNUMBER", "\(n + 1)"),
                ])
        }
        try SyntheticLibrary.writeFile(path: root + "/The Field Recorders/Coastline/cover.jpg", bytes: coverJPEG)
        try track("Loose/untagged.flac", [])
        try SyntheticLibrary.writeFile(
            path: root + "/Mix.m3u8",
            bytes: Array(
                "#EXTM3U\n#PLAYLIST:Road Trip\nThe Field Recorders/Coastline/02 Gulls.flac\nAurora Quartet/Northern Lights/01 Polar Night.flac\n"
                    .utf8))
        return count
    }
}

/// A player (silent real-time sink), a library of the fixture, a button, and an MPD server on a
/// Unix socket, all on one loop that the test thread runs while client threads talk to the server.
final class Harness {
    let directory: TemporaryDirectory
    let loop: EventLoop
    let engine: AudioEngine
    let library: Library
    let player: Player
    let inputs: InputManager
    let server: MPDServer
    let socketPath: String
    let music: String
    let trackCount: Int

    /// The button of the harness: GPIO line 5, press = play/pause; line 6 = volume up.
    static let buttonsJSON =
        #"{"buttons": [{"name": "A", "line": 5, "press": "play-pause"}, {"name": "X", "line": 6, "press": "volume-up"}]}"#

    /// `stick` writes the stick's folder (`sticks/USBSTICK`) and returns its track count;
    /// `extraTracks` writes more tracks there before the scan and returns how many.
    /// `configure` changes the player's config (exhibit mode, say) before the player is made.
    init(
        _ adjust: (inout MPDSettings) -> Void = { _ in }, tcp: Bool = false,
        stick: (String) throws -> Int = { try Fixture.write(under: $0) },
        extraTracks: (String) throws -> Int = { _ in 0 }, configure: (inout Config) -> Void = { _ in }
    ) throws {
        directory = try TemporaryDirectory("kiosk-mpd")
        music = directory.file("sticks/USBSTICK")
        trackCount = try stick(music) + extraTracks(music)
        socketPath = directory.file("run/mpd.socket")
        loop = try EventLoop()
        let box = PlayerBox()
        engine = try AudioEngine(loop: loop, settings: AudioSettings(device: "none", realtimePriority: nil)) { event in
            box.player?.handle(event)
        }
        var config = Config()
        config.stateDirectory = directory.file("state")
        config.mediaRoots = []
        config.audio.device = .silent
        configure(&config)
        library = try Library(loop: loop, stateDirectory: config.stateDirectory, mediaRoots: []) { event, catalog in
            box.player?.handle(event, catalog: catalog)
        }
        player = Player(
            loop: loop, engine: engine, screen: nil, config: config, outputDevices: ["none", "default", "hw:9"],
            resume: nil, deviceOpens: OutputPresence.isPresent)
        box.player = player
        let profile = try InputProfile.parse(
            try JSONReader.parse(Array(Harness.buttonsJSON.utf8), file: "test.json"), settings: InputSettings())
        inputs = InputManager(loop: loop, profile: profile, settings: InputSettings()) { [unowned player] event in
            player.handle(event)
        }
        var settings = MPDSettings()
        settings.socketPath = socketPath
        settings.stateDirectory = config.stateDirectory
        if tcp {
            settings.tcpHost = "127.0.0.1"
            settings.tcpPort = 0
        }
        adjust(&settings)
        server = MPDServer(loop: loop, player: player, library: library, settings: settings)
        try server.start()
        library.addVolume(path: music)
        let ready = try loop.run(
            until: { [library, trackCount] in library.isIdle && library.catalog.trackCount == trackCount },
            timeoutNanoseconds: 60_000_000_000)
        guard ready else { throw TestFailure("the library was not scanned in time") }
    }

    deinit {
        server.stop()
        inputs.stop()
        engine.shutdown()
        library.stop()
        directory.remove()
    }

    /// Runs `body` on another thread while this thread runs the loop; returns what it returned.
    func client<T: Sendable>(
        timeoutSeconds: Double = 60, _ body: @escaping @Sendable () throws -> T
    ) throws -> T {
        let result = Locked<Result<T, any Error>?>(nil)
        let handle = loop.handle
        let thread = try KioskThread(name: "mpd-test-client") {
            let outcome = Result { try body() }
            result.withLock { $0 = outcome }
            handle.wake()
        }
        let finished = try loop.run(
            until: { result.withLock { $0 != nil } }, timeoutNanoseconds: UInt64(timeoutSeconds * 1e9))
        if !finished {
            // Give the client a chance to fail on its own timeouts rather than hanging the test.
            _ = try loop.run(until: { result.withLock { $0 != nil } }, timeoutNanoseconds: 10_000_000_000)
        }
        thread.join()
        guard let outcome = result.withLock({ $0 }) else { throw TestFailure("the client did not finish") }
        return try outcome.get()
    }

    /// `client` with one connection to the server, opened on the client thread.
    func withClient<T: Sendable>(
        timeoutSeconds: Double = 60, _ body: @escaping @Sendable (TestClient) throws -> T
    ) throws -> T {
        let path = socketPath
        return try client(timeoutSeconds: timeoutSeconds) { try body(TestClient(unix: path)) }
    }

    /// Runs the loop for a while (lets timers and the engine move on).
    func spin(milliseconds: Int) throws {
        try loop.run(forNanoseconds: UInt64(milliseconds) * 1_000_000)
    }

    /// Presses and releases the GPIO button on `line`, as the chip reader reports edges.
    func pressButton(line: Int) {
        let now = Syscalls.monotonicNanoseconds()
        inputs.inject(.line(offset: line, active: true), at: now - 80_000_000)
        inputs.inject(.line(offset: line, active: false), at: now)
    }
}

/// Routes engine and library events to the player once it exists.
final class PlayerBox {
    weak var player: Player?
}

/// A blocking MPD client for tests, on its own thread. Reads time out (a test never hangs).
final class TestClient {
    let fd: Int32
    private var buffer: [UInt8] = []
    /// How long a read waits: 10 s, or 2 min on an emulated CPU, where a debug build answering
    /// 100 pipelined `add`s takes over 10 s before the first answer is written.
    var timeoutMs: Int32 = Emulation.name == nil ? 10_000 : 120_000
    /// The greeting line.
    private(set) var greeting = ""

    init(unix path: String, readGreeting: Bool = true) throws {
        fd = try Syscalls.connectUnix(path: path)
        if readGreeting { greeting = try readLine() }
    }

    init(tcpPort port: UInt16, readGreeting: Bool = true) throws {
        fd = try Syscalls.connectTCP(address: "127.0.0.1", port: port)
        if readGreeting { greeting = try readLine() }
    }

    deinit { Syscalls.closeIgnoringErrors(fd) }

    func send(_ text: String) throws {
        try send(bytes: Array(text.utf8))
    }

    /// Sends everything (waiting while the socket is full); a closed peer is an error, not SIGPIPE.
    func send(bytes: [UInt8]) throws {
        let sent = try sendAll(fd, bytes, timeoutMs: timeoutMs)
        if sent < bytes.count { throw TestFailure("the server stopped reading after \(sent) bytes") }
    }

    /// Reads more bytes; false at end of stream.
    private func fill() throws -> Bool {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&pfd, 1, timeoutMs)
        guard ready > 0 else { throw TestFailure("no answer from the server within \(timeoutMs) ms") }
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress, $0.count, 0) }
        if n <= 0 { return false }
        buffer.append(contentsOf: chunk[0..<n])
        return true
    }

    func readLine() throws -> String {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeFirst(newline + 1)
                return line
            }
            guard try fill() else { throw TestFailure("connection closed") }
        }
    }

    func readBytes(_ count: Int) throws -> [UInt8] {
        while buffer.count < count {
            guard try fill() else { throw TestFailure("connection closed") }
        }
        let bytes = Array(buffer[..<count])
        buffer.removeFirst(count)
        return bytes
    }

    /// Whether the server closed the connection (reads until end of stream or timeout).
    func isClosedByServer() -> Bool {
        isClosedByServer(waitingMs: timeoutMs)
    }

    /// Whether the server closed the connection within `waitingMs` of silence.
    func isClosedByServer(waitingMs: Int32) -> Bool {
        let saved = timeoutMs
        timeoutMs = waitingMs
        defer { timeoutMs = saved }
        while true {
            do {
                if try !fill() { return true }
                buffer.removeAll()
            } catch {
                return false
            }
        }
    }

    /// Lines up to and including `OK` or an `ACK` line.
    func response() throws -> [String] {
        var lines: [String] = []
        while true {
            let line = try readLine()
            lines.append(line)
            if line == "OK" || line.hasPrefix("ACK ") { return lines }
        }
    }

    /// Sends one command and returns its response lines.
    func command(_ text: String) throws -> [String] {
        try send(text + "\n")
        return try response()
    }

    /// `key: value` pairs of a response (the first value of each key).
    func pairs(_ text: String) throws -> [String: String] {
        var result: [String: String] = [:]
        for line in try command(text) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let key = String(line[..<colon])
            if result[key] == nil { result[key] = String(line[line.index(colon, offsetBy: 2)...]) }
        }
        return result
    }
}

/// Sends `bytes` on a socket (MSG_NOSIGNAL), waiting up to `timeoutMs` each time it is full.
/// Returns how many bytes went out; stops early when the peer closes or stops reading.
@discardableResult
func sendAll(_ fd: Int32, _ bytes: [UInt8], timeoutMs: Int32) throws -> Int {
    var offset = 0
    while offset < bytes.count {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(Errno) in try Syscalls.send(fd, UnsafeRawBufferPointer(rebasing: raw[offset...])) }
        }
        switch result {
        case .success(let n) where n > 0:
            offset += n
        case .success:
            var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            if poll(&pfd, 1, timeoutMs) <= 0 { return offset }
        case .failure(let error):
            if error.rawValue == EPIPE || error.rawValue == ECONNRESET { return offset }
            throw error
        }
    }
    return offset
}
