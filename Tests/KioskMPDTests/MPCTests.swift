// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskConfig
import KioskCore
import KioskLibrary
import KioskMPD
import KioskSystem
import KioskTestSupport
import Testing

/// `kiosk-player run` on the fixture with the MPD server on a Unix socket and on TCP 127.0.0.1,
/// the terminal keyboard read from a pipe (the test's button), and the real `mpc` client.
/// The player's own view of its state is resume.json, which it saves on every change.
final class RunningPlayer {
    let directory: TemporaryDirectory
    let socket: String
    let port: UInt16
    let state: String
    let process: ChildProcess
    let mpcPath: String

    /// `extraConfig`: more top-level config keys (JSON members, each followed by a comma).
    /// `seconds`: the tracks' length; `extraTracks`: more tracks after the fixture's 8, in a folder
    /// "Extras".
    init(extraConfig: String = "", seconds: Double = 20, extraTracks: Int = 0) throws {
        guard let mpc = which("mpc") else { throw TestFailure("no mpc") }
        mpcPath = mpc
        directory = try TemporaryDirectory("kiosk-mpc")
        let music = directory.file("music/USBSTICK")
        let songs = try Fixture.write(under: music, seconds: seconds) + extraTracks
        for n in 0..<extraTracks {
            try SyntheticLibrary.write(
                SyntheticTrack(
                    relativePath: "Extras/Extra \(n + 1).flac", tags: [("TITLE", "Extra \(n + 1)")],
                    seconds: seconds, sampleRate: 44_100),
                under: music, compressionLevel: 0)
        }
        state = directory.file("state")
        socket = directory.file("run/mpd.socket")
        // A free port: bound by the kernel, then released for the player.
        let probe = try Syscalls.listenTCP(address: "127.0.0.1", port: 0)
        port = try Syscalls.localPort(probe)
        Syscalls.closeIgnoringErrors(probe)
        try directory.write(
            "boards/mpdtest.json", #"{"name": "mpdtest", "description": "keyboard only", "screen": {"type": "none"}}"#)
        try directory.write(
            "config.json",
            """
            {\(extraConfig)"board": "mpdtest", "boardsDirectory": "\(directory.file("boards"))", "mediaRoots": [],
             "stateDirectory": "\(state)", "audio": {"device": "none", "realtimePriority": 0},
             "mpd": {"listen": "127.0.0.1:\(port)"}}
            """)
        process = try ChildProcess(
            TestPaths.playerBinary,
            [
                "run", "--config", directory.file("config.json"), "--library", music, "--keyboard", "--screen", "none",
                "--mpd-socket", socket,
            ], log: directory.file("player.log"), input: .pipe)
        let ready = waitFor(seconds: 60) { [socket, mpc] in
            run(mpc, ["-h", socket, "stats"], timeoutSeconds: 10).output.split(separator: "\n").contains {
                $0.hasPrefix("Songs:") && $0.split(separator: " ").last == "\(songs)"
            }
        }
        guard ready else { throw TestFailure("the player did not come up: \(process.log)") }
    }

    deinit {
        process.stop()
        directory.remove()
    }

    /// Runs mpc over the Unix socket, or TCP.
    func mpc(_ arguments: [String], tcp: Bool = false) -> ProcessResult {
        let host = tcp ? ["-h", "127.0.0.1", "-p", "\(port)"] : ["-h", socket]
        return run(mpcPath, host + arguments, timeoutSeconds: 20)
    }

    /// The state the player saved, once it satisfies `condition` (nil after 10 s).
    func saved(_ condition: (ResumeState) -> Bool) -> ResumeState? {
        var found: ResumeState?
        _ = waitFor(seconds: 10) {
            found = ResumeState.load(directory: state)
            return found.map(condition) ?? false
        }
        return found.flatMap { condition($0) ? $0 : nil }
    }
}

/// `mpc status` (or the status lines other mpc commands print) taken apart.
struct MPCStatus {
    var song: String?
    var state: String?
    var position: Int?
    var length: Int?
    var volume: Int?

    init(_ text: String) {
        for line in text.split(separator: "\n").map(String.init) {
            if line.hasPrefix("[") {
                state = String(line.dropFirst().prefix { $0 != "]" })
                if let hash = line.firstIndex(of: "#") {
                    let numbers = line[line.index(after: hash)...].prefix { $0 != " " }.split(separator: "/")
                    position = numbers.first.flatMap { Int($0) }
                    length = numbers.last.flatMap { Int($0) }
                }
            } else if line.hasPrefix("volume:") {
                volume = Int(line.dropFirst(7).drop { $0 == " " }.prefix { $0.isNumber })
            } else if !line.contains("volume:") {
                song = line
            }
        }
    }
}

@Suite(
    .tags(.integration),
    .serialized,
    .enabled(if: which("mpc") != nil, "mpc is not installed (deploy/install-deps.sh installs it)"))
struct MPCTests {
    /// The same session over either listener; every answer compared with what the player saved.
    func session(_ p: RunningPlayer, tcp: Bool) throws {
        let status = MPCStatus(p.mpc(["status"], tcp: tcp).output)
        #expect(status.state == nil)
        // Nothing saved yet: the config's volume.
        #expect(status.volume == (ResumeState.load(directory: p.state)?.volumePercent ?? Config().volume))

        // The root lists the stored playlists after the volumes, as mpd's does.
        #expect(p.mpc(["ls"], tcp: tcp).output == "USBSTICK\nRoad Trip\n")
        #expect(
            p.mpc(["ls", "USBSTICK"], tcp: tcp).output
                == "USBSTICK/Mix.m3u8\nUSBSTICK/Aurora Quartet\nUSBSTICK/Loose\nUSBSTICK/The Field Recorders\n")
        let found = p.mpc(["search", "artist", "aurora quartet"], tcp: tcp).output.split(separator: "\n")
        #expect(found.count == 5)
        #expect(found.allSatisfy { $0.hasPrefix("USBSTICK/Aurora Quartet/") })
        #expect(
            p.mpc(["list", "album"], tcp: tcp).output == "\nCoastline\nLive at the Lighthouse\nNorthern Lights\n")

        #expect(p.mpc(["clear"], tcp: tcp).status == 0)
        #expect(p.mpc(["add", "USBSTICK/Aurora Quartet/Northern Lights"], tcp: tcp).status == 0)
        let playing = MPCStatus(p.mpc(["play"], tcp: tcp).output)
        #expect(playing.state == "playing")
        #expect(playing.position == 1)
        #expect(playing.length == 3)
        #expect(playing.song == "Aurora Quartet - Polar Night")
        #expect(
            p.saved { $0.playing && $0.relativePath == "Aurora Quartet/Northern Lights/01 Polar Night.flac" } != nil)

        let paused = MPCStatus(p.mpc(["pause"], tcp: tcp).output)
        #expect(paused.state == "paused")
        #expect(p.saved { !$0.playing } != nil)

        let next = MPCStatus(p.mpc(["next"], tcp: tcp).output)
        #expect(next.state == "playing")
        #expect(next.position == 2)
        #expect(next.song == "Aurora Quartet - Green Curtain")
        #expect(
            p.saved { $0.playing && $0.relativePath == "Aurora Quartet/Northern Lights/02 Green Curtain.flac" } != nil)

        let volume = MPCStatus(p.mpc(["volume", "35"], tcp: tcp).output)
        #expect(volume.volume == 35)
        #expect(p.saved { $0.volumePercent == 35 } != nil)
        #expect(MPCStatus(p.mpc(["volume", "+10"], tcp: tcp).output).volume == 45)
        #expect(p.saved { $0.volumePercent == 45 } != nil)

        // The outputs are the configured ALSA devices ("none", the silent sink, is not one).
        #expect(p.mpc(["outputs"], tcp: tcp).output == "Output 1 (default) is disabled\n")
        #expect(p.mpc(["enable", "1"], tcp: tcp).status == 0)
        #expect(p.mpc(["outputs"], tcp: tcp).output == "Output 1 (default) is enabled\n")
        #expect(p.saved { $0.outputDevice == "default" } != nil)
        #expect(p.mpc(["disable", "1"], tcp: tcp).status == 0)
        #expect(p.mpc(["outputs"], tcp: tcp).output == "Output 1 (default) is disabled\n")
        #expect(p.saved { $0.outputDevice == "none" } != nil)

        // Errors: MPD's wording, through mpc.
        let bad = p.mpc(["play", "99"], tcp: tcp)
        #expect(bad.status != 0)
        #expect(bad.errors.contains("Bad song index"))
        let missing = p.mpc(["add", "../etc"], tcp: tcp)
        #expect(missing.errors.contains("No such directory"))

        // A rescan; --wait follows it through idle "update" until it is over.
        let update = p.mpc(["--wait", "update"], tcp: tcp)
        #expect(update.status == 0 && !update.timedOut)

        let stopped = MPCStatus(p.mpc(["stop"], tcp: tcp).output)
        #expect(stopped.state == nil || stopped.state == "stopped")
        #expect(p.saved { !$0.playing } != nil)
    }

    @Test func mpcOverTheUnixSocketControlsThePlayer() throws {
        let p = try RunningPlayer()
        try session(p, tcp: false)
    }

    @Test func mpcOverTCPControlsThePlayerAndIdleWakesOnAButton() throws {
        let p = try RunningPlayer()
        try session(p, tcp: true)
        let before = p.saved { _ in true }?.volumePercent ?? 0
        let idle = try ChildProcess(
            p.mpcPath, ["-h", "127.0.0.1", "-p", "\(p.port)", "idle"], log: p.directory.file("idle.log"))
        // The button: "+" on the player's keyboard (stdin). Pressed until mpc idle returns, as the
        // press may come before mpc has sent "idle".
        var presses = 0
        let woke = waitFor(seconds: 20) {
            if !idle.isRunning { return true }
            if presses < 10 {
                try? p.process.type("+")
                presses += 1
            }
            Syscalls.sleep(nanoseconds: 200_000_000)
            return !idle.isRunning
        }
        #expect(woke)
        #expect(idle.log == "mixer\n")
        let after = MPCStatus(p.mpc(["status"], tcp: true).output).volume
        #expect(after == min(100, before + 5 * presses))
        #expect(p.saved { $0.volumePercent == after } != nil)
    }

    @Test func mpcSavesListsLoadsAndRemovesAStoredPlaylist() throws {
        let p = try RunningPlayer()
        #expect(p.mpc(["add", "USBSTICK/The Field Recorders"]).status == 0)
        #expect(p.mpc(["save", "Mine"]).status == 0)
        // mpc 0.34 lists stored playlists through the root lsinfo.
        #expect(p.mpc(["lsplaylists"]).output.split(separator: "\n").sorted() == ["Mine", "Road Trip"])
        #expect(
            p.mpc(["playlist", "Mine"]).output.split(separator: "\n") == [
                "The Field Recorders - Low Tide", "The Field Recorders - Gulls",
            ])
        #expect(p.mpc(["clear"]).status == 0)
        #expect(p.mpc(["load", "Mine"]).status == 0)
        #expect(p.mpc(["playlist"]).output.split(separator: "\n").count == 2)
        let again = p.mpc(["save", "Mine"])
        #expect(again.status != 0 && again.errors.contains("Playlist already exists"))
        #expect(p.mpc(["rm", "Mine"]).status == 0)
        #expect(p.mpc(["lsplaylists"]).output.split(separator: "\n") == ["Road Trip"])
    }

    @Test func mpcVolumeStopsAtTheConfiguredLimits() throws {
        let p = try RunningPlayer(extraConfig: #""volumeMax": 60, "volumeMin": 10, "#)
        #expect(MPCStatus(p.mpc(["volume", "100"]).output).volume == 60)
        #expect(MPCStatus(p.mpc(["volume", "+10"]).output).volume == 60)
        #expect(MPCStatus(p.mpc(["volume", "0"]).output).volume == 10)
        #expect(MPCStatus(p.mpc(["volume", "-5"]).output).volume == 10)
        #expect(p.saved { $0.volumePercent == 10 } != nil)
    }

    @Test func mpcRandomThenNextPlaysTenDistinctTracksNotInQueueOrder() throws {
        let p = try RunningPlayer(extraTracks: 2)
        #expect(p.mpc(["add", "/"]).status == 0)
        let queue = p.mpc(["-f", "%file%", "playlist"]).output.split(separator: "\n").map(String.init)
        #expect(queue.count == 10)
        #expect(p.mpc(["random", "on"]).status == 0)
        #expect(p.mpc(["play"]).status == 0)
        var played: [String] = []
        for n in 0..<10 {
            if n > 0 { #expect(p.mpc(["next"]).status == 0) }
            played.append(
                p.mpc(["-f", "%file%", "current"]).output.split(separator: "\n").first.map(String.init) ?? "")
        }
        #expect(Set(played).count == 10, "\(played)")
        #expect(Set(played) == Set(queue))
        #expect(played != queue)
        #expect(p.mpc(["status"]).output.contains("random: on"))
    }

    /// MPD 0.23's single mode: the next track is where playback pauses; with repeat the track plays
    /// again.
    @Test func mpcSingleOnPausesAtTheNextTrackAndRepeatsWithRepeatOn() throws {
        let p = try RunningPlayer(seconds: 2)
        #expect(p.mpc(["add", "/"]).status == 0)
        #expect(p.mpc(["single", "on"]).status == 0)
        #expect(p.mpc(["play", "1"]).status == 0)
        #expect(waitFor(seconds: 10) { MPCStatus(p.mpc(["status"]).output).state == "paused" })
        let paused = MPCStatus(p.mpc(["status"]).output)
        #expect(paused.position == 2)
        #expect(p.mpc(["status"]).output.contains("single: on"))
        #expect(p.mpc(["repeat", "on"]).status == 0)
        #expect(p.mpc(["play"]).status == 0)
        _ = waitFor(seconds: 3.5) { false }  // past the 2 s track's end
        let again = MPCStatus(p.mpc(["status"]).output)
        #expect(again.state == "playing")
        #expect(again.position == 2, "the track plays again")
    }

    /// MPD 0.23's consume mode: next and the track border take the played track out.
    @Test func mpcConsumeOnTakesPlayedTracksOutOfTheQueue() throws {
        let p = try RunningPlayer(seconds: 2)
        #expect(p.mpc(["add", "/"]).status == 0)
        let queue = p.mpc(["-f", "%file%", "playlist"]).output.split(separator: "\n").map(String.init)
        #expect(p.mpc(["consume", "on"]).status == 0)
        #expect(p.mpc(["play", "1"]).status == 0)
        #expect(p.mpc(["next"]).status == 0)
        func playlist() -> [String] {
            p.mpc(["-f", "%file%", "playlist"]).output.split(separator: "\n").map(String.init)
        }
        #expect(playlist() == Array(queue.dropFirst()))
        #expect(waitFor(seconds: 10) { playlist() == Array(queue.dropFirst(2)) })
        #expect(MPCStatus(p.mpc(["status"]).output).state == "playing")
        #expect(p.mpc(["status"]).output.contains("consume: on"))
    }

    /// Abuse of the running player: its memory is measured before and after.
    @Test(Emulation.cpuBoundStress, Sanitizer.boundsResidentMemory)
    func abuseLeavesTheRunningPlayerServingWithBoundedMemory() throws {
        let p = try RunningPlayer()
        // Warm up: every kind of response once.
        for arguments in [["listall"], ["search", "any", "a"], ["add", "USBSTICK"], ["playlist"], ["clear"]] {
            _ = p.mpc(arguments)
        }
        let baseline = try #require(p.process.memoryKilobytes("VmRSS"))
        let peakBefore = p.process.memoryKilobytes("VmHWM") ?? baseline

        // A 10 MB line over TCP.
        let long = try Syscalls.connectTCP(address: "127.0.0.1", port: p.port)
        var line = Array("status ".utf8) + [UInt8](repeating: 0x61, count: 10 << 20)
        line.append(0x0A)
        let taken = try sendAll(long, line, timeoutMs: 5000)
        Syscalls.closeIgnoringErrors(long)

        // A client that never reads, then 1000 connections at once on the Unix socket.
        let volumeBefore = MPCStatus(p.mpc(["status"], tcp: true).output).volume ?? 0
        let hog = try Syscalls.connectTCP(address: "127.0.0.1", port: p.port)
        try Syscalls.setSocketBufferSize(hog, send: false, bytes: 4096)
        let hogQueued = try sendAll(hog, Array(String(repeating: "listallinfo\n", count: 5000).utf8), timeoutMs: 1000)
        var flood: [Int32] = []
        for _ in 0..<1000 {
            guard let fd = try? Syscalls.connectUnix(path: p.socket) else { break }
            flood.append(fd)
        }
        // The button still works meanwhile (the player saves the new volume).
        try p.process.type("+")
        let pressed = p.saved { $0.volumePercent == min(100, volumeBefore + 5) } != nil
        for fd in flood { Syscalls.closeIgnoringErrors(fd) }

        // Garbage, and paths out of the volume.
        let garbage = try Syscalls.connectTCP(address: "127.0.0.1", port: p.port)
        try sendAll(garbage, [0xFF, 0xFE, 0x00, 0x0A] + Array(repeating: 0x99, count: 65536), timeoutMs: 1000)
        Syscalls.closeIgnoringErrors(garbage)
        let escape = p.mpc(["ls", "USBSTICK/../.."])
        let absolute = p.mpc(["add", "/etc/passwd"])

        let status = p.mpc(["status"], tcp: true)
        let rss = p.process.memoryKilobytes("VmRSS") ?? 0
        let peak = p.process.memoryKilobytes("VmHWM") ?? 0
        Syscalls.closeIgnoringErrors(hog)
        print(
            "mpd abuse on kiosk-player run: VmRSS \(baseline) kB before, \(rss) kB after, peak \(peakBefore) → \(peak) kB; 10 MB line: \(taken) bytes taken; never-reading client: \(hogQueued) request bytes taken; 1000 connections opened: \(flood.count)"
        )
        #expect(taken < 10 << 20)
        #expect(flood.count == 1000)
        #expect(pressed)
        #expect(status.status == 0 && MPCStatus(status.output).volume != nil)
        #expect(escape.errors.contains("No such directory"))
        #expect(absolute.errors.contains("No such song"))
        #expect(p.process.isRunning)
        // Bounded: the abuse costs at most a few megabytes (buffers are per client and capped).
        #expect(peak - peakBefore < 16 * 1024)
        #expect(rss - baseline < 16 * 1024)
    }
}
