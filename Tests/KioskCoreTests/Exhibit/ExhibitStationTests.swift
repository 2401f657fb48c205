// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskDisplay
import KioskLibrary
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskCore

/// A stick that brings its own station: `exhibit.json` at its top, or its folders on the buttons.
@Suite struct ExhibitStationTests {
    /// A stick with `files` (0.4 s FLAC each) and, when given, `exhibit.json`.
    static func stick(_ files: [String], exhibitJSON: String? = nil) throws -> TemporaryDirectory {
        let dir = try TemporaryDirectory("kiosk-exhibit-stick")
        for (i, file) in files.enumerated() {
            try SyntheticLibrary.writeFLAC(
                path: dir.file(file), tags: [("TITLE", file), ("ALBUM", "Clips")], seconds: 0.4, sampleRate: 44_100,
                channels: 2, bitsPerSample: 16, toneHz: 300 + 50 * Double(i))
        }
        if let exhibitJSON { try AtomicFile.replace(dir.file("exhibit.json"), with: exhibitJSON) }
        return dir
    }

    static func rig(clips: [ExhibitConfig.Clip]) throws -> PlayerRig {
        let rig = try PlayerRig(volumes: []) { config in
            var exhibit = ExhibitConfig()
            exhibit.clips = clips
            config.exhibit = exhibit
        }
        rig.player.exhibitButtons = ["A", "B", "C", "D"]
        return rig
    }

    static func insert(_ stick: TemporaryDirectory, into rig: PlayerRig) throws {
        rig.library.addVolume(path: stick.path)
        _ = try rig.run(seconds: 20) { rig.library.isIdle && rig.player.catalog?.trackCount ?? 0 > 0 }
    }

    static let configClip = ExhibitConfig.Clip(name: "config", input: .button("A"), play: .file("a.flac"))

    @Test func aSticksExhibitJSONReplacesTheClipsWhileItIsIn() throws {
        let stick = try Self.stick(
            ["a.flac", "Clips/b.flac"],
            exhibitJSON:
                #"{"clips": [{"name": "bee", "input": {"button": "B"}, "play": "Clips/b.flac", "mode": "retrigger"}]}"#)
        defer { stick.remove() }
        let rig = try Self.rig(clips: [Self.configClip])
        try Self.insert(stick, into: rig)
        #expect(rig.player.exhibitClips.map(\.name) == ["bee"])
        rig.player.exhibitEdge(source: "button B", down: true)
        #expect(rig.player.exhibitClip == "bee" && rig.player.queue.map(\.relativePath) == ["Clips/b.flac"])
        rig.library.removeVolume(path: stick.path)
        _ = try rig.run(seconds: 5) { rig.player.catalog?.trackCount ?? 0 == 0 }
        #expect(rig.player.exhibitClips.map(\.name) == ["config"], "config.json's clips once the stick is out")
    }

    @Test func aBadExhibitJSONIsReportedNamingFileAndKeyAndTheConfigsClipsStay() throws {
        let stick = try Self.stick(
            ["a.flac"],
            exhibitJSON: #"{"clips": [{"name": "x", "input": {"button": "B"}, "play": "a.flac", "mode": "loop"}]}"#)
        defer { stick.remove() }
        let rig = try Self.rig(clips: [Self.configClip])
        try Self.insert(stick, into: rig)
        #expect(rig.player.exhibitClips.map(\.name) == ["config"])
        guard case .message(let message) = rig.player.screenState() else {
            Issue.record("not reported: \(rig.player.screenState())")
            return
        }
        #expect(message.title == "exhibit.json not used")
        #expect((message.detail ?? "").contains("clips[0].mode"), "\(message.detail ?? "")")
        rig.player.exhibitEdge(source: "button A", down: true)
        #expect(rig.player.exhibitClip == "config")
    }

    @Test func withoutClipsAnywhereTheSticksFoldersGoOnTheButtonsInNameOrder() throws {
        let stick = try Self.stick(["2 Story/s1.flac", "2 Story/s2.flac", "1 Welcome/w.flac", "loose.flac"])
        defer { stick.remove() }
        let rig = try Self.rig(clips: [])
        try Self.insert(stick, into: rig)
        #expect(rig.player.exhibitClips.map(\.name) == ["1 Welcome", "2 Story"])
        #expect(rig.player.exhibitClips.map(\.input) == [.button("A"), .button("B")])
        rig.player.exhibitEdge(source: "button B", down: true)
        #expect(rig.player.queue.map(\.relativePath) == ["2 Story/s1.flac", "2 Story/s2.flac"])
    }
}
