// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import KioskSystem

/// Finds a collection's cover art: the embedded front cover of its representative track, else a
/// `cover`/`folder`/`front`/`album` `.jpg`/`.jpeg`/`.png` file (any case) in the track's folder
/// (or, for `CD1`-style subfolders, the folder above). Never decodes: that is the display's job.
/// Thread: any, but it reads files: keep it off the loop thread.
enum ArtworkLookup {
    /// Cover file base names, in order of preference.
    static let coverBaseNames = ["cover", "folder", "front", "album"]
    static let coverExtensions = ["jpg", "jpeg", "png"]

    /// The preferred cover file among `names` (file names within one folder), if any.
    static func preferredCover(_ names: [String]) -> String? {
        func rank(_ name: String) -> Int? {
            let lower = name.lowercased()
            guard let dot = lower.lastIndex(of: ".") else { return nil }
            guard let base = coverBaseNames.firstIndex(of: String(lower[..<dot])),
                let ext = coverExtensions.firstIndex(of: String(lower[lower.index(after: dot)...]))
            else { return nil }
            return base * coverExtensions.count + ext
        }
        let ranked: [(name: String, rank: Int)] = names.compactMap { name in rank(name).map { (name, $0) } }
        let best = ranked.min { a, b in a.rank != b.rank ? a.rank < b.rank : a.name < b.name }
        return best?.name
    }

    /// Groups cover file paths (relative to the volume) by folder, keeping the preferred one.
    static func coversByFolder(_ paths: [String]) -> [String: String] {
        var byFolder: [String: [String]] = [:]
        for path in paths {
            let folder = Track.folder(of: path)
            let name = folder.isEmpty ? path : String(path.dropFirst(folder.count + 1))
            byFolder[folder, default: []].append(name)
        }
        var result: [String: String] = [:]
        for (folder, names) in byFolder {
            guard let best = preferredCover(names) else { continue }
            result[folder] = folder.isEmpty ? best : folder + "/" + best
        }
        return result
    }

    /// The cover file for a track's folder from `covers` (folder → relative path): its own
    /// folder's, else its parent's when the track is in a disc subfolder.
    static func coverFile(forFolder folder: String, in covers: [String: String]) -> String? {
        if let own = covers[folder] { return own }
        let parent = Track.folder(of: folder)
        let last = folder.isEmpty ? "" : String(folder.dropFirst(parent.isEmpty ? 0 : parent.count + 1))
        if !folder.isEmpty && isDiscFolderName(last) { return covers[parent] }
        return nil
    }

    /// "CD1", "cd 2", "Disc 3", "Disk02": subfolders that share the album's cover.
    static func isDiscFolderName(_ name: String) -> Bool {
        let lower = name.lowercased().filter { $0 != " " && $0 != "_" && $0 != "-" }
        for prefix in ["cd", "disc", "disk"] where lower.hasPrefix(prefix) {
            let rest = lower.dropFirst(prefix.count)
            return !rest.isEmpty && rest.allSatisfy(\.isNumber)
        }
        return false
    }

    /// The MIME type from an image's first bytes (for pictures whose MIME type is empty).
    static func sniffMIMEType(_ bytes: [UInt8]) -> String {
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "image/png" }
        if bytes.starts(with: Array("GIF8".utf8)) { return "image/gif" }
        return "application/octet-stream"
    }
}
