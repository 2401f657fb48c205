// SPDX-License-Identifier: GPL-3.0-or-later
/// Where the parts of exhibit mode's attract card go: a drawn button, the prompt in the largest
/// type of any screen (read from a few steps away), the language's name under it. Thread: a value.
public struct ExhibitAttractLayout: Sendable, Equatable {
    public let metrics: ScreenMetrics
    public let promptFont: Font
    /// The round button drawn above the prompt (empty when the screen has no room for it).
    public let icon: Rect
    public let promptLines: [Rect]
    /// The language's name at the bottom; nil when none is shown.
    public let language: Rect?

    /// The prompt's font at `metrics`: about twice the size of a body line.
    public static func promptFont(_ metrics: ScreenMetrics) -> Font {
        Font(.bold, size: min(64, max(14, Int((Double(metrics.base) * 0.12).rounded()))))
    }

    /// How many lines the prompt may wrap over.
    public static func maxPromptLines(_ metrics: ScreenMetrics) -> Int { metrics.base < 200 ? 2 : 3 }

    /// Lays out `promptLines` lines of prompt in `font` (default `promptFont`; fewer lines when
    /// they do not fit), centred with the icon above them, and a language line at the bottom when
    /// `hasLanguage`.
    public init(size: Size, promptLines count: Int, hasLanguage: Bool, font: Font? = nil) {
        let m = ScreenMetrics(size: size)
        metrics = m
        let font = font ?? Self.promptFont(m)
        promptFont = font
        let w = size.width
        let h = size.height
        let languageLine = m.header.lineHeight
        let room = h - 2 * m.margin - (hasLanguage ? languageLine + 2 * m.gap : 0)
        var lines = min(max(1, count), Self.maxPromptLines(m))
        var iconSide = Int(Double(m.base) * 0.26)
        func total() -> Int { iconSide + 2 * m.gap + lines * font.lineHeight }
        while total() > room && lines > 1 { lines -= 1 }
        if total() > room { iconSide = max(0, iconSide - (total() - room)) }
        let top = m.margin + max(0, room - total()) / 2
        icon = Rect(x: (w - iconSide) / 2, y: top, width: iconSide, height: iconSide)
        let promptTop = icon.maxY + 2 * m.gap
        promptLines = (0..<lines).map {
            Rect(x: m.margin, y: promptTop + $0 * font.lineHeight, width: w - 2 * m.margin, height: font.lineHeight)
        }
        language =
            hasLanguage
            ? Rect(x: m.margin, y: h - m.margin - languageLine, width: w - 2 * m.margin, height: languageLine) : nil
    }

    public var elements: [LayoutElement] {
        var list: [LayoutElement] = []
        if !icon.isEmpty { list.append(LayoutElement("icon", icon)) }
        for (i, r) in promptLines.enumerated() { list.append(LayoutElement("prompt\(i + 1)", r)) }
        if let language { list.append(LayoutElement("language", language)) }
        return list
    }
}

/// Where the parts of exhibit mode's clip screen go: the language at the top, the clip's title
/// large and centred (no artwork: a clip is a voice, not an album), a progress bar and the times
/// at the bottom as on the now-playing screen. Thread: a value.
public struct ExhibitClipLayout: Sendable, Equatable {
    public let metrics: ScreenMetrics
    public let titleFont: Font
    /// The language's name; nil when none is shown.
    public let language: Rect?
    public let titleLines: [Rect]
    public let progress: Rect
    public let elapsed: Rect
    public let total: Rect

    /// The title's font at `metrics`: larger than now playing's, which shares its room with artwork.
    public static func titleFont(_ metrics: ScreenMetrics) -> Font {
        Font(.bold, size: min(52, max(12, Int((Double(metrics.base) * 0.1).rounded()))))
    }

    /// How many lines the title may wrap over.
    public static func maxTitleLines(_ metrics: ScreenMetrics) -> Int { metrics.base < 200 ? 2 : 3 }

    /// Lays out `titleLines` lines of title in `font` (default `titleFont`; fewer lines when they
    /// do not fit), centred between the language line (when `hasLanguage`) and the progress bar.
    public init(size: Size, titleLines count: Int, hasLanguage: Bool, font: Font? = nil) {
        let m = ScreenMetrics(size: size)
        metrics = m
        let font = font ?? Self.titleFont(m)
        titleFont = font
        let w = size.width
        let h = size.height
        let smallLine = m.small.lineHeight
        let statusY = h - m.margin - smallLine
        progress = Rect(x: m.margin, y: statusY - m.gap - m.barHeight, width: w - 2 * m.margin, height: m.barHeight)
        let timeWidth = Int((Double(m.small.size) * 0.64 * 6.2).rounded(.up))
        elapsed = Rect(x: m.margin, y: statusY, width: timeWidth, height: smallLine)
        total = Rect(x: w - m.margin - timeWidth, y: statusY, width: timeWidth, height: smallLine)
        language =
            hasLanguage
            ? Rect(x: m.margin, y: m.margin, width: w - 2 * m.margin, height: m.header.lineHeight) : nil
        let top = language.map { $0.maxY + m.gap } ?? m.margin
        let room = progress.y - 2 * m.gap - top
        var lines = min(max(1, count), Self.maxTitleLines(m))
        while lines * font.lineHeight > room && lines > 1 { lines -= 1 }
        let titleTop = top + max(0, room - lines * font.lineHeight) / 2
        titleLines = (0..<lines).map {
            Rect(x: m.margin, y: titleTop + $0 * font.lineHeight, width: w - 2 * m.margin, height: font.lineHeight)
        }
    }

    public var elements: [LayoutElement] {
        var list: [LayoutElement] = []
        if let language { list.append(LayoutElement("language", language)) }
        for (i, r) in titleLines.enumerated() { list.append(LayoutElement("title\(i + 1)", r)) }
        list.append(LayoutElement("progress", progress))
        list.append(LayoutElement("elapsed", elapsed))
        list.append(LayoutElement("total", total))
        return list
    }
}
