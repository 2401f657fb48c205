// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem
import KioskTestSupport
import Testing

/// No test of `make test` bounds a wall-clock duration from above: a busy machine (a laptop running
/// a browser, CI beside other jobs) stretches every duration, and such a test then fails with nothing
/// wrong (issue 47: a scan at 44 s against 30 s, an M4A at 1.3 s against 1.0 s). A budget that matters
/// is counted (bytes or calls read, steps, allocations, CPU time of a thread) or left to `make bench`.
/// Lower bounds stay (a timeout that must not fire early: load only lengthens the wait), as do
/// timeouts that end a hung wait.
///
/// The check reads the suite's sources: a variable is a measured duration when it is assigned from a
/// difference with a clock reading (`monotonicNanoseconds()`, `ContinuousClock.now`, an instant
/// read from them), `.duration(to:)`, `measure` or a JSON `…Seconds`/`…Ms` figure, or computed from one; an expectation may not put one
/// below a bound (`d < x`, `d <= x`, `x > d`, `x >= d`).
struct WallClockBoundTests {
    /// Reviewed exceptions as "File.swift: variable". None: keep it that way.
    static let allowed: Set<String> = []

    @Test func noExpectationBoundsAMeasuredDurationFromAbove() throws {
        var found: [String] = []
        // This file's own examples are what the check must find.
        for file in try SourceFiles.swift(under: TestPaths.repository + "/Tests")
        where !file.hasSuffix("/WallClockBoundTests.swift") {
            let text = String(decoding: try Syscalls.readFile(file), as: UTF8.self)
            let name = String(file.split(separator: "/").last ?? "")
            for (line, variable) in try Self.upperBounds(in: text) where !Self.allowed.contains("\(name): \(variable)")
            {
                found.append("\(file.dropFirst(TestPaths.repository.count + 1)):\(line): \(variable)")
            }
        }
        #expect(found.isEmpty, "wall-clock upper bounds in tests:\n\(found.joined(separator: "\n"))")
    }

    @Test func theCheckFindsABoundedDurationAndPassesACountAndALowerBound() throws {
        // The examples are data (Tests/Fixtures/wall-clock), not code of the suite the check reads.
        let fixtures = TestPaths.repository + "/Tests/Fixtures/wall-clock/"
        let bounded = String(decoding: try Syscalls.readFile(fixtures + "bounded.swift.txt"), as: UTF8.self)
        #expect(try Self.upperBounds(in: bounded).map(\.variable) == ["elapsed", "seconds"])
        let fine = String(decoding: try Syscalls.readFile(fixtures + "fine.swift.txt"), as: UTF8.self)
        #expect(try Self.upperBounds(in: fine).isEmpty)
    }

    /// The expectations in `source` that bound a measured duration from above: (line, variable).
    static func upperBounds(in source: String) throws -> [(line: Int, variable: String)] {
        let reading = try Regex(#"monotonicNanoseconds\(\)|ContinuousClock\.now|SuspendingClock\.now|\.nowNanoseconds"#)
        let measured = try Regex(
            #"monotonicNanoseconds\(\)\s*-|\.duration\(to:|\.measure\s*\{|\.double\("\w*(Seconds|Ms|Milliseconds)""#)
        let assignment = try Regex(#"\b(?:let|var)\s+([A-Za-z_][A-Za-z0-9_]*)\s*(?::[^=]*)?=\s*(.*)"#)
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var assignments: [(name: String, value: String)] = []
        for line in lines {
            guard let match = try assignment.firstMatch(in: line),
                let name = match.output[1].substring.map(String.init),
                let value = match.output[2].substring.map(String.init)
            else { continue }
            assignments.append((name, value))
        }
        // Instants (a clock read), then durations: a difference with an instant, or computed from a
        // duration (`seconds = elapsed / 1e9`; twice, for a chain of two).
        let instants = Set(
            assignments.filter { $0.value.contains(reading) && !$0.value.contains(measured) }.map(\.name))
        var durations: Set<String> = []
        for _ in 0..<2 {
            for (name, value) in assignments
            where value.contains(measured) || instants.contains(where: { Self.subtracts(value, $0) })
                || durations.contains(where: { Self.mentions(value, $0) })
            {
                durations.insert(name)
            }
        }
        var found: [(Int, String)] = []
        var index = 0
        while index < lines.count {
            guard lines[index].contains("#expect(") || lines[index].contains("#require(") else {
                index += 1
                continue
            }
            // The whole expectation, however many lines it spans.
            let first = index
            var statement = lines[index]
            var depth = Self.depth(lines[index])
            while depth > 0 && index + 1 < lines.count {
                index += 1
                statement += " " + lines[index]
                depth += Self.depth(lines[index])
            }
            for variable in durations.sorted() {
                let below = try Regex(#"\b\#(variable)\s*<"#)
                let above = try Regex(#">=?\s*\#(variable)\b"#)
                if statement.contains(below) || statement.contains(above) { found.append((first + 1, variable)) }
            }
            index += 1
        }
        return found.map { (line: $0.0, variable: $0.1) }
    }

    private static func subtracts(_ text: String, _ name: String) -> Bool {
        (try? Regex(#"-\s*\#(name)\b"#)).map { text.contains($0) } ?? false
    }

    private static func mentions(_ text: String, _ name: String) -> Bool {
        (try? Regex(#"\b\#(name)\b"#)).map { text.contains($0) } ?? false
    }

    /// Open minus closed parentheses on a line (string contents counted too: good enough for a check).
    private static func depth(_ line: String) -> Int {
        line.reduce(0) { $0 + ($1 == "(" ? 1 : $1 == ")" ? -1 : 0) }
    }

}
