// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskAudio
import KioskCommandLine
import KioskConfig
import KioskCore
import KioskLibrary
import KioskSystem

/// `kiosk-bench exhibit`: press → first sample of the clip at the device, as exhibit mode
/// plays it (the real player, library and engine; the attract loop playing when the press comes).
extension BenchCommand {
    /// A 16-bit stereo 44.1 kHz WAV file whose every sample is `level`.
    private static func constantWAV(_ level: Int16, frames: Int) -> [UInt8] {
        func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        func le16(_ v: Int) -> [UInt8] { (0..<2).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        let dataBytes = frames * 4
        var bytes = Array("RIFF".utf8) + le32(36 + dataBytes) + Array("WAVEfmt ".utf8) + le32(16)
        bytes += le16(1) + le16(2) + le32(44_100) + le32(44_100 * 4) + le16(4) + le16(16)
        bytes += Array("data".utf8) + le32(dataBytes)
        let sample = le16(Int(level))
        for _ in 0..<(frames * 2) { bytes += sample }
        return bytes
    }

    static func exhibit(_ parsed: ParsedArguments) throws -> Int32 {
        let presses = parsed.int("--presses") ?? 100
        var template = Array("/tmp/kiosk-bench-exhibit-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw Errno.current.with("mkdtemp") }
        let root = String(cString: made)
        defer { removeTree(root) }
        let stick = root + "/stick"
        // The attract loop: a tone; the clip: a constant level the device watch recognizes.
        try SyntheticLibrary.writeFLAC(
            path: stick + "/Attract/loop.flac", tags: [("TITLE", "Loop"), ("ALBUM", "Attract")], seconds: 30,
            toneHz: 220)
        let marker: Int16 = 12345
        try Syscalls.mkdirs(stick + "/Clips")
        try SyntheticLibrary.writeFile(path: stick + "/Clips/clip.wav", bytes: constantWAV(marker, frames: 44_100))

        let loop = try EventLoop()
        final class Box { weak var player: Player? }
        let box = Box()
        var settings = AudioSettings()
        settings.device = parsed.value("--device") ?? "none"
        settings.realtimePriority = nil
        // The clip is 16-bit stereo at a constant level: its first write holds the marker.
        let watch = FirstSampleWatch(makeAudioOutput(device: settings.device)) { frames, count in
            let samples = frames.assumingMemoryBound(to: Int16.self)
            return (0..<min(count * 2, 64)).contains { samples[$0] == marker }
        }
        settings.makeOutput = { _ in watch }
        let engine = try AudioEngine(loop: loop, settings: settings) { box.player?.handle($0) }
        var config = Config()
        config.stateDirectory = root
        config.mediaRoots = []
        var exhibit = ExhibitConfig()
        exhibit.clips = [.init(name: "clip", input: .button("A"), play: .file("Clips/clip.wav"), mode: .retrigger)]
        exhibit.attract = .init(play: .folder("Attract"), returnAfterSeconds: 0)
        // Full volume: the clip's samples reach the device as written, so the watch knows them.
        exhibit.volume = .init(initial: 100, min: 0, max: 100, visitorIdleSeconds: 60)
        config.exhibit = exhibit
        let library = try Library(loop: loop, stateDirectory: root, mediaRoots: []) { event, catalog in
            box.player?.handle(event, catalog: catalog)
        }
        let player = Player(
            loop: loop, engine: engine, screen: nil, config: config, outputDevices: [settings.device], resume: nil,
            deviceOpens: OutputPresence.isPresent)
        box.player = player
        defer {
            player.shutdown()
            engine.shutdown()
            library.stop()
        }
        library.addVolume(path: stick)
        _ = try loop.run(until: { library.isIdle && player.status == .playing }, timeoutNanoseconds: 60_000_000_000)

        var latencies: [UInt64] = []
        for _ in 0..<presses {
            // The attract loop plays; a press comes at a random point of a period.
            try loop.run(forNanoseconds: UInt64.random(in: 150_000_000...250_000_000))
            watch.arm()
            let pressed = Syscalls.monotonicNanoseconds()
            player.exhibitEdge(source: "button A", down: true)
            player.exhibitEdge(source: "button A", down: false)
            _ = try loop.run(until: { watch.seenAt != nil }, timeoutNanoseconds: 2_000_000_000)
            if let seen = watch.seenAt { latencies.append(seen - pressed) }
            // Back to the attract loop for the next press.
            _ = try loop.run(
                until: { player.exhibitClip == nil && player.status == .playing }, timeoutNanoseconds: 5_000_000_000)
        }
        latencies.sort()
        guard !latencies.isEmpty else { throw ToolError("no press reached the device") }
        let median = latencies[latencies.count / 2]
        printLine(
            "bench exhibit: press → first clip sample at the device (\(settings.device)): median \(formatMilliseconds(median)), worst \(formatMilliseconds(latencies.last!)) of \(latencies.count) presses (\(presses - latencies.count) missed); goal ≤ 50 ms"
        )
        return latencies.count == presses ? 0 : 1
    }
}
