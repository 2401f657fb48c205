// SPDX-License-Identifier: GPL-3.0-or-later
import CALSA
import CKioskShims
import Glibc

extension ALSAOutput {
    /// Whether the ALSA PCM `device` can be opened for playback right now; the error text if not.
    /// Opens non-blocking and closes at once (for the demo's "default, else none" choice and the
    /// output menu). libasound's own messages about the failure are silenced for this thread: the
    /// returned text says what failed. Thread: any but the audio threads.
    public static func probe(device: String) -> String? {
        let rc = kiosk_alsa_probe_playback(device)
        return rc < 0 ? String(cString: snd_strerror(rc)) : nil
    }

    /// Whether the PCM `device` is there: it opens, or it is busy. Busy counts because the holder
    /// may be this player, through a fallback on the same card (`default` over the chosen `hw:`
    /// device; a card with one playback stream is busy for as long as the fallback plays).
    /// Thread: any but the audio threads.
    public static func isPresent(device: String) -> Bool {
        let rc = kiosk_alsa_probe_playback(device)
        return rc == 0 || rc == -EBUSY
    }
}

/// Whether a device of the output list is there now, for taking the chosen one back after a
/// fallback (KioskCore's `OutputSupervisor` asks it through the closure the app gives the player).
///
/// Thread: any but the audio threads.
public enum OutputPresence {
    /// Whether ALSA has `device` now: it opens or is busy (`ALSAOutput.isPresent`; the silent sink
    /// always is). A busy device that someone else holds fails to open on return and falls back
    /// again, which the probe's back-off keeps from flapping.
    public static func isPresent(_ device: String) -> Bool {
        device == ClockOutput.deviceName || ALSAOutput.isPresent(device: device)
    }
}
