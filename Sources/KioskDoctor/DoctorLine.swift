// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem

/// One line of the doctor's checklist: what was found, whether it is right, and the exact fix when
/// it is not.
///
/// Thread: a value; any thread.
public struct DoctorLine: Sendable, Equatable {
    /// ✓ a required thing is right, ✗ a required thing is wrong (the exit status becomes 1), – for
    /// information or an optional part.
    public enum Status: String, Sendable, Equatable {
        case pass, fail, info

        public var symbol: String {
            switch self {
            case .pass: "✓"
            case .fail: "✗"
            case .info: "–"
            }
        }
    }

    /// The check group ("board", "sound", "config.txt", "gpio", "spi", "screen", "usb", "power",
    /// "state", "groups").
    public var check: String
    public var status: Status
    public var text: String
    /// The exact command or edit that fixes a ✗ (or helps with a –).
    public var fix: String?
    /// What a technician wants and a parent does not (file paths, kernel names, ALSA's own error):
    /// shown with `--verbose` and in the JSON only.
    public var detail: String?

    public init(_ check: String, _ status: Status, _ text: String, fix: String? = nil, detail: String? = nil) {
        self.check = check
        self.status = status
        self.text = text
        self.fix = fix
        self.detail = detail
    }

    public static func pass(_ check: String, _ text: String, detail: String? = nil) -> DoctorLine {
        DoctorLine(check, .pass, text, detail: detail)
    }
    public static func fail(_ check: String, _ text: String, fix: String, detail: String? = nil) -> DoctorLine {
        DoctorLine(check, .fail, text, fix: fix, detail: detail)
    }
    public static func info(_ check: String, _ text: String, fix: String? = nil, detail: String? = nil) -> DoctorLine {
        DoctorLine(check, .info, text, fix: fix, detail: detail)
    }

    /// A check that does not apply to this machine: "– gpio: not checked here: …", never a ✗.
    public static func notChecked(_ check: String, _ why: String) -> DoctorLine {
        DoctorLine(check, .info, "not checked here: \(why)")
    }
}

/// The whole checklist, as text for people or JSON for scripts.
///
/// Thread: a value; any thread.
public struct DoctorReport: Sendable {
    /// What to know before the lines, e.g. "This is not a Raspberry Pi: …".
    public var preface: [String]
    public var lines: [DoctorLine]

    public init(preface: [String] = [], lines: [DoctorLine]) {
        self.preface = preface
        self.lines = lines
    }

    /// True when no required check failed.
    public var passed: Bool { !lines.contains { $0.status == .fail } }
    public var failures: [DoctorLine] { lines.filter { $0.status == .fail } }

    /// `✓ check: text`, and under a line with a fix `    fix: …`; a summary last.
    public var text: String { text(onlyFailures: false) }

    /// As `text`, with only the ✗ lines when `onlyFailures` (the package's postinst summary), and
    /// each line's technical detail when `verbose`.
    public func text(onlyFailures: Bool, verbose: Bool = false) -> String {
        let width = (lines.map(\.check.count).max() ?? 0) + 1
        var out = preface.map { $0 + "\n" }.joined()
        if !preface.isEmpty { out += "\n" }
        let indent = "    " + String(repeating: " ", count: width)
        for line in lines where !onlyFailures || line.status == .fail {
            let label = line.check + ":" + String(repeating: " ", count: max(0, width - line.check.count - 1))
            out += "\(line.status.symbol) \(label) \(line.text)\n"
            if let fix = line.fix { out += "\(indent) fix: \(fix)\n" }
            if verbose, let detail = line.detail { out += "\(indent) detail: \(detail)\n" }
        }
        out += summary + "\n"
        return out
    }

    /// One sentence: how many checks passed and failed.
    public var summary: String {
        let passes = lines.filter { $0.status == .pass }.count
        let fails = failures.count
        if fails == 0 && passes == 1 { return "the 1 required check passes" }
        return fails == 0
            ? "all \(passes) required checks pass"
            : "\(fails) required check\(fails == 1 ? "" : "s") failed (\(passes) passed): fix the ✗ lines above"
    }

    public var json: JSONValue {
        .object([
            ("ok", .bool(passed)),
            ("preface", .array(preface.map { .string($0) })),
            (
                "lines",
                .array(
                    lines.map { line in
                        .object([
                            ("check", .string(line.check)), ("status", .string(line.status.rawValue)),
                            ("text", .string(line.text)), ("fix", line.fix.map { .string($0) } ?? .null),
                            ("detail", line.detail.map { .string($0) } ?? .null),
                        ])
                    })
            ),
        ])
    }
}
