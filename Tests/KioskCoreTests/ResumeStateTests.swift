// SPDX-License-Identifier: GPL-3.0-or-later
import KioskCore
import KioskSystem
import KioskTestSupport
import Testing

@Suite struct ResumeStateTests {
    @Test func roundTripsThroughTheFile() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        var state = ResumeState()
        state.volumeID = "1234-ABCD"
        state.relativePath = "Artist/Album/01 Song.flac"
        state.positionFrames = 441_000
        state.sampleRate = 44_100
        state.queueIndex = 3
        state.collection = .init(category: "album", key: "Artist\u{1F}Album")
        state.volumePercent = 55
        state.playing = true
        try state.save(directory: dir.path)
        #expect(ResumeState.load(directory: dir.path) == state)
        #expect(state.positionSeconds == 10)
    }

    @Test(arguments: [
        "", "not json", #"{"format": "something-else", "version": 1}"#,
        #"{"format": "kiosk-player-resume", "version": 99}"#,
        #"{"format": "kiosk-player-resume", "version": 1, "volumePercent": 400}"#,
    ])
    func corruptOrForeignFileIsIgnoredWithAWarning(contents: String) throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try dir.write(ResumeState.legacyFileName, contents)
        let warnings = WarningCollector()
        defer { warnings.stop() }
        #expect(ResumeState.load(directory: dir.path) == nil)
        #expect(warnings.messages.contains { $0.hasPrefix("ignoring saved state: \(dir.path)/resume.json") })
    }
}
