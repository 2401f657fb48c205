// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem

/// The transport: play, pause, resume and stop, the same from every screen and every origin. The
/// `Transport` part decides what follows (the engine plays, the periodic saves run, only while
/// playing); this file only hands it the event and applies what it returns.
/// Thread: the loop thread, like `Player`.
extension Player {
    /// Starts playing: the current queue from its position, or the selected collection.
    func play() {
        if isIdle {
            playSelection()
            return
        }
        guard bedtimeAdmits(currentTrack?.relativePath ?? restoredTrack?.relativePath) else { return }
        apply(transport.handle(.play))
    }

    func pause() { apply(transport.handle(.pause)) }

    /// Continues after a pause, or from a position the engine holds (when the bedtime rules let it).
    func resume() {
        guard bedtimeAdmits(currentTrack?.relativePath ?? restoredTrack?.relativePath) else { return }
        apply(transport.handle(.resume))
    }

    /// Stops and rewinds to the start of the current track.
    func stop() {
        guard !isIdle else { return }
        apply(transport.handle(.stop))
    }

    /// The status, with the engine playing and the periodic saves running only while playing.
    func setStatus(_ status: PlaybackStatus) { apply(transport.handle(.status(status))) }

    /// Moves to frame `frame` of the current track, keeping the play state.
    func seek(toFrame frame: Int64) { apply(transport.handle(.seek(toFrame: frame))) }
}
