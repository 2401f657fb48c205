// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskAudio
import KioskConfig
import KioskCore
import KioskLibrary
import KioskMPD
import KioskSystem

/// The `mpd` target's server: the player on the real engine with the silent sink, a library of
/// three short tracks, and the MPD server on a Unix socket, on one event loop this thread runs.
/// Each input is one client connection: the bytes are sent, the sending side is shut, and the loop
/// runs until the server has answered everything and closed (or 2 s pass, which is reported as a
/// hang: a client that has sent everything must always get its answers).
///
/// `totals` is a second server with small budgets (`mpd-totals`): after each input its queue,
/// stored playlists and stickers must be within them, however many inputs came before.
///
/// Thread: the fuzzing thread (it runs the loop).
final class MPDFuzzRig {
    nonisolated(unsafe) static let shared = MPDFuzzRig(name: "mpd")
    nonisolated(unsafe) static let totals = MPDFuzzRig(name: "mpd-totals") {
        $0.maxQueueLength = 32
        $0.maxStoredPlaylists = 8
        $0.maxStoredPlaylistBytes = 4 << 10
        $0.maxStoredPlaylistFileBytes = 1 << 10
        $0.maxStickers = 64
        $0.maxStickerTotalBytes = 4 << 10
        $0.maxOutputBytes = 64 << 10
        $0.outputHighWater = 16 << 10
    }

    private let loop: EventLoop
    private let engine: AudioEngine
    private let library: Library
    private let player: Player
    private let server: MPDServer
    private let socket: String
    private let stateDirectory: String

    private init(name: String, _ adjust: (inout MPDSettings) -> Void = { _ in }) {
        let root = FuzzFiles.directory + "/" + name
        socket = root + "/mpd.socket"
        let stick = root + "/sticks/FUZZ"
        do {
            for (n, title) in ["One", "Two", "Three"].enumerated() {
                try SyntheticLibrary.write(
                    SyntheticTrack(
                        relativePath: "Artist/Album/0\(n + 1) \(title).flac",
                        tags: [
                            (name: "TITLE", value: title), (name: "ARTIST", value: "Artist"),
                            (name: "ALBUM", value: "Album"), (name: "TRACKNUMBER", value: "\(n + 1)"),
                        ], seconds: 1, sampleRate: 44_100),
                    under: stick, compressionLevel: 0)
            }
            try SyntheticLibrary.writeFile(path: stick + "/list.m3u", bytes: Array("Artist/Album/02 Two.flac\n".utf8))
            loop = try EventLoop()
            let box = Box()
            engine = try AudioEngine(
                loop: loop, settings: AudioSettings(device: AudioDevice.silentName, realtimePriority: nil)
            ) { box.player?.handle($0) }
            var config = Config()
            config.stateDirectory = root + "/state"
            stateDirectory = config.stateDirectory
            config.mediaRoots = []
            config.audio.device = .silent
            library = try Library(loop: loop, stateDirectory: config.stateDirectory, mediaRoots: []) { event, catalog in
                box.player?.handle(event, catalog: catalog)
            }
            player = Player(
                loop: loop, engine: engine, screen: nil, config: config, outputDevices: ["none"], resume: nil,
                deviceOpens: OutputPresence.isPresent)
            box.player = player
            var settings = MPDSettings()
            settings.socketPath = socket
            settings.stateDirectory = config.stateDirectory
            adjust(&settings)
            server = MPDServer(loop: loop, player: player, library: library, settings: settings)
            try server.start()
            library.addVolume(path: stick)
            _ = try loop.run(
                until: { [library] in library.isIdle && library.catalog.trackCount == 3 },
                timeoutNanoseconds: 30_000_000_000)
        } catch {
            fatalError("the MPD fuzz rig did not start: \(error)")
        }
    }

    /// The player, for the engine's and the library's callbacks (set once built).
    private final class Box {
        weak var player: Player?
    }

    func run(_ data: [UInt8]) {
        guard let fd = try? Syscalls.connectUnix(path: socket) else { fatalError("cannot connect to the server") }
        defer { close(fd) }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var sent = 0
        var closed = false
        var buffer = [UInt8](repeating: 0, count: 65536)
        let finished = try? loop.run(
            until: {
                while sent < data.count {
                    let n = data[sent...].withUnsafeBytes { (try? Syscalls.send(fd, $0)) ?? -1 }
                    if n <= 0 { break }
                    sent += n
                }
                if sent == data.count && !closed {
                    shutdown(fd, Int32(SHUT_WR))
                    closed = true
                }
                while true {
                    let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                    if n == 0 { return true }  // the server closed: everything was answered
                    if n < 0 { return errno != EAGAIN && errno != EINTR }
                }
            }, timeoutNanoseconds: 2_000_000_000)
        precondition(finished == true, "the server did not finish a client that sent \(data.count) bytes and closed")
    }
}

extension MPDFuzzRig {
    /// Runs one input, then checks every budget as a total: the queue, the stored playlists, and
    /// all a client can make the player keep in the state directory (`clientStateBytesBound`).
    func runCheckingTotals(_ data: [UInt8]) {
        run(data)
        let settings = server.settings
        precondition(
            player.queue.count <= settings.maxQueueLength,
            "the queue has \(player.queue.count) songs, over its \(settings.maxQueueLength)")
        let playlists = Self.bytes(under: stateDirectory + "/mpd-playlists")
        precondition(
            playlists <= settings.maxStoredPlaylistBytes,
            "stored playlists take \(playlists) bytes, over their \(settings.maxStoredPlaylistBytes)")
        var clientBytes = playlists
        for file in ["mpd-stickers.sqlite", "mpd-stickers.sqlite-wal", "mpd-stickers.sqlite-shm", "client-queue.json"] {
            clientBytes += Self.bytes(under: stateDirectory + "/" + file)
        }
        precondition(
            clientBytes <= settings.clientStateBytesBound,
            "clients' files take \(clientBytes) bytes, over \(settings.clientStateBytesBound)")
    }

    /// Bytes of the file at `path`, or of every file below it (0 when there is none).
    private static func bytes(under path: String) -> Int {
        guard let status = try? Syscalls.fileStatus(path) else { return 0 }
        if status.st_mode & S_IFMT != S_IFDIR { return Int(status.st_size) }
        guard let listing = try? Syscalls.readDirectory(path) else { return 0 }
        return listing.entries.reduce(0) { $0 + bytes(under: path + "/" + $1.name) }
    }
}
