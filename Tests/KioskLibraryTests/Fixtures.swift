// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskLibrary

/// A library folder made in a test: FLAC files written with libFLAC's encoder (short tones so
/// tests stay fast), playlists and images written as bytes.
struct TestLibrary {
    let directory: TemporaryDirectory
    var root: String { directory.path }
    let volume = VolumeID(rawValue: "test-volume")

    init(_ prefix: String = "kiosk-library") throws {
        directory = try TemporaryDirectory(prefix)
    }

    /// Writes a FLAC file with `tags` (0.05 s of tone unless told otherwise).
    func flac(
        _ relativePath: String, _ tags: [(name: String, value: String)] = [], picture: EmbeddedPicture? = nil,
        seconds: Double = 0.05, sampleRate: Int = 44_100, channels: Int = 2, bitsPerSample: Int = 16
    ) throws {
        try SyntheticLibrary.writeFLAC(
            path: root + "/" + relativePath, tags: tags, picture: picture, seconds: seconds, sampleRate: sampleRate,
            channels: channels, bitsPerSample: bitsPerSample, compressionLevel: 0)
    }

    /// A track with the usual tags.
    func track(
        _ relativePath: String, title: String? = nil, artist: String? = nil, album: String? = nil,
        albumArtist: String? = nil, genre: String? = nil, track: String? = nil, disc: String? = nil,
        picture: EmbeddedPicture? = nil
    ) throws {
        var tags: [(name: String, value: String)] = []
        if let title { tags.append(("TITLE", title)) }
        if let artist { tags.append(("ARTIST", artist)) }
        if let album { tags.append(("ALBUM", album)) }
        if let albumArtist { tags.append(("ALBUMARTIST", albumArtist)) }
        if let genre { tags.append(("GENRE", genre)) }
        if let track { tags.append(("TRACKNUMBER", track)) }
        if let disc { tags.append(("DISCNUMBER", disc)) }
        try flac(relativePath, tags, picture: picture)
    }

    func write(_ relativePath: String, _ bytes: [UInt8]) throws {
        try SyntheticLibrary.writeFile(path: root + "/" + relativePath, bytes: bytes)
    }

    func write(_ relativePath: String, text: String) throws {
        try write(relativePath, Array(text.utf8))
    }

    func read(_ relativePath: String) throws -> [UInt8] {
        try Syscalls.readFile(root + "/" + relativePath)
    }

    func symlink(_ relativePath: String, to target: String) throws {
        let path = root + "/" + relativePath
        if let slash = path.lastIndex(of: "/") { try Syscalls.mkdirs(String(path[..<slash])) }
        guard Glibc.symlink(target, path) == 0 else { throw Errno.current.with("symlink \(path)") }
    }

    func mkdir(_ relativePath: String) throws {
        try Syscalls.mkdirs(root + "/" + relativePath)
    }

    /// Scans without an index (or with the given one) and builds the catalog.
    func scan(indexPath: String? = nil, limits: ScanLimits = ScanLimits()) throws -> (Catalog, ScanStatistics) {
        let scanner = VolumeScanner(limits: limits)
        let (contents, stats) = try scanner.scan(volume: volume, mountPoint: root, indexPath: indexPath)
        return (Catalog(volumes: [contents], limits: limits), stats)
    }

    func catalog(limits: ScanLimits = ScanLimits()) throws -> Catalog { try scan(limits: limits).0 }

    /// Scans into the volume's contents with the index at `indexPath`, given the contents of the
    /// scan before (nil for none): what the library does on each rescan.
    func rescan(
        from previous: VolumeContents?, indexPath: String, limits: ScanLimits = ScanLimits()
    ) throws -> (VolumeContents, ScanStatistics) {
        try VolumeScanner(limits: limits).scan(
            volume: volume, mountPoint: root, indexPath: indexPath, previous: previous)
    }

    func remove() { directory.remove() }
}

extension Catalog {
    /// Collection names of a category, in display order.
    func names(_ category: Category) -> [String] { collections(in: category).map(\.name) }

    /// The collection named `name` (the first, when names repeat).
    func named(_ category: Category, _ name: String) -> Collection? {
        collections(in: category).first { $0.name == name }
    }

    /// Problems about `relativePath`.
    func problems(for relativePath: String) -> [LibraryProblem] {
        problems.filter { $0.relativePath == relativePath }
    }
}

/// Offsets of the metadata blocks of a FLAC file (for tests that damage a file on purpose).
struct FLACLayout {
    struct Block {
        let offset: Int
        let type: UInt8
        let length: Int
        let isLast: Bool
    }
    let blocks: [Block]
    var audioStart: Int { blocks.last.map { $0.offset + 4 + $0.length } ?? 4 }

    init(_ bytes: [UInt8]) {
        var blocks: [Block] = []
        var offset = 4
        while offset + 4 <= bytes.count {
            let header = bytes[offset]
            let length = Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let block = Block(offset: offset, type: header & 0x7F, length: length, isLast: header & 0x80 != 0)
            blocks.append(block)
            offset += 4 + length
            if block.isLast { break }
        }
        self.blocks = blocks
    }

    func first(_ type: UInt8) -> Block? { blocks.first { $0.type == type } }
}

func putLE32(_ value: UInt32, into bytes: inout [UInt8], at offset: Int) {
    for i in 0..<4 { bytes[offset + i] = UInt8((value >> (8 * UInt32(i))) & 0xFF) }
}
