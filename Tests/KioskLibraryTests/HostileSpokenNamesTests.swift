// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskLibrary

/// A stick whose folder and album are named with 200 bytes of "a." pairs, the text that aborts
/// libespeak-ng 1.51: the player speaks in `names` and `prompts` mode while it plays, and keeps
/// playing (issue 44). Everything is made in the test.
@Suite(.tags(.integration), .serialized)
struct HostileSpokenNamesTests {
    static let hostile = String(repeating: "a.", count: 100)

    @Test(arguments: ["names", "prompts"])
    func aFolderNamedToKillTheSpeechLibraryLeavesThePlayerPlaying(mode: String) throws {
        let library = try TestLibrary("kiosk-hostile-names")
        defer { library.remove() }
        for n in 1...2 {
            try library.flac(
                "\(Self.hostile)/0\(n).flac", [("TITLE", "T\(n)"), ("ALBUM", Self.hostile), ("TRACKNUMBER", "\(n)")],
                seconds: 6)
            try library.flac(
                "Zebra/0\(n).flac", [("TITLE", "Z\(n)"), ("ALBUM", "Zebra"), ("TRACKNUMBER", "\(n)")], seconds: 1)
        }
        let box = try TemporaryDirectory("kiosk-hostile-names-box")
        defer { box.remove() }
        try box.write(
            "boards/e2e.json", #"{"name": "e2e", "description": "screenless", "screen": {"type": "none"}}"#)
        let config = JSONValue.object([
            ("board", .string("e2e")), ("boardsDirectory", .string(box.file("boards"))),
            ("libraryDirectories", .array([.string(library.root)])),
            ("stateDirectory", .string(box.file("state"))), ("volume", .number(100)),
            (
                "audio",
                .object([
                    ("device", .string("file:'\(box.file("out.raw"))',raw")), ("fallbackDevices", .array([])),
                    ("realtimePriority", .number(0)),
                ])
            ),
            ("speech", .object([("mode", .string(mode))])),
            ("inputs", .object([("keyboard", .bool(false))])),
        ])
        try AtomicFile.replace(box.file("config.json"), with: config.serialized(pretty: true) + "\n")
        // The albums once scanned: the hostile one sorts first; enter plays it; the moves through
        // the list say its name (names mode); an unknown card offers it for linking (prompts).
        try box.write(
            "script.jsonl",
            """
            {"t": 8000, "key": "enter"}
            {"t": 9000, "key": "down"}
            {"t": 9600, "key": "up"}
            {"t": 10200, "card": "04A2B3C4D5"}
            {"t": 11000, "key": "down"}
            {"t": 11600, "key": "up"}

            """)
        var environment = currentEnvironment()
        environment["JOURNAL_STREAM"] = nil
        environment["NOTIFY_SOCKET"] = nil
        let result = run(
            TestPaths.playerBinary,
            [
                "--verbose", "run", "--config", box.file("config.json"), "--script", box.file("script.jsonl"),
                "--exit-after-script", "3000",
            ],
            environment: environment, timeoutSeconds: 90)
        let log = result.output + result.errors
        #expect(result.status == 0 && !result.timedOut, "exit status \(result.status): \(log.suffix(3000))")
        #expect(log.contains("track started: \(Self.hostile)/01.flac"), "\(log.suffix(3000))")
        let said = log.split(separator: "\n").filter { $0.contains("speech: \"") }
        #expect(!said.isEmpty, "nothing was said: \(log.suffix(3000))")
        for line in said {
            let text = line.drop(while: { $0 != "\"" }).dropFirst().dropLast()
            #expect(text.count <= 2 * 80, "\(line)")
        }
        #expect(log.contains("track started: \(Self.hostile)/02.flac"), "it played on: \(log.suffix(3000))")
    }
}
