// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem
import KioskTestSupport
import Testing

/// KioskTestSupport's buffer comparison, which the decoder and output tests use on buffers of
/// millions of samples (here: it lives in the smallest test target that imports KioskTestSupport).
@Suite struct SampleComparisonTests {
    @Test func equalBuffersHaveNoDifference() {
        #expect(firstDifference([Int32](), []) == nil)
        #expect(firstDifference([1, 2, 3] as [Int32], [1, 2, 3]) == nil)
    }

    @Test func theFirstDifferingIndexIsFound() {
        #expect(firstDifference([1, 2, 3, 4] as [Int32], [1, 2, 9, 8]) == 2)
        #expect(firstDifference([7] as [UInt8], [8]) == 0)
    }

    @Test func aPrefixDiffersWhereTheShorterEnds() {
        #expect(firstDifference([1, 2] as [Int16], [1, 2, 3]) == 2)
        #expect(firstDifference([1, 2, 3] as [Int16], []) == 0)
    }

    @Test func aFailureNamesTheCountsTheIndexAndBothValues() {
        withKnownIssue {
            expectSameSamples([1, 2, 3] as [Int32], [1, 5, 3], "left channel")
        } matching: { issue in
            issue.comments.map(\.rawValue) == [
                "left channel: 3 elements, expected 3; first difference at index 1: 2, expected 5"
            ]
        }
        withKnownIssue {
            expectSameSamples([1, 2] as [UInt8], [1, 2, 3])
        } matching: { issue in
            issue.comments.map(\.rawValue) == [
                "2 elements, expected 3; equal up to index 2, where the shorter one ends"
            ]
        }
    }

    /// `#expect(a == b)` on two buffers this size had the test framework diff them for minutes; the
    /// helper compares bytes and reports one index (the message below is the helper's, not the framework's diff).
    @Test func millionsOfSamplesDifferingAtTheEndAreReportedAtOnce() {
        let expected = [Int32](repeating: 7, count: 8 << 20)
        var actual = expected
        actual[actual.count - 1] = 8
        withKnownIssue {
            expectSameSamples(actual, expected)
        } matching: { issue in
            issue.comments.map(\.rawValue) == [
                "8388608 elements, expected 8388608; first difference at index 8388607: 8, expected 7"
            ]
        }
    }
}
