// SPDX-License-Identifier: GPL-3.0-or-later
import CALSA
import Glibc

/// A hardware volume control: an ALSA simple mixer element (e.g. "PCM", "Digital") on the card of a
/// PCM device. Volume follows the same curve as the software volume, (p/100)², in dB when the
/// element reports a dB range, else over its raw range; 0 % also switches the element off when it
/// has a switch.
///
/// Thread: the loop thread (its calls are short ioctls on the control device).
public final class ALSAMixer {
    public let control: String
    public let card: String
    private var mixer: OpaquePointer?
    private let element: OpaquePointer
    private var minimumDB = 0
    private var maximumDB = 0
    private var useDB = false
    private var minimumRaw = 0
    private var maximumRaw = 0

    /// The control device for a PCM name: "hw:1,0" → "hw:1", "plughw:CARD=x,DEV=0" → "hw:CARD=x",
    /// a name without a card ("default", "none", a defined PCM) → itself ("default" for "none").
    public static func controlDevice(forPCM pcm: String) -> String {
        guard let colon = pcm.firstIndex(of: ":") else { return AudioDevice(name: pcm) == .silent ? "default" : pcm }
        let arguments = pcm[pcm.index(after: colon)...]
        let card = arguments.split(separator: ",").first.map(String.init) ?? ""
        return card.isEmpty ? "default" : "hw:\(card)"
    }

    /// Opens `control` on the card of `device`.
    public init(device: String, control: String) throws(AudioOutputError) {
        self.control = control
        let card = ALSAMixer.controlDevice(forPCM: device)
        self.card = card
        var handle: OpaquePointer?
        var rc = snd_mixer_open(&handle, 0)
        guard rc == 0, let handle else { throw AudioOutputError(code: rc, message: "mixer: cannot open") }
        let fail = { (rc: Int32, what: String) -> AudioOutputError in
            snd_mixer_close(handle)
            return AudioOutputError(code: rc, message: "mixer \(card): \(what): \(alsaErrorText(rc))")
        }
        rc = snd_mixer_attach(handle, card)
        if rc < 0 { throw fail(rc, "cannot attach") }
        rc = snd_mixer_selem_register(handle, nil, nil)
        if rc < 0 { throw fail(rc, "cannot register") }
        rc = snd_mixer_load(handle)
        if rc < 0 { throw fail(rc, "cannot load") }
        var idPointer: OpaquePointer?
        snd_mixer_selem_id_malloc(&idPointer)
        defer { snd_mixer_selem_id_free(idPointer) }
        snd_mixer_selem_id_set_index(idPointer, 0)
        snd_mixer_selem_id_set_name(idPointer, control)
        guard let found = snd_mixer_find_selem(handle, idPointer), snd_mixer_selem_has_playback_volume(found) != 0
        else {
            snd_mixer_close(handle)
            throw AudioOutputError(code: -ENOENT, message: "mixer \(card): no playback volume control '\(control)'")
        }
        mixer = handle
        element = found
        var low = 0
        var high = 0
        if snd_mixer_selem_get_playback_dB_range(element, &low, &high) == 0 && high > low {
            minimumDB = low
            maximumDB = high
            useDB = true
        }
        snd_mixer_selem_get_playback_volume_range(element, &low, &high)
        minimumRaw = low
        maximumRaw = high
    }

    deinit {
        if let mixer { snd_mixer_close(mixer) }
    }

    /// Sets the volume, 0…100 %.
    public func setVolume(_ percent: Int) {
        let p = max(0, min(100, percent))
        if snd_mixer_selem_has_playback_switch(element) != 0 {
            snd_mixer_selem_set_playback_switch_all(element, p == 0 ? 0 : 1)
        }
        if useDB {
            // 40·log10(p/100) dB (the (p/100)² curve), in hundredths of a dB.
            let target = p == 0 ? minimumDB : maximumDB + Int(4000 * log10(Double(p) / 100))
            snd_mixer_selem_set_playback_dB_all(element, max(minimumDB, target), 1)
        } else {
            let raw = minimumRaw + (maximumRaw - minimumRaw) * p * p / 10000
            snd_mixer_selem_set_playback_volume_all(element, raw)
        }
    }
}
