// SPDX-License-Identifier: GPL-3.0-or-later
import KioskAudio
import KioskCommandLine
import KioskModel
import KioskSystem

/// An engine on its own loop that plays a queue to its end, for the benches that time playback
/// (`bench play`, `bench realtime`). Touched by the thread that made it only (its loop's).
final class BenchPlayback {
    let engine: AudioEngine
    private let loop: EventLoop
    private var finished = false
    private var failure: String?
    /// Called on each position report while playing.
    var onPosition: (() -> Void)?

    init(settings: AudioSettings) throws {
        let loop = try EventLoop()
        self.loop = loop
        var handler: ((AudioEvent) -> Void)?
        engine = try AudioEngine(loop: loop, settings: settings) { handler?($0) }
        // [unowned self]: the engine keeps this closure, and self the engine: no cycle at exit.
        handler = { [unowned self] in self.handle($0) }
    }

    private func handle(_ event: AudioEvent) {
        switch event {
        case .queueFinished:
            finished = true
            loop.stop()
        case .error(_, let path, let message):
            failure = "\(path): \(message)"
            loop.stop()
        case .deviceLost(_, let message):
            failure = message
            loop.stop()
        case .position:
            onPosition?()
        default:
            break
        }
    }

    /// Plays `tracks` from the first and returns when the queue has ended; throws what stopped it
    /// otherwise (a track's error, the device lost).
    func playToTheEnd(_ tracks: [TrackRequest]) throws {
        finished = false
        failure = nil
        engine.setQueue(tracks, startAt: 0, startFrame: 0)
        engine.play()
        try loop.run()
        if let failure { throw ToolError(failure) }
        guard finished else { throw ToolError("playback did not finish") }
    }

    deinit { engine.shutdown() }
}
