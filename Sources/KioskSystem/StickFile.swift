// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import Glibc

/// The one way to open a file a stick names: `exhibit.json`, the staff marker, playlists, cover
/// images, music files. A stick is untrusted: it may hold FIFOs (ext4 carries them and `nodev`
/// does not stop them), sockets, links to `/dev/zero` or out of the volume to the state directory.
///
/// - A path inside a volume is resolved beneath the volume's directory descriptor, with no
///   symbolic link on the way: `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
///   RESOLVE_NO_MAGICLINKS)` where the kernel has it (Linux 5.6+), else a walk of `openat`s, one
///   per component, with `O_NOFOLLOW` (`O_DIRECTORY` for the folders).
/// - The file is opened `O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC`: opening a FIFO does not
///   wait for a writer, a link is not followed. `fstat` must then say regular file (else the error
///   names the file and what it is), and its size must be within the caller's cap; reads stop at
///   the cap too (the file may grow).
/// - A name written in Windows-1252 on disk opens as `Syscalls.open` opens it (`DiskName`).
///
/// Errors are `Errno`s whose context names the file and, for a refused kind, whose `reason` says
/// what it is ("a FIFO, not a regular file"). ENOENT stays ENOENT: a missing file is no attack.
///
/// Thread: any (no state). It reads storage: keep it off the loop thread, except for the small
/// capped files read there at a stick's arrival (`exhibit.json`, the staff marker), which a
/// regular-file-only open cannot make wait for more than their bytes.
public enum StickFile {
    /// How a path beneath a volume is resolved.
    public enum Resolution: Sendable {
        /// `openat2` where the kernel has it; the walk where it says ENOSYS.
        case automatic
        /// Component by component with `openat`, as kernels before 5.6 get: tests choose it so that
        /// the fallback is covered on a kernel that has `openat2`.
        case walk
    }

    /// The flags of every open of a stick file: no waiting for a FIFO's writer, no link followed.
    static let readFlags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC

    /// Opens the volume's own directory (its mount point, which the system made: not the stick's
    /// to choose), the root that `open(_:beneath:)` resolves from.
    public static func openVolume(_ volumePath: String) throws(Errno) -> FileDescriptor {
        FileDescriptor(owning: try Syscalls.open(volumePath, O_RDONLY | O_DIRECTORY))
    }

    /// Opens `relativePath` (relative to the volume, no leading `/`) beneath `volume`, a regular
    /// file of at most `limit` bytes. `volumePath` is only for messages and legacy names.
    public static func open(
        _ relativePath: String, beneath volume: borrowing FileDescriptor, volumePath: String, limit: Int,
        resolution: Resolution = .automatic
    ) throws(Errno) -> FileDescriptor {
        let shown = join(volumePath, relativePath)
        let bytes = Array(relativePath.utf8)
        if let problem = pathProblem(bytes) {
            throw Errno(rawValue: EXDEV, context: "open \(shown)", reason: problem)
        }
        let rc: Int32
        do {
            rc = try openBeneath(volume.rawValue, bytes, resolution: resolution)
        } catch {
            guard error.rawValue == ENOENT || error.rawValue == ENOTDIR,
                let legacy = legacyRelative(volumePath, relativePath)
            else { throw refusal(error.rawValue, volume: volume.rawValue, bytes, shown: shown) }
            do {
                rc = try openBeneath(volume.rawValue, legacy, resolution: resolution)
            } catch {
                throw refusal(error.rawValue, volume: volume.rawValue, legacy, shown: shown)
            }
        }
        let file = FileDescriptor(owning: rc)
        try check(file, shown: shown, limit: limit)
        return file
    }

    /// `open(_:beneath:volumePath:)` with the volume's directory opened for this one file.
    public static func open(
        _ relativePath: String, beneath volumePath: String, limit: Int, resolution: Resolution = .automatic
    ) throws(Errno) -> FileDescriptor {
        let volume = try openVolume(volumePath)
        return try open(relativePath, beneath: volume, volumePath: volumePath, limit: limit, resolution: resolution)
    }

    /// The bytes of `relativePath` beneath the volume at `volumePath`: a regular file of at most
    /// `limit` bytes.
    public static func read(
        _ relativePath: String, beneath volumePath: String, limit: Int, resolution: Resolution = .automatic
    ) throws(Errno) -> [UInt8] {
        let file = try open(relativePath, beneath: volumePath, limit: limit, resolution: resolution)
        return try readAll(file, shown: join(volumePath, relativePath), limit: limit)
    }

    /// The bytes of `path`, an absolute path inside the volume at `volumePath` (a cover file the
    /// catalog named): as `read(_:beneath:)`, and EXDEV when it does not lie inside the volume.
    public static func read(path: String, inVolume volumePath: String, limit: Int) throws(Errno) -> [UInt8] {
        guard let relative = relativePath(of: path, inVolume: volumePath) else {
            throw Errno(rawValue: EXDEV, context: "open \(path)", reason: "not inside the volume \(volumePath)")
        }
        return try read(relative, beneath: volumePath, limit: limit)
    }

    /// Opens a music file by its path where the volume's descriptor is not at hand (the decoders,
    /// the tag readers): `O_NONBLOCK`, and a regular file by `fstat`, at most `limit` bytes. A
    /// link is followed here: the walker lists a link only when its target is a file inside the
    /// volume (the catalog's tracks may be such links), and what it reaches must still be a
    /// regular file, so a FIFO or `/dev/zero` behind it is refused without a wait.
    public static func openMusic(_ path: String, limit: Int = .max) throws(Errno) -> FileDescriptor {
        let file = FileDescriptor(owning: try Syscalls.open(path, O_RDONLY | O_NONBLOCK))
        try check(file, shown: path, limit: limit)
        return file
    }

    /// What `mode` says a file is when that is not a regular file ("a FIFO"), nil for a regular file.
    public static func kindName(_ mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: nil
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFLNK: "a symbolic link"
        default: "not a regular file"
        }
    }

    /// `path` relative to `volumePath`, nil when it does not lie inside it.
    public static func relativePath(of path: String, inVolume volumePath: String) -> String? {
        let root = volumePath.hasSuffix("/") ? volumePath : volumePath + "/"
        guard path.hasPrefix(root), path.count > root.count else { return nil }
        return String(path.dropFirst(root.count))
    }

    // MARK: - the steps

    /// Why a stick's path cannot name a file inside the volume (absolute, empty, a `..`), or nil.
    /// `..` is refused outright rather than resolved: paths from the catalog never hold one, and
    /// the walk then needs no account of where it is.
    static func pathProblem(_ bytes: [UInt8]) -> String? {
        if bytes.isEmpty || bytes.contains(0) { return "not a file name" }
        if bytes.first == UInt8(ascii: "/") { return "an absolute path, not one inside the volume" }
        let dotDot = bytes.split(separator: UInt8(ascii: "/")).contains { $0.elementsEqual([0x2E, 0x2E]) }
        return dotDot ? "a path with '..', which could lead out of the volume" : nil
    }

    /// One open of `bytes` beneath `dirfd` with `readFlags`.
    private static func openBeneath(_ dirfd: Int32, _ bytes: [UInt8], resolution: Resolution) throws(Errno) -> Int32 {
        if resolution == .automatic {
            do {
                return try Syscalls.retrying("openat2") {
                    cString(bytes) { kiosk_openat2_beneath(dirfd, $0, readFlags) }
                }
            } catch {
                // ENOSYS: a kernel before 5.6. EPERM: a seccomp filter that does not know openat2
                // (the unit's SystemCallErrorNumber=EPERM); an open itself says EACCES, not EPERM.
                if error.rawValue != ENOSYS && error.rawValue != EPERM { throw error }
            }
        }
        return try walk(dirfd, bytes)
    }

    /// The fallback of `openat2`: each folder opened `O_DIRECTORY | O_NOFOLLOW` in the one before
    /// it, the file in the last.
    private static func walk(_ dirfd: Int32, _ bytes: [UInt8]) throws(Errno) -> Int32 {
        let components = bytes.split(separator: UInt8(ascii: "/")).filter { !$0.elementsEqual([0x2E]) }
        guard let last = components.last else { throw Errno(rawValue: EISDIR) }
        var folder = FileDescriptor.invalid
        for component in components.dropLast() {
            let parent = folder.isValid ? folder.rawValue : dirfd
            do {
                let next = try Syscalls.retrying("openat") {
                    cString(Array(component)) {
                        kiosk_openat(parent, $0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0)
                    }
                }
                folder = FileDescriptor(owning: next)
            } catch {
                // A link where a folder should be: O_NOFOLLOW with O_DIRECTORY may say ENOTDIR;
                // say ELOOP, as openat2's RESOLVE_NO_SYMLINKS does.
                if error.rawValue == ENOTDIR && isLink(parent, Array(component)) { throw Errno(rawValue: ELOOP) }
                throw error
            }
        }
        let parent = folder.isValid ? folder.rawValue : dirfd
        return try Syscalls.retrying("openat") { cString(Array(last)) { kiosk_openat(parent, $0, readFlags, 0) } }
    }

    /// Whether `name` in `dirfd` is a symbolic link (`fstatat` without following it).
    private static func isLink(_ dirfd: Int32, _ name: [UInt8]) -> Bool {
        var st = stat()
        return cString(name) { fstatat(dirfd, $0, &st, AT_SYMLINK_NOFOLLOW) } == 0 && st.st_mode & S_IFMT == S_IFLNK
    }

    /// The error for a failed open of `bytes`, naming the file and, where the kernel's word would
    /// mislead, what it is. `fstatat` only looks (it never opens, so it cannot block).
    private static func refusal(_ e: Int32, volume: Int32, _ bytes: [UInt8], shown: String) -> Errno {
        let context = "open \(shown)"
        var st = stat()
        let looked = cString(bytes) { fstatat(volume, $0, &st, AT_SYMLINK_NOFOLLOW) } == 0
        switch e {
        case ELOOP:
            let reason =
                looked && st.st_mode & S_IFMT == S_IFLNK
                ? "a symbolic link; links on a stick are not followed"
                : "lies under a symbolic link; links on a stick are not followed"
            return Errno(rawValue: ELOOP, context: context, reason: reason)
        case EXDEV:
            return Errno(rawValue: EXDEV, context: context, reason: "leads out of the volume")
        case ENXIO, EACCES, EPERM, ENODEV:
            // A socket cannot be opened (ENXIO); a device node on a `nodev` mount neither (EACCES).
            if looked, let kind = kindName(st.st_mode) {
                return Errno(rawValue: e, context: context, reason: "\(kind), not a regular file")
            }
            return Errno(rawValue: e, context: context)
        default:
            return Errno(rawValue: e, context: context)
        }
    }

    /// Throws unless `file` is a regular file of at most `limit` bytes.
    private static func check(_ file: borrowing FileDescriptor, shown: String, limit: Int) throws(Errno) {
        let st = try Syscalls.fileStatus(fd: file.rawValue)
        if let kind = kindName(st.st_mode) {
            let e = st.st_mode & S_IFMT == S_IFDIR ? EISDIR : EINVAL
            throw Errno(rawValue: e, context: "open \(shown)", reason: "\(kind), not a regular file")
        }
        if Int64(st.st_size) > Int64(limit) {
            throw Errno(
                rawValue: EFBIG, context: "open \(shown)", reason: "\(st.st_size) bytes, over the \(limit)-byte limit")
        }
    }

    /// Reads `file` to its end, at most `limit` bytes (a file that grew past it is an error).
    private static func readAll(_ file: borrowing FileDescriptor, shown: String, limit: Int) throws(Errno) -> [UInt8] {
        do {
            return try file.readAll(limit: limit)
        } catch {
            if error.rawValue == EFBIG {
                throw Errno(rawValue: EFBIG, context: "read \(shown)", reason: "more than the \(limit)-byte limit")
            }
            throw error.with("read \(shown)")
        }
    }

    /// The bytes beneath `volumePath` that name `relativePath` when some of its components are
    /// written in Windows-1252 on disk (`DiskName.legacyPath`), nil when there are none.
    private static func legacyRelative(_ volumePath: String, _ relativePath: String) -> [UInt8]? {
        guard let legacy = DiskName.legacyPath(join(volumePath, relativePath)) else { return nil }
        let prefix = Array(volumePath.utf8) + (volumePath.hasSuffix("/") ? [] : [UInt8(ascii: "/")])
        let bytes = legacy.dropLast().map { UInt8(bitPattern: $0) }
        guard bytes.starts(with: prefix) else { return nil }
        return Array(bytes.dropFirst(prefix.count))
    }

    private static func join(_ volumePath: String, _ relativePath: String) -> String {
        volumePath.hasSuffix("/") ? volumePath + relativePath : volumePath + "/" + relativePath
    }

    /// Calls `body` with `bytes` NUL-terminated.
    private static func cString<T>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>) -> T) -> T {
        (bytes.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    // MARK: - writing

    /// The one way to write a file onto a stick: `name` (one file name, no `/`) in the volume's
    /// top folder replaced by `contents`. A temporary file is created `O_CREAT | O_EXCL |
    /// O_NOFOLLOW` in the folder's descriptor (so no link or leftover file of that name is ever
    /// opened: a new random name is tried instead), written, fsync'd, renamed over `name` with
    /// `renameat` (which replaces a link of that name, never its target) and the folder fsync'd.
    /// A failure removes the temporary file. Thread: any but the loop thread (it waits for the stick).
    public static func replace(_ name: String, inVolume volumePath: String, with contents: [UInt8]) throws(Errno) {
        let shown = join(volumePath, name)
        let nameBytes = Array(name.utf8)
        if nameBytes.contains(UInt8(ascii: "/")) || pathProblem(nameBytes) != nil {
            throw Errno(
                rawValue: EINVAL, context: "write \(shown)", reason: "not a file name in the volume's top folder")
        }
        let folder = try openVolume(volumePath)
        var temporary = ""
        var created = FileDescriptor.invalid
        for _ in 0..<8 {
            temporary = ".\(name).\(String(UInt32.random(in: 0...UInt32.max), radix: 16)).tmp"
            do {
                created = FileDescriptor(
                    owning: try Syscalls.openat(
                        folder.rawValue, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o644))
                break
            } catch {
                if error.rawValue != EEXIST { throw error.with("create \(join(volumePath, temporary))") }
            }
        }
        guard created.isValid else {
            throw Errno(rawValue: EEXIST, context: "create a temporary file for \(shown)")
        }
        do throws(Errno) {
            do { try created.writeAll(contents) } catch { throw error.with("write \(join(volumePath, temporary))") }
            do { try Syscalls.fsync(created.rawValue) } catch {
                throw error.with("fsync \(join(volumePath, temporary))")
            }
            _ = consume created
            try Syscalls.renameat(folder.rawValue, temporary, folder.rawValue, name)
        } catch {
            Syscalls.unlinkatIgnoringErrors(folder.rawValue, temporary)
            throw error.with("write \(shown)")
        }
        // Some file systems refuse fsync on a folder (EINVAL): the rename is then as durable as it gets.
        _ = try? Syscalls.fsync(folder.rawValue)
    }
}
