// SPDX-License-Identifier: GPL-3.0-or-later
/// The volumes the player may reach (config `volumeMin`, `volumeMax`): every change of the volume,
/// from a button, an encoder, a remote client (MPD `setvol`, `volume`) or the saved state, is
/// clamped here, so the one rule has one home.
///
/// Thread: any (a value).
public struct VolumeLimits: Equatable, Sendable {
    public let range: ClosedRange<Int>

    public init(_ range: ClosedRange<Int> = 0...100) {
        self.range = max(0, range.lowerBound)...min(100, max(range.upperBound, range.lowerBound))
    }

    /// `percent` brought within the limits.
    public func clamp(_ percent: Int) -> Int { min(range.upperBound, max(range.lowerBound, percent)) }

    /// Whether the limits cut the 0…100 scale at all.
    public var isLimited: Bool { range != 0...100 }
}
