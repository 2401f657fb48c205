// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskModel
import KioskSystem

/// The `none` device: no sound, but frames are consumed in real time by the monotonic clock, as a
/// sound card would (ALSA's `null` and `file:` PCMs take any amount at once).
///
/// It models a device buffer of `bufferMilliseconds`: `write` sleeps (clock_nanosleep, absolute
/// deadline) until the frames fit, `delay` is what is written minus what the clock has played.
/// Playback "starts" with the first write; an empty buffer (underrun) restarts the clock at the next
/// write, as a device would after recovering. It takes the ring's encoding unless `acceptedEncodings`
/// says otherwise (for tests of conversion).
///
/// Thread: one thread at a time (the engine's output thread).
public final class ClockOutput: AudioOutput {
    /// The device name that selects this output.
    public static let deviceName = AudioDevice.silentName

    public let name = ClockOutput.deviceName
    /// Encodings this sink pretends to accept.
    public let acceptedEncodings: Set<SampleEncoding>
    public private(set) var isOpen = false

    private var rate = 44100
    private var bufferFrames = 2646
    private var written = 0  // frames since the clock (re)started
    private var startNanoseconds: UInt64 = 0  // when frame 0 played
    private var running = false
    private var paused = false
    private var pausedPlayed = 0

    public init(acceptedEncodings: Set<SampleEncoding> = Set(SampleEncoding.allCases)) {
        self.acceptedEncodings = acceptedEncodings
    }

    public func configure(_ format: PCMFormat, source: SampleEncoding, bufferMilliseconds: Int) throws(AudioOutputError)
        -> OutputConfiguration
    {
        let choice = SampleEncoding.candidates(bits: format.bitsPerSample, ring: source).first {
            acceptedEncodings.contains($0.encoding)
        }
        guard let choice else {
            throw AudioOutputError(
                code: -EINVAL, message: "none: takes none of S16_LE, S24_3LE, S24_LE, S32_LE", formatRejected: true)
        }
        rate = format.sampleRate
        bufferFrames = max(64, rate * bufferMilliseconds / 1000)
        resetClock()
        isOpen = true
        return OutputConfiguration(
            format: format, encoding: choice.encoding, deviceRate: rate, exact: choice.exact,
            periodFrames: max(16, bufferFrames / 4), bufferFrames: bufferFrames, canPause: true)
    }

    private func resetClock() {
        written = 0
        running = false
        paused = false
        pausedPlayed = 0
    }

    private func nanoseconds(frames: Int) -> UInt64 {
        UInt64(frames / rate) * 1_000_000_000 + UInt64(frames % rate) * 1_000_000_000 / UInt64(rate)
    }

    private func played(at now: UInt64) -> Int {
        if paused { return pausedPlayed }
        if !running { return 0 }
        let elapsed = now &- startNanoseconds
        let frames = Int(elapsed / 1_000_000_000) * rate + Int(elapsed % 1_000_000_000) * rate / 1_000_000_000
        return min(written, frames)
    }

    public func write(_ frames: UnsafeRawPointer, count: Int) -> Int {
        guard isOpen else { return -Int(ENODEV) }
        if paused { _ = pause(false) }
        let now = Syscalls.monotonicNanoseconds()
        if !running || played(at: now) >= written {
            // Start, or restart after the buffer ran empty: frame `written` plays now.
            startNanoseconds = now &- nanoseconds(frames: written)
            running = true
        }
        let fits = written + count - bufferFrames
        if fits > 0 {
            let deadline = startNanoseconds &+ nanoseconds(frames: fits)
            if deadline > now { sleep(until: deadline) }
        }
        written += count
        return count
    }

    private func sleep(until deadline: UInt64) {
        var ts = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        _ = try? Syscalls.retrying("clock_nanosleep") { () -> Int32 in
            let rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil)
            if rc == 0 { return 0 }
            errno = rc  // it returns its error rather than setting errno
            return -1
        }
    }

    public func delay() -> Int {
        guard running || paused else { return 0 }
        return written - played(at: Syscalls.monotonicNanoseconds())
    }

    public func recover(_ error: Int) -> Int { isOpen ? 0 : error }

    public func pause(_ on: Bool) -> Bool {
        let now = Syscalls.monotonicNanoseconds()
        if on {
            if !paused && running {
                pausedPlayed = played(at: now)
                paused = true
            }
        } else if paused {
            paused = false
            startNanoseconds = now &- nanoseconds(frames: pausedPlayed)
        }
        return true
    }

    public func drain() {
        if paused { _ = pause(false) }
        if running {
            sleep(until: startNanoseconds &+ nanoseconds(frames: written))
        }
        resetClock()
    }

    public func drop() { resetClock() }

    public func close() {
        resetClock()
        isOpen = false
    }
}
