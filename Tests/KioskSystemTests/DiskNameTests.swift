// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem
import KioskTestSupport
import Testing

/// Names that are not UTF-8 on disk: shown in Windows-1252, opened by their own bytes again.
@Suite struct DiskNameTests {
    @Test func everyByteButNulAndSlashDecodesToOneCharacterAndEncodesBack() throws {
        let bytes = (1...255).map { UInt8($0) }.filter { $0 != UInt8(ascii: "/") }
        let text = DiskName.windows1252(bytes)
        #expect(text.unicodeScalars.count == bytes.count)
        #expect(DiskName.windows1252Bytes(Substring(text)) == bytes)
    }

    @Test func windows1252BytesAreDecodedAsWindowsShowsThem() {
        #expect(DiskName.windows1252([0x43, 0x61, 0x66, 0xE9, 0x20, 0x80, 0x96, 0x9F]) == "Café €–Ÿ")
    }

    @Test func validUTF8NamesAreKept() {
        let bytes = Array("Motörhead – 東京".utf8)
        let (name, isUTF8) = bytes.withUnsafeBufferPointer { DiskName.string($0) }
        #expect(name == "Motörhead – 東京" && isUTF8)
    }

    @Test func charactersWithoutAWindows1252ByteHaveNoEncoding() {
        #expect(DiskName.windows1252Bytes("東京") == nil)
    }

    @Test func aFolderAndAFileNamedInWindows1252AreListedOpenedAndResolved() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try Syscalls.mkdirs(dir.file("Café/Über"))
        try dir.write("Café/Über/Brontë.txt", "hello")
        try dir.write("Café/naïve.txt", "second")
        #expect(renameToWindows1252(folder: dir.file("Café/Über"), name: "Brontë.txt"))
        #expect(renameToWindows1252(folder: dir.path, name: "Café"))
        #expect(access(dir.file("Café/naïve.txt"), F_OK) != 0)  // its UTF-8 bytes name nothing now
        let top = try Syscalls.readDirectory(dir.path).entries
        #expect(top.map(\.name) == ["Café"] && top.map(\.nameIsValidUTF8) == [false])
        let fd = try FileDescriptor.open(dir.file("Café/Über/Brontë.txt"), O_RDONLY)
        #expect(try fd.readAll(limit: 100) == Array("hello".utf8))
        #expect(try Syscalls.readFile(dir.file("Café/naïve.txt")) == Array("second".utf8))
        #expect(Syscalls.exists(dir.file("Café/Über")))
        let canonical = try Syscalls.canonicalPath(dir.file("Café/Über/../naïve.txt"))
        #expect(canonical.hasSuffix("/Café/naïve.txt"))
        // Components resolve one by one: the Windows-1252 folder, then the UTF-8 file in it.
        let expected = Array("\(dir.path)/Caf".utf8) + [0xE9] + Array("/naïve.txt".utf8)
        #expect(DiskName.openable(dir.file("Café/naïve.txt")).map { UInt8(bitPattern: $0) } == expected + [0])
    }

    @Test func aMissingFileIsStillReportedAsMissing() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        #expect(throws: Errno(rawValue: ENOENT)) { try Syscalls.open(dir.file("Café.txt"), O_RDONLY) }
        #expect(DiskName.legacyPath(dir.file("Café.txt")) == nil)
    }

    @Test func asciiPathsHaveNoLegacyForm() {
        #expect(DiskName.legacyPath("/tmp/plain/name.flac") == nil)
    }
}
