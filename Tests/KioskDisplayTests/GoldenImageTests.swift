// SPDX-License-Identifier: GPL-3.0-or-later
import KioskDisplay
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

/// Renders each screen with fixed fonts and states and compares it with the reference PNGs in
/// Tests/Goldens/KioskDisplay (looked at by a person before they were committed).
/// `KIOSK_UPDATE_GOLDENS=1 swift test --filter GoldenImageTests` rewrites the references.
@Suite(.enabled(if: TestFonts.available, Comment(rawValue: TestFonts.missingReason)))
struct GoldenImageTests {
    static let directory = TestPaths.repository + "/Tests/Goldens/KioskDisplay"
    static let sizes = [(240, 240), (320, 240), (480, 320), (128, 128)].map { Size(width: $0.0, height: $0.1) }

    static var overlayState: NowPlayingState {
        var s = SampleScreens.nowPlaying
        s.artworkKey = nil
        s.playback = .paused
        s.volumeOverlay = 70
        s.statusLine = "Audio device unplugged"
        return s
    }

    static let screens: [(name: String, state: ScreenState, theme: Theme)] = [
        ("now-playing", .nowPlaying(SampleScreens.nowPlaying), .dark),
        ("now-playing-overlay", .nowPlaying(overlayState), .dark),
        ("browse", .browse(SampleScreens.browse), .dark),
        ("help", .help(SampleScreens.help), .dark),
        ("help-light", .help(HelpState(title: "Buttons", entries: SampleScreens.help.entries, page: 1)), .light),
        ("message", .message(SampleScreens.insertStick), .dark),
        ("message-error", .message(SampleScreens.deviceUnplugged), .light),
        // A new card's prompt with the mode the box's second gesture chose.
        (
            "message-card-link",
            .message(
                MessageState(
                    title: "New card: one track per tap",
                    detail: "Hold Select to link it to 'The Gruffalo'. Press Select: another mode")),
            .dark
        ),
    ]

    // Exhibit mode's visitor screens (added to `screens` below).
    static let exhibitScreens: [(name: String, state: ScreenState, theme: Theme)] = [
        ("exhibit-attract", .exhibit(SampleScreens.exhibitAttract), .dark),
        ("exhibit-clip", .exhibit(SampleScreens.exhibitClip), .dark),
        ("exhibit-clip-light", .exhibit(SampleScreens.exhibitClip), .light),
    ]

    static let cases: [(String, Size)] = (screens + exhibitScreens).flatMap { screen in sizes.map { (screen.name, $0) }
    }

    @Test(arguments: cases)
    func screenMatchesItsReference(name: String, size: Size) throws {
        let screen = try #require((Self.screens + Self.exhibitScreens).first { $0.name == name })
        let renderer = ScreenRenderer(fonts: try TestFonts.load(), theme: screen.theme)
        let canvas = Canvas(width: size.width, height: size.height)
        let cover = SampleScreens.artwork()
        renderer.render(screen.state, on: canvas) { key, size in
            key == SampleScreens.artworkKey ? cover.resized(.fill(size)) : nil
        }
        let path = "\(Self.directory)/\(name)-\(size).png"
        if Syscalls.environment("KIOSK_UPDATE_GOLDENS") == "1" {
            try Syscalls.mkdirs(Self.directory)
            try AtomicFile.replace(path, with: canvas.pngData())
            return
        }
        guard Syscalls.exists(path) else {
            Issue.record("no reference \(path); run with KIOSK_UPDATE_GOLDENS=1, look at it, commit it")
            return
        }
        let reference = try ImageDecoder.decode(Syscalls.readFile(path))
        try #require(reference.width == size.width && reference.height == size.height)
        var differing = 0
        var worst = 0
        for y in 0..<size.height {
            for x in 0..<size.width {
                let d = channelDistance(canvas.color(x: x, y: y), reference.color(x: x, y: y))
                worst = max(worst, d)
                if d > 16 { differing += 1 }
            }
        }
        // Small per-pixel tolerance: anti-aliasing may differ by a few levels between FreeType builds.
        let allowed = max(8, size.width * size.height / 500)
        if differing > allowed {
            let actual = "/tmp/kiosk-golden-\(name)-\(size).png"
            try? AtomicFile.replace(actual, with: canvas.pngData())
            Issue.record(
                "\(name) \(size): \(differing) pixels differ by more than 16 (worst \(worst)); got \(actual), expected \(path)"
            )
        }
    }

    @Test func comparisonNoticesAChange() throws {
        // The comparison above is not vacuous: a one-second change of the clock is caught.
        let renderer = ScreenRenderer(fonts: try TestFonts.load())
        let a = Canvas(width: 240, height: 240)
        let b = Canvas(width: 240, height: 240)
        var state = SampleScreens.nowPlaying
        renderer.render(.nowPlaying(state), on: a)
        state.elapsedSeconds += 1
        renderer.render(.nowPlaying(state), on: b)
        var differing = 0
        for y in 0..<240 {
            for x in 0..<240 where channelDistance(a.color(x: x, y: y), b.color(x: x, y: y)) > 16 { differing += 1 }
        }
        #expect(differing > 0)
    }
}
