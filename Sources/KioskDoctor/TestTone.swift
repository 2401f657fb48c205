// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// `doctor --tone`: a short test of the configured device, left then right, as a WAV file the
/// player's own `play` command sends through the audio engine (so the tone takes the path music
/// takes, conversions included).
///
/// Thread: pure functions; any.
public enum TestTone {
    public static let rate = 48000

    /// 16-bit stereo WAV: 0.6 s of 440 Hz on the left only, 0.3 s of silence, 0.6 s of 660 Hz on the
    /// right only; 10 ms fades so neither end clicks. Level −12 dBFS.
    public static func wav() -> [UInt8] {
        let tone = Int(Double(rate) * 0.6)
        let gap = Int(Double(rate) * 0.3)
        let fade = rate / 100
        var frames: [(Int16, Int16)] = []
        frames.reserveCapacity(2 * tone + gap)
        func sine(_ frequency: Double, _ n: Int) -> Int16 {
            let envelope = Double(min(n, tone - 1 - n, fade)) / Double(fade)
            let phase = 2 * Double.pi * frequency * Double(n) / Double(rate)
            return Int16((0.25 * min(envelope, 1) * sin(phase) * 32767).rounded())
        }
        for n in 0..<tone { frames.append((sine(440, n), 0)) }
        for _ in 0..<gap { frames.append((0, 0)) }
        for n in 0..<tone { frames.append((0, sine(660, n))) }
        var out: [UInt8] = []
        let dataBytes = frames.count * 4
        func u32(_ v: Int) { for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8((v >> shift) & 0xFF)) } }
        func u16(_ v: Int) {
            out.append(UInt8(v & 0xFF))
            out.append(UInt8((v >> 8) & 0xFF))
        }
        out += Array("RIFF".utf8)
        u32(36 + dataBytes)
        out += Array("WAVEfmt ".utf8)
        u32(16)
        u16(1)  // PCM
        u16(2)
        u32(rate)
        u32(rate * 4)
        u16(4)
        u16(16)
        out += Array("data".utf8)
        u32(dataBytes)
        for (left, right) in frames {
            u16(Int(UInt16(bitPattern: left)))
            u16(Int(UInt16(bitPattern: right)))
        }
        return out
    }
}
