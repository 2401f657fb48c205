// SPDX-License-Identifier: GPL-3.0-or-later
import KioskDisplay
import Testing

struct LayoutTests {
    func expectInsideAndApart(_ elements: [LayoutElement], _ size: Size, _ screen: String) {
        let bounds = Rect(x: 0, y: 0, width: size.width, height: size.height)
        for e in elements {
            #expect(!e.rect.isEmpty, "\(screen) \(size): \(e) is empty")
            #expect(bounds.contains(e.rect), "\(screen) \(size): \(e) leaves the screen")
        }
        for i in 0..<elements.count {
            for j in (i + 1)..<elements.count {
                #expect(
                    !elements[i].rect.intersects(elements[j].rect),
                    "\(screen) \(size): \(elements[i]) overlaps \(elements[j])")
            }
        }
    }

    @Test(arguments: allScreenSizes)
    func nowPlayingPartsDoNotOverlapOrLeaveTheScreen(size: Size) {
        let layout = NowPlayingLayout(size: size)
        expectInsideAndApart(layout.elements, size, "now playing")
        let bounds = Rect(x: 0, y: 0, width: size.width, height: size.height)
        for overlay in layout.overlays {
            #expect(bounds.contains(overlay.rect), "\(size): \(overlay) leaves the screen")
        }
        #expect(layout.artwork.width == layout.artwork.height, "artwork is square")
        #expect(
            layout.artwork.width >= min(size.width, size.height) * 2 / 5, "\(size): artwork \(layout.artwork) too small"
        )
    }

    @Test(arguments: allScreenSizes)
    func browseRowsDoNotOverlapOrLeaveTheScreen(size: Size) {
        let layout = BrowseLayout(size: size)
        expectInsideAndApart(layout.elements, size, "browse")
        #expect(layout.visibleRows >= 2, "\(size): only \(layout.visibleRows) rows")
    }

    @Test(arguments: allScreenSizes)
    func helpRowsAndIndicatorDoNotOverlap(size: Size) {
        let layout = HelpLayout(size: size)
        expectInsideAndApart(layout.elements, size, "help")
        for pages in 2...6 {
            guard let dots = layout.dotCenters(pages: pages) else { continue }
            let r = Double(layout.dotDiameter) / 2
            for d in dots {
                #expect(d.x - r >= Double(layout.indicator.x) && d.x + r <= Double(layout.indicator.maxX))
            }
        }
    }

    @Test(arguments: allScreenSizes)
    func messageWithTheMostTextFits(size: Size) {
        let layout = MessageLayout(size: size, titleLines: 3, detailLines: 3)
        expectInsideAndApart(layout.elements, size, "message")
        #expect(!layout.titleLines.isEmpty)
    }

    @Test(arguments: allScreenSizes)
    func exhibitScreensFitTheirMostText(size: Size) {
        let m = ScreenMetrics(size: size)
        for hasLanguage in [false, true] {
            let attract = ExhibitAttractLayout(
                size: size, promptLines: ExhibitAttractLayout.maxPromptLines(m), hasLanguage: hasLanguage)
            expectInsideAndApart(attract.elements, size, "exhibit attract")
            #expect(!attract.promptLines.isEmpty)
            let clip = ExhibitClipLayout(
                size: size, titleLines: ExhibitClipLayout.maxTitleLines(m), hasLanguage: hasLanguage)
            expectInsideAndApart(clip.elements, size, "exhibit clip")
        }
    }

    /// The prompt is the largest type of any screen: read from a few steps away.
    @Test(arguments: allScreenSizes)
    func theAttractPromptIsLargerThanAnyTitle(size: Size) {
        let m = ScreenMetrics(size: size)
        #expect(ExhibitAttractLayout.promptFont(m).size > m.title.size)
        #expect(ExhibitClipLayout.titleFont(m).size >= m.title.size)
    }

    @Test func landscapePutsArtworkBesideTheText() {
        let layout = NowPlayingLayout(size: Size(width: 320, height: 240))
        #expect(layout.titleLines[0].x >= layout.artwork.maxX)
        let square = NowPlayingLayout(size: Size(width: 240, height: 240))
        #expect(square.titleLines[0].y >= square.artwork.maxY)
    }

    @Test func browseKeepsTheSelectionVisible() {
        let layout = BrowseLayout(size: Size(width: 240, height: 240))
        let count = 100
        for selected in [0, 1, 50, 98, 99] {
            let first = layout.firstVisibleRow(selected: selected, count: count)
            #expect(first <= selected && selected < first + layout.visibleRows)
            #expect(first + layout.visibleRows <= count)
        }
        #expect(layout.firstVisibleRow(selected: 0, count: 2) == 0)
    }

    @Test func helpPagesCountTheEntries() {
        let size = Size(width: 240, height: 240)
        let perPage = HelpLayout(size: size).entriesPerPage
        #expect(ScreenLayout.helpPageCount(entries: perPage, size: size) == 1)
        #expect(ScreenLayout.helpPageCount(entries: perPage + 1, size: size) == 2)
        #expect(ScreenLayout.helpPageCount(entries: 0, size: size) == 1)
    }
}
