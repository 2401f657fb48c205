// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskSoxr
import Glibc

/// libsoxr converting interleaved left-justified 32-bit frames from one rate to another, at its
/// "high quality" recipe (SOXR_HQ: 20-bit precision, 95 % bandwidth; MPD's default soxr quality).
/// It keeps what it has not resampled yet between calls: `flush` gets the tail out at a stream's end.
///
/// libsoxr is opened with dlopen by the first resampler (`kiosk_soxr.h` says why); without
/// libsoxr.so.0 `init` throws a message naming it.
///
/// Thread: one at a time (the output thread). `init` allocates (libsoxr's tables). libsoxr sizes its
/// stages' buffers lazily over its first blocks, and again after `clear` (which frees them): measured
/// with the allocation counter, 2 small allocations within the first 40 blocks of a stream (22.05 →
/// 48 kHz), none after. Those blocks count as set-up (`isFresh`), not steady state.
final class Resampler {
    private let soxr: soxr_t
    let channels: Int
    let inputRate: Int
    let outputRate: Int
    /// Within its first `warmUpCalls` blocks since it was made or cleared (libsoxr still sizing
    /// its buffers).
    private(set) var isFresh = true
    private var warmCalls = 0
    static let warmUpCalls = 40

    /// Loads libsoxr if it is not yet (any thread; once); why not, or nil.
    static func load() -> String? {
        var why = [CChar](repeating: 0, count: 256)
        guard kso_load(&why, why.count) != 0 else { return nil }
        let reason = String(decoding: why.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return "cannot load libsoxr (\(reason); Debian's package libsoxr0 provides it)"
    }

    /// Throws libsoxr's message when it cannot convert between the rates.
    init(channels: Int, from inputRate: Int, to outputRate: Int) throws(AudioOutputError) {
        self.channels = channels
        self.inputRate = inputRate
        self.outputRate = outputRate
        var why = [CChar](repeating: 0, count: 256)
        guard kso_load(&why, why.count) == 0 else {
            let reason = String(decoding: why.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw AudioOutputError(
                code: -ENOENT,
                message:
                    "cannot resample \(inputRate) Hz to \(outputRate) Hz: cannot load libsoxr (\(reason); Debian's package libsoxr0 provides it)"
            )
        }
        var io = kso_soxr_io_spec(SOXR_INT32_I, SOXR_INT32_I)
        var quality = kso_soxr_quality_spec(UInt(SOXR_HQ), 0)
        var error: soxr_error_t?
        let made = kso_soxr_create(Double(inputRate), Double(outputRate), UInt32(channels), &error, &io, &quality, nil)
        guard let made, error == nil else {
            let text = error.map { String(cString: $0) } ?? "unknown error"
            throw AudioOutputError(
                code: -22, message: "cannot resample \(inputRate) Hz to \(outputRate) Hz: libsoxr: \(text)")
        }
        soxr = made
    }

    deinit { kso_soxr_delete(soxr) }

    /// Resamples up to `frames` frames at `input` into at most `capacity` frames at `output`;
    /// returns the frames taken and the frames made (either may be 0 while its filter fills).
    func process(
        _ input: UnsafePointer<Int32>, frames: Int, into output: UnsafeMutablePointer<Int32>, capacity: Int
    ) -> (consumed: Int, produced: Int) {
        var consumed = 0
        var produced = 0
        _ = kso_soxr_process(soxr, input, frames, &consumed, output, capacity, &produced)
        if isFresh {
            warmCalls += 1
            if warmCalls >= Self.warmUpCalls { isFresh = false }
        }
        return (consumed, produced)
    }

    /// Gets out what the filter still holds at the end of a stream (call until it makes 0 frames).
    func flush(into output: UnsafeMutablePointer<Int32>, capacity: Int) -> Int {
        var produced = 0
        _ = kso_soxr_process(soxr, nil, 0, nil, output, capacity, &produced)
        return produced
    }

    /// Output frames the filter holds back (its delay), for the position of a boundary.
    var delayFrames: Int { Int(kso_soxr_delay(soxr).rounded()) }

    /// Forgets what it holds: the next frames start a new signal.
    func clear() {
        _ = kso_soxr_clear(soxr)
        isFresh = true
        warmCalls = 0
    }
}
