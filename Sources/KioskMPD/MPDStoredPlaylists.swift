// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem

/// The playlists clients save (`save`, `playlistadd`…): one `NAME.m3u8` per playlist in
/// `<state directory>/playlists`, one song a line by its MPD URI (`<volume>/<path>`), as MPD's
/// playlist_directory holds `NAME.m3u` (src/PlaylistFile.cxx). A song whose stick is absent stays
/// in its file. Every write replaces the whole file atomically (`AtomicFile`), and a name can only
/// name a file directly inside that directory (`check(name:)`), so nothing outside it is touched.
/// Bounded: at most `maxPlaylists` files of at most `maxLength` songs and `maxFileBytes` each, and
/// `maxTotalBytes` in all (issue 44: 20 `save`s of a long queue wrote 326 MB, and files past
/// `maxFileBytes` were written but could not be read back).
/// Thread: loop thread (the server's).
final class MPDStoredPlaylists {
    static let suffix = ".m3u8"
    /// A file bigger than this is not read (16384 URIs of 512 bytes), nor written.
    static let defaultMaxFileBytes = 8 << 20

    struct Info {
        let name: String
        let modificationTime: Int64
        let bytes: Int64
    }

    let directory: String
    let maxPlaylists: Int
    let maxLength: Int
    let maxTotalBytes: Int
    let maxFileBytes: Int

    init(
        directory: String, maxPlaylists: Int, maxLength: Int, maxTotalBytes: Int = 64 << 20,
        maxFileBytes: Int = MPDStoredPlaylists.defaultMaxFileBytes
    ) {
        self.directory = directory
        self.maxPlaylists = maxPlaylists
        self.maxLength = maxLength
        self.maxTotalBytes = maxTotalBytes
        self.maxFileBytes = maxFileBytes
    }

    /// The longest name: its file and that file's `AtomicFile` temporary (`.NAME.m3u8.tmp`) must fit
    /// in a file name (255 bytes).
    static let maxNameBytes = 255 - suffix.utf8.count - ".".utf8.count - ".tmp".utf8.count

    /// Refuses what MPD's spl_valid_name refuses (empty, `/`, line breaks), and also a leading `.`
    /// (hidden files, and the `AtomicFile` temporaries are dot files), NUL, and names longer than
    /// `maxNameBytes`.
    static func check(name: String) throws(MPDError) {
        let bytes = name.utf8
        guard !bytes.isEmpty, bytes.first != UInt8(ascii: "."), bytes.count <= maxNameBytes,
            !bytes.contains(where: { $0 == UInt8(ascii: "/") || $0 == 0x0A || $0 == 0x0D || $0 == 0 })
        else { throw .argument("Bad playlist name") }
    }

    private func path(_ name: String) -> String { directory + "/" + name + MPDStoredPlaylists.suffix }

    /// The saved playlists, by name (an unreadable directory lists none: it is logged).
    func list() -> [Info] {
        guard Syscalls.exists(directory) else { return [] }
        let entries: [DirectoryEntry]
        do throws(Errno) {
            entries = try Syscalls.readDirectory(directory, limit: maxPlaylists * 2) { name, _ in
                name.hasSuffix(MPDStoredPlaylists.suffix)
            }.entries
        } catch {
            Log.error("mpd: stored playlists: \(error)")
            return []
        }
        var result: [Info] = []
        for entry in entries where entry.nameIsValidUTF8 && entry.name.hasSuffix(MPDStoredPlaylists.suffix) {
            guard let metadata = entry.metadata, metadata.kind == .regular else { continue }
            let name = String(entry.name.dropLast(MPDStoredPlaylists.suffix.count))
            guard (try? MPDStoredPlaylists.check(name: name)) != nil else { continue }
            result.append(Info(name: name, modificationTime: metadata.modificationTime, bytes: metadata.size))
        }
        return result.sorted { $0.name < $1.name }
    }

    func exists(_ name: String) -> Bool { Syscalls.exists(path(name)) }

    /// The songs' URIs of the saved playlist `name` (at most `maxLength`), nil when there is none.
    func load(_ name: String) throws(MPDError) -> [String]? {
        let bytes: [UInt8]
        do throws(Errno) {
            bytes = try Syscalls.readFile(path(name), limit: maxFileBytes)
        } catch {
            if error.rawValue == ENOENT { return nil }
            throw MPDError(.system, "\(error)")
        }
        var uris: [String] = []
        for line in bytes.split(separator: 0x0A) where uris.count < maxLength {
            var text = String(decoding: line, as: UTF8.self)
            if text.hasSuffix("\r") { text.removeLast() }
            if text.isEmpty || text.hasPrefix("#") { continue }
            uris.append(text)
        }
        return uris
    }

    /// Writes `uris` as the playlist `name`; a new one only while fewer than `maxPlaylists` exist,
    /// and only a file `load` can read back (`maxFileBytes`) that keeps the directory within
    /// `maxTotalBytes` (counting the file it replaces as gone).
    func write(_ name: String, _ uris: [String]) throws(MPDError) {
        guard uris.count <= maxLength else { throw MPDError(.playlistMax, "Stored playlist is too large") }
        var bytes = 0
        for uri in uris { bytes += uri.utf8.count + 1 }
        guard bytes <= maxFileBytes else {
            throw MPDError(.playlistMax, "Stored playlist is too large (\(bytes) bytes; at most \(maxFileBytes))")
        }
        let saved = list()
        if !saved.contains(where: { $0.name == name }) && saved.count >= maxPlaylists {
            throw MPDError(.playlistMax, "Too many stored playlists (at most \(maxPlaylists))")
        }
        let others = saved.reduce(Int64(0)) { $1.name == name ? $0 : $0 + $1.bytes }
        guard others + Int64(bytes) <= Int64(maxTotalBytes) else {
            throw MPDError(
                .playlistMax, "Stored playlists are too large (at most \(maxTotalBytes) bytes in all)")
        }
        var text = ""
        text.reserveCapacity(bytes)
        for uri in uris {
            text += uri
            text += "\n"
        }
        do {
            try Syscalls.mkdirs(directory)
            try AtomicFile.replace(path(name), with: text)
        } catch {
            throw MPDError(.system, "\(error)")
        }
    }

    func delete(_ name: String) throws(MPDError) {
        do throws(Errno) {
            try Syscalls.unlink(path(name))
        } catch {
            if error.rawValue == ENOENT { throw .noExist("No such playlist") }
            throw MPDError(.system, "\(error)")
        }
    }

    func rename(_ from: String, to: String) throws(MPDError) {
        do throws(Errno) {
            try Syscalls.rename(path(from), path(to))
        } catch {
            if error.rawValue == ENOENT { throw .noExist("No such playlist") }
            throw MPDError(.system, "\(error)")
        }
    }
}
