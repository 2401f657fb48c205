// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskDisplay
import KioskLibrary
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskCore

private let alpha = PlayerFixtures.mainAlbums[0]

/// The real `kiosk-player run` process: a config file, a stick bind-mounted under the media root
/// while it runs, an event script as the buttons, PNG frames as the screen, and ALSA's file
/// plugin (samples) or the "none" clock sink (timing) as the sound card.
@Suite(
    .tags(.integration),
    .serialized, .enabled(if: canMount, "needs root and mount(8) to put a stick under the media root"),
    .enabled(if: hasFlacTool, "needs the flac tool (apt-get install flac)"), Emulation.wallClockPaced)
struct EndToEndTests {
    /// Every press of a session, through the file plugin: the samples written are exactly the
    /// tracks the state machine says, decoded as `flac -d` decodes them, without gaps.
    @Test func theSamplesWrittenAreTheTracksThePressesAskedFor() throws {
        let box = try EndToEndBox()
        let out = box.dir.file("out.raw")
        try box.writeConfig(device: "file:'\(out)',raw")
        // Artists (Alpha first) → select: Alpha's three tracks play (at file speed) and the queue
        // ends, back at Dawn. Next → Noon; play → Noon, Dusk; next ×3 → Noon, Dusk, end (stopped at
        // Dawn); previous on the first track → still Dawn; play → Dawn, Noon, Dusk; stop.
        let script = """
            {"t": 2500, "key": "tab"}
            {"t": 3000, "key": "enter"}
            {"t": 3600, "key": "n"}
            {"t": 4000, "key": "space"}
            {"t": 4600, "key": "n"}
            {"t": 4900, "key": "n"}
            {"t": 5200, "key": "n"}
            {"t": 5500, "key": "p"}
            {"t": 5800, "key": "space"}
            {"t": 6400, "key": "s"}

            """
        guard let player = try box.startScripted(script, exitAfterMs: 500, stick: PlayerFixtures.main) else { return }
        let status = player.wait(seconds: 30)
        #expect(status == 0, "exit status \(status.map(String.init) ?? "none (still running)"): \(player.log)")

        let tracks = try (0..<3).map {
            try decodedWithFlacTool(box.stick + "/" + PlayerFixtures.relativePath(alpha, $0), scratch: box.dir)
        }
        let (dawn, noon, dusk) = (tracks[0], tracks[1], tracks[2])
        let expected = dawn + noon + dusk + noon + dusk + dawn + noon + dusk
        let written = try box.captured(out)
        #expect(written.count == expected.count, "\(written.count) bytes written, expected \(expected.count)")
        expectSameSamples(written, expected, "bytes written")
        // Stopped on Dawn at the end, saved.
        let saved = try #require(box.saved())
        #expect(saved.relativePath == PlayerFixtures.relativePath(alpha, 0))
        #expect(!saved.playing && saved.positionFrames == 0 && saved.category == "artist")
    }

    /// In real time ("none"): the screens of a session, frame by frame, and a stick pulled out
    /// in the middle of a track.
    @Test func theScreensFollowThePressesAndAPulledStickStopsCleanly() throws {
        let box = try EndToEndBox()
        try box.writeConfig(device: "none")
        let script = """
            {"t": 3000, "key": "tab"}
            {"t": 3700, "key": "enter"}
            {"t": 4900, "key": "n"}
            {"t": 6500, "key": "space"}
            {"t": 7300, "key": "s"}
            {"t": 8000, "key": "space"}

            """
        let screens = try ExpectedScreens()
        guard let player = try box.startScripted(script, exitAfterMs: 8000, stick: PlayerFixtures.main) else { return }
        // Pull the stick while Noon plays again (after the last press at 8 s).
        let pullAt = player.startedNs + 9_500_000_000
        while Syscalls.monotonicNanoseconds() < pullAt { Syscalls.sleep(nanoseconds: 10_000_000) }
        let savedBeforePull = box.saved()
        box.unmount()
        // The process stays up and shows the message.
        Syscalls.sleep(nanoseconds: 1_000_000_000)
        #expect(player.isRunning, "the player ended after the stick was pulled: \(player.log)")
        let status = player.wait(seconds: 30)
        #expect(status == 0, "exit status \(status.map(String.init) ?? "none"): \(player.log)")
        #expect(!player.log.contains("<3>"), "errors logged: \(player.log)")

        // The frames, in order, must contain these screens (a few more in between: seconds ticking).
        let insert = ScreenState.message(MessageState(title: "Insert a USB stick with music", kind: .info))
        let catalog = try fixtureCatalog(PlayerFixtures.main)
        let albums = browseScreen(catalog, .album, label: "Albums")
        let artists = browseScreen(catalog, .artist, label: "Artists")
        var steps: [(String, [ScreenState])] = [
            ("no stick", [insert]),
            ("the albums once scanned", [albums]),
            ("the artists after next-category", [artists]),
            ("Dawn playing", [nowPlaying(alpha, 0, .playing, elapsed: 0, category: "Artist", position: 1, count: 3)]),
            (
                "Noon playing after next",
                [nowPlaying(alpha, 1, .playing, elapsed: 0, category: "Artist", position: 2, count: 3)]
            ),
        ]
        steps.append(
            (
                "Noon paused",
                (0...3).map { nowPlaying(alpha, 1, .paused, elapsed: $0, category: "Artist", position: 2, count: 3) }
            ))
        steps.append(
            (
                "Noon stopped at 0:00",
                [nowPlaying(alpha, 1, .stopped, elapsed: 0, category: "Artist", position: 2, count: 3)]
            ))
        steps.append(
            (
                "Noon playing again",
                (0...1).map { nowPlaying(alpha, 1, .playing, elapsed: $0, category: "Artist", position: 2, count: 3) }
            ))
        steps.append(
            (
                "the stick pulled",
                [.message(MessageState(title: "USB stick removed", detail: "Playback stopped", kind: .info))]
            ))
        steps.append(("no stick again", [insert]))
        let frames = box.frameFiles()
        var next = 0
        for (what, candidates) in steps {
            let wanted = try candidates.map { try screens.png($0) }
            var found = false
            while next < frames.count {
                let bytes = try Syscalls.readFile(frames[next], limit: 16 << 20)
                next += 1
                if wanted.contains(bytes) {
                    found = true
                    break
                }
            }
            #expect(found, "no frame shows \(what) (after frame \(next) of \(frames.count)); log: \(player.log)")
            if !found { break }
        }
        // The state saved while Noon played again.
        #expect(savedBeforePull?.relativePath == PlayerFixtures.relativePath(alpha, 1))
        #expect(savedBeforePull?.playing == true)
        // After the pull: nothing queued is saved, so a restart does not try the stick's track.
        #expect(box.saved()?.relativePath == nil)
    }
}

/// The catalog of a fixture volume, scanned here the way the player's library scans it.
func fixtureCatalog(_ volume: String) throws -> Catalog {
    let (contents, _) = try VolumeScanner().scan(
        volume: VolumeIdentity.identify(directory: volume), mountPoint: volume, indexPath: nil)
    return Catalog(volumes: [contents])
}

/// The browse list of a category as the player shows it (first entry selected).
func browseScreen(_ catalog: Catalog, _ category: KioskModel.Category, label: String) -> ScreenState {
    .browse(
        BrowseState(
            categoryLabel: label,
            items: catalog.collections(in: category).map {
                BrowseItem(title: $0.name, subtitle: $0.subtitle, artworkKey: "any")
            }))
}

/// Power cuts: `kill -9` at random moments, then a restart.
@Suite(
    .tags(.integration),
    .serialized, .enabled(if: canMount, "needs root and mount(8) to put a stick under the media root"),
    .enabled(if: hasFlacTool, "needs the flac tool (apt-get install flac)"), Emulation.wallClockPaced)
struct PowerCutTests {
    /// After each kill the saved state is whole and is the last one the player wrote (or the one it
    /// was writing); the restarted player starts that track at the saved position (the last restart
    /// writes its samples to a file: they are the track's from that frame on).
    @Test func killedAtRandomMomentsItResumesFromTheLastStateWritten() throws {
        let box = try EndToEndBox()
        try box.writeConfig(device: "none")
        if let problem = box.mount(PlayerFixtures.long) {
            try skipTest(problem)
            return
        }
        try box.dir.write("script.jsonl", #"{"t": 2500, "key": "enter"}"# + "\n")
        var generator = SystemRandomNumberGenerator()
        var previous: ResumeState?
        var checked = 0
        for run in 0..<4 {
            let player = try box.start(
                run == 0 ? ["--script", box.dir.file("script.jsonl")] : [], logName: "run\(run).log")
            // Random moments (from the first milliseconds of start-up on), and once the worst one for
            // periodic saves: just before the second save after the track started.
            var delay =
                run == 0
                ? Double.random(in: 7...13, using: &generator) : Double.random(in: 0.05...10, using: &generator)
            if run == 1 {
                _ = waitFor(seconds: 10) { !TrackStartLine.all(in: player.log).isEmpty }
                let started = TrackStartLine.all(in: player.log).first.map {
                    Double($0.monotonicNs - player.startedNs) / 1e9
                }
                delay = (started ?? 0) + 2 * Double(Player.defaultSaveIntervalMilliseconds) / 1000 - 0.05
            }
            let killAt = player.startedNs + UInt64(delay * 1e9)
            while Syscalls.monotonicNanoseconds() < killAt { Syscalls.sleep(nanoseconds: 2_000_000) }
            player.signal(SIGKILL)
            #expect(player.wait(seconds: 10) == 128 + SIGKILL)
            let starts = TrackStartLine.all(in: player.log)
            let what = "run \(run), killed after \(delay) s; log:\n\(player.log)"

            // A restart starts where the saved state said.
            if let previous, let first = starts.first {
                #expect(first.relativePath == previous.relativePath, "\(what)")
                // The frame the engine started from, not the position when the loop logged it (which a
                // busy machine delays): the resume itself is exact to a frame.
                let resumed = try #require(first.startSeconds, "no start frame in the log; \(what)")
                #expect(
                    abs(resumed - previous.positionSeconds) < 0.001,
                    "resumed at \(resumed) s, saved \(previous.positionSeconds) s; \(what)")
            }
            // What the card may hold: the last record the log says was written, or one begun after it
            // (the kill can land between the write and its log line). Audio positions, not wall time:
            // a busy machine delays the saves, and the period itself is PlayerTests' (a virtual clock).
            let records = ResumeRecordLine.all(in: player.log)
            let saved = box.saved()
            #expect(saved != nil, "resume.json missing or unreadable; \(what)")
            guard let saved else { continue }
            let lastWritten = records.lastIndex { $0.written }
            var candidates = records[(lastWritten ?? records.startIndex)...].map {
                ($0.relativePath, $0.positionFrames)
            }
            if lastWritten == nil {
                // Killed before a save was done: the state the run started from may still be there.
                candidates.append((previous?.relativePath, previous?.positionFrames ?? 0))
            }
            #expect(
                candidates.contains { $0 == (saved.relativePath, saved.positionFrames) },
                "saved \(saved.relativePath ?? "-") at frame \(saved.positionFrames), records \(candidates); \(what)")
            // Position records of one track only move forward while it plays.
            for (a, b) in zip(records, records.dropFirst()) where a.relativePath == b.relativePath && b.written {
                #expect(b.positionFrames >= a.positionFrames, "record \(b.sequence) went back; \(what)")
            }
            #expect(saved.playing || starts.isEmpty, "\(what)")
            if lastWritten != nil { checked += 1 }
            previous = saved
        }
        #expect(checked >= 2)

        // The last restart plays into a file: its samples are the track's from the saved frame on.
        let state = try #require(previous)
        let path = try #require(state.relativePath)
        let out = box.dir.file("out.raw")
        try box.writeConfig(device: "file:'\(out)',raw")
        let player = try box.start(logName: "final.log")
        #expect(waitFor(seconds: 20) { box.saved()?.playing == false }, "the queue did not end: \(player.log)")
        player.signal(SIGTERM)
        #expect(player.wait(seconds: 10) == 0, "\(player.log)")
        let reference = try decodedWithFlacTool(box.stick + "/" + path, scratch: box.dir)
        let written = try box.captured(out)
        let offset = Int(state.positionFrames) * 4
        let count = min(written.count, reference.count - offset, 22_050 * 4)
        #expect(count > 22_050 * 4 / 2, "only \(written.count) bytes written")
        expectSameSamples(
            Array(written.prefix(count)), Array(reference[offset..<(offset + count)]),
            "the restart did not play \(path) from frame \(state.positionFrames)")
    }
}
