// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem
import KioskTestSupport
import Testing

/// The player is made of parts that own their state (issue 48): `Player` keeps at most twelve
/// stored properties, and no `Player+*.swift` extension assigns into a part another extension owns
/// (it asks that part, through its methods or its `handle`). Exhibit mode directs the player with
/// `PlayerCommand`s: it neither reaches the engine nor writes the queue or the volume itself.
///
/// The checks read KioskCore's sources, like `WallClockBoundTests` reads the suite's.
struct PlayerPartsTests {
    static let core = TestPaths.repository + "/Sources/KioskCore/"

    /// Each part the extensions may assign into, and the one extension that owns it.
    static let owners: [String: String] = [
        "playQueue": "Player+Queue.swift", "transport": "Player+Transport.swift",
        "restore": "Player+Restore.swift", "navigation": "Player+Navigation.swift", "shelf": "Player+Library.swift",
        "cardSession": "Player+Cards.swift", "exhibit": "Player+Exhibit.swift", "overlays": "Player+Overlays.swift",
        "timers": "Player+Timers.swift", "seekHold": "Player+Seek.swift", "box": "Player+Lock.swift",
        "outbox": "Player+StatusLight.swift", "bedtime": "Player+Bedtime.swift",
        "stickOffer": "Player+StickOffer.swift", "battery": "Player+Battery.swift",
        "keptSettings": "Player+Settings.swift",
    ]

    static func source(_ name: String) throws -> String {
        String(decoding: try Syscalls.readFile(core + name), as: UTF8.self)
    }

    /// The stored properties declared in the class body of `text` (four spaces in): a `let`, a
    /// `var` with no body, or a `var` whose body is only observers.
    static func storedProperties(in text: String) throws -> [String] {
        let declaration = try Regex(
            #"^    (?:public |internal |private |fileprivate |internal\(set\) |private\(set\) )*(let|var) ([A-Za-z_][A-Za-z0-9_]*)"#
        )
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var names: [String] = []
        for (index, line) in lines.enumerated() {
            guard let match = line.firstMatch(of: declaration) else { continue }
            let kind = match.output[1].substring.map(String.init) ?? ""
            let name = match.output[2].substring.map(String.init) ?? ""
            guard kind == "var", let brace = line.firstIndex(of: "{") else {
                names.append(name)
                continue
            }
            // `var x: T { … }` is computed unless its body starts with an observer.
            let rest = line[line.index(after: brace)...].drop { $0 == " " }
            // The body's first line that is not a comment.
            let next = lines[(index + 1)...].lazy.map { $0.drop { $0 == " " } }.first { !$0.hasPrefix("//") } ?? ""
            let body = rest.isEmpty ? next : rest
            if body.hasPrefix("didSet") || body.hasPrefix("willSet") { names.append(name) }
        }
        return names
    }

    /// The parts `text` (the extension `file`) assigns into without owning them.
    static func reaches(in text: String, file: String) throws -> [String] {
        try owners.sorted(by: { $0.key < $1.key }).filter { part, owner in
            let assignment = try Regex(
                #"\b(?:self\.)?"# + part + #"\??(?:\.[A-Za-z_][A-Za-z0-9_?]*)*\s*(?:=|\+=|-=|&\+=|&-=)[^=]"#)
            return owner != file && text.contains(assignment)
        }.map(\.key)
    }

    /// "File.swift: part" for each assignment into `part` in an extension that does not own it.
    static func reaches() throws -> [String] {
        var found: [String] = []
        for entry in try Syscalls.readDirectory(core).entries.map(\.name).sorted()
        where entry.hasPrefix("Player+") && entry.hasSuffix(".swift") {
            found += try reaches(in: try source(entry), file: entry).map { "\(entry): \($0)" }
        }
        return found
    }

    @Test func thePlayerKeepsAtMostTwelveStoredProperties() throws {
        let stored = try Self.storedProperties(in: try Self.source("Player.swift"))
        #expect(stored.count <= 12, "Player stores \(stored.count): \(stored.joined(separator: ", "))")
    }

    @Test func theStoredPropertyCheckCountsObservedAndPlainStorageButNotComputed() throws {
        let text = """
            final class Example {
                let a: Int
                public internal(set) var b: Int {
                    // Observed, still stored.
                    didSet { print(b) }
                }
                var c = 0
                var d: Int { a + 1 }
                var e: Int {
                    get { c }
                    set { c = newValue }
                }
                public static let f = 1
            }
            """
        #expect(try Self.storedProperties(in: text) == ["a", "b", "c"])
    }

    @Test func theReachCheckFindsAnAssignmentButNotAComparisonOrAMethodCall() throws {
        let text = """
            if cardSession.playing == nil { cardSession.forget() }
            exhibit?.lastError = "x"
            self.restore = .none
            """
        #expect(try Self.reaches(in: text, file: "Player+Cards.swift") == ["exhibit", "restore"])
    }

    @Test func noPlayerExtensionAssignsIntoAPartAnotherExtensionOwns() throws {
        let found = try Self.reaches()
        #expect(found.isEmpty, "extensions reaching another part's state:\n\(found.joined(separator: "\n"))")
    }

    @Test func theExhibitDirectorSendsCommandsInsteadOfWritingTheQueueTheEngineOrTheVolume() throws {
        let text = try Self.source("Player+Exhibit.swift")
        for reach in ["engine.", "playQueue.", "transport.", "volumeControl", "recorder.", "silenceEngine"] {
            #expect(!text.contains(reach), "Player+Exhibit.swift uses \(reach)")
        }
        #expect(text.contains("from: .exhibit"))
    }

    /// The parts: values whose state changes in their own `handle`, returning `PlayerEffect`s.
    static let parts = [
        "Transport.swift", "Overlays.swift", "PlayerTimers.swift", "RestoreSession.swift", "Navigation.swift",
        "CardSession.swift", "PlayQueue.swift", "BedtimeRules.swift", "StickOffer.swift",
        "BatteryGuard.swift",
    ]

    /// A call `engine.x(`, `recorder.x(` (not an effect's `.engine(`), or a timer scheduled or
    /// cancelled: what only `Player.apply(_:)` (and the drawing of the screen in Player.swift) may
    /// do.
    static let servicePattern =
        #"(?:^|[^.\w]|self\.)(?:engine|recorder)\.[A-Za-z_]+\(|scheduler\.(?:schedule|cancel)\("#

    /// The lines of `text` that are code (comments dropped), with their numbers.
    static func codeLines(_ text: String) -> [(Int, Substring)] {
        text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { index, line in
            let code = line.drop { $0 == " " }
            return code.hasPrefix("//") ? nil : (index + 1, line)
        }
    }

    /// "File.swift:line" for each call of a service in `text`.
    static func serviceCalls(in text: String, file: String) throws -> [String] {
        let call = try Regex(servicePattern)
        return codeLines(text).filter { $0.1.contains(call) }.map {
            "\(file):\($0.0): \($0.1.drop { $0 == " " })"
        }
    }

    @Test func theServiceCheckFindsACallButNotAnEffectOrAComment() throws {
        let text = """
            engine.setQueue([], startAt: 0, startFrame: 0)
            apply([.engine(.play)])
            // engine.stop() here would reopen the track.
            recorder.saveSoon()
            _ = scheduler.schedule(afterMilliseconds: 10) {}
            """
        #expect(
            try Self.serviceCalls(in: text, file: "X.swift").map { $0.prefix(11) } == [
                "X.swift:1: ", "X.swift:4: ", "X.swift:5: ",
            ])
    }

    @Test func noPlayerExtensionCallsTheEngineOrTheRecorder() throws {
        var found: [String] = []
        for entry in try Syscalls.readDirectory(Self.core).entries.map(\.name).sorted()
        where entry.hasPrefix("Player+") && entry.hasSuffix(".swift") {
            found += try Self.serviceCalls(in: try Self.source(entry), file: entry)
        }
        #expect(found.isEmpty, "calls that belong in Player.apply:\n\(found.joined(separator: "\n"))")
    }

    @Test func noPartCallsTheEngineTheRecorderOrTheScheduler() throws {
        var found: [String] = []
        for part in Self.parts {
            let text = try Self.source(part)
            found += try Self.serviceCalls(in: text, file: part)
            if Self.codeLines(text).contains(where: {
                $0.1.contains("any Scheduler") || $0.1.contains("PlaybackEngine")
            }) {
                found.append("\(part): holds a scheduler or an engine")
            }
        }
        #expect(found.isEmpty, "parts that act instead of returning effects:\n\(found.joined(separator: "\n"))")
    }
}
