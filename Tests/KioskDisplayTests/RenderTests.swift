// SPDX-License-Identifier: GPL-3.0-or-later
import KioskDisplay
import KioskModel
import Testing

@Suite(.enabled(if: TestFonts.available, Comment(rawValue: TestFonts.missingReason)))
struct RenderTests {
    static let longTitles = NowPlayingState(
        title:
            "Symphony No. 9 in D minor, Op. 125 \"Choral\": IV. Presto – Allegro assai – Alla marcia – Andante maestoso",
        artist: "Wiener Philharmoniker, Wiener Singverein and the very long list of soloists",
        album: "Beethoven: The Complete Symphonies Remastered Deluxe Edition (Disc 5 of 5)", elapsedSeconds: 3725,
        totalSeconds: 4012, playback: .paused, categoryLabel: "Album Artist", queuePosition: 1234, queueCount: 5678,
        artworkKey: nil)

    static let japanese = NowPlayingState(
        title: "夜に駆ける夜に駆ける夜に駆ける夜に駆ける夜に駆ける夜に駆ける夜に駆ける", artist: "YOASOBI（ヨアソビ）と仲間たち",
        album: "THE BOOK 2 初回生産限定盤", elapsedSeconds: 12, totalSeconds: 261, playback: .playing,
        categoryLabel: "アルバム", queuePosition: 2, queueCount: 9)

    /// Every pixel that is not background lies inside one of `allowed`.
    func expectInkInside(_ canvas: Canvas, _ background: Color, _ allowed: [Rect], _ what: String) {
        var stray: [(Int, Int)] = []
        for y in 0..<canvas.height {
            for x in 0..<canvas.width where canvas.color(x: x, y: y) != background {
                if !allowed.contains(where: { $0.contains(x: x, y: y) }) { stray.append((x, y)) }
            }
        }
        #expect(
            stray.isEmpty,
            "\(what): \(stray.count) pixels drawn outside the layout, first at \(stray.first.map { "\($0)" } ?? "")")
    }

    @Test(arguments: allScreenSizes)
    func longAndJapaneseTitlesStayInTheirBoxes(size: Size) throws {
        let renderer = ScreenRenderer(fonts: try TestFonts.load())
        let layout = NowPlayingLayout(size: size)
        for state in [Self.longTitles, Self.japanese] {
            let canvas = Canvas(width: size.width, height: size.height)
            renderer.render(.nowPlaying(state), on: canvas)
            expectInkInside(
                canvas, renderer.theme.background, layout.elements.map(\.rect), "\(size) \(state.title!.prefix(10))")
        }
    }

    @Test(arguments: allScreenSizes)
    func aVolumeLimitIsMarkedInsideTheVolumePanel(size: Size) throws {
        let renderer = ScreenRenderer(fonts: try TestFonts.load())
        let layout = NowPlayingLayout(size: size)
        let plain = Canvas(width: size.width, height: size.height)
        let limited = Canvas(width: size.width, height: size.height)
        renderer.render(.nowPlaying(NowPlayingState(title: "T", volumeOverlay: 60)), on: plain)
        renderer.render(.nowPlaying(NowPlayingState(title: "T", volumeOverlay: 60, volumeRange: 10...60)), on: limited)
        var changed: [(Int, Int)] = []
        for y in 0..<size.height {
            for x in 0..<size.width where plain.color(x: x, y: y) != limited.color(x: x, y: y) {
                changed.append((x, y))
            }
        }
        #expect(!changed.isEmpty, "\(size): the limits drew nothing")
        #expect(
            changed.allSatisfy { layout.volumePanel.contains(x: $0.0, y: $0.1) },
            "\(size): the limits drew outside the volume panel")
    }

    @Test(arguments: allScreenSizes)
    func browseAndHelpDrawInsideTheirLayout(size: Size) throws {
        let renderer = ScreenRenderer(fonts: try TestFonts.load())
        let browse = BrowseLayout(size: size)
        let canvas = Canvas(width: size.width, height: size.height)
        var state = SampleScreens.browse
        state.items[5].title = String(repeating: "Very long album title ", count: 10)
        renderer.render(.browse(state), on: canvas)
        expectInkInside(canvas, renderer.theme.background, browse.elements.map(\.rect), "browse \(size)")

        let help = HelpLayout(size: size)
        renderer.render(.help(SampleScreens.help), on: canvas)
        expectInkInside(canvas, renderer.theme.background, help.elements.map(\.rect), "help \(size)")
    }

    @Test(arguments: [Theme.dark, Theme.light])
    func pageDotsAreVisibleAgainstTheBackground(theme: Theme) throws {
        let size = Size(width: 240, height: 240)
        let renderer = ScreenRenderer(fonts: try TestFonts.load(), theme: theme)
        let layout = HelpLayout(size: size)
        var state = SampleScreens.help
        state.entries += state.entries + state.entries
        let pages = layout.pageCount(entries: state.entries.count)
        #expect(pages >= 3)
        for page in 0..<pages {
            state.page = page
            let canvas = Canvas(width: size.width, height: size.height)
            renderer.render(.help(state), on: canvas)
            let dots = try #require(layout.dotCenters(pages: pages))
            for (i, dot) in dots.enumerated() {
                let c = canvas.color(x: Int(dot.x), y: Int(dot.y))
                #expect(
                    c.contrastRatio(with: theme.background) >= 3, "page \(page) dot \(i): \(c) on \(theme.background)")
                #expect(c == (i == page ? theme.pageDotActive : theme.pageDotInactive))
            }
        }
        // The page number wraps: page `pages` is page 0 again.
        let a = Canvas(width: size.width, height: size.height)
        let b = Canvas(width: size.width, height: size.height)
        state.page = 0
        renderer.render(.help(state), on: a)
        state.page = pages
        renderer.render(.help(state), on: b)
        #expect(a.changedRects(comparedTo: b).isEmpty)
    }

    static let longExhibitClip = ExhibitScreenState(
        prompt: "Press a button", clipTitle: String(repeating: "The keeper's very long story ", count: 8),
        elapsedSeconds: 3725, totalSeconds: 4012, language: "Nederlands (België) en nog veel meer woorden",
        volumeOverlay: nil)

    /// Pixels where `a` and `b` differ.
    func changed(_ a: Canvas, _ b: Canvas) -> [(x: Int, y: Int)] {
        var list: [(x: Int, y: Int)] = []
        for y in 0..<a.height {
            for x in 0..<a.width where a.color(x: x, y: y) != b.color(x: x, y: y) { list.append((x, y)) }
        }
        return list
    }

    @Test(arguments: allScreenSizes)
    func exhibitScreensStayInTheirLayout(size: Size) throws {
        let renderer = ScreenRenderer(fonts: try TestFonts.load())
        let long = String(repeating: "Press the big red button ", count: 5)
        for language in [nil, "Nederlands (België) en nog veel meer woorden"] {
            let canvas = Canvas(width: size.width, height: size.height)
            renderer.render(.exhibit(ExhibitScreenState(prompt: long, language: language)), on: canvas)
            let m = ScreenMetrics(size: size)
            let lines = renderer.fonts.wrapped(
                long, ExhibitAttractLayout.promptFont(m), maxWidth: size.width - 2 * m.margin,
                maxLines: ExhibitAttractLayout.maxPromptLines(m))
            let attract = ExhibitAttractLayout(size: size, promptLines: lines.count, hasLanguage: language != nil)
            expectInkInside(canvas, renderer.theme.background, attract.elements.map(\.rect), "attract \(size)")
        }
        let canvas = Canvas(width: size.width, height: size.height)
        renderer.render(.exhibit(Self.longExhibitClip), on: canvas)
        let clip = ExhibitClipLayout(
            size: size, titleLines: ExhibitClipLayout.maxTitleLines(ScreenMetrics(size: size)), hasLanguage: true)
        expectInkInside(canvas, renderer.theme.background, clip.elements.map(\.rect), "clip \(size)")
    }

    /// The prompt is drawn in the prompt's lines, in the text colour: a different prompt changes
    /// those pixels and no others.
    @Test(arguments: [Size(width: 240, height: 240), Size(width: 480, height: 320), Size(width: 128, height: 128)])
    func theAttractCardsPromptIsDrawnWhereItsLayoutPutsIt(size: Size) throws {
        let renderer = ScreenRenderer(fonts: try TestFonts.load())
        let a = Canvas(width: size.width, height: size.height)
        let b = Canvas(width: size.width, height: size.height)
        renderer.render(.exhibit(ExhibitScreenState(prompt: "Press a button")), on: a)
        renderer.render(.exhibit(ExhibitScreenState(prompt: "Press a buttom")), on: b)
        let layout = ExhibitAttractLayout(
            size: size, promptLines: ExhibitAttractLayout.maxPromptLines(ScreenMetrics(size: size)), hasLanguage: false)
        let m = ScreenMetrics(size: size)
        let lines = renderer.fonts.wrapped(
            "Press a button", layout.promptFont, maxWidth: size.width - 2 * m.margin,
            maxLines: ExhibitAttractLayout.maxPromptLines(m))
        let prompt = ExhibitAttractLayout(size: size, promptLines: lines.count, hasLanguage: false).promptLines
        var textPixels = 0
        for rect in prompt {
            for y in rect.y..<rect.maxY {
                for x in rect.x..<rect.maxX where a.color(x: x, y: y) == renderer.theme.primaryText { textPixels += 1 }
            }
        }
        #expect(textPixels >= layout.promptFont.size * 10, "\(size): \(textPixels) pixels of prompt text")
        let differing = changed(a, b)
        #expect(!differing.isEmpty, "\(size): another prompt drew the same pixels")
        #expect(
            differing.allSatisfy { p in prompt.contains { $0.contains(x: p.x, y: p.y) } },
            "\(size): a prompt's change reached outside its lines")
        // The drawn button above the prompt, in the accent colour at its centre.
        let icon = ExhibitAttractLayout(size: size, promptLines: lines.count, hasLanguage: false).icon
        #expect(a.color(x: icon.centerX, y: icon.centerY) == renderer.theme.accent)
    }

    /// A long compound in the exhibit's large type: the type gets smaller rather than break it.
    @Test(arguments: [Size(width: 240, height: 240), Size(width: 128, height: 128)])
    func aLongWordInAClipTitleIsNotBrokenInside(size: Size) throws {
        let renderer = ScreenRenderer(fonts: try TestFonts.load())
        let m = ScreenMetrics(size: size)
        let large = ExhibitClipLayout.titleFont(m)
        let room = size.width - 2 * m.margin
        #expect(renderer.fonts.width(of: "Leuchtturmwärter", large) > room, "the case this is about")
        let font = renderer.fittingWords("Der Leuchtturmwärter", large, smallest: m.title.size, maxWidth: room)
        #expect(font.size < large.size && font.size >= m.title.size)
        #expect(renderer.fonts.width(of: "Leuchtturmwärter", font) <= room)
        #expect(renderer.fittingWords("Der Wärter", large, smallest: m.title.size, maxWidth: room) == large)
        let lines = renderer.fonts.wrapped(
            "Der Leuchtturmwärter", font, maxWidth: room, maxLines: ExhibitClipLayout.maxTitleLines(m))
        #expect(lines == ["Der", "Leuchtturmwärter"] || lines == ["Der Leuchtturmwärter"], "\(lines)")
    }

    @Test func theLanguageIsDrawnOnlyWhenGiven() throws {
        let size = Size(width: 320, height: 240)
        let renderer = ScreenRenderer(fonts: try TestFonts.load())
        let canvas = Canvas(width: size.width, height: size.height)
        renderer.render(.exhibit(SampleScreens.exhibitAttract), on: canvas)
        let layout = ExhibitAttractLayout(size: size, promptLines: 1, hasLanguage: true)
        let rect = try #require(layout.language)
        var accent = 0
        for y in rect.y..<rect.maxY {
            for x in rect.x..<rect.maxX where canvas.color(x: x, y: y) == renderer.theme.accent { accent += 1 }
        }
        #expect(accent > 20, "\(accent) pixels of the language's name")
        renderer.render(.exhibit(ExhibitScreenState(prompt: "Press a button")), on: canvas)
        for y in rect.y..<rect.maxY {
            for x in rect.x..<rect.maxX { #expect(canvas.color(x: x, y: y) == renderer.theme.background) }
        }
    }

    @Test(arguments: [Size(width: 240, height: 240), Size(width: 128, height: 128)])
    func aClipsProgressBarFillsToItsElapsedShare(size: Size) throws {
        let renderer = ScreenRenderer(fonts: try TestFonts.load())
        let canvas = Canvas(width: size.width, height: size.height)
        var state = SampleScreens.exhibitClip
        state.elapsedSeconds = 66
        state.totalSeconds = 132
        renderer.render(.exhibit(state), on: canvas)
        let bar = ExhibitClipLayout(size: size, titleLines: 1, hasLanguage: true).progress
        #expect(canvas.color(x: bar.x + bar.width / 4, y: bar.centerY) == renderer.theme.accent)
        #expect(canvas.color(x: bar.x + bar.width * 3 / 4, y: bar.centerY) == renderer.theme.track)
    }

    @Test func textStaysInItsLineBox() throws {
        let fonts = try TestFonts.load()
        for size in [9, 12, 18, 24, 36] {
            let font = Font(.bold, size: size)
            let canvas = Canvas(width: 400, height: 200)
            fonts.draw("ÅÉgjpqy|夜Ü", font, Color(rgb: 0xFFFFFF), on: canvas, x: 5, top: 50)
            var rows: [Int] = []
            for y in 0..<200 where (0..<400).contains(where: { canvas.color(x: $0, y: y) != Color(rgb: 0) }) {
                rows.append(y)
            }
            #expect(
                rows.first! >= 50 && rows.last! < 50 + font.lineHeight,
                "size \(size): ink rows \(rows.first!)…\(rows.last!)")
        }
    }

    @Test func artworkIsDrawnWhenAvailableAndThePlaceholderOtherwise() throws {
        let renderer = ScreenRenderer(fonts: try TestFonts.load())
        let size = Size(width: 240, height: 240)
        let rect = NowPlayingLayout(size: size).artwork
        let cover = Image(width: rect.width, height: rect.height, color: Color(rgb: 0xFF00FF))
        let canvas = Canvas(width: 240, height: 240)
        var requested: [(String, Size)] = []
        renderer.render(.nowPlaying(SampleScreens.nowPlaying), on: canvas) { key, size in
            requested.append((key, size))
            return cover
        }
        #expect(requested.count == 1 && requested[0].0 == SampleScreens.artworkKey)
        #expect(requested[0].1 == Size(width: rect.width, height: rect.height))
        #expect(canvas.color(x: rect.centerX, y: rect.centerY) == Color(rgb: 0xFF00FF))
        renderer.render(.nowPlaying(SampleScreens.nowPlaying), on: canvas)
        #expect(canvas.color(x: rect.x + 3, y: rect.centerY) == renderer.theme.panel, "placeholder")
    }

    @Test func everyScreenRendersAtEverySize() throws {
        let renderer = ScreenRenderer(fonts: try TestFonts.load(), theme: .light)
        let states: [ScreenState] = [
            .nowPlaying(NowPlayingState()), .nowPlaying(Self.longTitles),
            .browse(BrowseState(categoryLabel: "Empty", items: [])), .browse(SampleScreens.browse),
            .help(HelpState(title: "Nothing", entries: [])), .help(SampleScreens.help),
            .message(MessageState(title: "")), .message(SampleScreens.scanning),
            .message(SampleScreens.deviceUnplugged),
            .exhibit(ExhibitScreenState(prompt: "")), .exhibit(SampleScreens.exhibitAttract),
            .exhibit(SampleScreens.exhibitClip), .exhibit(Self.longExhibitClip),
            .off,
        ]
        // Terminal-sized and degenerate screens must not crash either.
        let tiny = [(1, 1), (2, 200), (200, 2), (16, 16), (40, 20), (80, 46), (132, 86)].map {
            Size(width: $0.0, height: $0.1)
        }
        for size in allScreenSizes + tiny {
            let canvas = Canvas(width: size.width, height: size.height)
            for state in states { renderer.render(state, on: canvas) }
        }
        let canvas = Canvas(width: 100, height: 100, color: Color(rgb: 0xFFFFFF))
        renderer.render(.off, on: canvas)
        #expect(canvas.color(x: 50, y: 50) == Color(rgb: 0))
    }
}
