// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskLibrary
import KioskModel
import KioskTestSupport
import Testing

@testable import KioskCore

/// The gain the queue hands the engine with each track (`TrackRequest.gain`): the mode, the
/// tracks' tags and whether the queue is an album decide it.
@Suite struct ReplayGainQueueTests {
    /// An album of two tagged tracks (track gain -6 and -2 dB, album gain -4 dB) and one untagged,
    /// scanned by the real scanner.
    private func album() throws -> (tracks: [Track], album: Collection) {
        let dir = try TemporaryDirectory("kiosk-rg-queue")
        defer { dir.remove() }
        func tags(_ title: String, _ number: Int) -> [(name: String, value: String)] {
            [("TITLE", title), ("ALBUM", "Loud"), ("ARTIST", "A"), ("TRACKNUMBER", "\(number)")]
        }
        let rg = [("REPLAYGAIN_ALBUM_GAIN", "-4.00 dB"), ("REPLAYGAIN_ALBUM_PEAK", "0.9")]
        let files = [
            SyntheticTrack(
                relativePath: "A/Loud/1.flac",
                tags: tags("One", 1) + rg + [("REPLAYGAIN_TRACK_GAIN", "-6.00 dB"), ("REPLAYGAIN_TRACK_PEAK", "0.9")],
                seconds: 0.2),
            SyntheticTrack(
                relativePath: "A/Loud/2.flac",
                tags: tags("Two", 2) + rg + [("REPLAYGAIN_TRACK_GAIN", "-2.00 dB"), ("REPLAYGAIN_TRACK_PEAK", "0.5")],
                seconds: 0.2),
            SyntheticTrack(relativePath: "A/Loud/3.flac", tags: tags("Three", 3), seconds: 0.2),
        ]
        for file in files { try SyntheticLibrary.write(file, under: dir.path) }
        let scan = try VolumeScanner(readerThreads: 1).scan(
            volume: VolumeIdentity.identify(directory: dir.path), mountPoint: dir.path, indexPath: nil)
        let catalog = Catalog(volumes: [scan.contents])
        let album = try #require(catalog.collections(in: .album).first)
        return (catalog.tracks(of: album), album)
    }

    private func gains(_ mode: ReplayGainMode, asAlbum: Bool, missingPreampDb: Float = 0) throws -> [Double] {
        let (tracks, album) = try album()
        var queue = PlayQueue(repeats: false)
        queue.replayGain = ReplayGainSettings(mode: mode, missingPreampDb: missingPreampDb)
        queue.replace(with: tracks, collection: asAlbum ? album : nil)
        // In decibels, rounded to 0.01 dB.
        return (0..<tracks.count).map { (20 * log10(Double(queue.request($0).gain)) * 100).rounded() / 100 }
    }

    @Test func offHandsEveryTrackOverAtScaleOne() throws {
        let (tracks, album) = try album()
        var queue = PlayQueue(repeats: false)
        queue.replace(with: tracks, collection: album)
        #expect(queue.requests.map(\.gain) == [1, 1, 1])
    }

    @Test func trackModeUsesEachTracksGain() throws {
        #expect(try gains(.track, asAlbum: true, missingPreampDb: -3) == [-6, -2, -3])
    }

    @Test func albumModeUsesTheAlbumsGain() throws {
        #expect(try gains(.album, asAlbum: false) == [-4, -4, 0])
    }

    @Test func autoUsesTheAlbumGainWhenTheQueueIsTheAlbumAndTrackGainOtherwise() throws {
        #expect(try gains(.auto, asAlbum: true) == [-4, -4, 0])
        #expect(try gains(.auto, asAlbum: false) == [-6, -2, 0])
    }
}

/// The player's ReplayGain mode, as an MPD client changes it.
@Suite struct ReplayGainPlayerTests {
    @Test func changingTheModeWhilePlayingHandsTheQueueAgainAtTheCurrentFrameWithTheNewGains() throws {
        // The fixture's files have no ReplayGain tags: they play at the missing preamp.
        let rig = try PlayerRig(volumes: [PlayerFixtures.main]) { $0.replayGain.missingPreampDb = -6 }
        try rig.playFirst()
        let fake = try #require(rig.fake)
        #expect(fake.tracks.allSatisfy { $0.gain == 1 }, "off by default")
        _ = try rig.run(seconds: 0.5) { false }
        let frame = rig.player.livePositionFrames
        rig.player.perform(.setReplayGain(.track), from: .remote)
        #expect(rig.player.replayGainMode == .track)
        #expect(fake.tracks.count == 3 && fake.tracks.allSatisfy { abs($0.gain - 0.501187) < 1e-5 })
        let handed = try #require(fake.commands.last { $0.hasPrefix("setQueue") })
        #expect(handed == "setQueue 3@0+\(frame)", "the current track goes on from where it was")
        #expect(rig.player.status == .playing)
    }
}
