// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import KioskSystem

/// What the engine reports: a track started (the queue's current entry follows it), positions,
/// the end of its queue (the queue moves on: `PlayQueue.step(after:origin:)`), a file it cannot
/// play, the device lost or back (the `OutputSupervisor` decides). Thread: the loop thread, like
/// `Player`.
extension Player {
    public func handle(_ event: AudioEvent) {
        scheduler.assertInLoop()
        switch event {
        case .trackStarted(let id, let format, _, let startFrame):
            // A track may start mid-way (a restored position, a seek): the engine knows where.
            let now = enginePosition
            let frames = now.trackID == id ? max(0, now.frames) : nil
            if restoredTrackAlone(id) {
                apply(transport.handle(.located(frames: frames ?? positionFrames, sampleRate: format.sampleRate)))
                Log.debug(
                    "track started: \(restoredTrack?.relativePath ?? "?") (restored) at frame \(positionFrames) of \(format.sampleRate) Hz; monotonic \(Syscalls.monotonicNanoseconds()) ns; from frame \(startFrame)"
                )
                break
            }
            let shown = currentTrack
            guard let index = playQueue.engineStarted(id: id) else { return }
            apply(
                transport.handle(
                    .located(frames: frames ?? playQueue.firstFrame(ofEntry: index), sampleRate: format.sampleRate)))
            Log.debug(
                "track started: \(queue[index].relativePath) (\(index + 1)/\(queue.count)) at frame \(positionFrames) of \(format.sampleRate) Hz; monotonic \(Syscalls.monotonicNanoseconds()) ns; from frame \(startFrame)"
            )
            // A jump of the player showed the track and saved already; a track border did not.
            if currentTrack != shown {
                provideArtworkForCurrentTrack()
                apply([.save(.soon)])
                bedtimeTrackChanged()
            }
        case .position(let id, let frames, let rate):
            guard restoredTrackAlone(id) || playQueue.takePosition(ofEngineID: id) else { return }
            apply(transport.handle(.located(frames: frames, sampleRate: rate)))
            // Only the now-playing screen shows the position; with no screen nothing does (speech,
            // the light, systemd's status and MPD's idle events follow other changes), so the loop
            // does no view work four times a second for nobody.
            guard screen != nil, case .nowPlaying = mode else { return }
        case .trackFinished:
            return
        case .queueFinished:
            if exhibitClip != nil, exhibitQueueFinished() { break }
            if engineHoldsRestoredTrackOnly {
                restoredTrackEnded()
            } else {
                // The engine played its whole queue (in single mode: the current entry alone).
                moveOn(.ended, after: playQueue.lastHandedToEngine)
            }
        case .error(_, let path, let message):
            let name = path.split(separator: "/").last.map(String.init) ?? path
            Log.warning("cannot play \(path): \(message)")
            noteExhibitError("cannot play \(path): \(message)")
            showTransient(MessageState(title: "Cannot play \(name)", detail: message, kind: .error), seconds: 4)
        case .deviceLost, .deviceBack:
            // The supervisor decides (fallback, return) and tells `outputChanged`.
            output.handle(event)
            return
        case .formatChanged(_, let deviceFormat):
            Log.info("output format: \(deviceFormat)")
            return
        }
        refreshScreen()
    }
}
