// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskLibrary

@Suite struct TagReaderTests {
    func read(_ library: TestLibrary, _ path: String, limits: ScanLimits = ScanLimits()) -> FileReadOutcome {
        FLACFileReader(limits: limits).read(path: library.root + "/" + path)
    }

    func playable(_ outcome: FileReadOutcome) throws -> (TrackInfo, [String]) {
        guard case .playable(let info, let warnings) = outcome else {
            Issue.record("expected playable, got \(outcome)")
            throw Errno.invalid
        }
        return (info, warnings)
    }

    func unplayableReason(_ outcome: FileReadOutcome) -> String? {
        if case .unplayable(let reason, _) = outcome { return reason }
        return nil
    }

    @Test func readsStreamInfoAndTagsCaseInsensitively() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        try library.flac(
            "a.flac",
            [
                ("title", "Song"), ("Artist", "First"), ("ARTIST", "Second"), ("album", "Record"),
                ("AlbumArtist", "Band"), ("genre", "Jazz"), ("date", "1999"), ("tracknumber", "03/12"),
                ("DISCNUMBER", "2/3"), ("COMMENT", "ignored"),
            ], seconds: 0.5, sampleRate: 48_000, channels: 1, bitsPerSample: 24)
        let (info, warnings) = try playable(read(library, "a.flac"))
        #expect(warnings.isEmpty)
        #expect(info.sampleRate == 48_000)
        #expect(info.channels == 1)
        #expect(info.bitsPerSample == 24)
        #expect(info.totalFrames == 24_000)
        #expect(info.tags.titles == ["Song"])
        #expect(info.tags.artists == ["First", "Second"])
        #expect(info.tags.albums == ["Record"])
        #expect(info.tags.albumArtists == ["Band"])
        #expect(info.tags.genres == ["Jazz"])
        #expect(info.tags.dates == ["1999"])
        #expect(info.tags.trackNumber == 3)
        #expect(info.tags.trackTotal == 12)
        #expect(info.tags.discNumber == 2)
        #expect(info.tags.discTotal == 3)
        #expect(!info.hasPicture)
    }

    @Test func trackNumberForms() {
        #expect(TagFields.numberAndTotal("7") == (7, nil))
        #expect(TagFields.numberAndTotal("07/10") == (7, 10))
        #expect(TagFields.numberAndTotal(" 7 / 10") == (7, 10))
        #expect(TagFields.numberAndTotal("A1") == (nil, nil))
        #expect(TagFields.numberAndTotal("123456") == (nil, nil))
        #expect(TagFields.numberAndTotal("/12") == (12, nil))
        #expect(TagFields.numberAndTotal("/3/12") == (3, 12))
    }

    /// The byte-level reading of ASCII track numbers agrees with the Character-level one.
    @Test func trackNumberBytesAgreeWithCharacters() {
        let samples = [
            "", "/", "//", "///5", "3", "03", "0003", "00003", "9999", "10000", "3/", "3//12", "/3/12", "//3/12",
            " 3", "  3 /  12", "3 / 12 ", "3a/12b", "a3/12", "3/a12", "-3", "+3", "3.0", "3/12/15", " / ", "1 2",
            "4\t/5", "12/", "0/0", "1\u{301}/2", "１/２", "3/1\u{301}2", "٣/12",
        ]
        for text in samples {
            let fast = TagFields.numberAndTotal(text)
            let reference = TagFields.numberAndTotalOfCharacters(text)
            #expect(fast == reference, "\(text.debugDescription)")
        }
    }

    @Test func trackTotalFromItsOwnField() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        try library.flac("a.flac", [("TRACKNUMBER", "4"), ("TRACKTOTAL", "9"), ("TOTALDISCS", "2")])
        let (info, _) = try playable(read(library, "a.flac"))
        #expect(info.tags.trackNumber == 4)
        #expect(info.tags.trackTotal == 9)
        #expect(info.tags.discTotal == 2)
    }

    @Test func repeatedValuesAreKeptOnceAndBounded() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        var tags: [(name: String, value: String)] = Array(repeating: ("ARTIST", "Same"), count: 50)
        tags += (0..<40).map { ("GENRE", "Genre \($0)") }
        try library.flac("a.flac", tags)
        let (info, _) = try playable(read(library, "a.flac"))
        #expect(info.tags.artists == ["Same"])
        #expect(info.tags.genres.count == TagFields.maxValuesPerField)
    }

    @Test func controlCharactersAndPaddingAreCleaned() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        try library.flac("a.flac", [("TITLE", "  Two\tWords \n"), ("ARTIST", "   ")])
        let (info, _) = try playable(read(library, "a.flac"))
        #expect(info.tags.titles == ["Two Words"])
        #expect(info.tags.artists.isEmpty)
    }

    @Test func durationFromTotalSamples() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        try library.flac("a.flac", seconds: 1.5, sampleRate: 32_000)
        let catalog = try library.catalog()
        let track = try #require(catalog.allTracks.first)
        #expect(track.totalFrames == 48_000)
        #expect(track.durationSeconds == 1.5)
    }

    @Test(.tags(.integration)) func embeddedPictureFrontCoverPreferred() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let back = EmbeddedPicture(
            bytes: SyntheticLibrary.solidPNG(width: 2, height: 2, red: 1, green: 2, blue: 3), mimeType: "image/png",
            type: 4)
        try library.flac("back.flac", picture: back)
        let (info, _) = try playable(read(library, "back.flac"))
        #expect(info.hasPicture)
        let reader = FLACFileReader()
        let onlyBack = try #require(reader.embeddedPicture(path: library.root + "/back.flac"))
        #expect(onlyBack.bytes == back.bytes)
        #expect(onlyBack.mimeType == "image/png")

        // Two pictures: the front cover wins even though it comes second. The encoder takes one
        // PICTURE block per call, so add the second with metaflac when it is installed.
        guard let metaflac = which("metaflac") else {
            print("skipping the two-picture case: metaflac is not installed")
            return
        }
        try library.write("front.jpg", SyntheticLibrary.sampleJPEG)
        let result = run(
            metaflac, ["--import-picture-from=3|image/jpeg|||\(library.root)/front.jpg", library.root + "/back.flac"])
        #expect(result.status == 0, "\(result.errors)")
        let front = try #require(reader.embeddedPicture(path: library.root + "/back.flac"))
        #expect(front.bytes == SyntheticLibrary.sampleJPEG)
        #expect(front.mimeType == "image/jpeg")
    }

    @Test func oversizedCommentBlockIsIgnoredNotRead() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        try library.flac("a.flac", [("TITLE", String(repeating: "x", count: 3000)), ("ARTIST", "A")])
        var limits = ScanLimits()
        limits.maxCommentBlockBytes = 1000
        let (info, warnings) = try playable(read(library, "a.flac", limits: limits))
        #expect(info.tags.isEmpty)
        #expect(warnings.contains { $0.contains("over the 1000-byte limit") })
    }

    @Test func absurdCommentCountIsIgnoredNotAllocated() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        try library.flac("a.flac", [("TITLE", "T"), ("ARTIST", "A")])
        var bytes = try library.read("a.flac")
        let block = try #require(FLACLayout(bytes).first(4))
        let vendorLength = Int(bytes[block.offset + 4]) | Int(bytes[block.offset + 5]) << 8
        putLE32(0xFFFF_FFF0, into: &bytes, at: block.offset + 4 + 4 + vendorLength)
        try library.write("a.flac", bytes)
        let (info, warnings) = try playable(read(library, "a.flac"))
        #expect(info.tags.isEmpty)
        #expect(warnings.contains { $0.contains("claims 4294967280 comments") })
    }

    @Test func valuesLongerThanTheLimitAreCut() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        try library.flac("a.flac", [("TITLE", String(repeating: "é", count: 100))])
        var limits = ScanLimits()
        limits.maxValueBytes = 11
        let (info, _) = try playable(read(library, "a.flac", limits: limits))
        #expect(info.tags.titles == [String(repeating: "é", count: 5)])
    }

    @Test func oversizedPictureIsNotCounted() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        try library.flac(
            "a.flac", picture: EmbeddedPicture(bytes: [UInt8](repeating: 7, count: 5000), mimeType: "image/png"))
        var limits = ScanLimits()
        limits.maxPictureBytes = 1000
        let (info, warnings) = try playable(read(library, "a.flac", limits: limits))
        #expect(!info.hasPicture)
        #expect(warnings.contains { $0.contains("PICTURE block") })
        #expect(FLACFileReader(limits: limits).embeddedPicture(path: library.root + "/a.flac") == nil)
    }

    @Test func aCommentBlockLargerThanTheReadWindowIsReadWhole() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let filler = (0..<50).map { (name: "COMMENT", value: String(repeating: "c", count: 1000) + "\($0)") }
        try library.flac("a.flac", filler + [("TITLE", "After 50 KB of comments")])
        let (info, warnings) = try playable(read(library, "a.flac"))
        #expect(info.tags.titles == ["After 50 KB of comments"])
        #expect(warnings.isEmpty)
    }

    @Test func aFLACFileWhoseHeadersFitInOnePageIsReadWithOneReadCall() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        try library.flac("a.flac", [("TITLE", "One read")], seconds: 0.2)
        let reader = MusicFileReader()
        // Read calls of this thread (pread included), from the kernel's count.
        func readCalls() throws -> Int {
            let text = String(decoding: try Syscalls.readFile("/proc/thread-self/io"), as: UTF8.self)
            let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("syscr:") })
            return try #require(line.split(separator: " ").last.flatMap { Int($0) })
        }
        // What reading the count costs, taken off below.
        let first = try readCalls()
        let own = try readCalls() - first
        let before = try readCalls()
        let outcome = reader.read(path: library.root + "/a.flac", decodingFirstFrame: false)
        let calls = try readCalls() - before - own
        let (info, _) = try playable(outcome)
        #expect(info.tags.titles == ["One read"])
        #expect(!info.firstFrameDecoded)
        #expect(calls == 1, "format, marker, STREAMINFO, tags and the first frame's header in one pread")
    }

    // MARK: - playability

    @Test func id3v2TagBeforeTheStreamIsSkipped() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        try library.flac(
            "a.flac", [("TITLE", "Behind ID3")],
            picture: EmbeddedPicture(bytes: SyntheticLibrary.sampleJPEG, mimeType: "image/jpeg"))
        // An ID3v2.4 header (syncsafe size 100) and 100 bytes of tag, as some taggers prepend.
        let id3: [UInt8] = Array("ID3".utf8) + [4, 0, 0, 0, 0, 0, 100] + [UInt8](repeating: 0, count: 100)
        try library.write("a.flac", id3 + (try library.read("a.flac")))
        let (info, _) = try playable(read(library, "a.flac"))
        #expect(info.tags.titles == ["Behind ID3"])
        #expect(info.hasPicture)
        #expect(FLACFileReader().embeddedPicture(path: library.root + "/a.flac")?.bytes == SyntheticLibrary.sampleJPEG)
    }

    @Test func missingFileIsATransientProblem() {
        guard case .unplayable(let reason, let transient) = FLACFileReader().read(path: "/nonexistent/kiosk.flac")
        else {
            Issue.record("a missing file cannot be playable")
            return
        }
        #expect(reason == "cannot open: No such file or directory")
        #expect(transient, "not remembered in the index: the file is tried again next scan")
    }

    @Test func notAFLACFile() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        try library.write("a.flac", text: "ID3 this is an mp3 pretending")
        #expect(unplayableReason(read(library, "a.flac")) == "not a FLAC file (no fLaC marker)")
        try library.write("empty.flac", [])
        #expect(unplayableReason(read(library, "empty.flac")) != nil)
    }

    @Test func zeroSampleRateIsRejected() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        try library.flac("a.flac")
        var bytes = try library.read("a.flac")
        let streamInfo = try #require(FLACLayout(bytes).first(0))
        // Sample rate: the 20 bits after min/max block size (4 bytes) and frame sizes (6 bytes).
        let at = streamInfo.offset + 4 + 10
        bytes[at] = 0
        bytes[at + 1] = 0
        bytes[at + 2] &= 0x0F
        try library.write("a.flac", bytes)
        #expect(unplayableReason(read(library, "a.flac")) == "STREAMINFO is not usable: sample rate 0")
    }

    @Test func damagedFirstFrameIsRejected() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        try library.flac("a.flac", seconds: 0.2)
        var bytes = try library.read("a.flac")
        let start = FLACLayout(bytes).audioStart
        for i in (start + 20)..<(start + 60) { bytes[i] ^= 0x5A }
        try library.write("a.flac", bytes)
        let reason = try #require(unplayableReason(read(library, "a.flac")))
        #expect(reason.hasPrefix("the first audio frame does not decode"), "\(reason)")
    }

    @Test func fileEndingAfterMetadataHasNoFrames() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        try library.flac("a.flac")
        let bytes = try library.read("a.flac")
        try library.write("a.flac", Array(bytes[0..<FLACLayout(bytes).audioStart]))
        #expect(unplayableReason(read(library, "a.flac")) == "no audio frames (the file ends after its metadata)")
    }

    @Test func garbageAfterMetadataIsBoundedAndRejected() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        try library.flac("a.flac")
        let bytes = try library.read("a.flac")
        var damaged = Array(bytes[0..<FLACLayout(bytes).audioStart])
        damaged += [UInt8](repeating: 0x00, count: 300_000)
        try library.write("a.flac", damaged)
        var limits = ScanLimits()
        limits.maxFirstFrameSearchBytes = 100_000
        let reason = try #require(unplayableReason(read(library, "a.flac", limits: limits)))
        #expect(reason.contains("100000 bytes") || reason.contains("does not decode"), "\(reason)")
    }

    @Test func truncatedMetadataIsRejected() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        try library.flac("a.flac", [("TITLE", String(repeating: "t", count: 500))])
        let bytes = try library.read("a.flac")
        let comments = try #require(FLACLayout(bytes).first(4))
        try library.write("a.flac", Array(bytes[0..<(comments.offset + 100)]))
        #expect(unplayableReason(read(library, "a.flac")) != nil)
    }

    /// One reader (one libFLAC decoder, reset between files) gives each file the result a new
    /// reader gives it, whatever the file before it was.
    @Test func reusedReaderMatchesFreshReaders() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        try library.flac("good-cd.flac", [("TITLE", "CD")], seconds: 0.2)
        try library.flac("good-hires.flac", [("TITLE", "Hi")], seconds: 0.2, sampleRate: 96_000, bitsPerSample: 24)
        try library.flac("good-mono.flac", seconds: 0.1, sampleRate: 8_000, channels: 1, bitsPerSample: 8)
        var damaged = try library.read("good-cd.flac")
        let start = FLACLayout(damaged).audioStart
        for i in (start + 20)..<(start + 60) { damaged[i] ^= 0x5A }
        try library.write("damaged.flac", damaged)
        let original = try library.read("good-cd.flac")
        try library.write("no-frames.flac", Array(original[0..<start]))
        try library.write("garbage.flac", Array(original[0..<start]) + [UInt8](repeating: 0xFF, count: 5000))
        try library.write("not-flac.flac", text: "not audio")
        let names = [
            "damaged.flac", "good-cd.flac", "garbage.flac", "good-hires.flac", "no-frames.flac", "good-mono.flac",
            "not-flac.flac", "good-cd.flac", "damaged.flac", "damaged.flac", "good-hires.flac",
        ]
        func summary(_ outcome: FileReadOutcome) -> String {
            switch outcome {
            case .playable(let info, let warnings):
                "playable \(info.sampleRate) \(info.channels) \(info.bitsPerSample) \(info.tags.titles) \(warnings)"
            case .unplayable(let reason, let transient): "unplayable \(reason) \(transient)"
            }
        }
        let shared = FLACFileReader()
        for name in names {
            let reused = summary(shared.read(path: library.root + "/" + name))
            let fresh = summary(read(library, name))
            #expect(reused == fresh, "\(name)")
            #expect(reused.hasPrefix("playable") == name.hasPrefix("good"), "\(name): \(reused)")
        }
    }

    @Test func unplayableFilesAreLeftOutWithReasons() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        try library.track("Good/01.flac", title: "Fine", album: "Only Bad", track: "1")
        try library.write("Bad/01.flac", text: "not audio")
        try library.write("Bad/02.FLAC", [0x66, 0x4C, 0x61, 0x43])
        let catalog = try library.catalog()
        #expect(catalog.trackCount == 1)
        #expect(
            catalog.problems(for: "Bad/01.flac").first?.reason
                == "not a music file (the content is no format KioskPlayer plays)")
        #expect(catalog.problems(for: "Bad/02.FLAC").count == 1)
        // The folder whose files are all unplayable is not shown.
        #expect(catalog.names(.folder) == ["Good"])
    }
}
