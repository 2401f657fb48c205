// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem
import KioskTestSupport
import Testing

/// The one way to open a file a stick names (`StickFile`), by `openat2` and by the walk older
/// kernels get, against what a hostile stick holds (issue 44).
@Suite struct StickFileTests {
    /// A stick (a folder) and, beside it, a "state directory" with a file links may point to.
    struct Rig {
        let stick: TemporaryDirectory
        let state: TemporaryDirectory
        var secret: String { state.file("cards.json") }
        static let secretText = #"{"cards": "the links a child made"}"#

        init() throws {
            stick = try TemporaryDirectory("kiosk-hostile-stick")
            state = try TemporaryDirectory("kiosk-state")
            try state.write("cards.json", Self.secretText)
        }

        func remove() {
            stick.remove()
            state.remove()
        }

        func secretIsUnchanged() throws -> Bool {
            String(decoding: try Syscalls.readFile(secret), as: UTF8.self) == Self.secretText
        }
    }

    static let both: [StickFile.Resolution] = [.automatic, .walk]

    /// The error `body` throws, nil (and an issue recorded) when it does not.
    func refusal(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) -> Errno? {
        do {
            try body()
            Issue.record("no error", sourceLocation: sourceLocation)
            return nil
        } catch {
            #expect(error is Errno, "\(error)", sourceLocation: sourceLocation)
            return error as? Errno
        }
    }

    @Test(arguments: both)
    func aRegularFileBeneathTheVolumeIsRead(resolution: StickFile.Resolution) throws {
        let rig = try Rig()
        defer { rig.remove() }
        try Syscalls.mkdirs(rig.stick.file("Album/Disc 1"))
        try rig.stick.write("Album/Disc 1/list.m3u", "a.flac\n")
        let bytes = try StickFile.read(
            "Album/Disc 1/list.m3u", beneath: rig.stick.path, limit: 100, resolution: resolution)
        #expect(bytes == Array("a.flac\n".utf8))
    }

    /// Every hostile kind, in place of a file: refused with an error naming the file and what it
    /// is, without waiting (a FIFO that blocked would be let go by the rescue, and the test fail).
    @Test(arguments: HostileEntry.allCases, both)
    func aHostileEntryIsRefusedNamingTheFileAndWhatItIs(
        entry: HostileEntry, resolution: StickFile.Resolution
    ) throws {
        let rig = try Rig()
        defer { rig.remove() }
        try entry.make(at: rig.stick.file("exhibit.json"), outside: rig.secret)
        let rescue = FIFORescue(fifos: [rig.stick.file("exhibit.json")])
        let refused = refusal {
            _ = try StickFile.read("exhibit.json", beneath: rig.stick.path, limit: 1 << 16, resolution: resolution)
        }
        #expect(!rescue.finish(), "the open waited for a FIFO's writer")
        let text = refused.map { "\($0)" } ?? ""
        #expect(text.contains(rig.stick.file("exhibit.json")), "\(text)")
        #expect(text.contains(entry.expectedWords), "\(text)")
    }

    @Test(arguments: both)
    func aFileUnderALinkedFolderIsNotReached(resolution: StickFile.Resolution) throws {
        let rig = try Rig()
        defer { rig.remove() }
        #expect(symlink(rig.state.path, rig.stick.file("Music")) == 0)
        #expect(throws: Errno(rawValue: ELOOP)) {
            try StickFile.read("Music/cards.json", beneath: rig.stick.path, limit: 1 << 16, resolution: resolution)
        }
    }

    @Test(arguments: ["../cards.json", "/etc/passwd", "a/../../x", ""])
    func aPathThatCouldLeadOutOfTheVolumeIsRefused(path: String) throws {
        let rig = try Rig()
        defer { rig.remove() }
        #expect(throws: Errno(rawValue: EXDEV)) { try StickFile.read(path, beneath: rig.stick.path, limit: 1 << 16) }
    }

    @Test func aFileOverTheCapIsRefusedByItsSizeBeforeAnyRead() throws {
        let rig = try Rig()
        defer { rig.remove() }
        try rig.stick.write("big.m3u", [UInt8](repeating: 0x41, count: 4097))
        let error = try #require(refusal { _ = try StickFile.read("big.m3u", beneath: rig.stick.path, limit: 4096) })
        #expect(error.rawValue == EFBIG)
        #expect("\(error)".contains("4097 bytes, over the 4096-byte limit"), "\(error)")
    }

    @Test func aMissingFileIsENOENTNamingIt() throws {
        let rig = try Rig()
        defer { rig.remove() }
        let error = try #require(
            refusal { _ = try StickFile.read("exhibit.json", beneath: rig.stick.path, limit: 4096) })
        #expect(error.rawValue == ENOENT && "\(error)".contains(rig.stick.file("exhibit.json")))
    }

    @Test(arguments: both)
    func aNameWrittenInWindows1252Opens(resolution: StickFile.Resolution) throws {
        let rig = try Rig()
        defer { rig.remove() }
        try Syscalls.mkdir(rig.stick.file("Café"))
        try rig.stick.write("Café/Liste.m3u", "x.flac\n")
        #expect(renameToWindows1252(folder: rig.stick.path, name: "Café"))
        let bytes = try StickFile.read("Café/Liste.m3u", beneath: rig.stick.path, limit: 100, resolution: resolution)
        #expect(bytes == Array("x.flac\n".utf8))
    }

    @Test func aMusicFileThatIsAFIFOIsRefusedWithoutWaiting() throws {
        let rig = try Rig()
        defer { rig.remove() }
        try HostileEntry.fifo.make(at: rig.stick.file("track.flac"), outside: rig.secret)
        let rescue = FIFORescue(fifos: [rig.stick.file("track.flac")])
        let error = try #require(refusal { _ = try StickFile.openMusic(rig.stick.file("track.flac")) })
        #expect(!rescue.finish(), "the open waited for a FIFO's writer")
        #expect("\(error)".contains("a FIFO, not a regular file"), "\(error)")
    }

    // MARK: - writing

    @Test func replaceWritesTheFileAndLeavesNoTemporaryBehind() throws {
        let rig = try Rig()
        defer { rig.remove() }
        try StickFile.replace("counts.csv", inVolume: rig.stick.path, with: Array("old".utf8))
        try StickFile.replace("counts.csv", inVolume: rig.stick.path, with: Array("new".utf8))
        #expect(try Syscalls.readFile(rig.stick.file("counts.csv")) == Array("new".utf8))
        #expect(listDirectory(rig.stick.path) == ["counts.csv"])
    }

    /// The attack of issue 44: the target a link to the state directory's file. The link itself is
    /// replaced; its target stays as it was.
    @Test func replaceThroughALinkReplacesTheLinkNeverItsTarget() throws {
        let rig = try Rig()
        defer { rig.remove() }
        #expect(symlink(rig.secret, rig.stick.file("counts.csv")) == 0)
        try StickFile.replace("counts.csv", inVolume: rig.stick.path, with: Array("date,clip,plays\n".utf8))
        #expect(try rig.secretIsUnchanged())
        #expect(try Syscalls.linkStatus(rig.stick.file("counts.csv")).st_mode & S_IFMT == S_IFREG)
        #expect(try Syscalls.readFile(rig.stick.file("counts.csv")) == Array("date,clip,plays\n".utf8))
    }

    /// The old export's temporary name, a link to the state directory's file: never opened.
    @Test func aLinkAtTheOldTemporaryNameIsNeverWrittenThrough() throws {
        let rig = try Rig()
        defer { rig.remove() }
        #expect(symlink(rig.secret, rig.stick.file(".counts.csv.tmp")) == 0)
        try StickFile.replace("counts.csv", inVolume: rig.stick.path, with: Array("x".utf8))
        #expect(try rig.secretIsUnchanged())
    }

    @Test func replaceRefusesANameWithAFolder() throws {
        let rig = try Rig()
        defer { rig.remove() }
        #expect(throws: Errno(rawValue: EINVAL)) {
            try StickFile.replace("../counts.csv", inVolume: rig.stick.path, with: [])
        }
    }
}
