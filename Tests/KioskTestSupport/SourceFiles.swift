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

    /// What `check` finds in each Swift file under `root`, given the file's text and its path under
    /// `root`; and how many files were read (so a test can tell that the sources were found).
    public static func findings(
        under root: String, _ check: (_ text: String, _ file: String) -> [String]
    ) throws -> (files: Int, found: [String]) {
        let files = try swift(under: root)
        var found: [String] = []
        for path in files {
            let text = String(decoding: try Syscalls.readFile(path), as: UTF8.self)
            found += check(text, String(path.dropFirst(root.count + 1)))
        }
        return (files.count, found)
    }
}
