// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskModel
import KioskSystem

/// One line of /proc/self/mountinfo that lies under a media root. Thread: any (a value).
public struct MountedVolume: Sendable, Hashable {
    /// Where it is mounted (octal escapes decoded).
    public let mountPoint: String
    /// The mounted device or source, e.g. `/dev/sda1`, `tmpfs`.
    public let source: String
    public let fileSystemType: String
    /// The folder of the file system that is mounted there (`/` for a whole file system; a
    /// bind mount shows the subtree).
    public let root: String
    /// `major:minor` of the file system (`st_dev`).
    public let device: String
}

/// Parses /proc/self/mountinfo (see proc(5)).
enum MountInfo {
    static func parse(_ text: String) -> [MountedVolume] {
        var result: [MountedVolume] = []
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            // id parent major:minor root mountpoint options [optional…] - fstype source superoptions
            guard fields.count >= 7, let dash = fields.firstIndex(of: "-"), dash >= 6, dash + 2 < fields.count
            else { continue }
            result.append(
                MountedVolume(
                    mountPoint: unescape(fields[4]), source: unescape(fields[dash + 2]),
                    fileSystemType: String(fields[dash + 1]), root: unescape(fields[3]), device: String(fields[2])))
        }
        return result
    }

    /// `\040` (space), `\011` (tab), `\012` (newline), `\134` (backslash) → the characters.
    static func unescape(_ field: Substring) -> String {
        guard field.contains("\\") else { return String(field) }
        var bytes: [UInt8] = []
        let utf8 = Array(field.utf8)
        var i = 0
        while i < utf8.count {
            if utf8[i] == UInt8(ascii: "\\"), i + 3 < utf8.count {
                let digits = utf8[(i + 1)...(i + 3)]
                if digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x37 }) {
                    let value = digits.reduce(0) { $0 * 8 + Int($1 - 0x30) }
                    if value < 256 {
                        bytes.append(UInt8(value))
                        i += 4
                        continue
                    }
                }
            }
            bytes.append(utf8[i])
            i += 1
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Kernel file systems that never hold music (an `autofs` entry is an automount placeholder
    /// that the real mount replaces).
    static let virtualFileSystems: Set<String> = [
        "autofs", "proc", "sysfs", "devtmpfs", "devpts", "cgroup", "cgroup2", "securityfs", "debugfs", "tracefs",
        "configfs", "fusectl", "binfmt_misc", "mqueue", "pstore", "bpf", "efivarfs", "hugetlbfs", "nsfs",
    ]

    /// Whether `mountPoint` is one of `roots` or lies below one.
    static func isUnder(_ mountPoint: String, roots: [String]) -> Bool {
        roots.contains { root in
            let r = root.count > 1 && root.hasSuffix("/") ? String(root.dropLast()) : root
            return mountPoint == r || mountPoint.hasPrefix(r == "/" ? "/" : r + "/")
        }
    }
}

/// Watches /proc/self/mountinfo for volumes mounted under the media roots and reports them as
/// they come and go.
///
/// The kernel flags a mount-table change as an exceptional condition on the open mountinfo file
/// (`EPOLLPRI`/`EPOLLERR`); the loop delivers it, the watcher re-reads the table and compares.
/// Automount placeholders (`autofs`) and kernel file systems are ignored. Thread: the loop thread.
public final class MountWatcher {
    private let loop: EventLoop
    public let mediaRoots: [String]
    private let path: String
    private let onChange: (_ added: [MountedVolume], _ removed: [MountedVolume]) -> Void
    /// The open mount table; `.invalid` when not watching.
    private var table = FileDescriptor.invalid
    private var fd: Int32 { table.rawValue }
    private var source: SourceID?
    /// The volumes mounted under the media roots now, by mount point.
    public private(set) var volumes: [String: MountedVolume] = [:]

    /// - Parameter onChange: called on the loop thread with the volumes that appeared and went.
    public init(
        loop: EventLoop, mediaRoots: [String], mountInfoPath: String = "/proc/self/mountinfo",
        onChange: @escaping (_ added: [MountedVolume], _ removed: [MountedVolume]) -> Void
    ) {
        self.loop = loop
        self.mediaRoots = mediaRoots
        path = mountInfoPath
        self.onChange = onChange
    }

    deinit {
        if let source { loop.removeSource(source) }
    }

    /// Opens the mount table, reports what is mounted now as added, and starts watching.
    public func start() throws(Errno) {
        loop.assertInLoop()
        guard fd < 0 else { return }
        table = try FileDescriptor.open(path, O_RDONLY)
        source = try loop.addSource(fd: fd, events: [.priority]) { [unowned self] _ in self.refresh() }
        refresh()
    }

    public func stop() {
        loop.assertInLoop()
        if let source { loop.removeSource(source) }
        source = nil
        table = .invalid
    }

    /// Re-reads the mount table and reports differences.
    public func refresh() {
        loop.assertInLoop()
        guard fd >= 0, let text = readTable() else { return }
        var now: [String: MountedVolume] = [:]
        for mount in MountInfo.parse(text)
        where !MountInfo.virtualFileSystems.contains(mount.fileSystemType)
            && MountInfo.isUnder(mount.mountPoint, roots: mediaRoots)
        {
            now[mount.mountPoint] = mount  // a later line (mounted over the earlier one) wins
        }
        var added: [MountedVolume] = []
        var removed: [MountedVolume] = []
        for (point, mount) in volumes where now[point] != mount { removed.append(mount) }
        for (point, mount) in now where volumes[point] != mount { added.append(mount) }
        volumes = now
        if added.isEmpty && removed.isEmpty { return }
        added.sort { $0.mountPoint < $1.mountPoint }
        removed.sort { $0.mountPoint < $1.mountPoint }
        onChange(added, removed)
    }

    private func readTable() -> String? {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        var offset: Int64 = 0
        while bytes.count < 16 << 20 {
            let n = chunk.withUnsafeMutableBytes { (try? Syscalls.pread(fd, $0, offset: offset)) ?? -1 }
            if n < 0 {
                Log.warning("library: cannot read \(path)")
                return nil
            }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
            offset += Int64(n)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Works out a volume's identity: its filesystem UUID from `/dev/disk/by-uuid` (matched by
/// device number, else by device path), so a stick is recognised at any mount point; a hash of
/// where it was found otherwise. A bind mount of a subtree gets the UUID plus a hash of the
/// subtree. Thread: any (reads /dev, which is fast: the loop thread may call it).
public enum VolumeIdentity {
    public static func identify(_ mount: MountedVolume, byUUIDDirectory: String = "/dev/disk/by-uuid") -> VolumeID {
        if let uuid = uuid(device: mount.device, source: mount.source, directory: byUUIDDirectory) {
            return VolumeID(rawValue: mount.root == "/" ? uuid : "\(uuid)-\(hash(mount.root).prefix(8))")
        }
        return VolumeID(
            rawValue: "path-"
                + hash("\(mount.source)\u{0}\(mount.fileSystemType)\u{0}\(mount.root)\u{0}\(mount.mountPoint)"))
    }

    /// The identity of a plain folder added with `Library.addVolume(path:)`.
    public static func identify(directory: String) -> VolumeID {
        let canonical = (try? Syscalls.canonicalPath(directory)) ?? directory
        return VolumeID(rawValue: "dir-" + hash(canonical))
    }

    static func uuid(device: String, source: String, directory: String) -> String? {
        guard let listing = try? Syscalls.readDirectory(directory, limit: 4096) else { return nil }
        let sourcePath = source.hasPrefix("/") ? (try? Syscalls.canonicalPath(source)) : nil
        for entry in listing.entries.sorted(by: { $0.name < $1.name }) {
            let link = directory + "/" + entry.name
            guard let st = try? Syscalls.fileStatus(link) else { continue }
            let rdev = UInt64(st.st_rdev)
            let major = ((rdev >> 8) & 0xFFF) | ((rdev >> 32) & ~UInt64(0xFFF))
            let minor = (rdev & 0xFF) | ((rdev >> 12) & ~UInt64(0xFF))
            let matches =
                "\(major):\(minor)" == device
                || (sourcePath != nil && (try? Syscalls.canonicalPath(link)) == sourcePath)
            if matches { return sanitize(entry.name) }
        }
        return nil
    }

    /// Keeps the characters that are safe in a file name; a name that changes gets a hash.
    static func sanitize(_ name: String) -> String {
        let kept = String(
            name.unicodeScalars.filter {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_")
            }.map(Character.init))
        return kept == name && !kept.isEmpty ? kept : "uuid-" + hash(name)
    }

    /// FNV-1a, 64 bits, as 16 hex digits.
    static func hash(_ text: String) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            h ^= UInt64(byte)
            h = h &* 0x100_0000_01b3
        }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
