// SPDX-License-Identifier: GPL-3.0-or-later
import KioskAudio
import KioskSystem
import KioskTestSupport
import Testing

/// Sizes a file declares about itself are untrusted: a sum that does not fit in 64 bits names the
/// file as damaged; it never traps (a trap in the scan stopped the box at every start).
@Suite struct DeclaredSizeTests {
    private func open(_ bytes: [UInt8], _ name: String) throws -> DecodeError? {
        try openingError(bytes, named: name)
    }

    @Test("sums of declared sizes report overflow instead of trapping")
    func arithmetic() {
        #expect(DeclaredSize.end(100, plus: Int64.max - 100) == Int64.max)
        #expect(DeclaredSize.end(101, plus: Int64.max - 100) == nil)
        #expect(DeclaredSize.end(0, plus: -1) == nil)
        #expect(!DeclaredSize.fits(8, length: Int64.max, within: 1000))
        #expect(DeclaredSize.fits(8, length: 992, within: 1000))
        #expect(DeclaredSize.signed(UInt64(Int64.max)) == Int64.max)
        #expect(DeclaredSize.signed(UInt64(Int64.max) + 1) == nil)
    }

    @Test("an RF64 WAV whose ds64 data size is near 2^63 is a damaged file, named as such")
    func rf64NearTwoToThe63() throws {
        let error = try open(HostileFiles.rf64(dataSize: UInt64(Int64.max) - 8), "huge.wav")
        #expect(error == .badHeader(.wav, .sizeOverflow))
        #expect(
            error?.description == "not a playable WAV file: damaged file: a size field is larger than any file can be")
    }

    @Test("an RF64 WAV whose ds64 data size is 2^63 or more is a damaged file")
    func rf64AboveTwoToThe63() throws {
        #expect(try open(HostileFiles.rf64(dataSize: UInt64.max), "huge.wav") == .badHeader(.wav, .sizeOverflow))
    }

    @Test("an RF64 WAV with a truthful ds64 plays its frames")
    func rf64Truthful() throws {
        let dir = try TemporaryDirectory()
        try dir.write("ok.wav", HostileFiles.rf64(dataSize: 64 * 4, frames: 64))
        let decoder = try DecoderSet().open(path: dir.file("ok.wav"))
        #expect(decoder.totalFrames == 64)
    }

    @Test("an MP4 box whose 64-bit size is near 2^63 is a damaged file")
    func mp4LargeSize() throws {
        #expect(
            try open(HostileFiles.mp4(largeBoxSize: UInt64(Int64.max) - 4), "huge.m4a")
                == .badHeader(.mp4, .sizeOverflow))
        #expect(try open(HostileFiles.mp4(largeBoxSize: UInt64.max), "huge.m4a") == .badHeader(.mp4, .sizeOverflow))
    }
}
