import KioskAudio
import KioskLibrary
import KioskSystem

/// What remote control (the MPD server in KioskMPD) asks of the player: the same state machine the
/// buttons drive, with the operations a remote client needs and the buttons do not (play a given
/// queue entry, edit the queue, set the volume or the output directly, seek to a time).
///
/// Every operation takes effect at once (the queue index, the status and the volume are updated
/// before it returns, so a client's next `status` sees them), refreshes the screen and so calls
/// `onChange`. They are the buttons' operations, with MPD's meaning where it differs given to the
/// rule as an origin (`PlayQueue.Origin.remoteNext`). Appending while playing extends the engine's
/// queue without a gap; another edit hands the new queue to the engine at the current frame,
/// which costs a short gap of silence. A queue built by a remote client has no collection, so it
/// is not restored after a restart.
///
/// Thread: loop thread only, like the rest of `Player`.
extension Player {
    /// The device name that means "no output": the silent real-time sink.
    public static let silentOutput = "none"

    /// Seconds of the current track played, read from the engine while it plays (more recent
    /// than `positionSeconds`, which follows the engine's position events).
    public var enginePositionSeconds: Double {
        sampleRate > 0 ? Double(livePositionFrames) / Double(sampleRate) : 0
    }

    /// Plays queue entry `index` from its start. False when there is no such entry.
    @discardableResult
    public func remotePlay(at index: Int) -> Bool {
        guard queue.indices.contains(index) else { return false }
        takeOver()
        startQueue(at: index, frame: 0, status: .playing)
        refreshScreen()
        return true
    }

    /// Plays (stopped) or resumes (paused) the current entry; does nothing on an empty queue or
    /// while playing.
    public func remotePlay() {
        guard !queue.isEmpty else { return }
        switch status {
        case .playing: return
        case .paused: resume()
        case .stopped: play()
        }
        refreshScreen()
    }

    /// Pauses (`true`), resumes (`false`) or toggles (`nil`). Does nothing while stopped.
    public func remotePause(_ pause: Bool?) {
        switch (status, pause) {
        case (.playing, true), (.playing, nil): self.pause()
        case (.paused, false), (.paused, nil): resume()
        default: return
        }
        refreshScreen()
    }

    /// Stops and rewinds to the start of the current entry.
    public func remoteStop() {
        stop()
        refreshScreen()
    }

    /// The next entry, playing (also from pause). On the last entry: the first with repeat on,
    /// else playback stops. With consume on the current entry leaves the queue. False while
    /// stopped (MPD answers "Not playing").
    @discardableResult
    public func remoteNext() -> Bool { remoteStep(.remoteNext) }

    /// The previous entry, playing (also from pause); the first entry starts again (with repeat
    /// on: the last entry). False while stopped.
    @discardableResult
    public func remotePrevious() -> Bool { remoteStep(.remotePrevious) }

    /// MPD's next and previous: only while playing or paused.
    private func remoteStep(_ origin: PlayQueue.Origin) -> Bool {
        guard status != .stopped, !queue.isEmpty else { return false }
        moveOn(origin)
        refreshScreen()
        return true
    }

    /// Seeks in entry `index` (nil = the current one) to `seconds` (clamped to the track), keeping
    /// the play state; another entry starts playing. False when stopped (for the current entry)
    /// or when there is no such entry.
    @discardableResult
    public func remoteSeek(index: Int? = nil, toSeconds seconds: Double) -> Bool {
        let target = index ?? queueIndex
        guard queue.indices.contains(target) else { return false }
        let track = queue[target]
        var frame = Int64((max(0, seconds) * Double(track.sampleRate)).rounded(.down))
        if let total = track.totalFrames { frame = min(frame, max(0, total - 1)) }
        if target == queueIndex && status != .stopped {
            seek(toFrame: frame)
        } else if index != nil {
            startQueue(at: target, frame: frame, status: .playing)
        } else {
            return false
        }
        refreshScreen()
        return true
    }

    /// Sets the volume, 0…100 % within the configured limits (the screen shows it like a button
    /// press would).
    public func remoteSetVolume(_ percent: Int) {
        changeVolume(by: volumeLimits.clamp(percent) - volume)
    }

    /// Turns repeat (start again after the last entry) on or off.
    public func remoteSetRepeat(_ on: Bool) {
        setRepeat(on)
        refreshScreen()
    }

    /// Sets MPD's single mode (`SingleMode`).
    public func remoteSetSingle(_ mode: SingleMode) {
        setSingle(mode)
        refreshScreen()
    }

    /// Sets MPD's consume mode: from now on each entry that has played leaves the queue.
    public func remoteSetConsume(_ on: Bool) {
        setConsume(on)
        refreshScreen()
    }

    /// MPD's `random`: on shuffles tracks (an album shuffle chosen on the box stays), off stops it.
    public func remoteSetRandom(_ on: Bool) {
        if on == (shuffle != .off) { return }
        setShuffle(on ? .tracks : .off)
        refreshScreen()
    }

    /// Inserts `tracks` before entry `position` (nil or past the end: appends). Returns the index of
    /// the first inserted entry. The current entry goes on playing.
    @discardableResult
    public func remoteInsert(_ tracks: [Track], at position: Int? = nil) -> Int {
        let at = min(max(0, position ?? queue.count), queue.count)
        guard !tracks.isEmpty else { return at }
        if at == queue.count && !queue.isEmpty && status != .stopped && appendToEngineQueue(tracks) { return at }
        let wasEmpty = queue.isEmpty
        var edited = queue
        edited.insert(contentsOf: tracks, at: at)
        let current = wasEmpty ? 0 : (at <= queueIndex ? queueIndex + tracks.count : queueIndex)
        replaceQueue(edited, current: current, currentKept: !wasEmpty)
        return at
    }

    /// Removes the entries in `range` (clamped to the queue). Removing the current entry goes on
    /// with the entry after it (stopping when there is none).
    public func remoteDelete(_ range: Range<Int>) {
        let range = range.clamped(to: queue.indices)
        guard !range.isEmpty else { return }
        var edited = queue
        edited.removeSubrange(range)
        if edited.isEmpty {
            remoteClear()
            return
        }
        if range.contains(queueIndex) {
            let next = range.lowerBound
            if next < edited.count {
                replaceQueue(edited, current: next, currentKept: false)
            } else {
                // The current entry was among the last ones: stop at the start of the queue.
                replaceQueue(edited, current: 0, currentKept: false, status: .stopped)
            }
        } else {
            let current = range.upperBound <= queueIndex ? queueIndex - range.count : queueIndex
            replaceQueue(edited, current: current, currentKept: true)
        }
    }

    /// Moves the entries in `range` so that the first of them is at `position` of the result.
    /// False when `range` or `position` is out of bounds.
    @discardableResult
    public func remoteMove(_ range: Range<Int>, to position: Int) -> Bool {
        guard range.lowerBound >= 0, range.upperBound <= queue.count, !range.isEmpty,
            position >= 0, position + range.count <= queue.count
        else { return false }
        var edited = queue
        let moved = Array(edited[range])
        edited.removeSubrange(range)
        edited.insert(contentsOf: moved, at: position)
        // Where the current entry went.
        var order = Array(queue.indices)
        let movedIndices = Array(order[range])
        order.removeSubrange(range)
        order.insert(contentsOf: movedIndices, at: position)
        let current = order.firstIndex(of: queueIndex) ?? queueIndex
        replaceQueue(edited, current: current, currentKept: true)
        return true
    }

    /// Empties the queue and stops.
    public func remoteClear() {
        clearQueue()
        refreshScreen()
    }

    /// Switches the audio output to `device` (one of `outputDevices`, or `silentOutput`),
    /// keeping the queue, the position and the play state.
    public func remoteSetOutput(_ device: String) {
        guard device != outputDevice || device != preferredDevice else { return }
        chooseOutput(device, by: "by an MPD client")
        refreshScreen()
    }
}
