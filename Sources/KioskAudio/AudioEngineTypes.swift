// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import KioskModel
import KioskSystem
import Synchronization

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

/// The allocation counter, when preloaded: brackets a piece of work on the calling thread. Looked
/// up once per engine and held by `EngineShared`: a lazily initialized global would cost a
/// `swift_once` call at every sample on Linux, on the audio threads' hot path (issue 52).
struct AllocationProbe {
    let read: kiosk_alloc_counter_read_fn?

    init() { read = kiosk_alloc_counter_lookup() }

    /// Whether the counter is preloaded.
    var counting: Bool { read != nil }

    /// The calling thread's allocator calls, lock calls and minor page faults so far (zeros when
    /// the counter is not preloaded: normal runs make no system call here).
    @inline(__always)
    func sample() -> (allocations: UInt64, locks: UInt64, faults: UInt64) {
        guard let read else { return (0, 0, 0) }
        var allocations: UInt64 = 0
        var locks: UInt64 = 0
        read(&allocations, &locks)
        return (allocations, locks, kiosk_thread_minor_faults())
    }
}
