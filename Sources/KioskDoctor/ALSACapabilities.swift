// SPDX-License-Identifier: GPL-3.0-or-later
import CALSA
import CKioskShims
import Glibc
import KioskAudio

/// What an ALSA playback PCM takes, asked in ALSA's own terms (hw_params test and min/max calls),
/// opened as the player opens it: without alsa-lib's automatic resampling and channel mapping. Kept
/// in this one file so it can move into KioskAudio.
///
/// Thread: any; each query opens the PCM and closes it again.
public struct ALSACapabilities: Sendable, Equatable {
    public var device: String
    /// Sample format names ("S16_LE", "S32_LE", …) the device takes (interleaved access).
    public var formats: [String]
    public var channelsMin: Int
    public var channelsMax: Int
    /// Of 1…8, the counts it takes.
    public var channels: [Int]
    public var rateMin: Int
    public var rateMax: Int
    /// Of the standard rates (DeviceFit.standardRates), the ones it takes.
    public var rates: [Int]

    /// Why a device could not be asked.
    public struct Failure: Error, Sendable, Equatable {
        /// ALSA's negative error code.
        public var code: Int32
        public var message: String
        public var isBusy: Bool { code == -EBUSY }
    }

    /// The rates the doctor asks about: 22.05 kHz (audiobooks) up to 192 kHz.
    public static let askedRates = [22050, 32000, 44100, 48000, 88200, 96000, 176_400, 192_000]

    /// Opens `device` for playback (non-blocking, no automatic conversions), reads its hw_params
    /// space and closes it.
    public static func query(device: String) -> Result<ALSACapabilities, Failure> {
        kiosk_alsa_set_quiet(1)
        defer { kiosk_alsa_set_quiet(0) }
        var pcm: OpaquePointer?
        let mode = SND_PCM_NONBLOCK | SND_PCM_NO_AUTO_RESAMPLE | SND_PCM_NO_AUTO_CHANNELS
        var rc = snd_pcm_open(&pcm, device, SND_PCM_STREAM_PLAYBACK, mode)
        guard rc == 0, let pcm else { return .failure(failure(rc, "cannot open \(device)")) }
        defer { snd_pcm_close(pcm) }
        var params: OpaquePointer?
        rc = snd_pcm_hw_params_malloc(&params)
        guard rc == 0, let params else { return .failure(failure(rc, "snd_pcm_hw_params_malloc")) }
        defer { snd_pcm_hw_params_free(params) }
        rc = snd_pcm_hw_params_any(pcm, params)
        guard rc >= 0 else { return .failure(failure(rc, "\(device): no configuration")) }
        // The player writes interleaved frames; formats, channels and rates are asked for that access.
        _ = snd_pcm_hw_params_set_access(pcm, params, SND_PCM_ACCESS_RW_INTERLEAVED)

        var formats: [String] = []
        for raw in 0...Int32(SND_PCM_FORMAT_LAST.rawValue) {
            let format = snd_pcm_format_t(rawValue: raw)
            guard snd_pcm_hw_params_test_format(pcm, params, format) == 0, let name = snd_pcm_format_name(format)
            else { continue }
            formats.append(String(cString: name))
        }
        var low: UInt32 = 0
        var high: UInt32 = 0
        var dir: Int32 = 0
        _ = snd_pcm_hw_params_get_channels_min(params, &low)
        _ = snd_pcm_hw_params_get_channels_max(params, &high)
        let channels = (1...8).filter { snd_pcm_hw_params_test_channels(pcm, params, UInt32($0)) == 0 }
        var rateLow: UInt32 = 0
        var rateHigh: UInt32 = 0
        // An open bound comes back with its direction: "48001, below" is 48000.
        _ = snd_pcm_hw_params_get_rate_min(params, &rateLow, &dir)
        if dir > 0 { rateLow += 1 }
        _ = snd_pcm_hw_params_get_rate_max(params, &rateHigh, &dir)
        if dir < 0 { rateHigh -= 1 }
        let rates = DeviceFit.standardRates.filter { snd_pcm_hw_params_test_rate(pcm, params, UInt32($0), 0) == 0 }
        return .success(
            ALSACapabilities(
                device: device, formats: formats, channelsMin: Int(low), channelsMax: Int(high), channels: channels,
                rateMin: Int(rateLow), rateMax: Int(rateHigh), rates: rates))
    }

    static func failure(_ rc: Int32, _ what: String) -> Failure {
        Failure(code: rc, message: "\(what): \(String(cString: snd_strerror(rc)))")
    }

    /// "S16_LE S32_LE, 2 ch, 8000–384000 Hz"
    public var summary: String {
        let ch = channelsMin == channelsMax ? "\(channelsMin) ch" : "\(channelsMin)–\(min(channelsMax, 1024)) ch"
        let rate = rateMin == rateMax ? "\(rateMin) Hz" : "\(rateMin)–\(rateMax) Hz"
        // A plug layer converts to every format alsa-lib knows: the first few say enough.
        let shown =
            formats.count > 8
            ? formats.prefix(8).joined(separator: " ") + " +\(formats.count - 8) more" : formats.joined(separator: " ")
        return "\(shown), \(ch), \(rate)"
    }

    /// What the output stage will convert, for the streams a library holds (mono, stereo and 5.1;
    /// 22.05 kHz to 192 kHz), with the engine's own rules (DeviceFit). Empty when it takes all as is.
    public var conversions: [String] {
        var out: [String] = []
        let accepts: (Int) -> Bool = { channels.contains($0) }
        for source in [1, 2, 6] where !accepts(source) {
            guard let to = DeviceFit.channels(for: source, accepts: accepts) else { continue }
            let how = source == 1 && to == 2 ? "copied" : source > to ? "downmixed" : "padded with silence"
            out.append("\(source) → \(to) ch (\(how))")
        }
        let takes: (Int) -> Bool = { rates.contains($0) }
        for rate in Self.askedRates where !takes(rate) {
            guard let to = DeviceFit.rate(for: rate, accepts: takes) else { continue }
            out.append("\(rate) → \(to) Hz (libsoxr)")
        }
        return out
    }
}

/// The ALSA simple mixer controls of a card, for checking the profile's `mixer`.
///
/// Thread: any; opens the mixer and closes it again.
public enum ALSAMixerControls {
    /// The simple control names of `card` ("hw:0", "hw:CARD=sndrpihifiberry"), or ALSA's error.
    public static func names(card: String) -> Result<[String], ALSACapabilities.Failure> {
        kiosk_alsa_set_quiet(1)
        defer { kiosk_alsa_set_quiet(0) }
        var mixer: OpaquePointer?
        var rc = snd_mixer_open(&mixer, 0)
        guard rc == 0, let mixer else { return .failure(ALSACapabilities.failure(rc, "snd_mixer_open")) }
        defer { snd_mixer_close(mixer) }
        rc = snd_mixer_attach(mixer, card)
        guard rc == 0 else { return .failure(ALSACapabilities.failure(rc, "cannot attach mixer \(card)")) }
        rc = snd_mixer_selem_register(mixer, nil, nil)
        guard rc == 0 else { return .failure(ALSACapabilities.failure(rc, "mixer \(card)")) }
        rc = snd_mixer_load(mixer)
        guard rc == 0 else { return .failure(ALSACapabilities.failure(rc, "cannot load mixer \(card)")) }
        var names: [String] = []
        var element = snd_mixer_first_elem(mixer)
        while let e = element {
            if let name = snd_mixer_selem_get_name(e) { names.append(String(cString: name)) }
            element = snd_mixer_elem_next(e)
        }
        return .success(names)
    }
}
