// SPDX-License-Identifier: GPL-3.0-or-later
/// A named rectangle of a screen layout (for drawing and for the tests that check that nothing
/// overlaps or leaves the screen). Thread: a value.
public struct LayoutElement: Sendable, Equatable, CustomStringConvertible {
    public let name: String
    public let rect: Rect

    public init(_ name: String, _ rect: Rect) {
        self.name = name
        self.rect = rect
    }

    public var description: String { "\(name) \(rect)" }
}

/// Sizes that follow from the screen size: margins and fonts grow with the shorter side, so the
/// same screens work from 128×128 to 800×480 in any orientation. Thread: a value.
public struct ScreenMetrics: Sendable, Equatable {
    public let size: Size
    /// The shorter side.
    public let base: Int
    public let margin: Int
    public let gap: Int
    public let barHeight: Int
    public let title: Font
    public let body: Font
    public let small: Font

    public init(size: Size) {
        self.size = size
        base = min(size.width, size.height)
        let b = Double(base)
        func scaled(_ factor: Double, _ low: Int, _ high: Int) -> Int {
            min(high, max(low, Int((b * factor).rounded())))
        }
        margin = scaled(0.04, 4, 32)
        gap = scaled(0.017, 2, 12)
        barHeight = scaled(0.022, 4, 14)
        title = Font(.bold, size: scaled(0.075, 11, 40))
        body = Font(.regular, size: scaled(0.06, 10, 32))
        small = Font(.regular, size: scaled(0.05, 9, 26))
    }

    /// Wider than tall by at least 1.2: artwork beside the text rather than above it.
    public var isLandscape: Bool { Double(size.width) >= Double(size.height) * 1.2 }

    /// The font of list and help headers, help controls and the volume label: the body's, bold.
    public var header: Font { Font(.bold, size: body.size) }

    /// The rule under a header: the screen's width, half a gap thick, from `y` down.
    public func rule(at y: Int) -> Rect { Rect(x: 0, y: y, width: size.width, height: max(1, gap / 2)) }
}

/// Where the parts of the now-playing screen go. Thread: a value.
public struct NowPlayingLayout: Sendable, Equatable {
    public let metrics: ScreenMetrics
    public let artwork: Rect
    /// One or two lines.
    public let titleLines: [Rect]
    public let artist: Rect
    /// nil when the screen is too small for it.
    public let album: Rect?
    public let progress: Rect
    public let stateIcon: Rect
    public let elapsed: Rect
    public let total: Rect
    /// "Album · 3/12" between the times; nil when too narrow.
    public let queueInfo: Rect?
    /// Overlays (drawn on top of everything, so exempt from the overlap check).
    public let volumePanel: Rect
    public let banner: Rect

    public init(size: Size) {
        let m = ScreenMetrics(size: size)
        metrics = m
        let w = size.width
        let h = size.height
        let margin = m.margin
        let gap = m.gap
        let smallLine = m.small.lineHeight
        let titleLine = m.title.lineHeight
        let bodyLine = m.body.lineHeight

        // Bottom: status row (icon, elapsed, queue info, total) and the progress bar above it.
        let statusY = h - margin - smallLine
        let progressY = statusY - gap - m.barHeight
        progress = Rect(x: margin, y: progressY, width: w - 2 * margin, height: m.barHeight)
        let iconSize = max(8, Int(Double(m.small.size) * 0.9))
        stateIcon = Rect(x: margin, y: statusY + (smallLine - iconSize) / 2, width: iconSize, height: iconSize)
        let timeWidth = Int((Double(m.small.size) * 0.64 * 6.2).rounded(.up))
        elapsed = Rect(x: stateIcon.maxX + gap * 2, y: statusY, width: timeWidth, height: smallLine)
        total = Rect(x: w - margin - timeWidth, y: statusY, width: timeWidth, height: smallLine)
        let middle = Rect(
            x: elapsed.maxX + gap, y: statusY, width: total.x - gap - elapsed.maxX - gap, height: smallLine)
        queueInfo = middle.width >= m.small.size * 5 ? middle : nil

        if m.isLandscape {
            let room = progressY - 2 * gap - margin
            let side = max(0, min(room, (w - 2 * margin) * 13 / 25))
            artwork = Rect(x: margin, y: margin + (room - side) / 2, width: side, height: side)
            let columnX = artwork.maxX + margin
            let columnWidth = w - columnX - margin
            var titleCount = 2
            var hasAlbum = true
            func blockHeight() -> Int { titleCount * titleLine + bodyLine * (hasAlbum ? 2 : 1) + gap }
            if blockHeight() > side { titleCount = 1 }
            if blockHeight() > side { hasAlbum = false }
            var y = artwork.y + max(0, (side - blockHeight()) / 2)
            var lines: [Rect] = []
            for _ in 0..<titleCount {
                lines.append(Rect(x: columnX, y: y, width: columnWidth, height: titleLine))
                y += titleLine
            }
            y += gap
            titleLines = lines
            artist = Rect(x: columnX, y: y, width: columnWidth, height: bodyLine)
            album = hasAlbum ? Rect(x: columnX, y: y + bodyLine, width: columnWidth, height: bodyLine) : nil
        } else {
            // Stacked: artwork centred on top, then the text lines, then the bar and the status row.
            var titleCount = 1
            var hasAlbum = true
            func textHeight() -> Int { titleCount * titleLine + bodyLine * (hasAlbum ? 2 : 1) }
            func available() -> Int { progressY - gap - margin - gap - textHeight() }
            if available() < Int(Double(m.base) * 0.42) { hasAlbum = false }
            var side = max(0, min(w - 2 * margin, available()))
            var spare = available() - side
            if spare >= titleLine {
                titleCount = 2
                spare -= titleLine
            }
            side = max(0, min(side, available()))
            let top = margin + spare / 2
            artwork = Rect(x: (w - side) / 2, y: top, width: side, height: side)
            var y = artwork.maxY + gap
            var lines: [Rect] = []
            for _ in 0..<titleCount {
                lines.append(Rect(x: margin, y: y, width: w - 2 * margin, height: titleLine))
                y += titleLine
            }
            titleLines = lines
            artist = Rect(x: margin, y: y, width: w - 2 * margin, height: bodyLine)
            album = hasAlbum ? Rect(x: margin, y: y + bodyLine, width: w - 2 * margin, height: bodyLine) : nil
        }

        let panelWidth = min(w - 2 * margin, max(Int(Double(m.base) * 0.75), m.body.size * 9))
        let panelHeight = margin * 2 + bodyLine + gap * 2 + m.barHeight * 2
        volumePanel = Rect(x: (w - panelWidth) / 2, y: (h - panelHeight) / 2, width: panelWidth, height: panelHeight)
        banner = Rect(x: 0, y: 0, width: w, height: smallLine + 2 * gap)
    }

    /// Every non-overlay part, named.
    public var elements: [LayoutElement] {
        var list: [LayoutElement] = []
        if !artwork.isEmpty { list.append(LayoutElement("artwork", artwork)) }
        for (i, line) in titleLines.enumerated() { list.append(LayoutElement("title\(i + 1)", line)) }
        list.append(LayoutElement("artist", artist))
        if let album { list.append(LayoutElement("album", album)) }
        list.append(LayoutElement("progress", progress))
        list.append(LayoutElement("stateIcon", stateIcon))
        list.append(LayoutElement("elapsed", elapsed))
        if let queueInfo { list.append(LayoutElement("queueInfo", queueInfo)) }
        list.append(LayoutElement("total", total))
        return list
    }

    public var overlays: [LayoutElement] {
        [LayoutElement("volumePanel", volumePanel), LayoutElement("banner", banner)]
    }
}

/// The browse list: a header, rows (with subtitles and thumbnails when there is room), a scroll
/// indicator. Thread: a value.
public struct BrowseLayout: Sendable, Equatable {
    public let metrics: ScreenMetrics
    public let header: Rect
    public let headerLabel: Rect
    public let headerCount: Rect
    public let rule: Rect
    public let list: Rect
    public let rowHeight: Int
    public let visibleRows: Int
    public let showsSubtitles: Bool
    /// Side of the thumbnail square; 0 when rows have none.
    public let thumbnailSize: Int
    public let scrollTrack: Rect

    public init(size: Size) {
        let m = ScreenMetrics(size: size)
        metrics = m
        let w = size.width
        let h = size.height
        let gap = m.gap
        let headerFont = m.header
        header = Rect(x: 0, y: 0, width: w, height: headerFont.lineHeight + 2 * gap)
        let countWidth = Int((Double(m.small.size) * 0.64 * 9).rounded(.up))
        headerCount = Rect(
            x: w - m.margin - countWidth, y: gap + (headerFont.lineHeight - m.small.lineHeight) / 2,
            width: countWidth, height: m.small.lineHeight)
        headerLabel = Rect(
            x: m.margin, y: gap, width: headerCount.x - gap - m.margin, height: headerFont.lineHeight)
        rule = m.rule(at: header.maxY)
        list = Rect(x: 0, y: rule.maxY + gap, width: w, height: h - rule.maxY - 2 * gap)
        let twoLine = m.body.lineHeight + m.small.lineHeight + 2 * gap
        let oneLine = m.body.lineHeight + 2 * gap
        showsSubtitles = list.height / twoLine >= 3
        let natural = showsSubtitles ? twoLine : oneLine
        visibleRows = max(1, list.height / natural)
        // Spread the rows over the whole list (up to a third taller) rather than leave a gap below.
        rowHeight = min(natural * 4 / 3, list.height / visibleRows)
        thumbnailSize = showsSubtitles && w >= 160 ? rowHeight - 2 * gap : 0
        let scrollWidth = max(3, Int((Double(m.base) * 0.012).rounded()))
        scrollTrack = Rect(x: w - scrollWidth - gap, y: list.y, width: scrollWidth, height: visibleRows * rowHeight)
    }

    /// The first row shown so that `selected` is visible (kept near the middle while scrolling).
    public func firstVisibleRow(selected: Int, count: Int) -> Int {
        let s = min(max(0, selected), max(0, count - 1))
        return min(max(0, s - (visibleRows - 1) / 2), max(0, count - visibleRows))
    }

    /// The rectangle of the `index`-th visible row (0 = top). Leaves room for the scroll indicator.
    public func row(_ index: Int) -> Rect {
        let inset = metrics.gap * 2
        return Rect(
            x: inset, y: list.y + index * rowHeight, width: scrollTrack.x - metrics.gap - inset, height: rowHeight)
    }

    public var elements: [LayoutElement] {
        var list: [LayoutElement] = [
            LayoutElement("headerLabel", headerLabel), LayoutElement("headerCount", headerCount),
            LayoutElement("rule", rule), LayoutElement("scrollTrack", scrollTrack),
        ]
        for i in 0..<visibleRows { list.append(LayoutElement("row\(i)", row(i))) }
        return list
    }
}

/// Help pages: a header, rows of control → action, and a page indicator. Thread: a value.
public struct HelpLayout: Sendable, Equatable {
    public let metrics: ScreenMetrics
    public let headerLabel: Rect
    public let rule: Rect
    public let rowHeight: Int
    public let entriesPerPage: Int
    public let controlWidth: Int
    public let indicator: Rect
    public let dotDiameter: Int

    public init(size: Size) {
        let m = ScreenMetrics(size: size)
        metrics = m
        let w = size.width
        let h = size.height
        let gap = m.gap
        headerLabel = Rect(x: m.margin, y: gap, width: w - 2 * m.margin, height: m.header.lineHeight)
        rule = m.rule(at: headerLabel.maxY + gap)
        dotDiameter = max(6, Int((Double(m.base) * 0.032).rounded()))
        let indicatorHeight = max(dotDiameter, m.small.lineHeight) + 2 * gap
        indicator = Rect(x: m.margin, y: h - indicatorHeight - gap, width: w - 2 * m.margin, height: indicatorHeight)
        rowHeight = m.body.lineHeight + gap
        let listTop = rule.maxY + gap
        entriesPerPage = max(1, (indicator.y - gap - listTop) / rowHeight)
        controlWidth = (w - 2 * m.margin) * 2 / 5
    }

    public var listTop: Int { rule.maxY + metrics.gap }

    public func pageCount(entries: Int) -> Int { max(1, (entries + entriesPerPage - 1) / entriesPerPage) }

    /// Control and action rectangles of the `index`-th row of a page.
    public func row(_ index: Int) -> (control: Rect, action: Rect) {
        let y = listTop + index * rowHeight
        let m = metrics
        let control = Rect(x: m.margin, y: y, width: controlWidth, height: m.body.lineHeight)
        let actionX = control.maxX + m.gap * 2
        return (
            control, Rect(x: actionX, y: y, width: metrics.size.width - m.margin - actionX, height: m.body.lineHeight)
        )
    }

    /// Centres of the page dots, or nil when they do not fit (a "2 / 9" label is shown instead).
    public func dotCenters(pages: Int) -> [(x: Double, y: Double)]? {
        let spacing = Double(dotDiameter) * 2.2
        let width = spacing * Double(pages - 1)
        guard pages > 1, width + Double(dotDiameter) <= Double(indicator.width) else { return nil }
        let start = Double(indicator.x) + (Double(indicator.width) - width) / 2
        let y = Double(indicator.y) + Double(indicator.height) / 2
        return (0..<pages).map { (start + Double($0) * spacing, y) }
    }

    public var elements: [LayoutElement] {
        var list = [LayoutElement("headerLabel", headerLabel), LayoutElement("rule", rule)]
        for i in 0..<entriesPerPage {
            // The renderer moves the control/action split to fit the widest control on the page.
            let r = row(i)
            list.append(LayoutElement("row\(i)", r.control.union(r.action)))
        }
        list.append(LayoutElement("indicator", indicator))
        return list
    }
}

/// A message: an icon, a title of up to `maxTitleLines` lines, a detail. Thread: a value.
public struct MessageLayout: Sendable, Equatable {
    public let metrics: ScreenMetrics
    public let icon: Rect
    public let titleLines: [Rect]
    public let detailLines: [Rect]

    public var maxTitleLines: Int { metrics.base < 200 ? 2 : 3 }
    public static func maxDetailLines(_ metrics: ScreenMetrics) -> Int { metrics.base < 200 ? 2 : 3 }

    /// Lays out `titleLines` and `detailLines` lines (fewer when they do not fit), centred.
    public init(size: Size, titleLines titleCount: Int, detailLines detailCount: Int) {
        let m = ScreenMetrics(size: size)
        metrics = m
        let w = size.width
        let h = size.height
        let titleLine = m.title.lineHeight
        let bodyLine = m.body.lineHeight
        let maxTitle = m.base < 200 ? 2 : 3
        var titles = min(max(1, titleCount), maxTitle)
        var details = min(max(0, detailCount), MessageLayout.maxDetailLines(m))
        var iconSide = Int(Double(m.base) * 0.22)
        func total() -> Int {
            iconSide + 2 * m.gap + titles * titleLine + (details > 0 ? m.gap * 2 + details * bodyLine : 0)
        }
        while total() > h - 2 * m.margin && details > 0 { details -= 1 }
        while total() > h - 2 * m.margin && titles > 1 { titles -= 1 }
        if total() > h - 2 * m.margin { iconSide = max(0, iconSide - (total() - (h - 2 * m.margin))) }
        var y = (h - total()) / 2
        icon = Rect(x: (w - iconSide) / 2, y: y, width: iconSide, height: iconSide)
        y = icon.maxY + 2 * m.gap
        titleLines = (0..<titles).map {
            Rect(x: m.margin, y: y + $0 * titleLine, width: w - 2 * m.margin, height: titleLine)
        }
        y += titles * titleLine + m.gap * 2
        detailLines = (0..<details).map {
            Rect(x: m.margin, y: y + $0 * bodyLine, width: w - 2 * m.margin, height: bodyLine)
        }
    }

    public var elements: [LayoutElement] {
        var list: [LayoutElement] = []
        if !icon.isEmpty { list.append(LayoutElement("icon", icon)) }
        for (i, r) in titleLines.enumerated() { list.append(LayoutElement("title\(i + 1)", r)) }
        for (i, r) in detailLines.enumerated() { list.append(LayoutElement("detail\(i + 1)", r)) }
        return list
    }
}

/// Layout questions the player may ask without drawing. Thread: any (pure functions).
public enum ScreenLayout {
    /// How many help pages `entries` entries take at `size`.
    public static func helpPageCount(entries: Int, size: Size) -> Int {
        HelpLayout(size: size).pageCount(entries: entries)
    }

    /// The artwork size the now-playing screen shows at `size` (decode target).
    public static func nowPlayingArtworkSize(_ size: Size) -> Size {
        let r = NowPlayingLayout(size: size).artwork
        return Size(width: r.width, height: r.height)
    }
}
