// SPDX-License-Identifier: GPL-3.0-or-later
/// alsa-lib PCMs as strict as a DAC HAT or an HDMI sink, for an `.asoundrc` in a child's HOME:
/// `stereo_only` (a `multi` over ALSA's file plugin: 2 channels, any rate) and `hat` (a `plug` whose
/// slave is fixed at 2 channels and 48 kHz: opened without ALSA's automatic conversions, it takes
/// nothing else). Both write raw frames to `capture` (/dev/null when the test does not read them).
public func constrainedDevicesALSAConfig(capturingTo capture: String) -> String {
    """
    pcm.capture_file { type file; slave.pcm "null"; file "\(capture)"; format "raw" }
    pcm.stereo_only {
        type multi
        slaves.a { pcm "capture_file"; channels 2 }
        bindings.0 { slave a; channel 0 }
        bindings.1 { slave a; channel 1 }
    }
    pcm.hat { type plug; slave { pcm "capture_file"; channels 2; rate 48000 } }

    """
}
