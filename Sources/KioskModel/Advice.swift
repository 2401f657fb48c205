// SPDX-License-Identifier: GPL-3.0-or-later
/// Words more than one layer says to the owner, kept in one place so the screen, the light's log and
/// `kiosk-player doctor` never disagree.
///
/// Thread: any (constants).
public enum Advice {
    /// What a box says when none of its outputs can sound (`Player.noSoundLine`, `OutputCheck`).
    public static let noSound = "plug in an HDMI screen with speakers or a DAC"
    /// Why a FairPlay file is left out: the engine's error and the library's problem say it, and
    /// the screen counts the problems with this reason as DRM-protected (`PlayerView.LeftOut`).
    public static let drmProtected = "DRM-protected (FairPlay): cannot be played"
}
