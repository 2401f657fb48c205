// SPDX-License-Identifier: GPL-3.0-or-later
import KioskDisplay
import KioskSystem
import KioskTestSupport
import Testing

/// `kiosk-player render` end to end: the built binary writes a PNG a person can look at.
@Suite(.tags(.integration), .enabled(if: TestFonts.available, Comment(rawValue: TestFonts.missingReason)))
struct RenderCommandTests {
    let binary = TestPaths.playerBinary

    @Test func rendersEachScreenToAPNGOfTheGivenSize() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        for (screen, size) in [
            ("now-playing", "320x240"), ("browse", "240x240"), ("help", "128x128"), ("message", "480x320"),
        ] {
            let out = dir.file("\(screen).png")
            let result = run(binary, ["render", screen, "--size", size, "--out", out])
            #expect(result.status == 0, "\(screen): \(result.errors)")
            let image = try ImageDecoder.decode(Syscalls.readFile(out))
            #expect("\(image.width)x\(image.height)" == size)
        }
    }

    @Test func stateAndArtworkComeFromTheCommandLine() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let cover = try ImageEncoder.jpeg(solidRGB(width: 300, height: 300, 0xFF, 0x80, 0x00), width: 300, height: 300)
        try dir.write("cover.jpg", cover)
        try dir.write(
            "state.json", #"{"title": "夜に駆ける", "artworkKey": "a", "playback": "paused", "elapsedSeconds": 10}"#)
        let out = dir.file("np.png")
        let result = run(
            binary,
            [
                "render", "now-playing", "--size", "240x240", "--out", out, "--state", "@" + dir.file("state.json"),
                "--artwork", dir.file("cover.jpg"), "--theme", "light",
            ])
        #expect(result.status == 0, "\(result.errors)")
        let image = try ImageDecoder.decode(Syscalls.readFile(out))
        let art = NowPlayingLayout(size: Size(width: 240, height: 240)).artwork
        #expect(channelDistance(image.color(x: art.centerX, y: art.centerY), Color(rgb: 0xFF8000)) <= 6)
        #expect(image.color(x: 1, y: 1) == Theme.light.background)
    }

    @Test func mistakesAreReportedWithTheRightStatus() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let out = dir.file("x.png")
        let badSize = run(binary, ["render", "help", "--size", "big", "--out", out])
        #expect(badSize.status == 2 && badSize.errors.contains("--size"))
        let badScreen = run(binary, ["render", "clock", "--size", "240x240", "--out", out])
        #expect(badScreen.status == 2 && badScreen.errors.contains("unknown screen 'clock'"))
        let noOut = run(binary, ["render", "help", "--size", "240x240"])
        #expect(noOut.status == 2 && noOut.errors.contains("--out"))
        let badState = run(
            binary, ["render", "now-playing", "--size", "240x240", "--out", out, "--state", #"{"titel": 1}"#])
        #expect(badState.status == 1 && badState.errors.contains("--state: titel: unknown key"), "\(badState.errors)")
        let badJSON = run(binary, ["render", "now-playing", "--size", "240x240", "--out", out, "--state", "{"])
        #expect(badJSON.status == 1 && badJSON.errors.contains("not valid JSON"))
        // Undecodable artwork: a warning, and the placeholder is drawn.
        try dir.write("bad.jpg", [0xFF, 0xD8, 0xFF, 0xE0, 0, 0])
        let badArt = run(
            binary, ["render", "now-playing", "--size", "240x240", "--out", out, "--artwork", dir.file("bad.jpg")])
        #expect(badArt.status == 0)
        #expect(badArt.errors.contains("bad.jpg: corrupt JPEG image"), "\(badArt.errors)")
        #expect(!Syscalls.exists(dir.file("missing.png")))
    }
}
