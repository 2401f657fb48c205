// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskAudio
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

/// Decodes the whole stream into left-justified 32-bit samples, with the formats met on the way.
func decodeAll(_ decoder: any AudioDecoder) -> (samples: [Int32], formats: [PCMFormat], end: DecodeStep) {
    var samples: [Int32] = []
    var formats: [PCMFormat] = decoder.format.map { [$0] } ?? []
    let buffer = UnsafeMutableRawPointer.allocate(byteCount: 1 << 20, alignment: 16)
    defer { buffer.deallocate() }
    while let format = decoder.format {
        let frameBytes = format.channels * format.ringEncoding.bytes
        // A small, odd-sized target: decoding must carry blocks over between calls.
        let step = decoder.decode(into: RingBuffer.Regions(buffer, frames: 1000))
        switch step {
        case .frames(let n):
            let count = n * format.channels
            if format.ringEncoding == .s16 {
                let p = buffer.assumingMemoryBound(to: Int16.self)
                for i in 0..<count { samples.append(Int32(p[i]) << 16) }
            } else {
                let p = buffer.assumingMemoryBound(to: Int32.self)
                for i in 0..<count { samples.append(p[i]) }
            }
            _ = frameBytes
        case .formatChange(let next):
            formats.append(next)
        case .endOfStream, .failed:
            return (samples, formats, step)
        }
    }
    return (samples, formats, .endOfStream)
}

private func leftJustified(_ samples: [Int32], bits: Int) -> [Int32] { samples.map { $0 << Int32(32 - bits) } }

@Suite(.tags(.integration), .serialized, .enabled(if: Fixtures.hasFlac, "needs the flac tool (apt-get install flac)"))
struct FLACDecoderTests {
    let format = PCMFormat(sampleRate: 44100, channels: 2, bitsPerSample: 16)

    @Test func decodesEveryFrameOfAFileAndItsStreamInfo() throws {
        let dir = try TemporaryDirectory("kiosk-flac")
        defer { dir.remove() }
        let samples = try Fixtures.makeTrack(dir.file("a.flac"), format: format, frames: 20000)
        let decoder = FLACDecoder()
        try decoder.open(path: dir.file("a.flac"))
        #expect(decoder.format == format)
        #expect(decoder.totalFrames == 20000)
        let result = decodeAll(decoder)
        #expect(result.end == .endOfStream)
        expectSameSamples(result.samples, leftJustified(samples, bits: 16))
    }

    @Test func seekLandsOnTheRequestedFrame() throws {
        let dir = try TemporaryDirectory("kiosk-flac")
        defer { dir.remove() }
        let deep = PCMFormat(sampleRate: 96000, channels: 2, bitsPerSample: 24)
        let samples = try Fixtures.makeTrack(dir.file("a.flac"), format: deep, frames: 30000)
        let decoder = FLACDecoder()
        try decoder.open(path: dir.file("a.flac"))
        try decoder.seek(toFrame: 12345)
        #expect(decoder.position == 12345)
        let result = decodeAll(decoder)
        expectSameSamples(result.samples, leftJustified(Array(samples[(12345 * 2)...]), bits: 24))
        #expect(throws: DecodeError.seekFailed(frame: 30000)) { try decoder.seek(toFrame: 30000) }
    }

    @Test func streamStartingAtAFrameHeaderPlays() throws {
        let dir = try TemporaryDirectory("kiosk-flac")
        defer { dir.remove() }
        let samples = try Fixtures.makeTrack(dir.file("a.flac"), format: format, frames: 10000)
        let file = try Syscalls.readFile(dir.file("a.flac"))
        try dir.write("frames.flac", Array(file[Fixtures.firstFrameOffset(file)...]))
        let decoder = FLACDecoder()
        try decoder.open(path: dir.file("frames.flac"))
        #expect(decoder.format == format)
        #expect(decoder.totalFrames == nil)
        expectSameSamples(decodeAll(decoder).samples, leftJustified(samples, bits: 16))
    }

    @Test func junkBeforeTheStreamIsSkipped() throws {
        let dir = try TemporaryDirectory("kiosk-flac")
        defer { dir.remove() }
        let samples = try Fixtures.makeTrack(dir.file("a.flac"), format: format, frames: 10000)
        let junk = Array(String(repeating: "this is not audio; ", count: 100).utf8)
        try dir.write("junk.flac", junk + (try Syscalls.readFile(dir.file("a.flac"))))
        let decoder = FLACDecoder()
        try decoder.open(path: dir.file("junk.flac"))
        expectSameSamples(decodeAll(decoder).samples, leftJustified(samples, bits: 16))
    }

    @Test func formatChangeInTheMiddleOfAStreamIsReportedNotMixed() throws {
        let dir = try TemporaryDirectory("kiosk-flac")
        defer { dir.remove() }
        let first = try Fixtures.makeTrack(dir.file("a.flac"), format: format, frames: 9000)
        let other = PCMFormat(sampleRate: 48000, channels: 1, bitsPerSample: 24)
        let second = try Fixtures.makeTrack(dir.file("b.flac"), format: other, frames: 7000, seed: 9)
        let b = try Syscalls.readFile(dir.file("b.flac"))
        try dir.write(
            "ab.flac", (try Syscalls.readFile(dir.file("a.flac"))) + Array(b[Fixtures.firstFrameOffset(b)...]))
        let decoder = FLACDecoder()
        try decoder.open(path: dir.file("ab.flac"))
        let result = decodeAll(decoder)
        #expect(result.formats == [format, other])
        expectSameSamples(result.samples, leftJustified(first, bits: 16) + leftJustified(second, bits: 24))
    }

    @Test func badFilesGiveClearErrors() throws {
        let dir = try TemporaryDirectory("kiosk-flac")
        defer { dir.remove() }
        try Fixtures.makeTrack(dir.file("good.flac"), format: format, frames: 44100)
        let good = try Syscalls.readFile(dir.file("good.flac"))
        try dir.write("truncated.flac", Array(good[0..<(good.count * 6 / 10)]))
        try dir.write("empty.flac", [])
        var state: UInt64 = 42
        try dir.write(
            "random.flac",
            (0..<65536).map { _ in
                state = state &* 6_364_136_223_846_793_005 &+ 1
                return UInt8(truncatingIfNeeded: state >> 56)
            })
        var corrupt = good
        let middle = good.count / 2
        for i in middle..<(middle + 64) { corrupt[i] ^= 0x5A }
        try dir.write("corrupt.flac", corrupt)
        try Syscalls.mkdir(dir.file("folder.flac"))

        func failure(_ name: String) -> DecodeError? {
            let decoder = FLACDecoder()
            do throws(DecodeError) {
                try decoder.open(path: dir.file(name))
            } catch {
                return error
            }
            if case .failed(let error) = decodeAll(decoder).end { return error }
            return nil
        }
        #expect(failure("missing.flac") == .cannotOpen(errno: ENOENT))
        #expect(failure("empty.flac") == .emptyFile)
        #expect(failure("folder.flac") == .notARegularFile)
        #expect(failure("random.flac") == .notFLAC)
        if case .truncated(let decoded, let expected) = failure("truncated.flac") {
            #expect(decoded < expected && expected == 44100)
        } else {
            Issue.record("truncated file not reported as truncated")
        }
        if case .corrupt = failure("corrupt.flac") {
        } else {
            Issue.record("corrupted frames not reported: \(String(describing: failure("corrupt.flac")))")
        }
        #expect(failure("good.flac") == nil)
    }
}
