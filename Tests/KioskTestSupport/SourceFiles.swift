// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem

/// The repository's Swift sources, for the tests that read them (the seams, the module graph, the
/// wall-clock bounds, the player's parts).
///
/// Thread: any (it only reads the file system).
public enum SourceFiles {
    /// The Swift files under `directory`, as paths under it, sorted.
    public static func swift(under directory: String) throws -> [String] {
        var files: [String] = []
        for entry in try Syscalls.readDirectory(directory).entries {
            let path = directory + "/" + entry.name
            if entry.kind == .directory {
                files += try swift(under: path)
            } else if entry.name.hasSuffix(".swift") {
                files.append(path)
            }
        }
        return files.sorted()
    }
}
