// SPDX-License-Identifier: GPL-3.0-or-later
import KioskFuzzTargets
import KioskLibrary
import KioskSystem
import KioskTestSupport
import Testing

/// The image target measures what each decode held, so inputs that get around the memory bound
/// fail the fuzz run like crashes do.
struct ImageFuzzTests {
    @Test func theImageTargetMeasuresWhatTheDecoderHeld() {
        // A 2000×1500 picture decoded whole holds its 12 MB of pixels (and more, to fit it). The
        // gauge counts the whole process: memory other tests free meanwhile lowers one reading
        // (9.9 MB seen in a parallel run), so the largest of three readings is judged.
        let png = SyntheticLibrary.solidPNG(width: 2000, height: 1500, red: 200, green: 10, blue: 30)
        #expect((0..<3).map { _ in ImageFuzz.peakHeap(png) }.max()! >= 12_000_000)
    }

    @Test func aMultiScanBaselineJPEGStaysUnderTheBound() throws {
        // 186 bytes that made libjpeg buffer 216 MB of coefficients before the bound counted them.
        let path = TestPaths.repository + "/Tests/Fuzz/regressions/image/multi-scan-baseline-10000x3600.jpg"
        let jpeg = try Syscalls.readFile(path)
        let peak = ImageFuzz.peakHeap(jpeg)
        #expect(peak < ImageFuzz.bound, "peak \(peak) bytes")
    }
}
