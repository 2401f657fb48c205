// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskCore
import KioskMPD
import Testing

/// Exhibit mode seen by an MPD client: the clip playing is the current song, the attract loop
/// the queue otherwise.
@Suite(.tags(.integration), .serialized) struct ExhibitMPDTests {
    static let clip = "Aurora Quartet/Live at the Lighthouse/02 Blue Hour.flac"

    static func harness() throws -> Harness {
        try Harness(configure: { config in
            var exhibit = ExhibitConfig()
            exhibit.clips = [.init(name: "blue", input: .button("A"), play: .file(Self.clip))]
            exhibit.attract = .init(play: .collection("Coastline"), returnAfterSeconds: 1, fadeMs: 0)
            config.exhibit = exhibit
        })
    }

    @Test func statusAndCurrentsongShowTheAttractLoopThenThePlayingClip() throws {
        let h = try Self.harness()
        _ = try h.loop.run(until: { h.player.status == .playing }, timeoutNanoseconds: 10_000_000_000)
        let before = try h.withClient { client in try client.pairs("currentsong") }
        #expect(before["Album"] == "Coastline", "the attract loop: \(before)")
        h.player.exhibitEdge(source: "button A", down: true)
        h.player.exhibitEdge(source: "button A", down: false)
        try h.spin(milliseconds: 300)
        let (song, status) = try h.withClient { client in (try client.pairs("currentsong"), try client.pairs("status"))
        }
        #expect(song["file"]?.hasSuffix(Self.clip) == true, "the clip is the current song: \(song)")
        #expect(song["Title"] == "Blue Hour")
        #expect(status["state"] == "play" && status["playlistlength"] == "1", "the clip alone is the queue: \(status)")
    }
}
