// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskAudio
import KioskConfig
import KioskDisplay
import KioskInput
import KioskLibrary
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskCore

/// Small libraries of real FLAC files (written by `SyntheticLibrary`), made once under /tmp and
/// reused by every test (and later runs: a version marker says they are complete).
enum PlayerFixtures {
    static let version = "player-fixtures-v2"

    /// One album of a fixture volume.
    struct Album {
        let artist: String
        let title: String
        let genre: String
        let tracks: [String]
        let seconds: Double
        let sampleRate: Int
        let bits: Int
    }

    /// "main": two albums (44.1 kHz/16-bit and 48 kHz/24-bit) and a playlist.
    static let mainAlbums = [
        Album(
            artist: "Alpha", title: "First Light", genre: "Rock", tracks: ["Dawn", "Noon", "Dusk"], seconds: 6,
            sampleRate: 44_100, bits: 16),
        Album(
            artist: "Beta", title: "Second Wind", genre: "Jazz", tracks: ["Gust", "Calm"], seconds: 6,
            sampleRate: 48_000, bits: 24),
    ]
    /// "plain": one album, no playlist.
    static let plainAlbums = [
        Album(
            artist: "Gamma", title: "Only Album", genre: "Folk", tracks: ["One", "Two"], seconds: 6,
            sampleRate: 44_100, bits: 16)
    ]
    /// "short": an album of two very short tracks, for playing a queue to its end.
    static let shortAlbums = [
        Album(
            artist: "Delta", title: "Blips", genre: "Ambient", tracks: ["Blip", "Blop"], seconds: 0.4,
            sampleRate: 44_100, bits: 16)
    ]

    /// "long": two long tracks at a low rate (small files), for restarts in the middle of a track.
    static let longAlbums = [
        Album(
            artist: "Epsilon", title: "Long Play", genre: "Classical", tracks: ["Adagio", "Allegro"], seconds: 40,
            sampleRate: 22_050, bits: 16)
    ]

    static let root = "/tmp/kiosk-core-fixtures-\(version)"
    static var main: String { root + "/main" }
    static var plain: String { root + "/plain" }
    static var short: String { root + "/short" }
    static var long: String { root + "/long" }

    /// Makes the volumes once (thread-safe: a global's initializer runs once).
    static func prepare() throws -> String {
        try prepared.get()
    }

    private static let prepared: Result<String, any Error> = Result {
        let marker = root + "/.complete"
        if Syscalls.exists(marker) { return root }
        let partial = root + ".partial-\(getpid())"
        _ = run("/bin/rm", ["-rf", partial])
        try write(mainAlbums, under: partial + "/main")
        try SyntheticLibrary.writeFile(
            path: partial + "/main/Playlists/Mix.m3u8",
            bytes: Array("#EXTM3U\n../Beta/Second Wind/02 Calm.flac\n../Alpha/First Light/01 Dawn.flac\n".utf8))
        try write(plainAlbums, under: partial + "/plain")
        try write(shortAlbums, under: partial + "/short")
        try write(longAlbums, under: partial + "/long")
        try SyntheticLibrary.writeFile(path: partial + "/.complete", bytes: Array(version.utf8))
        _ = run("/bin/rm", ["-rf", root])
        if rename(partial, root) != 0 && !Syscalls.exists(marker) { throw Errno.current.with("rename \(partial)") }
        _ = run("/bin/rm", ["-rf", partial])
        return root
    }

    static func relativePath(_ album: Album, _ number: Int) -> String {
        "\(album.artist)/\(album.title)/0\(number + 1) \(album.tracks[number]).flac"
    }

    private static func write(_ albums: [Album], under dir: String) throws {
        for (a, album) in albums.enumerated() {
            for (t, title) in album.tracks.enumerated() {
                try SyntheticLibrary.writeFLAC(
                    path: dir + "/" + relativePath(album, t),
                    tags: [
                        ("TITLE", title), ("ARTIST", album.artist), ("ALBUM", album.title), ("GENRE", album.genre),
                        ("TRACKNUMBER", "\(t + 1)"),
                    ], seconds: album.seconds, sampleRate: album.sampleRate, channels: 2, bitsPerSample: album.bits,
                    toneHz: 330 + 110 * Double(a) + 55 * Double(t))
            }
        }
    }
}

/// A player on fixture volumes, driven by `press` and waited on with `run`/`idle`.
///
/// By default the engine is a `FakeEngine`, the library a `FakeLibrary` (the real scanner, its
/// events on virtual time) and the player's timers a `VirtualClock`: no loop, no threads, and time
/// jumps from one timer to the next, so a test of a 6 s track takes milliseconds and cannot race.
/// `realEngine: true` gives the real `AudioEngine` (the "none" clock sink unless told otherwise)
/// and the real `Library` on an `EventLoop`'s real timers, for the few tests of what only they do
/// (devices that fail to write, the samples in a file); `screen: true` draws on a PNG surface,
/// whose `Display` paces its frames on a real loop. Both are integration tests.
final class PlayerRig {
    let state: TemporaryDirectory
    /// The real loop: only with the real engine or a screen.
    let loop: EventLoop?
    /// The player's timers when the engine is the fake one.
    let clock: VirtualClock?
    private(set) var engine: (any PlaybackEngine)!
    private(set) var library: (any RigLibrary)!
    private(set) var player: Player!
    private(set) var display: Display?
    /// Every engine event, in order.
    private(set) var audioEvents: [AudioEvent] = []
    private(set) var libraryEvents: [LibraryEvent] = []
    private var isShutDown = false

    /// The fake engine (nil with `realEngine`).
    var fake: FakeEngine? { engine as? FakeEngine }

    /// - Parameters:
    ///   - volumes: fixture folders added as volumes (scanned before `init` returns).
    ///   - devices: the output devices, the first in use.
    ///   - resume: a saved state to restore.
    ///   - screen: draw on a PNG surface in the state directory.
    ///   - recordingScreen: a screen that records what the player asks of it (no loop).
    ///   - realEngine: the real AudioEngine and Library on real time instead of fakes on virtual time.
    ///   - wallClock: the time of day (the bedtime rules').
    init(
        volumes: [String], devices: [String] = ["none"], resume: ResumeState? = nil, screen: Bool = false,
        recordingScreen: RecordingScreen? = nil,
        realEngine: Bool = false, wallClock: WallClock = .system, configure: (inout Config) -> Void = { _ in }
    ) throws {
        _ = try PlayerFixtures.prepare()
        state = try TemporaryDirectory("kiosk-player-rig")
        loop = realEngine || screen ? try EventLoop() : nil
        clock = realEngine ? nil : VirtualClock()
        var config = Config()
        config.stateDirectory = state.path
        config.mediaRoots = []
        configure(&config)
        if screen, let loop {
            let fonts = try FontSet.load()
            display = try Display(
                loop: loop, surface: PNGSurface(path: state.file("screen.png"), width: 320, height: 240), fonts: fonts)
        }
        let deliver: (AudioEvent) -> Void = { [unowned self] event in
            self.audioEvents.append(event)
            self.player?.handle(event)
        }
        let libraryEvent: (LibraryEvent, Catalog) -> Void = { [unowned self] event, catalog in
            self.libraryEvents.append(event)
            self.player?.handle(event, catalog: catalog)
        }
        let scheduler: any Scheduler
        let opens: (String) -> Bool
        if let clock {
            let fake = FakeEngine(clock: clock, device: devices[0], onEvent: deliver)
            engine = fake
            scheduler = clock
            opens = { [unowned fake] device in fake.isAvailable(device) }
            library = FakeLibrary(clock: clock, onEvent: libraryEvent)
        } else {
            let loop = loop!
            let settings = AudioSettings(device: devices[0], bufferMs: 40, ringSeconds: 0.5, realtimePriority: nil)
            engine = try AudioEngine(loop: loop, settings: settings, onEvent: deliver)
            scheduler = loop
            opens = OutputPresence.isPresent
            library = try Library(loop: loop, stateDirectory: state.path, mediaRoots: [], onEvent: libraryEvent)
        }
        player = Player(
            loop: scheduler, engine: engine, screen: display ?? recordingScreen, config: config, outputDevices: devices,
            resume: resume,
            deviceOpens: opens, wallClock: wallClock)
        for volume in volumes { library.addVolume(path: volume) }
        if !volumes.isEmpty {
            let scanned = try run(seconds: 20) { self.library.isIdle && self.player.catalog?.trackCount ?? 0 > 0 }
            if !scanned { throw RigError("the fixture volumes were not scanned in time") }
        }
    }

    deinit { shutdown() }

    func shutdown() {
        guard !isShutDown else { return }
        isShutDown = true
        player?.shutdown()
        library?.stop()
        display?.shutdown()
        state.remove()
    }

    /// Runs until `condition` holds (true) or `seconds` pass (false): of virtual time with the fake
    /// engine (jumping from timer to timer; a screen's real loop is served in between), of real
    /// time with the real one.
    @discardableResult
    func run(seconds: Double = 10, until condition: () -> Bool) throws -> Bool {
        guard let clock else {
            return try loop!.run(until: condition, timeoutNanoseconds: UInt64(seconds * 1e9))
        }
        let deadline = clock.nowNanoseconds + UInt64(seconds * 1e9)
        while true {
            try serveLoop()
            clock.runDue()
            if condition() { return true }
            guard clock.nowNanoseconds < deadline else { return false }
            // The display paces its frames on the real loop: give it a moment at each step.
            if display != nil { try loop?.runOnce(timeoutMilliseconds: 1) }
            clock.advance(to: min(deadline, clock.nextDeadline ?? deadline))
        }
    }

    /// Lets `milliseconds` pass (timers, engine events).
    func idle(_ milliseconds: Int) throws {
        guard let clock else {
            try loop!.run(forNanoseconds: UInt64(milliseconds) * 1_000_000)
            return
        }
        let deadline = clock.nowNanoseconds + UInt64(milliseconds) * 1_000_000
        _ = try run(seconds: Double(milliseconds) / 1000) { false }
        clock.advance(to: deadline)
        try serveLoop()
    }

    /// Dispatches what the real loop (of a screen) has ready, without waiting.
    private func serveLoop() throws {
        try loop?.runOnce(timeoutMilliseconds: 0)
    }

    /// The player's clock now, in nanoseconds.
    var nowNs: UInt64 { clock?.nowNanoseconds ?? Syscalls.monotonicNanoseconds() }

    /// One action, as an input would deliver it, then 20 ms pass so its effects settle.
    func press(_ action: Action, steps: Int = 1) throws {
        player.handle(ActionEvent(action: action, steps: steps, source: "test", timestampNs: nowNs))
        try idle(20)
    }

    var catalog: any CatalogSnapshot { player.catalog! }

    /// The collections of a category, in list order.
    func collections(_ category: KioskModel.Category) -> [KioskModel.Collection] {
        catalog.collections(in: category)
    }

    /// Number of trackStarted events so far.
    var tracksStarted: Int {
        audioEvents.count { if case .trackStarted = $0 { true } else { false } }
    }

    /// Title of the current track.
    var title: String? { player.currentTrack?.title }

    /// Plays the first collection of `category` (browse, select) and waits until its first track sounds.
    func playFirst(_ category: KioskModel.Category = .album, index: Int = 0) throws {
        try selectCategory(category)
        for _ in 0..<index { try press(.down) }
        let before = tracksStarted
        try press(.select)
        let started = try run { self.tracksStarted > before && self.player.positionFrames > 0 }
        if !started { throw RigError("playback did not start") }
    }

    /// Cycles categories until `category` is current, in browse mode.
    func selectCategory(_ category: KioskModel.Category) throws {
        for _ in 0..<6 where !(player.category == category && player.mode == .browse) {
            try press(.nextCategory)
        }
        if player.category != category { throw RigError("category \(category) not reachable") }
    }

    /// Adds the folder at `path` as a stick, waits for its scan to end, and returns the message
    /// the screen shows then (throws when it shows none).
    func messageAfterScanning(_ path: String) throws -> MessageState {
        library.addVolume(path: path)
        let scanned = try run {
            self.library.isIdle && self.libraryEvents.contains { if case .scanFinished = $0 { true } else { false } }
        }
        guard scanned, case .message(let message) = player.screenState() else {
            throw RigError("no message after scanning \(path): \(player.screenState())")
        }
        return message
    }

    /// Waits until the player reports `seconds` or more of the current track.
    func waitForPosition(seconds: Double) throws {
        let reached = try run(seconds: seconds + 10) { self.player.positionSeconds >= seconds }
        if !reached { throw RigError("position \(seconds) s not reached (at \(player.positionSeconds) s)") }
    }

    /// The saved resume state, read from the file.
    /// The state on the device once every save handed to the writer's thread is written.
    func saved() -> ResumeState? {
        if !isShutDown { player.flushSaves() }
        return ResumeState.load(directory: state.path)
    }

    /// Removes the saved file once the saves asked for so far are written, so a test can see the
    /// next save.
    func forgetSaved() {
        player.flushSaves()
        unlink(state.file(ResumeState.fileName))
    }

    /// Waits for a save to appear (after `forgetSaved`).
    func waitForSave(seconds: Double = 2) throws -> ResumeState? {
        _ = try run(seconds: seconds) {
            self.player.flushSaves()
            return Syscalls.exists(self.state.file(ResumeState.fileName))
        }
        return saved()
    }
}

struct RigError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension PlayerRig {
    /// A player on the main fixture volume, restored stopped at the start of track `number` of its
    /// first album (Alpha's "First Light": Dawn, Noon, Dusk).
    static func stopped(atTrack number: Int) throws -> PlayerRig {
        try PlayerRig(
            volumes: [PlayerFixtures.main],
            resume: resumeState(
                volume: PlayerFixtures.main, album: PlayerFixtures.mainAlbums[0], number: number, seconds: 0,
                playing: false))
    }
}

/// A resume state for track `number` of fixture `album` on the volume at `volume`.
func resumeState(
    volume: String, album: PlayerFixtures.Album, number: Int, seconds: Double, playing: Bool, category: String = "album"
) -> ResumeState {
    var state = ResumeState()
    state.volumeID = VolumeIdentity.identify(directory: volume).rawValue
    state.relativePath = PlayerFixtures.relativePath(album, number)
    state.sampleRate = album.sampleRate
    state.positionFrames = Int64(seconds * Double(album.sampleRate))
    state.queueIndex = number
    state.playing = playing
    state.category = category
    state.volumePercent = 100
    return state
}

/// A screen that records what the player shows and which artwork it asks for, without drawing.
/// Thread: the test's thread only.
final class RecordingScreen: ScreenOutput {
    private(set) var shown: [ScreenState] = []
    private(set) var artworkRequests: [String] = []

    func show(_ state: ScreenState) { shown.append(state) }
    func provideArtwork(key: String, loadArtwork: @escaping @Sendable () -> Artwork?) { artworkRequests.append(key) }
    func helpPageCount(entries: Int) -> Int { 1 }
}
