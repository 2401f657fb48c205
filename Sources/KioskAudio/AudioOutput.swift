// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel

/// How an output was set up for a stream.
///
/// Thread: a value; any.
public struct OutputConfiguration: Equatable, Sendable, CustomStringConvertible {
    /// The stream's format.
    public var format: PCMFormat
    /// The container the device takes.
    public var encoding: SampleEncoding
    /// Channels the device runs with: the stream's when it takes them, else what the output stage
    /// maps them to (`DeviceFit.channels`).
    public var channels: Int
    /// Sample rate the device runs at: the stream's when it takes it, else what the output stage
    /// resamples to (`DeviceFit.rate`).
    public var deviceRate: Int
    /// Whether every sample reaches the device unchanged in its container (a wider one is fine).
    /// False when the samples are narrowed: "converted". Channel and rate conversions are the output
    /// stage's (`StreamAdapter`), reported apart.
    public var exact: Bool
    public var periodFrames: Int
    public var bufferFrames: Int
    /// Whether the device can pause in place (otherwise pausing drops what it holds).
    public var canPause: Bool

    public init(
        format: PCMFormat, encoding: SampleEncoding, channels: Int? = nil, deviceRate: Int, exact: Bool,
        periodFrames: Int, bufferFrames: Int, canPause: Bool
    ) {
        self.format = format
        self.encoding = encoding
        self.channels = channels ?? format.channels
        self.deviceRate = deviceRate
        self.exact = exact
        self.periodFrames = periodFrames
        self.bufferFrames = bufferFrames
        self.canPause = canPause
    }

    /// Whether the output stage changes the stream's channels or rate for the device.
    public var isAdapted: Bool { channels != format.channels || deviceRate != format.sampleRate }

    /// "S24_3LE 96000 Hz 2 ch", plus " (converted)" when samples are changed on the way.
    public var description: String {
        "\(encoding.alsaName) \(deviceRate) Hz \(channels) ch"
            + (exact && deviceRate == format.sampleRate && (channels == format.channels || format.channels == 1)
                ? "" : " (converted)")
    }
}

/// An output that could not be opened or set up.
public struct AudioOutputError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A negative errno-style code (ALSA's), or 0 when none applies.
    public let code: Int32
    public let message: String
    /// True when the device works but cannot take this stream (channels, rate, sample format): the
    /// engine then skips the track instead of waiting for the device to come back.
    public let formatRejected: Bool
    public init(code: Int32, message: String, formatRejected: Bool = false) {
        self.code = code
        self.message = message
        self.formatRejected = formatRejected
    }
    public var description: String { message }
}

/// A place PCM goes: a sound device (`ALSAOutput`) or the real-time clock sink (`ClockOutput`).
/// The engine's output thread drives it like MPD drives an output plugin: configure (open), write,
/// drain, drop, close.
///
/// Thread: one thread at a time (the engine's output thread). `write`, `delay`, `recover`, `pause`,
/// `drop` must not allocate or lock (ALSA's own calls excepted); `configure` may.
public protocol AudioOutput: AnyObject {
    /// The device name, for messages.
    var name: String { get }
    /// Whether the device is open.
    var isOpen: Bool { get }
    /// Opens the device when needed and sets it up for `format` (the caller drained or dropped it
    /// before). `source` is the encoding the frames will come in; the output picks the channels and
    /// rate (the stream's when the device takes them, else by `DeviceFit`: the output stage converts),
    /// the device encoding (`SampleEncoding.candidates`) and the buffer (≈`bufferMilliseconds` in
    /// ≥ 4 periods). A device that takes no channel count or rate near the stream's refuses it.
    func configure(_ format: PCMFormat, source: SampleEncoding, bufferMilliseconds: Int) throws(AudioOutputError)
        -> OutputConfiguration
    /// Writes `count` interleaved frames in the configured encoding; blocks until they fit. Returns the
    /// frames written (> 0), or a negative error code (pass it to `recover`).
    func write(_ frames: UnsafeRawPointer, count: Int) -> Int
    /// Frames written that have not been played yet.
    func delay() -> Int
    /// After a failed write: gets the device going again (underrun, suspend: it restarts empty; a
    /// write that timed out on a running stream: it still holds what it held, `delay` says how
    /// much). 0 when writing may go on; a negative code when the device is gone.
    func recover(_ error: Int) -> Int
    /// Pauses or resumes in place; false when the device cannot (the caller then drops).
    func pause(_ paused: Bool) -> Bool
    /// Plays out everything written, then stops, ready for new writes.
    func drain()
    /// Discards everything written, stops, ready for new writes.
    func drop()
    /// Closes the device; `configure` opens it again.
    func close()
}

/// Makes the output for a device name: "none" is the clock-paced sink, anything else an ALSA PCM.
public func makeAudioOutput(device: String) -> any AudioOutput {
    switch AudioDevice(name: device) {
    case .silent: ClockOutput()
    case .alsa(let pcm): ALSAOutput(device: pcm)
    }
}
