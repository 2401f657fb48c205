// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel

/// The output's timeline: where in the device's frames each marker's data begins (a "boundary"),
/// which track is current, its position in stream frames, and the events that report them
/// (track started/finished, position, format changed, queue finished).
///
/// Positions are counted in device frames: `written` frames went to the device since it was set up,
/// `written - delay` have been played. A marker becomes a boundary at the device frame where its
/// data begins and takes effect when that frame has been played. The device itself is
/// `DeviceSession`'s; this type only hears how many frames went out and how many it still holds.
///
/// Thread: the output thread only (`OutputWorker` owns it), after `init` on the loop thread.
final class OutputTimeline {
    private struct Boundary {
        var deviceFrame: Int
        var marker: Marker
    }

    /// A fixed ring of pending boundaries in memory allocated once (no Array growth, no generic
    /// runtime calls on the output thread).
    private struct Boundaries {
        static let capacity = 64
        private let slots = UnsafeMutablePointer<Boundary>.allocate(capacity: Boundaries.capacity)
        private var head = 0
        private(set) var count = 0

        var first: Boundary? { count > 0 ? slots[head] : nil }
        var isFull: Bool { count == Boundaries.capacity }

        mutating func append(_ boundary: Boundary) {
            (slots + (head + count) % Boundaries.capacity).initialize(to: boundary)
            count += 1
        }

        mutating func removeFirst() -> Boundary {
            let boundary = slots[head]
            head = (head + 1) % Boundaries.capacity
            count -= 1
            return boundary
        }

        mutating func removeAll() {
            head = 0
            count = 0
        }

        /// Moves every pending boundary to device frame `frame`.
        func move(to frame: Int) {
            for i in 0..<count { slots[(head + i) % Boundaries.capacity].deviceFrame = frame }
        }

        func deallocate() { slots.deallocate() }
    }

    private let shared: EngineShared
    /// Frames that went to the device since it was set up (or since the last stream's end).
    private(set) var written = 0
    private var boundaries = Boundaries()
    private var current: Marker?
    private var currentStartDevice = 0
    private var nextPositionReport = 0
    /// Frames of a spoken prompt the device holds after track frame `gapStart` (0: none): they
    /// play between the track's frames and count for no track.
    private var gapStart = 0
    private var gapFrames = 0
    /// The format last reported through formatChanged.
    private var reportedFormat: PCMFormat?
    /// The last position published, and for which track start (its epoch and start frame): within
    /// one, what is published never goes back.
    /// Plain values, not a tuple: a debug build instantiates a tuple's type metadata on first use,
    /// which allocates on this thread.
    private var publishedFrames: Int64 = 0
    private var publishedEpoch: UInt64 = 0
    private var publishedStartFrame: Int64 = -1

    /// The device's session, asked for what its output stage converts when a format is reported.
    private unowned let session: DeviceSession

    init(shared: EngineShared, session: DeviceSession) {
        self.shared = shared
        self.session = session
    }

    deinit { boundaries.deallocate() }

    /// The frames played of those written, when the device says it still holds `delay`.
    func played(delay: Int) -> Int {
        let total = written + gapFrames
        let devicePlayed = total - min(max(0, delay), total)
        guard gapFrames > 0 else { return devicePlayed }
        if devicePlayed < gapStart { return devicePlayed }
        if devicePlayed < gapStart + gapFrames { return gapStart }
        // The prompt has played out: what the device holds is the track's again.
        let played = devicePlayed - gapFrames
        gapFrames = 0
        return played
    }

    /// `frames` of a spoken prompt went to the device after the frames written so far.
    func wroteGap(_ frames: Int) {
        if gapFrames == 0 { gapStart = written }
        gapFrames += frames
    }

    /// `frames` more went to the device.
    func wrote(_ frames: Int) {
        written += frames
    }

    /// The device restarted at `frame` (0: empty after a set-up, a close or a loss; else what played
    /// before a drop): every pending boundary starts there.
    func restart(at frame: Int) {
        boundaries.move(to: frame)
        written = frame
        gapFrames = 0
    }

    /// An out-of-band reset: nothing is pending, no track is current.
    func clear() {
        boundaries.removeAll()
        current = nil
        written = 0
        gapFrames = 0
    }

    /// `marker`'s data begins after what went to the device so far and `held` frames still in the
    /// output stage (they play first).
    func add(_ marker: Marker, held: Int, device: OutputConfiguration?) {
        if boundaries.isFull { fire(boundaries.removeFirst(), device: device) }
        boundaries.append(Boundary(deviceFrame: written + held, marker: marker))
    }

    /// The device has played out a stream (drained): everything written is played, and the next
    /// stream counts from 0.
    func streamPlayedOut(device: OutputConfiguration?) {
        settle(played: written, device: device)
        written = 0
        gapFrames = 0
    }

    /// The queue has ended (after `streamPlayedOut`).
    func queueEnded(_ marker: Marker, device: OutputConfiguration?) {
        fire(Boundary(deviceFrame: 0, marker: marker), device: device)
    }

    /// Fires the boundaries the device has played and publishes the position.
    func settle(played: Int, device: OutputConfiguration?) {
        while let first = boundaries.first, first.deviceFrame <= played {
            fire(boundaries.removeFirst(), device: device)
        }
        guard let current else { return }
        // Device frames are stream frames unless the output stage resamples.
        let deviceRate = device?.deviceRate ?? current.format.sampleRate
        var elapsed = Int64(played - currentStartDevice)
        if deviceRate != current.format.sampleRate, deviceRate > 0 {
            elapsed = elapsed * Int64(current.format.sampleRate) / Int64(deviceRate)
        }
        var frames = current.startFrame + elapsed
        // The device's delay jitters (by up to a period around a wake-up, more when the thread runs
        // late): a listener's position never steps back within a track.
        if publishedEpoch == current.epoch && publishedStartFrame == current.startFrame {
            frames = max(frames, publishedFrames)
        } else {
            publishedEpoch = current.epoch
            publishedStartFrame = current.startFrame
        }
        publishedFrames = frames
        shared.playingPosition.setFrames(frames)
        if played >= nextPositionReport {
            nextPositionReport = played + max(1, deviceRate / 4)
            shared.postPosition(.position(mark(current), frames: frames, sampleRate: current.format.sampleRate))
        }
    }

    /// The device cannot take the stream at `marker` (`reason`): nothing pending plays, the current
    /// track (when `marker` starts another) is finished, and the track at `marker` is reported.
    func reject(_ marker: Marker, reason: String) {
        boundaries.removeAll()
        written = 0
        if marker.kind == .trackStart, let current { finished(current) }
        current = nil
        shared.post(.refused(mark(marker), format: marker.format, reason: reason), to: shared.outputEvents)
    }

    /// Reports that the stream in `format` plays on the device set up as `device`.
    func reportFormat(_ format: PCMFormat, device: OutputConfiguration?) {
        guard let device else { return }
        reportedFormat = format
        var configuration = device
        configuration.format = format
        shared.post(.formatChanged(configuration, conversion: session.takeConversion()), to: shared.outputEvents)
    }

    /// A marker's data is being played: the track (or its new format) is current.
    private func fire(_ boundary: Boundary, device: OutputConfiguration?) {
        let marker = boundary.marker
        switch marker.kind {
        case .trackStart:
            if let current { finished(current) }
            current = marker
            currentStartDevice = boundary.deviceFrame
            nextPositionReport = boundary.deviceFrame
            publish(marker)
            if reportedFormat != marker.format { reportFormat(marker.format, device: device) }
            let event = EngineEvent.trackStarted(
                mark(marker), format: marker.format, totalFrames: marker.totalFrames >= 0 ? marker.totalFrames : nil,
                startFrame: marker.startFrame)
            shared.post(event, to: shared.outputEvents)
        case .formatChange:
            current = marker
            currentStartDevice = boundary.deviceFrame
            nextPositionReport = boundary.deviceFrame
            publish(marker)
            if reportedFormat != marker.format { reportFormat(marker.format, device: device) }
        case .queueEnd:
            if let current { finished(current) }
            current = nil
            var ended = PlayingSnapshot()
            ended.epoch = marker.epoch
            shared.playingPosition.publish(ended)
            // A queue end's index is the length of the queue that ended.
            shared.post(.queueFinished(epoch: marker.epoch, queueLength: marker.index), to: shared.outputEvents)
        case .segmentEnd:
            break
        }
    }

    private func publish(_ marker: Marker) {
        var value = PlayingSnapshot()
        value.epoch = marker.epoch
        value.valid = true
        value.trackID = marker.trackID
        value.index = marker.index
        value.frames = marker.startFrame
        shared.playingPosition.publish(value)
    }

    private func mark(_ marker: Marker) -> TrackMark {
        TrackMark(epoch: marker.epoch, trackID: marker.trackID, index: marker.index)
    }

    private func finished(_ marker: Marker) {
        shared.post(.trackFinished(mark(marker)), to: shared.outputEvents)
    }
}
