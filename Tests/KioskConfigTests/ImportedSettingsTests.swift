// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskSystem
import KioskTestSupport
import Testing

/// Settings imported at the box (`imported-settings.json` in the state directory) applied over the
/// config file they were imported over, and only that one; a broken or hostile file changes nothing.
@Suite struct ImportedSettingsTests {
    /// A config file whose state directory is `dir`, with `members` besides.
    func writeConfig(_ dir: TemporaryDirectory, _ members: String) throws -> (file: String, object: JSONValue) {
        let text = #"{"stateDirectory": "\#(dir.path)"\#(members.isEmpty ? "" : ", " + members)}"#
        try dir.write("config.json", text)
        return (dir.file("config.json"), try JSONValue.parse(text))
    }

    func writeImported(_ dir: TemporaryDirectory, settings: String, basedOn: JSONValue) throws {
        let imported = ImportedSettings(settings: try JSONValue.parse(settings), basedOn: basedOn)
        try dir.write(ImportedSettings.fileName, imported.text)
    }

    @Test func theyApplyOverTheConfigFileTheyWereImportedOver() throws {
        let dir = try TemporaryDirectory("kiosk-imported")
        defer { dir.remove() }
        let config = try writeConfig(dir, #""volume": 70, "volumeMax": 90"#)
        try writeImported(dir, settings: #"{"volume": 40, "bookmarks": "all"}"#, basedOn: config.object)
        let loaded = try Config.load(path: config.file)
        #expect(loaded.volume == 40 && loaded.volumeLimits.range.upperBound == 90 && loaded.bookmarks == .all)
        #expect(loaded.file == config.file)
        #expect(loaded.imported == .applied(keys: ["volume", "bookmarks"], file: dir.file(ImportedSettings.fileName)))
    }

    @Test func anEditOfTheConfigFileAfterTheImportWins() throws {
        let dir = try TemporaryDirectory("kiosk-imported")
        defer { dir.remove() }
        let before = try writeConfig(dir, #""volume": 70"#)
        try writeImported(dir, settings: #"{"volume": 40}"#, basedOn: before.object)
        let edited = try writeConfig(dir, #""volume": 60"#)
        let loaded = try Config.load(path: edited.file)
        #expect(loaded.volume == 60)
        guard case .ignored(_, let reason) = loaded.imported else {
            Issue.record("\(loaded.imported)")
            return
        }
        #expect(reason == "the config file was changed after the import, and it wins")
    }

    @Test func settingsTheConfigCannotTakeAreIgnoredAndTheConfigStands() throws {
        let dir = try TemporaryDirectory("kiosk-imported")
        defer { dir.remove() }
        let config = try writeConfig(dir, #""volume": 70"#)
        try writeImported(dir, settings: #"{"volume": "loud"}"#, basedOn: config.object)
        let loaded = try Config.load(path: config.file)
        #expect(loaded.volume == 70)
        #expect(loaded.imported.description?.hasPrefix("imported settings not used: the config does not parse") == true)
    }

    @Test func aHostileImportedFileIsIgnoredWithTheFileNamed() throws {
        let dir = try TemporaryDirectory("kiosk-imported")
        defer { dir.remove() }
        let config = try writeConfig(dir, #""volume": 70"#)
        let file = dir.file(ImportedSettings.fileName)
        let cases: [(String, String)] = [
            ("not JSON", "line 1"),
            (
                ImportedSettings(
                    settings: .object([("stateDirectory", .string("/etc"))]), basedOn: config.object
                ).text, "belongs to this box's config file, never imported"
            ),
            (#"{"format": "kiosk-player-imported-settings", "version": 2}"#, "this player reads version 1"),
            (String(repeating: " ", count: 2 << 20), "cannot read"),
        ]
        for (text, problem) in cases {
            try dir.write(ImportedSettings.fileName, text)
            let loaded = try Config.load(path: config.file)
            #expect(loaded.volume == 70 && loaded.stateDirectory == dir.path)
            let said = loaded.imported.description ?? ""
            #expect(said.contains(file) && said.contains(problem), "\(said)")
        }
    }

    @Test func withoutAConfigFileTheyApplyOverTheDefaults() throws {
        let dir = try TemporaryDirectory("kiosk-imported")
        defer { dir.remove() }
        try writeImported(dir, settings: #"{"volume": 40}"#, basedOn: .object([]))
        let outcome = ImportedSettings.applying(toConfig: nil, stateDirectory: dir.path)
        #expect(outcome.outcome == .applied(keys: ["volume"], file: dir.file(ImportedSettings.fileName)))
        #expect(try Config.parse(try #require(outcome.bytes), file: "x").volume == 40)
        try writeImported(dir, settings: "{}", basedOn: .object([]))
        #expect(ImportedSettings.applying(toConfig: nil, stateDirectory: dir.path).outcome == .none, "an undo to none")
    }
}
