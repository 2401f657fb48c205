// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem
import KioskTestSupport
import KioskWeb
import Testing

/// Uploads, listings and deletions in the box's music folder as the phone page makes them.
@Suite struct MusicFolderTests {
    /// A FLAC head (`fLaC` and a STREAMINFO block) and bytes after it: what the content check reads.
    static func flac(_ size: Int) -> [UInt8] {
        var b: [UInt8] = Array("fLaC".utf8) + [0x80, 0, 0, 34] + [UInt8](repeating: 0x11, count: 34)
        b += [UInt8](repeating: 0x5A, count: max(0, size - b.count))
        return b
    }

    func folder(_ dir: TemporaryDirectory, maxFileBytes: Int64 = 1 << 20) -> MusicFolder {
        var m = MusicFolder(root: dir.path, maxFileBytes: maxFileBytes)
        m.reserveBytes = 0
        return m
    }

    func upload(_ m: MusicFolder, _ path: String, _ bytes: [UInt8], piece: Int = 1000, session: String = "s1") throws
        -> MusicFolder.Upload
    {
        var u = try m.begin(path: path, size: Int64(bytes.count), session: session)
        while !u.complete {
            let start = Int(u.received)
            u = try m.append(u, offset: u.received, bytes: Array(bytes[start..<min(bytes.count, start + piece)]))
        }
        return u
    }

    @Test func namesAreSanitisedToPartsBeneathTheFolder() throws {
        let m = MusicFolder(root: "/music", maxFileBytes: 1)
        #expect(try m.sanitized("Album/01 Song.flac") == ["Album", "01 Song.flac"])
        #expect(try m.sanitized("/Album//01.flac") == ["Album", "01.flac"])
        #expect(try m.sanitized("A:B*C?/x<y>|z\".mp3") == ["A_B_C_", "x_y__z_.mp3"])
        #expect(try m.sanitized("Album.../ Song\u{7}\u{1B}.ogg ") == ["Album", "Song.ogg"])
        #expect(try m.sanitized("Käfer – Lieder/Schlaf 🌙.opus") == ["Käfer – Lieder", "Schlaf 🌙.opus"])
    }

    @Test func namesLeadingOutOrHiddenAreRefused() {
        let m = MusicFolder(root: "/music", maxFileBytes: 1)
        for bad in [
            "../x.flac", "a/../../x.flac", "..", "a/./b.flac", ".hidden.flac", "a/.kiosk-uploads/x.flac", "",
            "/", " . /x.flac", String(repeating: "a", count: 201) + ".flac", "1/2/3/4/5/x.flac",
        ] {
            #expect(throws: MusicFolder.Problem.self, "\(bad)") { try m.sanitized(bad) }
        }
    }

    @Test func aFileArrivesInPiecesAndAppearsWholeUnderItsName() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let m = folder(dir)
        let bytes = Self.flac(2500)
        var u = try m.begin(path: "Album/01.flac", size: 2500, session: "s1")
        u = try m.append(u, offset: 0, bytes: Array(bytes[0..<1000]))
        #expect(!u.complete && u.received == 1000)
        #expect(!Syscalls.exists(dir.file("Album/01.flac")), "no half file under its name")
        u = try m.append(u, offset: 1000, bytes: Array(bytes[1000..<2000]))
        u = try m.append(u, offset: 2000, bytes: Array(bytes[2000...]))
        #expect(u.complete)
        #expect(try Syscalls.readFile(dir.file("Album/01.flac")) == bytes)
        #expect(try Syscalls.readDirectory(dir.file(".kiosk-uploads")).entries.isEmpty, "the part is gone")
        #expect(try Syscalls.fileStatus(dir.file("Album/01.flac")).st_mode & 0o777 == 0o644)
    }

    @Test func anUploadCutOffGoesOnWhereItStopped() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let m = folder(dir)
        let bytes = Self.flac(3000)
        let first = try m.begin(path: "a.flac", size: 3000, session: "s1")
        _ = try m.append(first, offset: 0, bytes: Array(bytes[0..<1200]))
        // The phone reloads: the same begin says how much is there; a piece at the wrong place is
        // told where the file ends.
        let again = try m.begin(path: "a.flac", size: 3000, session: "s1")
        #expect(again.id == first.id && again.received == 1200)
        #expect(throws: MusicFolder.Problem.wrongOffset(expected: 1200)) {
            try m.append(again, offset: 0, bytes: Array(bytes[0..<1000]))
        }
        let piece = try m.upload(id: again.id, path: "a.flac", session: "s1")
        let done = try m.append(piece, offset: 1200, bytes: Array(bytes[1200...]))
        #expect(done.complete)
        #expect(try Syscalls.readFile(dir.file("a.flac")) == bytes)
    }

    @Test func anotherPhoneCannotWriteIntoAnUpload() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let m = folder(dir)
        let u = try m.begin(path: "a.flac", size: 100, session: "s1")
        #expect(throws: MusicFolder.Problem.unknownUpload) { try m.upload(id: u.id, path: "a.flac", session: "s2") }
        #expect(throws: MusicFolder.Problem.unknownUpload) { try m.upload(id: u.id, path: "b.flac", session: "s1") }
        #expect(throws: MusicFolder.Problem.unknownUpload) {
            try m.upload(id: "../../x-1", path: "a.flac", session: "s1")
        }
    }

    @Test func onlyWhatThePlayerPlaysIsTaken() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let m = folder(dir)
        #expect(throws: MusicFolder.Problem.notTaken("notes.txt")) {
            try m.begin(path: "notes.txt", size: 10, session: "s")
        }
        #expect(throws: MusicFolder.Problem.notTaken("photo.jpg")) {
            try m.begin(path: "photo.jpg", size: 10, session: "s")
        }
        // A name that says FLAC on bytes that are not: refused at the end, nothing left behind.
        let fake = [UInt8](repeating: 0x41, count: 2000)
        #expect(throws: MusicFolder.Problem.notMusic("song.flac")) { try upload(m, "song.flac", fake) }
        #expect(!Syscalls.exists(dir.file("song.flac")))
        #expect(try Syscalls.readDirectory(dir.file(".kiosk-uploads")).entries.isEmpty)
        // A cover picture by its name and content.
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 0, count: 100)
        #expect(try upload(m, "Album/cover.jpg", jpeg).complete)
        // MP3 behind an ID3v2 tag: the content after the tag decides.
        let tag: [UInt8] = Array("ID3".utf8) + [3, 0, 0, 0, 0, 0, 20] + [UInt8](repeating: 0, count: 20)
        let frame: [UInt8] = [0xFF, 0xFB, 0x90, 0x00] + [UInt8](repeating: 0, count: 413)
        #expect(try upload(m, "Album/02.mp3", tag + frame + frame).complete)
    }

    @Test func sizeAndFreeSpaceBoundAnUpload() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        var m = folder(dir, maxFileBytes: 4096)
        #expect(throws: MusicFolder.Problem.tooLarge(limit: 4096)) {
            try m.begin(path: "a.flac", size: 4097, session: "s")
        }
        #expect(throws: MusicFolder.Problem.self) { try m.begin(path: "a.flac", size: Int64.max, session: "s") }
        #expect(throws: MusicFolder.Problem.notMusic("a.flac")) { try m.begin(path: "a.flac", size: 0, session: "s") }
        // More bytes than the declared size are refused.
        let u = try m.begin(path: "a.flac", size: 100, session: "s")
        #expect(throws: MusicFolder.Problem.self) { try m.append(u, offset: 0, bytes: Self.flac(101)) }
        // Space: the file must leave the reserve free.
        m.reserveBytes = m.freeBytes()
        #expect(throws: MusicFolder.Problem.self) { try m.begin(path: "b.flac", size: 100, session: "s") }
    }

    @Test func anUploadNeverReplacesAFile() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let m = folder(dir)
        try dir.write("a.flac", [1, 2, 3])
        #expect(throws: MusicFolder.Problem.exists("a.flac")) { try m.begin(path: "a.flac", size: 100, session: "s") }
        #expect(try Syscalls.readFile(dir.file("a.flac")) == [1, 2, 3])
    }

    @Test func aLinkOnTheWayIsRefused() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let outside = try TemporaryDirectory()
        defer { outside.remove() }
        let m = folder(dir)
        #expect(symlink(outside.path, dir.file("Album")) == 0)
        #expect(throws: MusicFolder.Problem.self) { try upload(m, "Album/01.flac", Self.flac(500)) }
        #expect(try Syscalls.readDirectory(outside.path).entries.isEmpty)
        #expect(throws: MusicFolder.Problem.self) { try m.list("Album") }
    }

    @Test func aListingShowsFoldersThenMusicAndHidesTheRest() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let m = folder(dir)
        try dir.write("B/01.flac", [1])
        try dir.write("a.mp3", [1, 2])
        try dir.write("notes.txt", [1])
        try dir.write(".hidden/x.flac", [1])
        #expect(symlink("/etc", dir.file("Etc")) == 0)
        let names = try m.list("").map { "\($0.name)\($0.isFolder ? "/" : ":\($0.size)")" }
        #expect(names == ["B/", "a.mp3:2"])
    }

    @Test func aFileOrAFolderOfMusicIsDeleted() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let m = folder(dir)
        try dir.write("A/01.flac", [1])
        try dir.write("A/CD2/02.flac", [1])
        try dir.write("A/cover.jpg", [1])
        try dir.write("B/01.flac", [1])
        try m.delete("B/01.flac")
        #expect(!Syscalls.exists(dir.file("B/01.flac")) && Syscalls.exists(dir.file("B")))
        try m.delete("A")
        #expect(!Syscalls.exists(dir.file("A")))
        #expect(throws: MusicFolder.Problem.notFound("A")) { try m.delete("A") }
    }

    @Test func aFolderHoldingAnythingButMusicIsNotDeleted() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let m = folder(dir)
        try dir.write("A/01.flac", [1])
        try dir.write("A/thesis.pdf", [1])
        #expect(throws: MusicFolder.Problem.self) { try m.delete("A") }
        #expect(Syscalls.exists(dir.file("A/01.flac")) && Syscalls.exists(dir.file("A/thesis.pdf")))
        try dir.write("notes.txt", [1])
        #expect(throws: MusicFolder.Problem.notMusic("notes.txt")) { try m.delete("notes.txt") }
    }
}
