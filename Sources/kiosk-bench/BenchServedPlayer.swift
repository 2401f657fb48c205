// SPDX-License-Identifier: GPL-3.0-or-later
import KioskAudio
import KioskCommandLine
import KioskConfig
import KioskCore
import KioskLibrary
import KioskMPD
import KioskModel
import KioskSystem
import Synchronization

/// The player with the real engine and library on one event loop, as the appliance wires them (no
/// inputs; a screen only when given), its music scanned, and the MPD server once `startServer` is
/// called: what `bench mpd`, `bench storm` and `bench pause` drive.
///
/// Thread: the thread that made it, which runs `loop`.
final class BenchServedPlayer {
    let loop: EventLoop
    let engine: AudioEngine
    let library: Library
    let player: Player
    private(set) var server: MPDServer?
    let socketPath: String

    /// Scans `music` into a fresh state directory `state` before it returns.
    init(
        state: String, music: String, audio: AudioSettings = AudioSettings(device: "none", realtimePriority: nil),
        screen: (any ScreenOutput)? = nil
    ) throws {
        final class Box { weak var player: Player? }
        let box = Box()
        loop = try EventLoop()
        engine = try AudioEngine(loop: loop, settings: audio) { box.player?.handle($0) }
        var config = Config()
        config.stateDirectory = state
        config.mediaRoots = []
        library = try Library(loop: loop, stateDirectory: state, mediaRoots: []) { event, catalog in
            box.player?.handle(event, catalog: catalog)
        }
        player = Player(
            loop: loop, engine: engine, screen: screen, config: config, outputDevices: [audio.device], resume: nil,
            deviceOpens: OutputPresence.isPresent)
        box.player = player
        socketPath = state + "/mpd.socket"
        library.addVolume(path: music)
        let library = library
        _ = try loop.run(
            until: { library.isIdle && library.catalog.trackCount > 0 }, timeoutNanoseconds: 600_000_000_000)
    }

    /// Starts the MPD server on `socketPath`.
    func startServer() throws {
        var settings = MPDSettings()
        settings.socketPath = socketPath
        let server = MPDServer(loop: loop, player: player, library: library, settings: settings)
        try server.start()
        self.server = server
    }

    /// Queues the whole of `music` (the folder the player scanned) on repeat and plays it, as an MPD
    /// client would: the client on a thread of its own, since the server answers on this thread's
    /// loop. Returns once the position moves.
    func playAllOnRepeat(_ music: String) throws {
        let volume = music.split(separator: "/").last.map(String.init) ?? ""
        let setUpDone = Atomic<Bool>(false)
        let setUp = try KioskThread(name: "bench-set-up") { [path = socketPath] in
            defer { setUpDone.store(true, ordering: .releasing) }
            guard let client = BenchMPDClient(path: path) else { return }
            for command in ["add \"\(volume)\"", "repeat 1", "play 0"] { client.command(command) }
        }
        let player = player
        let playing = try loop.run(
            until: { setUpDone.load(ordering: .acquiring) && player.positionFrames > 0 },
            timeoutNanoseconds: 30_000_000_000)
        setUp.join()
        guard playing else { throw ToolError("\(music) did not start playing through MPD") }
    }

    func stop() {
        server?.stop()
        player.shutdown()
        engine.shutdown()
        library.stop()
    }
}
