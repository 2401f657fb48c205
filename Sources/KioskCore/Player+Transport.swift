// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem

/// The transport: play, pause, resume and stop, the same from every screen and every origin, and
/// the play state with what follows it (the engine plays, the periodic saves run, only while
/// playing). Thread: the loop thread, like `Player`.
extension Player {
    /// Starts playing: the current queue from its position, or the selected collection.
    func play() {
        if isIdle {
            playSelection()
            return
        }
        setStatus(.playing)
        recorder.saveSoon()
    }

    func pause() {
        engine.pause()
        setStatus(.paused)
        recorder.saveNow()
    }

    /// Continues after a pause. The engine may be positioned rather than paused (a restored
    /// position, a track chosen while paused): `play` covers both.
    func resume() {
        setStatus(.playing)
        recorder.saveNow()
    }

    /// Stops and rewinds to the start of the current track.
    func stop() {
        guard !isIdle else { return }
        engine.stop()
        setStatus(.stopped)
        transport.positionFrames = 0
        recorder.saveNow()
    }

    /// The status, with the engine playing and the periodic saves running only while playing.
    func setStatus(_ status: PlaybackStatus) {
        transport.status = status
        // MPD's current song: what plays or is paused.
        if status != .stopped { playQueue.chooseCurrent() }
        if status == .playing {
            engine.play()
            recorder.startPeriodic()
        } else {
            recorder.stopPeriodic()
        }
    }

    /// Moves to frame `frame` of the current track, keeping the play state.
    func seek(toFrame frame: Int64) {
        engine.seek(toFrame: frame)
        transport.positionFrames = frame
        transport.jumps &+= 1
        recorder.saveSoon()
    }
}
