// SPDX-License-Identifier: GPL-3.0-or-later
/// The part of a queue entry's song that plays (MPD's `rangeid`: a `DetachedSong`'s start and end
/// time), in milliseconds as MPD keeps them. Positions and seeks still count from the file's start
/// on the box; MPD's answers count from the range's start (`elapsed`, `duration`).
///
/// Thread: any (a value).
public struct SongRange: Equatable, Sendable {
    /// Where the song starts, in milliseconds from the file's start.
    public var startMS: UInt32
    /// Where it ends, in milliseconds from the file's start; nil: at the file's end.
    public var endMS: UInt32?

    public init(startMS: UInt32 = 0, endMS: UInt32? = nil) {
        self.startMS = startMS
        self.endMS = endMS
    }

    /// The whole song.
    public static let whole = SongRange()

    public var isWhole: Bool { startMS == 0 && endMS == nil }

    /// The start as a frame of a file at `sampleRate` Hz.
    public func startFrame(sampleRate: Int) -> Int64 { Int64(startMS) * Int64(sampleRate) / 1000 }

    /// The end as a frame of a file at `sampleRate` Hz (nil: the file's end).
    public func endFrame(sampleRate: Int) -> Int64? { endMS.map { Int64($0) * Int64(sampleRate) / 1000 } }

    /// How long the part plays, for a file of `seconds` (MPD's `DetachedSong::GetDuration`); nil when
    /// it ends at the file's end and the file's length is unknown.
    public func duration(ofFileSeconds seconds: Double?) -> Double? {
        let start = Double(startMS) / 1000
        if let endMS { return Double(endMS) / 1000 - start }
        return seconds.map { $0 - start }
    }
}
