// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem

/// Cover art: bytes to decode, or a file to decode. Decoding is the display's job. Thread: any.
public enum Artwork: Sendable, Hashable {
    case embedded(bytes: [UInt8], mimeType: String)
    /// A cover file at `path`, inside the volume mounted at `volumePath` (read through
    /// `StickFile`, beneath that volume).
    case file(path: String, volumePath: String)

    /// The picture's bytes, at most `limit`: a cover file is read the one way a stick's file is
    /// (`StickFile`: a regular file beneath its volume, no link followed). Reads the file: not on
    /// the loop thread.
    public func bytes(limit: Int) throws(Errno) -> [UInt8] {
        switch self {
        case .embedded(let bytes, _):
            if bytes.count > limit {
                throw Errno(rawValue: EFBIG, context: "artwork", reason: "over the \(limit)-byte limit")
            }
            return bytes
        case .file(let path, let volumePath):
            return try StickFile.read(path: path, inVolume: volumePath, limit: limit)
        }
    }
}
