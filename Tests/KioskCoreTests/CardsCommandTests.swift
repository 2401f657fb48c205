// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskInput
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskCore

private var playerBuilt: Bool { access(TestPaths.playerBinary, X_OK) == 0 }

/// `kiosk-player cards link … --mode` and `cards list`, run as the built binary on the main
/// fixture volume as a library folder.
@Suite(
    .tags(.integration), .serialized,
    .enabled(if: playerBuilt, "kiosk-player is not built next to the tests (swift build)"))
struct CardsCommandTests {
    /// A config whose library is the main fixture volume, its state in `dir`.
    private func config(_ dir: TemporaryDirectory) throws -> String {
        _ = try PlayerFixtures.prepare()
        try dir.write(
            "config.json",
            #"{"stateDirectory": "\#(dir.file("state"))", "mediaRoots": [], "libraryDirectories": ["\#(PlayerFixtures.main)"]}"#
        )
        return dir.file("config.json")
    }

    @Test func linkWithAModeIsListedWithIt() throws {
        let dir = try TemporaryDirectory("kiosk-cards-cli")
        defer { dir.remove() }
        let config = try config(dir)
        let linked = run(
            TestPaths.playerBinary,
            ["cards", "link", "04A2B3C4", "--album", "First Light", "--mode", "track-per-tap", "--config", config],
            timeoutSeconds: 120)
        #expect(linked.status == 0, "\(linked.errors)")
        #expect(linked.output.contains("mode: track-per-tap"))
        let plain = run(
            TestPaths.playerBinary, ["cards", "link", "01", "--album", "Second Wind", "--config", config],
            timeoutSeconds: 120)
        #expect(plain.status == 0, "\(plain.errors)")
        let list = run(TestPaths.playerBinary, ["cards", "list", "--config", config])
        #expect(list.status == 0, "\(list.errors)")
        #expect(
            list.output.split(separator: "\n") == [
                "01  Album \"Second Wind\" on the stick 'main'  mode: album",
                "04A2B3C4  Album \"First Light\" on the stick 'main'  mode: track-per-tap",
            ])
        guard case .collection(let c)? = CardStore(directory: dir.file("state")).link(of: CardUID("04A2B3C4")!) else {
            Issue.record("not linked")
            return
        }
        #expect(c.mode == .trackPerTap)
    }

    @Test(arguments: [
        (
            ["--album", "First Light", "--mode", "shuffle"],
            "--mode must be one of album, track-per-tap, random-track, continue, not 'shuffle'"
        ),
        (["--action", "stop", "--mode", "continue"], "--mode is for --album, --playlist or --folder, not --action"),
        (["--album", "First Light", "--mode"], "--mode"),
    ])
    func aBadModeIsAUsageErrorNamingTheOption(arguments: [String], message: String) throws {
        let dir = try TemporaryDirectory("kiosk-cards-cli")
        defer { dir.remove() }
        let result = run(
            TestPaths.playerBinary, ["cards", "link", "01"] + arguments + ["--config", try config(dir)])
        #expect(result.status == 2, "\(result.output) \(result.errors)")
        #expect(result.errors.contains(message), "\(result.errors)")
        #expect(!Syscalls.exists(dir.file("state/cards.json")))
    }
}
