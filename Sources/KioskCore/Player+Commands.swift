// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import KioskSystem

/// The commands of buttons, cards and remote clients (`PlayerCommand`) as the player applies them.
///
/// Every command takes effect at once (the queue index, the status and the volume are updated
/// before `perform` returns, so a remote client's next `status` sees them), and `perform` redraws
/// the screen and so tells the listeners (`PlayerChange.remote`). Appending while playing extends the engine's queue without a
/// gap; another edit hands the new queue to the engine at the current frame, which costs a short
/// gap of silence. A queue built by a remote client has no collection: it is saved entry by entry
/// (`ClientQueueFile`) and comes back after a restart. Thread: the loop thread, like `Player`.
extension Player {
    /// The device name that means "no output": the silent real-time sink.
    public static let silentOutput = "none"

    /// Seconds of the current track played, read from the engine while it plays (more recent
    /// than `positionSeconds`, which follows the engine's position events).
    public var enginePositionSeconds: Double {
        sampleRate > 0 ? Double(livePositionFrames) / Double(sampleRate) : 0
    }

    /// Applies `command` from `origin` and redraws. False when it could not apply: MPD's "Not
    /// playing" (next, previous or seek while stopped), an entry or range that does not exist.
    @discardableResult
    public func perform(_ command: PlayerCommand, from origin: CommandOrigin) -> Bool {
        scheduler.assertInLoop()
        let applied = apply(command, from: origin)
        refreshScreen()
        return applied
    }

    /// Applies `command` without redrawing (a button's press redraws once after its screen's rule).
    @discardableResult
    func apply(_ command: PlayerCommand, from origin: CommandOrigin) -> Bool {
        let remote = origin == .remote
        switch command {
        case .play:
            if remote && queue.isEmpty { return false }
            switch status {
            case .playing: break
            case .paused: resume()
            case .stopped: play()
            }
        case .pause:
            if status == .playing { pause() }
        case .resume:
            if status == .paused { resume() }
        case .togglePause:
            switch status {
            case .playing: pause()
            case .paused: resume()
            // A remote client's `pause` leaves a stopped player stopped (as MPD).
            case .stopped: if !remote { play() }
            }
        case .stop:
            stop()
        case .next, .previous:
            guard !queue.isEmpty else { return false }
            if remote {
                guard status != .stopped else { return false }
                moveOn(command == .next ? .remoteNext : .remotePrevious)
            } else {
                skip(forward: command == .next)
            }
        case .playEntry(let entry):
            guard queue.indices.contains(entry) else { return false }
            takeOver()
            playQueue.jump(to: entry)
            startQueue(at: entry, frame: 0, status: .playing)
        case .seek(let entry, let seconds):
            return seek(entry: entry, toSeconds: seconds)
        case .setVolume(let percent) where origin == .exhibit:
            // The staff's default coming back: no overlay, and not kept over a restart.
            apply(transport.handle(.volume(percent, saved: false)))
        case .setVolume(let percent):
            changeVolume(by: volumeLimits.clamp(percent) - volume)
        case .changeVolume(let delta):
            changeVolume(by: delta)
        case .setRepeat(let on):
            setRepeat(on)
        case .setSingle(let mode):
            setSingle(mode)
        case .setConsume(let on):
            setConsume(on)
        case .setShuffle(let mode):
            // MPD's `random 1` is any shuffle: an album shuffle chosen on the box stays.
            if remote && mode == .tracks && shuffle == .albums { break }
            setShuffle(mode)
        case .setReplayGain(let mode):
            setReplayGain(mode)
        case .setSleepTimer(let seconds):
            setSleepTimer(seconds: seconds)
        case .chooseOutput(let device):
            guard device != outputDevice || device != preferredDevice else { break }
            chooseOutput(device, by: remote ? "by an MPD client" : "in the menu")
        case .insert(let tracks, let position):
            insert(tracks, at: position)
        case .delete(let range):
            delete(range)
        case .move(let range, let position):
            return editQueue { $0.move(range, to: position) }
        case .swap(let a, let b):
            return editQueue { $0.swap(a, b) }
        case .shuffleEntries(let range):
            shuffleEntries(range)
        case .setPriority(let priority, let range):
            setPriority(priority, for: range)
        case .setRange(let entry, let range):
            return setRange(range, at: entry)
        case .clear:
            clearQueue()
        case .playTracks(let tracks, let loop, let fade):
            guard !tracks.isEmpty else { return false }
            playAlone(tracks, loop: loop, fadeInMilliseconds: fade)
        case .silence:
            apply([.silence])
        case .shutdown:
            requestShutdown()
        }
        return true
    }

    /// Seeks in entry `index` (nil = the current one) to `seconds` (clamped to the track), keeping
    /// the play state; another entry starts playing. False when stopped (for the current entry)
    /// or when there is no such entry.
    private func seek(entry index: Int?, toSeconds seconds: Double) -> Bool {
        let target = index ?? queueIndex
        guard queue.indices.contains(target) else { return false }
        let track = queue[target]
        var frame = Int64((max(0, seconds) * Double(track.sampleRate)).rounded(.down))
        if let total = track.totalFrames { frame = min(frame, max(0, total - 1)) }
        // A seek inside a ranged entry stays inside its range (its end ends the entry).
        let range = playQueue.identity.marks[target].range
        frame = max(frame, range.startFrame(sampleRate: track.sampleRate))
        if let end = range.endFrame(sampleRate: track.sampleRate) { frame = min(frame, end) }
        if target == queueIndex && status != .stopped {
            seek(toFrame: frame)
        } else if index != nil {
            playQueue.jump(to: target)
            startQueue(at: target, frame: frame, status: .playing)
        } else {
            return false
        }
        return true
    }

    /// Inserts `tracks` before entry `position` (nil or past the end: appends). The current entry
    /// goes on playing; appended to a playing queue, they join the engine's queue without a gap.
    private func insert(_ tracks: [Track], at position: Int?) {
        let at = min(max(0, position ?? queue.count), queue.count)
        guard !tracks.isEmpty else { return }
        if at == queue.count && !queue.isEmpty && status != .stopped && appendToEngineQueue(tracks) { return }
        editQueue { queue in
            queue.insert(tracks, at: at)
            return true
        }
    }

    /// Removes the entries in `range` (clamped to the queue).
    private func delete(_ range: Range<Int>) {
        let range = range.clamped(to: queue.indices)
        guard !range.isEmpty else { return }
        removeEntries(Set(range))
    }
}
