// SPDX-License-Identifier: GPL-3.0-or-later
import KioskAudio
import KioskModel
import KioskSystem

/// A parsed `.m3u`/`.m3u8` playlist: its name and its entries as written (not yet resolved).
package struct PlaylistFile: Sendable, Hashable {
    let relativePath: String
    let name: String
    /// Path lines in order, as text (comments and blank lines removed).
    let entries: [String]
    /// Notes about the file itself (encoding guessed, entries cut off…).
    let warnings: [String]
    /// It has more entries than the volume's total had left when it was read (`entries` is cut).
    var overBudget = false
}

/// Reads playlists: `#EXTM3U`/`#EXTINF` (comments are skipped; `#PLAYLIST:` names the list),
/// UTF-8 with or without a byte-order mark, UTF-16 with a byte-order mark, Latin-1 for `.m3u`
/// files that are not UTF-8, and LF, CRLF or CR line ends. Thread: any.
package enum PlaylistParser {
    /// - Parameter entryBudget: entries the volume's other playlists have left (`maxStickPlaylistEntries`);
    ///   a list with more is cut there and marked `overBudget` (the scan then leaves it out whole).
    package static func parse(
        _ bytes: [UInt8], relativePath: String, limits: ScanLimits, entryBudget: Int = .max
    ) -> PlaylistFile {
        var warnings: [String] = []
        var overBudget = false
        let isM3U8 = relativePath.lowercased().hasSuffix(".m3u8")
        let text: String
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            text = String(decoding: bytes.dropFirst(3), as: UTF8.self)
        } else if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            let little = bytes[0] == 0xFF
            var units: [UInt16] = []
            units.reserveCapacity(bytes.count / 2)
            var i = 2
            while i + 1 < bytes.count {
                let a = UInt16(bytes[i])
                let b = UInt16(bytes[i + 1])
                units.append(little ? a | b << 8 : a << 8 | b)
                i += 2
            }
            text = String(decoding: units, as: UTF16.self)
        } else if let utf8 = String(validating: bytes, as: UTF8.self) {
            text = utf8
        } else if isM3U8 {
            text = String(decoding: bytes, as: UTF8.self)
            warnings.append("not valid UTF-8; damaged characters replaced")
        } else {
            // .m3u from older Windows tools: Windows-1252, decoded as file names are (DiskName),
            // so an entry naming a file whose name is in Windows-1252 too finds it.
            text = DiskName.windows1252(bytes)
        }
        var name: String?
        var entries: [String] = []
        var dropped = 0
        var tooLong = 0
        for rawLine in text.split(
            omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" })
        {
            // No path on the volume is this long (`maxPathBytes`, or PATH_MAX with a foreign
            // prefix), so such a line can name nothing; it is dropped before any copy of it is made.
            if rawLine.utf8.count > limits.maxPlaylistLineBytes {
                tooLong += 1
                continue
            }
            let line = Track.clean(String(rawLine))
            if line.isEmpty { continue }
            if line.hasPrefix("#") {
                if line.uppercased().hasPrefix("#PLAYLIST:") {
                    // A name is a title: cut as tag values are (`maxValueBytes`), so that no list
                    // name makes an answer to a remote client or a spoken prompt megabytes long.
                    var value = Track.clean(String(line.dropFirst("#PLAYLIST:".count)))
                    if value.utf8.count > limits.maxValueBytes {
                        value = String(decoding: value.utf8.prefix(limits.maxValueBytes), as: UTF8.self)
                        if value.last == "\u{FFFD}" { value.removeLast() }
                    }
                    if !value.isEmpty { name = value }
                }
                continue
            }
            if entries.count >= min(limits.maxPlaylistEntries, entryBudget) {
                dropped += 1
                continue
            }
            entries.append(line)
        }
        if tooLong > 0 {
            warnings.append("\(tooLong) lines longer than \(limits.maxPlaylistLineBytes) bytes ignored")
        }
        if dropped > 0 {
            if entryBudget < limits.maxPlaylistEntries {
                overBudget = true
            } else {
                warnings.append("\(dropped) entries past the limit of \(limits.maxPlaylistEntries) ignored")
            }
        }
        return PlaylistFile(
            relativePath: relativePath, name: name ?? stem(relativePath), entries: entries, warnings: warnings,
            overBudget: overBudget)
    }

    static func stem(_ relativePath: String) -> String { Track.stem(relativePath) }
}

/// Turns playlist entries into relative paths of files on the same volume, or says why not.
///
/// Relative entries are taken from the playlist's folder; absolute ones (`/…`, Windows `E:\…`,
/// `\\server\share\…`, `file:///…`) from the volume's current mount point, else from the volume's
/// top, else by the longest trailing part of the path that names a file on the volume (a list
/// written on a computer where the stick had another mount point). `..` never leaves the volume.
/// Letter case is matched exactly first, then ignoring case (FAT sticks and Windows tools).
/// Thread: any.
struct PlaylistResolver {
    let mountPoint: String
    let files: Set<String>
    private let caseless: CaselessIndex
    /// The most components a file here has: a trailing part with more names none of them, so only
    /// that many trailing parts of an absolute entry are tried (the work is linear in the line).
    private let deepestFile: Int
    /// Bytes of candidate paths built so far (the work the trailing-part search did), for tests.
    let work = Work()

    /// What resolving cost, counted. Thread: that of the resolver's user.
    final class Work {
        var candidateBytes = 0
    }

    /// Lower-cased path → path, built on the first entry that does not match exactly.
    private final class CaselessIndex {
        let files: Set<String>
        lazy var map: [String: String] = {
            var map: [String: String] = [:]
            for file in files.sorted() where map[file.lowercased()] == nil { map[file.lowercased()] = file }
            return map
        }()
        init(files: Set<String>) { self.files = files }
    }

    init(mountPoint: String, files: Set<String>) {
        self.mountPoint = mountPoint
        self.files = files
        caseless = CaselessIndex(files: files)
        deepestFile =
            files.lazy.map { $0.utf8.reduce(1) { depth, byte in byte == UInt8(ascii: "/") ? depth + 1 : depth } }
            .max() ?? 0
    }

    enum Resolution: Equatable {
        case file(String)
        case failed(String)
    }

    func resolve(_ entry: String, playlistFolder: String) -> Resolution {
        var path = entry
        var absolute = false
        if let scheme = path.firstRange(of: "://") {
            guard path[..<scheme.lowerBound].lowercased() == "file" else { return .failed("not a local file") }
            path = String(path[scheme.upperBound...])
            // file://host/path: the host part ("localhost" or empty) is not part of the path.
            if !path.hasPrefix("/"), let slash = path.firstIndex(of: "/") { path = String(path[slash...]) }
            path = Self.percentDecoded(path)
            absolute = true
        }
        path = path.replacingBackslashes()
        if path.count >= 2, let first = path.unicodeScalars.first, first.isASCIILetter,
            path[path.index(after: path.startIndex)] == ":"
        {
            path = String(path.dropFirst(2))  // drive letter
            absolute = true
        }
        if path.hasPrefix("/") { absolute = true }

        if absolute {
            let prefix = mountPoint.hasSuffix("/") ? mountPoint : mountPoint + "/"
            if path.hasPrefix(prefix), case .some(let rel) = Self.normalize(String(path.dropFirst(prefix.count))) {
                if let found = lookup(rel) { return .file(found) }
            }
            guard let components = Self.normalizedComponents(path) else {
                return .failed("points outside the volume")
            }
            // The longest trailing part that names a file here (the whole path first). Only the
            // last `deepestFile` starts can match: joining the tail at every start made a line of
            // 20 000 components take 64 s (issue 44).
            for start in max(0, components.count - deepestFile)..<components.count {
                let candidate = components[start...].joined(separator: "/")
                work.candidateBytes += candidate.utf8.count
                if let found = lookup(candidate) { return .file(found) }
            }
            return .failed(Self.isMusic(path) ? "not found on the volume" : "not a music file")
        }
        let joined = playlistFolder.isEmpty ? path : playlistFolder + "/" + path
        guard let rel = Self.normalize(joined) else { return .failed("points outside the volume") }
        if let found = lookup(rel) { return .file(found) }
        return .failed(Self.isMusic(path) ? "not found" : "not a music file")
    }

    private func lookup(_ relative: String) -> String? {
        if relative.isEmpty { return nil }
        if files.contains(relative) { return relative }
        return caseless.map[relative.lowercased()]
    }

    /// Whether the name ends in a suffix music files have (what a missing entry was meant to be).
    static func isMusic(_ path: String) -> Bool {
        guard let dot = path.lastIndex(of: ".") else { return false }
        return AudioFileFormat.musicSuffixes.contains(path[path.index(after: dot)...].lowercased())
    }

    /// `a/./b/../c` → `a/c`; nil when `..` climbs above the top.
    static func normalize(_ path: String) -> String? {
        normalizedComponents(path).map { $0.joined(separator: "/") }
    }

    static func normalizedComponents(_ path: String) -> [String]? {
        var out: [String] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == ".." {
                if out.isEmpty { return nil }
                out.removeLast()
                continue
            }
            out.append(String(part))
        }
        return out
    }

    static func percentDecoded(_ text: String) -> String {
        var bytes: [UInt8] = []
        let utf8 = Array(text.utf8)
        var i = 0
        while i < utf8.count {
            if utf8[i] == UInt8(ascii: "%"), i + 2 < utf8.count, let h = hex(utf8[i + 1]), let l = hex(utf8[i + 2]) {
                bytes.append(h << 4 | l)
                i += 3
            } else {
                bytes.append(utf8[i])
                i += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hex(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension String {
    fileprivate func replacingBackslashes() -> String {
        guard contains("\\") else { return self }
        return String(map { $0 == "\\" ? "/" : $0 })
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool { (value >= 0x41 && value <= 0x5A) || (value >= 0x61 && value <= 0x7A) }
}
