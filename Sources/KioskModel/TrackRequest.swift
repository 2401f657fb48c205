// SPDX-License-Identifier: GPL-3.0-or-later
/// One entry of the engine's queue: a file, the identifier the player gave it, and the part of the
/// file that plays (MPD's `rangeid`; the whole file by default).
///
/// Thread: a value; any.
public struct TrackRequest: Equatable, Sendable {
    /// Chosen by the player; reported back in events. Unique within a queue.
    public let id: UInt64
    public let path: String
    /// The file's frame the track starts at (positions still count from the file's start).
    public let startFrame: Int64
    /// The file's frame the track ends before (nil: the file's end); the next track follows it
    /// gaplessly as at a file's end.
    public let endFrame: Int64?
    /// The linear scale to play the track at (its ReplayGain, worked out by the player); 1 plays
    /// it untouched (bit-perfect at 100 % volume).
    public let gain: Float
    public init(id: UInt64, path: String, startFrame: Int64 = 0, endFrame: Int64? = nil, gain: Float = 1) {
        self.id = id
        self.path = path
        self.startFrame = max(0, startFrame)
        self.endFrame = endFrame
        self.gain = gain
    }
}
