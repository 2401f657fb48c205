// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import KioskSystem
import Synchronization

/// One entry of the engine's queue: a file, the identifier the player gave it, and the part of the
/// file that plays (MPD's `rangeid`; the whole file by default).
///
/// Thread: a value; any.
public struct TrackRequest: Equatable, Sendable {
    /// Chosen by the player; reported back in events. Unique within a queue.
    public let id: UInt64
    public let path: String
    /// The file's frame the track starts at (positions still count from the file's start).
    public let startFrame: Int64
    /// The file's frame the track ends before (nil: the file's end); the next track follows it
    /// gaplessly as at a file's end.
    public let endFrame: Int64?
    /// The linear scale to play the track at (its ReplayGain, worked out by the player); 1 plays
    /// it untouched (bit-perfect at 100 % volume).
    public let gain: Float
    public init(id: UInt64, path: String, startFrame: Int64 = 0, endFrame: Int64? = nil, gain: Float = 1) {
        self.id = id
        self.path = path
        self.startFrame = max(0, startFrame)
        self.endFrame = endFrame
        self.gain = gain
    }
}

/// What the engine tells the player, delivered on the loop thread through `AudioEngine`'s `onEvent`.
///
/// Thread: a value; any.
public enum AudioEvent: Equatable, Sendable {
    /// The track's first frame was played by the device (for gapless tracks: right after the previous
    /// track's `trackFinished`). `startFrame`: the track's frame it started from (a restored
    /// position, a seek, a range's start), however late the event is handled.
    case trackStarted(id: UInt64, format: PCMFormat, totalFrames: Int64?, startFrame: Int64)
    /// The track's last frame was played. Not sent for a track left by seek, next, previous or stop.
    case trackFinished(id: UInt64)
    /// The queue played to its end; the engine is stopped.
    case queueFinished
    /// About every 250 ms of playback: frames of the current track played so far.
    case position(id: UInt64, frames: Int64, sampleRate: Int)
    /// The file cannot be played (further): the engine skips to the next track. When a damaged file
    /// fails after it started, its played part still ends with `trackFinished`.
    case error(id: UInt64, path: String, message: String)
    /// The output device failed or vanished; the engine keeps its queue and position and reopens the
    /// device with back-off.
    case deviceLost(device: String, message: String)
    /// The device works again after `deviceLost`.
    case deviceBack(device: String)
    /// The device was set up for a new format, e.g. "S24_3LE 96000 Hz 2 ch" (+ " (converted)" when
    /// samples are changed on the way, which is also logged).
    case formatChanged(PCMFormat, deviceFormat: String)
}

/// How the engine is set up. Thread: a value; any.
public struct AudioSettings: Sendable {
    /// An ALSA PCM name, or "none" for the real-time clock sink.
    public var device: String = "default"
    /// Device buffer, clamped to 40…100 ms; it is split into 4 periods.
    public var bufferMs: Int = 60
    /// Decoded audio held ahead of the device, in seconds of the stream playing (rounded up to a
    /// power of two of frames; memory for 192 kHz stereo 32-bit is reserved once, and a stream's
    /// share is faulted in as the ring first fills).
    public var ringSeconds: Double = 2
    /// ALSA simple mixer control for the volume (e.g. "PCM", "Digital"); nil = software volume.
    public var mixer: String? = nil
    /// SCHED_FIFO priority of the output thread (the decoder thread runs at normal priority); nil = normal.
    /// Silently normal when the process may not use real-time scheduling.
    public var realtimePriority: Int32? = 70
    /// Makes the output for a device name (default `makeAudioOutput(device:)`); for tests and tools.
    /// Called on the output thread.
    public var makeOutput: (@Sendable (String) -> any AudioOutput)? = nil
    /// The length of the ramps that take the sound in and out at every start, resume, pause, stop
    /// and skip, so no edge clicks (clamped to 0…50; 0: none, every sample as decoded). A pause,
    /// stop or skip then takes effect after what the device holds plus the ramp (about 65 ms).
    public var declickMilliseconds = 0
    /// Keeps the device open and fed silence while stopped, instead of closing it: a DAC HAT whose
    /// clocks stop with the stream pops when they start again, and an HDMI sink drops the first
    /// moment of sound after a pause in the stream. Closed by `releaseDevice`, on loss and at shutdown.
    public var keepOpen = false
    /// The device's driver stops its clock on pause and stop (the Pi 5's DesignWare I2S,
    /// `DeviceTree.i2sStopsClockOnPause`): with `keepOpen`, a pause feeds silence instead.
    public var pauseStopsClock = false

    public init(
        device: String = "default", bufferMs: Int = 60, ringSeconds: Double = 2, mixer: String? = nil,
        realtimePriority: Int32? = 70
    ) {
        self.device = device
        self.bufferMs = bufferMs
        self.ringSeconds = ringSeconds
        self.mixer = mixer
        self.realtimePriority = realtimePriority
    }
}

/// Counts of the audio threads' steady state, measured with the allocation counter of
/// Benchmarks/kiosk_alloc_counter.c when it is preloaded (`counting` false otherwise).
///
/// Decoder steady state: decoding a block into the ring and publishing it (not opening, seeking or
/// the first block of a track, when libFLAC sizes its buffers, nor the ring's first lap after it was
/// sized to a stream, which faults its pages in). Output steady state: taking frames
/// from the ring, converting when needed, writing them to the device, reading the delay and posting
/// position/track events (not device set-up nor the device's first buffer after it, drains,
/// flushes, recovery).
public struct SteadyStateCounts: Sendable, Equatable {
    public var counting: Bool
    public var decoderIterations: UInt64
    public var decoderAllocations: UInt64
    public var decoderLocks: UInt64
    /// Minor page faults (getrusage of the thread); the decoder's steady state begins after the
    /// ring's first lap, which faults its pages in.
    public var decoderFaults: UInt64
    public var outputIterations: UInt64
    public var outputAllocations: UInt64
    public var outputLocks: UInt64
    public var outputFaults: UInt64
    /// All allocator calls the decoder thread made, steady or not (shows the counter works).
    public var decoderAllocationsTotal: UInt64
    /// Times the decoder and the output thread woke from a wait on each other or the loop, steady
    /// or not (counted without the allocation counter too).
    public var decoderWakeups: UInt64 = 0
    public var outputWakeups: UInt64 = 0
}

// MARK: - internals shared by the three threads

/// A note in the ring's frame stream: something that happens at frame `position`.
struct Marker: BitwiseCopyable {
    enum Kind: UInt8 {
        /// A track starts here (same device set-up when the format allows, else after a reset).
        case trackStart
        /// The current track goes on in another format.
        case formatChange
        /// The decoder resets the ring after this: play out, then acknowledge `sequence`.
        case segmentEnd
        /// Nothing follows: play out, then report the end of the queue.
        case queueEnd
    }
    var kind: Kind
    var position: Int
    var epoch: UInt64
    var sequence: UInt64 = 0
    var trackID: UInt64 = 0
    var index: Int = -1
    var format = PCMFormat(sampleRate: 0, channels: 0, bitsPerSample: 0)
    var encoding = SampleEncoding.s16
    var startFrame: Int64 = 0
    var totalFrames: Int64 = -1
    /// The track's gain (`TrackRequest.gain`) in Q16, for trackStart and formatChange.
    var gain = SampleConverter.unity
}

/// An event on its way from an audio thread to the loop: plain values only.
struct EventRecord: BitwiseCopyable {
    enum Kind: UInt8 {
        case trackStarted, trackFinished, queueFinished, position, error, deviceLost, deviceBack, formatChanged
        /// A spoken prompt has played (or could not: the device failed); `promptRefused`: the device is
        /// set up otherwise than the prompt was made for (`encoding`, `deviceRate`, `deviceChannels`).
        case promptFinished, promptRefused
    }
    var kind: Kind
    var epoch: UInt64
    var trackID: UInt64 = 0
    var index: Int = -1
    var frames: Int64 = 0
    var totalFrames: Int64 = -1
    var format = PCMFormat(sampleRate: 0, channels: 0, bitsPerSample: 0)
    var encoding = SampleEncoding.s16
    var deviceRate = 0
    var deviceChannels = 0
    var exact = true
    var failure: DecodeError? = nil
    var code: Int32 = 0
}

/// What the decoder should play: handed over (latest wins) from the loop.
struct DecoderTarget {
    var epoch: UInt64
    var tracks: [TrackRequest]
    var index: Int
    var startFrame: Int64
    /// The device the stream is for: the decoder hands it to the output after it asked for the
    /// flush, so a switched device never gets frames decoded for the old one.
    var device: String
}

/// Loop → decoder: the queue of epoch `epoch`, longer at its end (`AudioEngine.append`).
struct QueueExtension {
    var epoch: UInt64
    var tracks: [TrackRequest]
}

/// A single-slot, latest-wins handoff of a value between two threads, lock-free (an atomic pointer
/// exchange). The taker owns what it takes.
final class Handoff<Value>: @unchecked Sendable {
    private final class Box {
        let value: Value
        init(_ value: Value) { self.value = value }
    }
    private let slot = Atomic<UnsafeMutableRawPointer?>(nil)

    deinit { _ = take() }

    func put(_ value: Value) {
        let raw = Unmanaged.passRetained(Box(value)).toOpaque()
        if let old = slot.exchange(raw, ordering: .acquiringAndReleasing) {
            Unmanaged<Box>.fromOpaque(old).release()
        }
    }

    func take() -> Value? {
        guard let raw = slot.exchange(nil, ordering: .acquiringAndReleasing) else { return nil }
        return Unmanaged<Box>.fromOpaque(raw).takeRetainedValue().value
    }

    var isEmpty: Bool { slot.load(ordering: .acquiring) == nil }
}

/// The allocation counter, when preloaded: brackets a piece of work on the calling thread.
struct AllocationProbe {
    static let read: kiosk_alloc_counter_read_fn? = kiosk_alloc_counter_lookup()

    /// The calling thread's allocator calls, lock calls and minor page faults so far (zeros when
    /// the counter is not preloaded: normal runs make no system call here).
    @inline(__always)
    static func sample() -> (allocations: UInt64, locks: UInt64, faults: UInt64) {
        guard let read else { return (0, 0, 0) }
        var allocations: UInt64 = 0
        var locks: UInt64 = 0
        read(&allocations, &locks)
        return (allocations, locks, kiosk_thread_minor_faults())
    }
}

/// State the loop thread, the decoder thread and the output thread share. Every field is an atomic,
/// a lock-free queue or handoff, or immutable.
final class EngineShared: @unchecked Sendable {
    let ring: RingBuffer
    let markers = SPSCQueue<Marker>(capacity: 256)
    let decoderEvents = SPSCQueue<EventRecord>(capacity: 256)
    let outputEvents = SPSCQueue<EventRecord>(capacity: 1024)
    /// The eventfd the loop watches for events; owned here, so it stays open while an audio thread
    /// may still signal it and closes with the last reference.
    private let eventDescriptor: FileDescriptor
    var eventFD: Int32 { eventDescriptor.rawValue }
    let decoderWake = EventCount()
    let outputWake = EventCount()
    /// Loop → audio threads: the loop took events off the queues (signalled after every drain), so
    /// a thread waiting in `post` for room looks again.
    let eventRoom = EventCount()
    /// Output → loop: a position report is queued (set by the output, cleared by the loop when it
    /// takes one; see `postPosition`).
    let positionQueued = Atomic<Bool>(false)
    let targets = Handoff<DecoderTarget>()
    let deviceRequests = Handoff<String>()
    let extensions = Handoff<QueueExtension>()
    /// The text of the last device failure (set before the deviceLost event is queued).
    let deviceErrors = Handoff<String>()
    /// The text of the last format the device refused (set before that track's error event).
    let rejections = Handoff<String>()
    /// What the output stage does to the stream the device was last set up for ("converted: 1 → 2
    /// ch (copied)"), set before its formatChanged event; empty handoff: nothing.
    let conversions = Handoff<String>()
    /// The spoken prompt to play next (made ready by the loop, `PromptQueue`).
    let prompts = Handoff<PromptClip>()
    /// Why the last prompt could not play (the device would not open), with its `promptFinished`.
    let promptFailures = Handoff<String>()
    let settings: AudioSettings
    let bufferMs: Int
    /// `settings.ringSeconds`, clamped: the decoded audio the ring holds, of the stream playing.
    let ringSeconds: Double

    /// Decoder → output: reset the ring now (out of band), number `value`.
    let flushRequest = Atomic<UInt64>(0)
    /// Output → decoder: resets done up to this number.
    let resetAck = Atomic<UInt64>(0)
    /// Loop → output: play (true) or hold (paused / stopped).
    let playing = Atomic<Bool>(false)
    /// Loop → output: the hold is a stop (stored before `playing`): the output closes the device
    /// until the next play, so a stopped player holds no card (a USB DAC may sleep, another
    /// program may use it, a card's removal is not kept waiting). A pause keeps it open, and so
    /// does a stop with `AudioSettings.keepOpen` (fed silence).
    let stopped = Atomic<Bool>(true)
    /// Loop → output: software volume (Q16).
    let volumeGain = Atomic<Int32>(SampleConverter.unity)
    /// Loop → output: the length of the fade asked for last, in milliseconds (0: none). Read after
    /// `fadeSerial` (acquiring) changed, which the loop stores releasing after this.
    let fadeMilliseconds = Atomic<Int>(0)
    /// Loop → output: counts fade requests and cancels; the output starts or ends a fade when it
    /// sees a new value.
    let fadeSerial = Atomic<UInt64>(0)
    /// Loop → output: the next ramp in from silence lasts this long (ms; 0: the declick's). The
    /// output takes it (exchanging 0) at that ramp.
    let nextFadeInMilliseconds = Atomic<Int>(0)
    let shutdown = Atomic<Bool>(false)
    /// Loop → output: counts `releaseDevice` calls; a stopped output closes a device it keeps open
    /// when it sees a new value.
    let releaseSerial = Atomic<UInt64>(0)
    /// `settings.declickMilliseconds`, clamped.
    let declickMs: Int

    // What the device plays (output thread writes), read whole.
    let playingPosition = PlayingPosition()
    // What the loop asked for last (loop thread writes).
    let targetEpoch = Atomic<UInt64>(0)
    let targetValid = Atomic<Bool>(false)
    let targetID = Atomic<UInt64>(0)
    let targetIndex = Atomic<Int>(-1)
    let targetFrame = Atomic<Int64>(0)

    // Steady-state measurements (see SteadyStateCounts).
    let decoderIterations = Atomic<UInt64>(0)
    let decoderAllocations = Atomic<UInt64>(0)
    let decoderLocks = Atomic<UInt64>(0)
    let decoderFaults = Atomic<UInt64>(0)
    let decoderAllocationsTotal = Atomic<UInt64>(0)
    let outputIterations = Atomic<UInt64>(0)
    let outputAllocations = Atomic<UInt64>(0)
    let outputLocks = Atomic<UInt64>(0)
    let outputFaults = Atomic<UInt64>(0)
    /// Writes the device refused because it had run dry (EPIPE): what it played was silence.
    let underruns = Atomic<UInt64>(0)
    /// The last underrun, as the output thread saw it (`UnderrunAccount`): how long it had been
    /// away from the device since its last good write, how long that write waited in the device for
    /// room, what the device held after it, the buffer's length, and whether the ring was empty.
    let underrunAwayNanoseconds = Atomic<UInt64>(0)
    let underrunWaitNanoseconds = Atomic<UInt64>(0)
    let underrunQueuedMicroseconds = Atomic<Int>(0)
    let underrunBufferMicroseconds = Atomic<Int>(0)
    let underrunRingWasEmpty = Atomic<Bool>(false)

    init(settings: AudioSettings, eventFD: consuming FileDescriptor) {
        self.settings = settings
        eventDescriptor = eventFD
        bufferMs = max(40, min(100, settings.bufferMs))
        declickMs = max(0, min(50, settings.declickMilliseconds))
        ringSeconds = max(0.25, min(30, settings.ringSeconds))
        // Reserved for the largest stream; each stream uses (and faults in) its own seconds' worth.
        ring = RingBuffer(byteCapacity: Int(ringSeconds * 192_000 * 8))
    }

    var isShuttingDown: Bool { shutdown.load(ordering: .acquiring) }

    /// Audio threads: queues an event the loop must see (a track's start or end, the queue's end,
    /// an error, the device's state) and wakes the loop. While the queue is full it waits for the
    /// loop to take events off (`eventRoom`), never drops: a dropped `queueFinished` left the
    /// engine stopped with nobody told (`play` on an unpaced device never exited, 1 run in 25 here,
    /// when the real-time audio threads kept the loop off the CPU). False only at shutdown.
    @discardableResult
    func post(_ record: EventRecord, from queue: SPSCQueue<EventRecord>) -> Bool {
        while !queue.push(record) {
            if isShuttingDown { return false }
            // Ended by the loop's signal after each drain of the queues, or by shutdown's.
            eventRoom.wait(until: { !queue.isFull || self.isShuttingDown })
        }
        Syscalls.eventfdSignal(eventFD)
        return true
    }

    /// Output thread: queues a position report unless the last one is still queued. Positions are
    /// periodic and the loop reads the newest one, so at most one is in the queue: an unpaced device
    /// (thousands of reports a second) cannot fill the queue the other events need.
    func postPosition(_ record: EventRecord) {
        // Acquiring: pairs with the loop's releasing clear after it took the last report.
        if positionQueued.load(ordering: .acquiring) { return }
        positionQueued.store(true, ordering: .relaxed)
        if outputEvents.push(record) {
            Syscalls.eventfdSignal(eventFD)
        } else {
            positionQueued.store(false, ordering: .relaxed)
        }
    }
}
