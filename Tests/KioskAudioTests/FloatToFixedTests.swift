// SPDX-License-Identifier: GPL-3.0-or-later
import KioskAudio
import Testing

/// The one float → 24-bit conversion (Vorbis, Opus, AAC, float WAV/AIFF), sample by sample and
/// over buffers of every length around the vector width.
@Suite struct FloatToFixedTests {
    /// The word for a value in 24-bit steps (left-justified in 32 bits).
    private func step(_ n: Int32) -> Int32 { n << 8 }

    @Test func fullScaleMapsToTheTwentyFourBitRangeAndBeyondIsClipped() {
        #expect(FloatToFixed.word(Float(0)) == 0)
        #expect(FloatToFixed.word(Float(-0.0)) == 0)
        #expect(FloatToFixed.word(Float(-1)) == step(-8_388_608))
        #expect(FloatToFixed.word(Float(1)) == step(8_388_607))
        #expect(FloatToFixed.word(Float(0.5)) == step(4_194_304))
        #expect(FloatToFixed.word(Float(1.5)) == step(8_388_607))
        #expect(FloatToFixed.word(Float(-1.5)) == step(-8_388_608))
        #expect(FloatToFixed.word(Float(1e30)) == step(8_388_607))
        #expect(FloatToFixed.word(-Float.greatestFiniteMagnitude) == step(-8_388_608))
    }

    @Test func infinitiesClipAndNaNIsSilence() {
        #expect(FloatToFixed.word(Float.infinity) == step(8_388_607))
        #expect(FloatToFixed.word(-Float.infinity) == step(-8_388_608))
        #expect(FloatToFixed.word(Float.nan) == 0)
        #expect(FloatToFixed.word(-Float.nan) == 0)
        #expect(FloatToFixed.word(Float.signalingNaN) == 0)
        #expect(FloatToFixed.word(Double.infinity) == step(8_388_607))
        #expect(FloatToFixed.word(-Double.infinity) == step(-8_388_608))
        #expect(FloatToFixed.word(Double.nan) == 0)
    }

    @Test func halfwayValuesRoundToTheEvenStepInBothDirections() {
        let lsb = Float(1) / 8_388_608
        #expect(FloatToFixed.word(0.5 * lsb) == 0)
        #expect(FloatToFixed.word(1.5 * lsb) == step(2))
        #expect(FloatToFixed.word(2.5 * lsb) == step(2))
        #expect(FloatToFixed.word(-0.5 * lsb) == 0)
        #expect(FloatToFixed.word(-1.5 * lsb) == step(-2))
        #expect(FloatToFixed.word(-2.5 * lsb) == step(-2))
        // Near full scale a float's last bit is half a step: 8 388 606.5 and 8 388 607.5.
        #expect(FloatToFixed.word(Float(8_388_606.5) / 8_388_608) == step(8_388_606))
        #expect(FloatToFixed.word(Float(8_388_607.5) / 8_388_608) == step(8_388_607))  // 8 388 608, clipped
        #expect(FloatToFixed.word(Float(-8_388_607.5) / 8_388_608) == step(-8_388_608))
        #expect(FloatToFixed.word(Double(2.5) / 8_388_608) == step(2))
        #expect(FloatToFixed.word(Double(-3.5) / 8_388_608) == step(-4))
    }

    @Test func otherValuesRoundToTheNearestStep() {
        let lsb = Float(1) / 8_388_608
        #expect(FloatToFixed.word(0.49999997 * lsb) == 0)
        #expect(FloatToFixed.word(0.50000006 * lsb) == step(1))
        #expect(FloatToFixed.word(-0.75 * lsb) == step(-1))
        // 0.3 as a float is 2 516 582.5 steps (a tie, to even); as a double 2 516 582.4.
        #expect(FloatToFixed.word(Float(0.3)) == step(2_516_582))
        #expect(FloatToFixed.word(Float(-0.3)) == step(-2_516_582))
        #expect(FloatToFixed.word(Double(0.3)) == step(2_516_582))
        // A double is rounded once: just over half a step is a step, though as a float it is half.
        #expect(FloatToFixed.word((0.5 + 1e-12) / 8_388_608) == step(1))
    }

    @Test func aFloatAndTheSameValueAsADoubleGiveTheSameWord() {
        var x: Float = -1.25
        while x <= 1.25 {
            #expect(FloatToFixed.word(x) == FloatToFixed.word(Double(x)), "\(x)")
            x += 0.000_123_4
        }
    }

    @Test func buffersOfEveryLengthConvertAsSampleBySample() {
        let values: [Float] = [
            0.3, -0.3, 1, -1, 2, .nan, .infinity, -.infinity, 1.5 / 8_388_608, -2.5 / 8_388_608, 0.7,
        ]
        for count in 0...37 {
            let input = (0..<count).map { values[$0 % values.count] * ($0 % 3 == 0 ? 1 : 0.5) }
            var output = [Int32](repeating: 0x5555_5555, count: count + 1)
            input.withUnsafeBufferPointer { inp in
                output.withUnsafeMutableBufferPointer { out in
                    FloatToFixed.convert(inp.baseAddress!, count: count, to: out.baseAddress!)
                }
            }
            #expect(Array(output.prefix(count)) == input.map { FloatToFixed.word($0) }, "\(count) samples")
            #expect(output[count] == 0x5555_5555, "\(count) samples: nothing written past the end")
        }
    }

    @Test(arguments: [1, 2, 3, 6]) func planesInterleaveFrameByFrameFromTheStartFrame(channels: Int) {
        for count in [0, 1, 3, 4, 5, 8, 17] {
            let start = 2
            let planes = (0..<channels).map { c in
                (0..<(start + count)).map { Float($0 * 10 + c) / 1000 - 0.05 }
            }
            let pointers = planes.map { plane -> UnsafeMutablePointer<Float>? in
                let p = UnsafeMutablePointer<Float>.allocate(capacity: max(1, plane.count))
                p.initialize(from: plane, count: plane.count)
                return p
            }
            defer { pointers.forEach { $0?.deallocate() } }
            var output = [Int32](repeating: 0, count: count * channels)
            pointers.withUnsafeBufferPointer { p in
                output.withUnsafeMutableBufferPointer { out in
                    FloatToFixed.interleave(
                        p.baseAddress!, channels: channels, from: start, count: count, to: out.baseAddress!)
                }
            }
            let expected = (0..<count).flatMap { i in (0..<channels).map { FloatToFixed.word(planes[$0][start + i]) } }
            #expect(output == expected, "\(channels) channels, \(count) frames")
        }
    }
}
