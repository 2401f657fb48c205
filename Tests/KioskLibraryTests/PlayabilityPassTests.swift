// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskLibrary

/// A FLAC file that fails only at decode: STREAMINFO and the first frame's header (with its CRC-8)
/// are intact, the frames' payload after it is not, so the first frame's CRC-16 fails (libFLAC may
/// find the damage before it reaches the CRC: then it says it lost sync).
func damageFramePayloads(_ bytes: inout [UInt8]) {
    let start = FLACLayout(bytes).audioStart
    for i in (start + 20)..<bytes.count { bytes[i] ^= 0x5A }
}

/// The scan lists a FLAC file from its headers; the background pass decodes its first frame.
@Suite struct FLACHeaderCheckTests {
    @Test func theHeaderCheckListsAFileWhoseFramePayloadIsDamagedAndTheDecodeSaysWhy() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        try library.flac("a.flac", seconds: 0.2)
        var bytes = try library.read("a.flac")
        damageFramePayloads(&bytes)
        try library.write("a.flac", bytes)
        let reader = FLACFileReader()
        guard case .playable(let info, _) = reader.read(path: library.root + "/a.flac", decodingFirstFrame: false)
        else {
            Issue.record("the header check should list the file")
            return
        }
        #expect(!info.firstFrameDecoded)
        let failure = try #require(reader.confirmFirstFrame(path: library.root + "/a.flac"))
        #expect(failure.reason.hasPrefix("the first audio frame does not decode: "), "\(failure.reason)")
        #expect(!failure.transient)
    }

    @Test func aSoundFileIsConfirmedByItsDecode() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        try library.flac("hires.flac", seconds: 0.1, sampleRate: 96_000, channels: 1, bitsPerSample: 24)
        let reader = FLACFileReader()
        guard case .playable(let info, _) = reader.read(path: library.root + "/hires.flac", decodingFirstFrame: false)
        else {
            Issue.record("a sound file should be listed")
            return
        }
        #expect(info.sampleRate == 96_000 && info.channels == 1 && info.bitsPerSample == 24)
        #expect(!info.firstFrameDecoded)
        #expect(reader.confirmFirstFrame(path: library.root + "/hires.flac") == nil)
    }

    @Test func aDamagedFrameHeaderIsRejectedByTheHeaderCheck() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        try library.flac("a.flac", seconds: 0.2)
        var bytes = try library.read("a.flac")
        // The block-size/rate byte: still a valid code, but the CRC-8 no longer matches.
        bytes[FLACLayout(bytes).audioStart + 2] ^= 0x01
        try library.write("a.flac", bytes)
        guard
            case .unplayable(let reason, _) = FLACFileReader().read(
                path: library.root + "/a.flac", decodingFirstFrame: false)
        else {
            Issue.record("a damaged frame header should be left out by the scan")
            return
        }
        #expect(reason == "the first audio frame's header is damaged (CRC-8 mismatch)")
    }

    @Test func aFirstFrameThatDisagreesWithStreamInfoIsRejectedByTheHeaderCheck() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        try library.flac("a.flac", seconds: 0.2, sampleRate: 48_000)
        var bytes = try library.read("a.flac")
        // STREAMINFO says 44.1 kHz; the frame header still says 48 kHz (code 10).
        let info = try #require(FLACLayout(bytes).first(0)).offset + 4
        let rate: UInt32 = 44_100
        bytes[info + 10] = UInt8(rate >> 12)
        bytes[info + 11] = UInt8((rate >> 4) & 0xFF)
        bytes[info + 12] = bytes[info + 12] & 0x0F | UInt8((rate & 0x0F) << 4)
        try library.write("a.flac", bytes)
        guard
            case .unplayable(let reason, _) = FLACFileReader().read(
                path: library.root + "/a.flac", decodingFirstFrame: false)
        else {
            Issue.record("a frame that disagrees with STREAMINFO should be left out")
            return
        }
        #expect(reason == "the first frame is at 48000 Hz, STREAMINFO says 44100 Hz")
    }
}

/// Scans `music` with a library and runs its playability pass to the end: the scan lists all
/// `listed` files (their headers are sound), then the pass takes out each of `damaged`, with one
/// reason that begins `reasonsBeginWith` and says it was found after the scan listed it. Returns
/// the catalog after the pass.
func expectThePassTakesOut(
    _ damaged: [String], of music: TestLibrary, listed: Int, reasonsBeginWith prefix: String = "",
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> Catalog {
    let state = try TemporaryDirectory("kiosk-state")
    defer { state.remove() }
    let loop = try EventLoop()
    let log = EventLog()
    var counts: [Int] = []
    let library = try Library(loop: loop, stateDirectory: state.path, mediaRoots: []) { event, catalog in
        log.record(event, catalog)
        if case .catalogChanged = event { counts.append(catalog.trackCount) }
    }
    defer { library.stop() }
    library.addVolume(path: music.root)
    #expect(
        try loop.run(
            until: { log.finished == 1 && !library.isCheckingPlayability }, timeoutNanoseconds: 30_000_000_000),
        sourceLocation: sourceLocation)
    let id = VolumeIdentity.identify(directory: music.root)
    #expect(counts.first == listed, "catalogs: \(counts)", sourceLocation: sourceLocation)
    #expect(counts.last == listed - damaged.count, "catalogs: \(counts)", sourceLocation: sourceLocation)
    for path in damaged {
        #expect(
            library.catalog.track(volume: id, relativePath: path) == nil, "\(path) can still be chosen",
            sourceLocation: sourceLocation)
        let reasons = library.catalog.problems.filter { $0.relativePath == path }.map(\.reason)
        #expect(reasons.count == 1, "\(path): \(reasons)", sourceLocation: sourceLocation)
        let reason = reasons.first ?? ""
        #expect(
            reason.hasPrefix(prefix) && reason.hasSuffix(" (found after the scan listed it)"), "\(path): \(reason)",
            sourceLocation: sourceLocation)
    }
    return library.catalog
}

/// Scans `music` alone (no library, so no background pass: every first block is decoded in the
/// scan): of its `listed` files, each of `damaged` is left out with a problem and the rest listed.
func expectTheScanAloneLeavesOut(
    _ damaged: [String], of music: TestLibrary, listed: Int, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let catalog = try music.catalog()
    #expect(catalog.trackCount == listed - damaged.count, sourceLocation: sourceLocation)
    #expect(Set(catalog.problems.map(\.relativePath)) == Set(damaged), sourceLocation: sourceLocation)
}

@Suite(.serialized) struct PlayabilityPassTests {
    /// A stick of 20 files, every fifth one damaged so that only decoding finds it.
    func stickWithAFifthDamaged() throws -> (TestLibrary, damaged: [String]) {
        let music = try TestLibrary()
        var damaged: [String] = []
        for i in 1...20 {
            let path = "Album/\(i < 10 ? "0" : "")\(i).flac"
            try music.track(path, title: "T\(i)", artist: "Band", album: "Album", track: "\(i)")
            if i % 5 == 0 {
                var bytes = try music.read(path)
                damageFramePayloads(&bytes)
                try music.write(path, bytes)
                damaged.append(path)
            }
        }
        return (music, damaged)
    }

    @Test func filesThatFailOnlyAtDecodeLeaveTheCatalogOnceThePassReachesThem() throws {
        let (music, damaged) = try stickWithAFifthDamaged()
        defer { music.remove() }
        let catalog = try expectThePassTakesOut(
            damaged, of: music, listed: 20, reasonsBeginWith: "the first audio frame does not decode: ")
        #expect(catalog.collections(in: .album).first?.trackCount == 16)
    }

    @Test func theIndexRemembersWhatThePassFoundSoARestartChecksNothingAgain() throws {
        let (music, damaged) = try stickWithAFifthDamaged()
        defer { music.remove() }
        let state = try TemporaryDirectory("kiosk-state")
        defer { state.remove() }
        do {
            let loop = try EventLoop()
            let log = EventLog()
            let library = try Library(loop: loop, stateDirectory: state.path, mediaRoots: [], onEvent: log.record)
            library.addVolume(path: music.root)
            #expect(
                try loop.run(
                    until: { log.finished == 1 && !library.isCheckingPlayability }, timeoutNanoseconds: 30_000_000_000
                ))
            library.stop()
        }
        // After a restart: nothing read, nothing left to check, the damaged files out at once.
        let loop = try EventLoop()
        let log = EventLog()
        let library = try Library(loop: loop, stateDirectory: state.path, mediaRoots: [], onEvent: log.record)
        library.addVolume(path: music.root)
        #expect(try loop.run(until: { log.finished == 1 }, timeoutNanoseconds: 30_000_000_000))
        #expect(library.volumes.first?.statistics?.filesRead == 0)
        #expect(!library.isCheckingPlayability)
        #expect(library.catalog.trackCount == 16)
        #expect(Set(library.catalog.problems.map(\.relativePath)) == Set(damaged))
        library.stop()
    }

    @Test func theScanWithoutTheLibraryStillDecodesEveryFirstFrame() throws {
        let (music, damaged) = try stickWithAFifthDamaged()
        defer { music.remove() }
        try expectTheScanAloneLeavesOut(damaged, of: music, listed: 20)
    }
}

@Suite(.serialized, .needsTagEncoders) struct MixedPlayabilityPassTests {
    /// A stick of an MP3, an M4A and an Ogg Vorbis file, each also damaged so that only decoding
    /// finds it.
    func stickWithDamagedAudio() throws -> (TestLibrary, damaged: [String]) {
        let music = try TestLibrary()
        try Syscalls.mkdirs(music.root + "/Album")
        try DamagedAudio.mp3(music.root + "/Album/1.mp3", damaged: false)
        try DamagedAudio.mp3(music.root + "/Album/2.mp3", damaged: true)
        try DamagedAudio.m4a(music.root + "/Album/3.m4a", damaged: false)
        try DamagedAudio.m4a(music.root + "/Album/4.m4a", damaged: true)
        try DamagedAudio.vorbis(music.root + "/Album/5.ogg", damaged: false)
        try DamagedAudio.vorbis(music.root + "/Album/6.ogg", damaged: true)
        return (music, ["Album/2.mp3", "Album/4.m4a", "Album/6.ogg"])
    }

    @Test func filesThatFailOnlyAtDecodeLeaveTheCatalogOnceThePassReachesThem() throws {
        let (music, damaged) = try stickWithDamagedAudio()
        defer { music.remove() }
        _ = try expectThePassTakesOut(damaged, of: music, listed: 6)
    }

    @Test func theScanWithoutTheLibraryStillDecodesEveryFirstBlock() throws {
        let (music, damaged) = try stickWithDamagedAudio()
        defer { music.remove() }
        try expectTheScanAloneLeavesOut(damaged, of: music, listed: 6)
    }
}
