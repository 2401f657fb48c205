// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem

/// The box's music folder as the phone page changes it: files uploaded in pieces (an upload cut
/// off goes on from where it stopped), what a folder holds, deletions. It decides what may be
/// written and where; `PhoneAPI` only carries requests to it.
///
/// - A name from the phone is sanitised, not trusted: each part of the path has its control
///   characters dropped and `\ : * ? " < > |` made `_` (names a FAT stick takes too), spaces and
///   dots trimmed at the ends; a part that is then empty, `.`, `..` or starts with a dot (hidden),
///   longer than 200 bytes, or a path deeper than `maxDepth`, is refused. So a path names a place
///   beneath the folder by its letters alone, before anything is looked up.
/// - Every folder on the way must be a real folder (`lstat`: a symbolic link is refused), and the
///   page's unit may write nowhere else (ReadWritePaths in kiosk-web.service).
/// - Only what the player plays (`AudioFileFormat.musicSuffixes`, then the content: the first
///   bytes must be one of its formats) and cover pictures (`cover.jpg`, …, JPEG or PNG) are taken,
///   at most `maxFileBytes` each, and only while the folder's file system keeps `reserveBytes` free
///   after the file: the box's state and logs share that partition.
/// - Pieces go to `.kiosk-uploads/<id>.part` in the folder (hidden, so the library walk skips it),
///   each written where the last one ended; the whole file is synced and then linked to its name
///   (`link`: never over an existing file) and the part removed. A reader never sees half a file.
///   Parts left alone for `staleSeconds` are removed when the next upload begins.
///
/// Thread: any; the server calls it from a thread per connection. It keeps no state of its own
/// but the files (an upload's id names its part file), so two requests for one upload race only
/// as two writers of one file at one offset do: the second finds the size changed and is told
/// where the file now ends.
public struct MusicFolder: Sendable {
    public let root: String
    public let maxFileBytes: Int64
    public var reserveBytes: Int64 = 64 << 20
    public var maxDepth = 4
    public var staleSeconds: Int64 = 2 * 86_400
    /// At most this many entries are listed or deleted in one folder.
    public var maxEntries = 5000
    static let partsFolder = ".kiosk-uploads"
    static let coverNames: Set<String> = ["cover", "folder", "front", "album"]

    public init(root: String, maxFileBytes: Int64) {
        self.root = root
        self.maxFileBytes = maxFileBytes
    }

    /// Why a request cannot be done, said so that a parent understands it.
    public enum Problem: Error, Equatable, CustomStringConvertible {
        case badName(String)
        case notTaken(String)
        case tooLarge(limit: Int64)
        case noSpace(free: Int64)
        case exists(String)
        case wrongOffset(expected: Int64)
        case unknownUpload
        case notFound(String)
        case notMusic(String)
        case failed(String)

        public var description: String {
            switch self {
            case .badName(let why): "not a name the box takes: \(why)"
            case .notTaken(let name): "\(name): the box plays FLAC, MP3, Ogg Vorbis, Opus, WAV, AIFF and MP4/M4A files"
            case .tooLarge(let limit): "the file is larger than the box takes (\(limit >> 20) MiB)"
            case .noSpace(let free): "not enough free space on the box (\(free >> 20) MiB free)"
            case .exists(let path): "\(path) is on the box already"
            case .wrongOffset(let expected): "the upload continues at byte \(expected)"
            case .unknownUpload: "no such upload: begin it again"
            case .notFound(let path): "\(path) is not on the box"
            case .notMusic(let name): "\(name) is not a music file the box plays (its content is something else)"
            case .failed(let why): why
            }
        }
    }

    /// One upload's state: where it goes and how much has arrived.
    public struct Upload: Equatable, Sendable {
        public var id: String
        public var path: String
        public var size: Int64
        public var received: Int64
        /// True once the file is in its place.
        public var complete: Bool
    }

    /// An entry of a folder listing.
    public struct Entry: Equatable, Sendable {
        public var name: String
        public var isFolder: Bool
        public var size: Int64
    }

    // MARK: - names

    /// The parts of `path` made safe (see the type's doc), or why not.
    public func sanitized(_ path: String, isFile: Bool = true) throws(Problem) -> [String] {
        let raw = path.split(separator: "/", omittingEmptySubsequences: true)
        guard !raw.isEmpty || !isFile else { throw .badName("no name") }
        guard raw.count <= maxDepth + (isFile ? 1 : 0) else {
            throw .badName("more than \(maxDepth) folders deep")
        }
        var parts: [String] = []
        for piece in raw {
            var scalars = String.UnicodeScalarView()
            for s in piece.unicodeScalars where s.value >= 0x20 && s.value != 0x7F && !(0x80...0x9F).contains(s.value) {
                scalars.append("\\:*?\"<>|".unicodeScalars.contains(s) ? "_" : s)
            }
            var part = String(scalars)
            while let last = part.last, last == " " || last == "." { part.removeLast() }
            while let first = part.first, first == " " { part.removeFirst() }
            guard !part.isEmpty, part != ".", part != ".." else { throw .badName("an empty part or '..'") }
            guard !part.hasPrefix(".") else { throw .badName("\(part): hidden names are not taken") }
            guard part.utf8.count <= 200 else { throw .badName("a name longer than 200 bytes") }
            parts.append(part)
        }
        return parts
    }

    /// What a file name is: music, a cover picture, or neither.
    enum FileKind { case music, cover, other }

    static func kind(of name: String) -> FileKind {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return .other }
        let ext = name[name.index(after: dot)...].lowercased()
        if AudioFileFormat.musicSuffixes.contains(ext) { return .music }
        if ["jpg", "jpeg", "png"].contains(ext), coverNames.contains(name[..<dot].lowercased()) { return .cover }
        return .other
    }

    // MARK: - uploads

    /// Begins (or, with the same session, path and size, goes on with) an upload: checks the name,
    /// the kind, the size and the free space, and says how much of it has arrived.
    public func begin(path: String, size: Int64, session: String) throws(Problem) -> Upload {
        let parts = try sanitized(path)
        let name = parts.last!
        let kind = Self.kind(of: name)
        guard kind != .other else { throw .notTaken(name) }
        let limit = kind == .cover ? min(maxFileBytes, 16 << 20) : maxFileBytes
        guard size > 0, size <= limit else {
            if size <= 0 { throw .notMusic(name) }
            throw .tooLarge(limit: limit)
        }
        let clean = parts.joined(separator: "/")
        if (try? Syscalls.linkStatus(full(clean))) != nil { throw .exists(clean) }
        try checkFolders(Array(parts.dropLast()), creating: false)
        let id = Self.uploadID(session: session, path: clean, size: size)
        try ensurePartsFolder()
        removeStaleParts()
        let received = Int64((try? Syscalls.linkStatus(partPath(id)).st_size) ?? 0)
        let free = freeBytes()
        guard free - (size - received) >= reserveBytes else { throw .noSpace(free: free) }
        return Upload(id: id, path: clean, size: size, received: received, complete: false)
    }

    /// Writes `bytes` at `offset` of upload `upload` (from `begin`); the last piece puts the file in
    /// its place. A piece at another offset than where the part ends is refused with that offset.
    public func append(_ upload: Upload, offset: Int64, bytes: [UInt8]) throws(Problem) -> Upload {
        var upload = upload
        let part = partPath(upload.id)
        let fd: Int32
        do {
            fd = try Syscalls.open(part, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, mode: 0o600)
        } catch {
            throw .failed("the upload could not be written: \(error)")
        }
        defer { Syscalls.closeIgnoringErrors(fd) }
        let st: stat
        do { st = try Syscalls.fileStatus(fd: fd) } catch { throw .failed("\(error)") }
        guard st.st_mode & S_IFMT == S_IFREG else { throw .failed("\(part) is not a regular file") }
        guard offset == Int64(st.st_size) else { throw .wrongOffset(expected: Int64(st.st_size)) }
        guard offset + Int64(bytes.count) <= upload.size else {
            throw .failed("more bytes than the upload's size (\(upload.size))")
        }
        let free = freeBytes()
        guard free - Int64(bytes.count) >= reserveBytes else { throw .noSpace(free: free) }
        do {
            var written = 0
            while written < bytes.count {
                written += try bytes.withUnsafeBytes { raw in
                    try Syscalls.pwrite(
                        fd, UnsafeRawBufferPointer(rebasing: raw[written...]), offset: offset + Int64(written))
                }
            }
        } catch {
            // A short write leaves the part where it ended; the next piece is told that offset.
            throw .failed("the upload could not be written: \(error)")
        }
        upload.received = offset + Int64(bytes.count)
        guard upload.received == upload.size else { return upload }
        try finish(upload, fd: fd)
        upload.complete = true
        return upload
    }

    /// The whole file has arrived: its content checked, synced, linked to its name, the part gone.
    private func finish(_ upload: Upload, fd: Int32) throws(Problem) {
        let part = partPath(upload.id)
        let parts = upload.path.split(separator: "/").map(String.init)
        let name = parts.last!
        var head = [UInt8](repeating: 0, count: AudioFileFormat.sniffBytes)
        let count =
            (try? head.withUnsafeMutableBytes { raw in try Syscalls.pread(fd, raw, offset: 0) }) ?? 0
        head.removeSubrange(count...)
        if !Self.contentMatches(name, head: head, fd: fd) {
            Syscalls.unlinkatIgnoringErrors(AT_FDCWD, part)
            throw .notMusic(name)
        }
        try checkFolders(Array(parts.dropLast()), creating: true)
        do throws(Errno) {
            try Syscalls.fsync(fd)
            try Syscalls.link(part, full(upload.path))
        } catch {
            if error.rawValue == EEXIST {
                Syscalls.unlinkatIgnoringErrors(AT_FDCWD, part)
                throw .exists(upload.path)
            }
            throw .failed("\(upload.path) could not be put in place: \(error)")
        }
        try? Syscalls.chmod(full(upload.path), 0o644)
        Syscalls.unlinkatIgnoringErrors(AT_FDCWD, part)
        syncFolder(full(parts.dropLast().joined(separator: "/")))
    }

    /// Whether the first bytes are what the name says: a format the player plays for music (after
    /// an ID3v2 tag, read where it ends), JPEG or PNG for a cover.
    static func contentMatches(_ name: String, head: [UInt8], fd: Int32) -> Bool {
        switch kind(of: name) {
        case .music:
            let tag = AudioFileFormat.id3v2Length(head)
            guard tag > 0 else { return AudioFileFormat.sniff(head) != nil }
            var after = [UInt8](repeating: 0, count: AudioFileFormat.sniffBytes)
            let count =
                (try? after.withUnsafeMutableBytes { raw in try Syscalls.pread(fd, raw, offset: Int64(tag)) }) ?? 0
            return count > 0 && AudioFileFormat.sniff(after[..<count]) != nil
        case .cover:
            return head.starts(with: [0xFF, 0xD8, 0xFF]) || head.starts(with: [0x89, 0x50, 0x4E, 0x47])
        case .other:
            return false
        }
    }

    /// An upload's id: the same for the same phone, path and size, so that a phone that lost its
    /// place (a reload, a dropped connection) finds the part again.
    static func uploadID(session: String, path: String, size: Int64) -> String {
        let a = CRC32.checksum(Array("\(session)\u{0}\(path)".utf8))
        let b = CRC32.checksum(Array("\(path)\u{0}\(size)".utf8))
        return hex(a) + hex(b) + "-\(size)"
    }

    private static func hex(_ v: UInt32) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: 8 - s.count) + s
    }

    /// The upload `id` of this session to `path` (a piece's request carries both): the id must be
    /// the one `begin` gave this session for this path, so no phone writes into another's upload.
    public func upload(id: String, path: String, session: String) throws(Problem) -> Upload {
        guard id.utf8.count <= 40, let dash = id.firstIndex(of: "-"), let size = Int64(id[id.index(after: dash)...])
        else { throw .unknownUpload }
        let clean = try sanitized(path).joined(separator: "/")
        guard id == Self.uploadID(session: session, path: clean, size: size) else { throw .unknownUpload }
        let received = Int64((try? Syscalls.linkStatus(partPath(id)).st_size) ?? 0)
        return Upload(id: id, path: clean, size: size, received: received, complete: false)
    }

    // MARK: - listing and deleting

    /// The folders and the files the player or the page care about in `folder` ("" is the root),
    /// folders first, by name.
    public func list(_ folder: String) throws(Problem) -> [Entry] {
        let parts = try sanitized(folder, isFile: false)
        let clean = parts.joined(separator: "/")
        try checkFolders(parts, creating: false, mustExist: true)
        let read: [DirectoryEntry]
        do {
            read = try Syscalls.readDirectory(full(clean), limit: maxEntries, wantsMetadata: { _, _ in true }).entries
        } catch {
            throw .failed("\(clean.isEmpty ? "the music folder" : clean) could not be read: \(error)")
        }
        var entries: [Entry] = []
        for e in read where !e.name.hasPrefix(".") && e.nameIsValidUTF8 {
            guard let m = e.metadata else { continue }
            if m.kind == .directory {
                entries.append(Entry(name: e.name, isFolder: true, size: 0))
            } else if m.kind == .regular, Self.kind(of: e.name) != .other {
                entries.append(Entry(name: e.name, isFolder: false, size: m.size))
            }
        }
        return entries.sorted { ($0.isFolder ? 0 : 1, $0.name) < ($1.isFolder ? 0 : 1, $1.name) }
    }

    /// Deletes a music or cover file, or a folder with what it holds when that is only music,
    /// covers and such folders (anything else — a document, a link — and nothing is deleted).
    public func delete(_ path: String) throws(Problem) {
        let parts = try sanitized(path)
        let clean = parts.joined(separator: "/")
        try checkFolders(Array(parts.dropLast()), creating: false, mustExist: true)
        let st: stat
        do { st = try Syscalls.linkStatus(full(clean)) } catch { throw .notFound(clean) }
        if st.st_mode & S_IFMT == S_IFDIR {
            var files: [String] = []
            var folders: [String] = []
            try collect(clean, files: &files, folders: &folders, depth: parts.count)
            do {
                for f in files { try Syscalls.unlink(full(f)) }
                for d in folders.reversed() { try Syscalls.removeDirectory(full(d)) }
                try Syscalls.removeDirectory(full(clean))
            } catch {
                throw .failed("\(clean) could not be deleted whole: \(error)")
            }
        } else {
            guard st.st_mode & S_IFMT == S_IFREG, Self.kind(of: parts.last!) != .other else {
                throw .notMusic(parts.last!)
            }
            do { try Syscalls.unlink(full(clean)) } catch { throw .failed("\(clean) could not be deleted: \(error)") }
        }
        syncFolder(full(parts.dropLast().joined(separator: "/")))
    }

    private func collect(_ folder: String, files: inout [String], folders: inout [String], depth: Int) throws(Problem) {
        guard depth <= maxDepth + 1 else { throw .failed("\(folder) holds folders too deep to delete from the page") }
        let read: (entries: [DirectoryEntry], truncated: Bool)
        do {
            read = try Syscalls.readDirectory(full(folder), limit: maxEntries, wantsMetadata: { _, _ in true })
        } catch { throw .failed("\(folder) could not be read: \(error)") }
        for e in read.entries {
            let path = folder + "/" + e.name
            guard let m = e.metadata, files.count + folders.count < maxEntries else {
                throw .failed("\(folder) holds too much to delete from the page")
            }
            if m.kind == .directory {
                folders.append(path)
                try collect(path, files: &files, folders: &folders, depth: depth + 1)
            } else if m.kind == .regular && Self.kind(of: e.name) != .other {
                files.append(path)
            } else {
                throw .failed("\(path) is not music: delete \(folder) on a computer")
            }
        }
    }

    // MARK: - the file system

    /// Space left for uploads on the folder's file system (what an unprivileged writer may use).
    public func freeBytes() -> Int64 {
        (try? Syscalls.availableBytes(root)) ?? 0
    }

    private func full(_ relative: String) -> String { relative.isEmpty ? root : root + "/" + relative }

    private func partPath(_ id: String) -> String { root + "/" + Self.partsFolder + "/" + id + ".part" }

    /// Each folder of `parts` (beneath the root) is a real folder, not a link; missing ones are made
    /// when `creating` (group-writable and set-group-ID, so the player's group keeps them shared).
    private func checkFolders(_ parts: [String], creating: Bool, mustExist: Bool = false) throws(Problem) {
        var path = root
        for part in [""] + parts {
            if !part.isEmpty { path += "/" + part }
            if let st = try? Syscalls.linkStatus(path) {
                guard st.st_mode & S_IFMT == S_IFDIR else {
                    throw .failed("\(path) is not a folder (a link or a file is in the way)")
                }
            } else if creating && !part.isEmpty {
                do {
                    try Syscalls.mkdir(path, mode: 0o2775)
                    try Syscalls.chmod(path, 0o2775)
                } catch { throw .failed("\(path) could not be made: \(error)") }
            } else if mustExist || part.isEmpty {
                if part.isEmpty { throw .failed("the music folder \(root) is not there") }
                throw .notFound(path)
            }
        }
    }

    private func ensurePartsFolder() throws(Problem) {
        let path = root + "/" + Self.partsFolder
        if let st = try? Syscalls.linkStatus(path) {
            guard st.st_mode & S_IFMT == S_IFDIR else { throw .failed("\(path) is not a folder") }
            return
        }
        do { try Syscalls.mkdir(path, mode: 0o700) } catch { throw .failed("\(path) could not be made: \(error)") }
    }

    /// Removes parts nobody continued for `staleSeconds`.
    private func removeStaleParts() {
        let folder = root + "/" + Self.partsFolder
        guard let read = try? Syscalls.readDirectory(folder, limit: maxEntries, wantsMetadata: { _, _ in true }) else {
            return
        }
        let now = Int64(Syscalls.realtimeNanoseconds())
        for e in read.entries where e.name.hasSuffix(".part") {
            if let m = e.metadata, (now - m.modificationTime) / 1_000_000_000 > staleSeconds {
                Syscalls.unlinkatIgnoringErrors(AT_FDCWD, folder + "/" + e.name)
            }
        }
    }

    /// A folder's new or removed names made durable (a power cut after "uploaded" keeps the file).
    private func syncFolder(_ path: String) {
        guard let fd = try? Syscalls.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) else { return }
        try? Syscalls.fsync(fd)
        Syscalls.closeIgnoringErrors(fd)
    }
}
