// SPDX-License-Identifier: GPL-3.0-or-later
import CALSA
import Glibc
import KioskModel
import KioskSystem

/// An ALSA PCM opened by name (`default`, `hw:…`, `plughw:…`, `file:'out.raw',raw`, any PCM string).
///
/// Format negotiation is exact: the encodings of `SampleEncoding.candidates` are tried in order and
/// the first one the device accepts is used; only when none keeps the samples does a narrower one
/// get used ("converted", logged). The device is opened without ALSA's automatic channel and rate
/// conversion (its `plug` layer maps channels by routing and resamples linearly): a channel count or
/// rate the hardware refuses is chosen by `DeviceFit` and converted by the engine's output stage
/// (channels mapped exactly or by the BS.775 downmix, the rate by libsoxr). What the device takes as
/// it is stays untouched. The buffer is about `bufferMilliseconds` in at least 4 periods; playback
/// starts when the buffer is full.
///
/// An underrun plays digital silence: the kernel zeroes what was played (silence threshold 0,
/// silence size = boundary), so a device that runs dry plays zeros rather than going round its
/// buffer again (stale frames from one buffer earlier, until the next period interrupt stops it).
/// A write the kernel gives up on while the stream still runs (it waits at least 100 ms for room,
/// then returns EIO: "DMA or IRQ trouble?") is written again rather than taken for a lost device, for up
/// to `stalledWriteLimitNanoseconds`: a stalled clock (a loaded machine, a virtual machine the host
/// did not schedule) comes back, and closing the device would drop the frames it holds.
///
/// Thread: one thread at a time (the engine's output thread).
public final class ALSAOutput: AudioOutput {
    public let name: String
    private var pcm: OpaquePointer?
    private var canPause = false
    /// When the first of the current run of timed-out writes happened (monotonic ns; 0: none).
    private var stalledSince: UInt64 = 0
    /// Whether the last write failed with EIO after waiting (the kernel's timeout), rather than at
    /// once (an I/O error of the device or plugin, e.g. the file plugin's).
    private var lastWriteTimedOut = false
    /// How long writes may keep timing out on a running stream before the device counts as lost.
    public static let stalledWriteLimitNanoseconds: UInt64 = 2_000_000_000

    public init(device: String) {
        name = device
    }

    deinit { close() }

    public var isOpen: Bool { pcm != nil }

    private func alsaError(_ code: Int32, _ what: String) -> AudioOutputError {
        AudioOutputError(code: code, message: "\(name): \(what): \(String(cString: snd_strerror(code)))")
    }

    public func configure(_ format: PCMFormat, source: SampleEncoding, bufferMilliseconds: Int) throws(AudioOutputError)
        -> OutputConfiguration
    {
        stalledSince = 0
        if let pcm {
            snd_pcm_drop(pcm)
            if snd_pcm_hw_free(pcm) < 0 { close() }
        }
        if pcm == nil {
            var opened: OpaquePointer?
            // A `plug` in the chain may still convert sample containers, which is exact when wider.
            let rc = snd_pcm_open(
                &opened, name, SND_PCM_STREAM_PLAYBACK, SND_PCM_NO_AUTO_RESAMPLE | SND_PCM_NO_AUTO_CHANNELS)
            if rc < 0 { throw alsaError(rc, "cannot open device") }
            pcm = opened
        }
        guard let pcm else { throw AudioOutputError(code: -ENODEV, message: "\(name): cannot open device") }
        do throws(AudioOutputError) {
            return try negotiate(pcm, format, source: source, bufferMilliseconds: bufferMilliseconds)
        } catch {
            close()
            // The device answered but refused the stream, unless the failure says it went away.
            let gone: Set<Int32> = [-ENODEV, -ENXIO, -EBADFD, -EIO, -ENOENT, -EBUSY, -ENOMEM]
            throw AudioOutputError(code: error.code, message: error.message, formatRejected: !gone.contains(error.code))
        }
    }

    private func negotiate(_ pcm: OpaquePointer, _ format: PCMFormat, source: SampleEncoding, bufferMilliseconds: Int)
        throws(AudioOutputError) -> OutputConfiguration
    {
        var hwPointer: OpaquePointer?
        guard snd_pcm_hw_params_malloc(&hwPointer) == 0, let hw = hwPointer else {
            throw AudioOutputError(code: -ENOMEM, message: "\(name): out of memory")
        }
        defer { snd_pcm_hw_params_free(hw) }
        var rc = snd_pcm_hw_params_any(pcm, hw)
        if rc < 0 { throw alsaError(rc, "no configurations") }
        rc = snd_pcm_hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED)
        if rc < 0 { throw alsaError(rc, "interleaved access not supported") }
        guard
            let channels = DeviceFit.channels(
                for: format.channels, accepts: { snd_pcm_hw_params_test_channels(pcm, hw, UInt32($0)) == 0 })
        else {
            throw AudioOutputError(code: -EINVAL, message: "\(name): takes no channel count from 1 to 8")
        }
        rc = snd_pcm_hw_params_set_channels(pcm, hw, UInt32(channels))
        if rc < 0 { throw alsaError(rc, "cannot set \(channels) channels") }

        snd_pcm_hw_params_set_rate_resample(pcm, hw, 0)
        guard
            let rate = DeviceFit.rate(
                for: format.sampleRate, accepts: { snd_pcm_hw_params_test_rate(pcm, hw, UInt32($0), 0) == 0 })
        else {
            throw AudioOutputError(
                code: -EINVAL, message: "\(name): takes neither \(format.sampleRate) Hz nor any standard rate")
        }
        rc = snd_pcm_hw_params_set_rate(pcm, hw, UInt32(rate), 0)
        if rc < 0 { throw alsaError(rc, "cannot set \(rate) Hz") }

        // Frames the output stage made (downmixed, resampled) carry more than the stream's bits, in
        // 32-bit words; copied or untouched ones keep them.
        let computed = rate != format.sampleRate || channels < format.channels
        var exact = true
        var chosen: (encoding: SampleEncoding, exact: Bool)?
        for candidate in SampleEncoding.candidates(
            bits: computed ? 32 : format.bitsPerSample, ring: computed ? .s32 : source)
        where snd_pcm_hw_params_test_format(pcm, hw, candidate.encoding.alsaFormat) == 0 {
            chosen = candidate
            break
        }
        guard let chosen else {
            throw AudioOutputError(
                code: -EINVAL, message: "\(name): takes none of S16_LE, S24_3LE, S24_LE, S32_LE")
        }
        rc = snd_pcm_hw_params_set_format(pcm, hw, chosen.encoding.alsaFormat)
        if rc < 0 { throw alsaError(rc, "cannot set \(chosen.encoding.alsaName)") }
        exact = computed ? chosen.encoding.bits >= 24 : chosen.exact

        var bufferTime = UInt32(bufferMilliseconds * 1000)
        var direction: Int32 = 0
        rc = snd_pcm_hw_params_set_buffer_time_near(pcm, hw, &bufferTime, &direction)
        if rc < 0 { throw alsaError(rc, "cannot set a \(bufferMilliseconds) ms buffer") }
        var periodTime = bufferTime / 4
        direction = 0
        // Some devices have fixed periods; the buffer set above is what matters.
        _ = snd_pcm_hw_params_set_period_time_near(pcm, hw, &periodTime, &direction)
        rc = snd_pcm_hw_params(pcm, hw)
        if rc < 0 { throw alsaError(rc, "cannot apply \(chosen.encoding.alsaName) \(rate) Hz \(channels) ch") }

        var periodFrames: snd_pcm_uframes_t = 0
        var bufferFrames: snd_pcm_uframes_t = 0
        direction = 0
        snd_pcm_hw_params_get_period_size(hw, &periodFrames, &direction)
        snd_pcm_hw_params_get_buffer_size(hw, &bufferFrames)
        canPause = snd_pcm_hw_params_can_pause(hw) != 0
        var deviceRate: UInt32 = 0
        direction = 0
        snd_pcm_hw_params_get_rate(hw, &deviceRate, &direction)

        var swPointer: OpaquePointer?
        guard snd_pcm_sw_params_malloc(&swPointer) == 0, let sw = swPointer else {
            throw AudioOutputError(code: -ENOMEM, message: "\(name): out of memory")
        }
        defer { snd_pcm_sw_params_free(sw) }
        snd_pcm_sw_params_current(pcm, sw)
        snd_pcm_sw_params_set_start_threshold(pcm, sw, bufferFrames)
        snd_pcm_sw_params_set_avail_min(pcm, sw, max(1, periodFrames))
        // An underrun plays zeros, not the buffer's previous lap: the kernel silences what was played.
        var boundary: snd_pcm_uframes_t = 0
        if snd_pcm_sw_params_get_boundary(sw, &boundary) == 0 {
            snd_pcm_sw_params_set_silence_threshold(pcm, sw, 0)
            snd_pcm_sw_params_set_silence_size(pcm, sw, boundary)
        }
        rc = snd_pcm_sw_params(pcm, sw)
        if rc < 0 { throw alsaError(rc, "cannot apply software parameters") }
        rc = snd_pcm_prepare(pcm)
        if rc < 0 { throw alsaError(rc, "cannot prepare") }

        // A conversion is reported through `exact` (the engine logs it on the loop thread).
        return OutputConfiguration(
            format: format, encoding: chosen.encoding, channels: channels, deviceRate: Int(deviceRate), exact: exact,
            periodFrames: Int(periodFrames), bufferFrames: Int(bufferFrames), canPause: canPause)
    }

    public func write(_ frames: UnsafeRawPointer, count: Int) -> Int {
        guard let pcm else { return -Int(ENODEV) }
        let start = Syscalls.monotonicNanoseconds()
        let result = snd_pcm_writei(pcm, frames, snd_pcm_uframes_t(count))
        if result > 0 {
            stalledSince = 0
        } else if result == -Int(EIO) {
            // The kernel waits at least 100 ms for room before it gives up.
            lastWriteTimedOut = Syscalls.monotonicNanoseconds() &- start >= 50_000_000
        }
        return result
    }

    public func delay() -> Int {
        guard let pcm else { return 0 }
        var frames: snd_pcm_sframes_t = 0
        if snd_pcm_delay(pcm, &frames) < 0 { return 0 }
        return max(0, frames)
    }

    public func recover(_ error: Int) -> Int {
        guard let pcm else { return -Int(ENODEV) }
        if error == -Int(EIO) && lastWriteTimedOut {
            // The kernel timed out waiting for room. A stream that still runs (or has just found its
            // underrun) is not lost: write again, until the writes have been stuck for the limit.
            let state = snd_pcm_state(pcm)
            if state == SND_PCM_STATE_XRUN { return Int(snd_pcm_recover(pcm, -EPIPE, 1)) }
            if state == SND_PCM_STATE_RUNNING || state == SND_PCM_STATE_PREPARED {
                let now = Syscalls.monotonicNanoseconds()
                if stalledSince == 0 { stalledSince = now }
                if now &- stalledSince < Self.stalledWriteLimitNanoseconds { return 0 }
            }
        }
        // Silent: no message printed from the audio thread.
        return Int(snd_pcm_recover(pcm, Int32(clamping: error), 1))
    }

    public func pause(_ paused: Bool) -> Bool {
        guard let pcm, canPause else { return false }
        let state = snd_pcm_state(pcm)
        if paused {
            if state != SND_PCM_STATE_RUNNING { return state == SND_PCM_STATE_PREPARED }
            return snd_pcm_pause(pcm, 1) == 0
        }
        if state != SND_PCM_STATE_PAUSED { return true }
        return snd_pcm_pause(pcm, 0) == 0
    }

    public func drain() {
        guard let pcm else { return }
        // A stream that never reached its start threshold starts here and plays out.
        snd_pcm_drain(pcm)
        snd_pcm_prepare(pcm)
    }

    public func drop() {
        stalledSince = 0
        guard let pcm else { return }
        snd_pcm_drop(pcm)
        snd_pcm_prepare(pcm)
    }

    public func close() {
        stalledSince = 0
        if let pcm {
            snd_pcm_close(pcm)
            self.pcm = nil
        }
    }
}

/// ALSA's text for a negative error code.
func alsaErrorText(_ code: Int32) -> String {
    String(cString: snd_strerror(code))
}

extension SampleEncoding {
    var alsaFormat: snd_pcm_format_t {
        switch self {
        case .s16: SND_PCM_FORMAT_S16_LE
        case .s24_3: SND_PCM_FORMAT_S24_3LE
        case .s24: SND_PCM_FORMAT_S24_LE
        case .s32: SND_PCM_FORMAT_S32_LE
        }
    }
}
