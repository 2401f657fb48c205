// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem

/// The staff stick's play-count export: a stick with a regular file `kiosk-staff` at its top gets
/// the counts as `kiosk-play-counts.csv`, written the one way a stick is written
/// (`StickFile.replace`: a new temporary file, never one that exists or a link, renamed over).
///
/// The automounter mounts sticks read-only; a stick carrying the marker (FAT or exFAT) is mounted
/// read-write for the player by `kiosk-automount` (docs/reliability.md, "The staff stick"). On
/// any other stick the write fails with EROFS and says so.
///
/// Thread: `run` on any thread but the loop's (it waits for the stick: the appliance runs it on
/// a worker, `Player.stickExporter`); the values on any.
public enum StaffExport {
    /// The marker that makes a stick a staff stick.
    public static let marker = "kiosk-staff"
    /// The file written.
    public static let fileName = "kiosk-play-counts.csv"
    /// A marker is a small regular file; anything bigger is not one.
    static let markerLimit = 4096

    /// What an export did.
    public enum Outcome: Sendable, Equatable {
        /// No marker: not a staff stick.
        case notStaffStick
        /// A `kiosk-staff` that is not a small regular file (a FIFO, a link, a folder): not trusted,
        /// nothing written.
        case markerRefused(Errno)
        /// The counts are in `file`.
        case written(file: String)
        /// The write failed (EROFS on a stick mounted read-only).
        case failed(file: String, Errno)
    }

    /// Writes `csv` to the stick at `mountPoint` when it is a staff stick.
    public static func run(mountPoint: String, csv: [UInt8]) -> Outcome {
        do {
            _ = try StickFile.open(marker, beneath: mountPoint, limit: markerLimit)
        } catch {
            return error.rawValue == ENOENT ? .notStaffStick : .markerRefused(error)
        }
        let file = mountPoint + "/" + fileName
        do {
            try StickFile.replace(fileName, inVolume: mountPoint, with: csv)
            return .written(file: file)
        } catch {
            return .failed(file: file, error)
        }
    }
}
