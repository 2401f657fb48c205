// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskModel

/// Draws a `ScreenState` into a `Canvas`: the whole screen, from the state alone, so any state
/// can be rendered in a test or by `kiosk-player render`.
///
/// Artwork comes from a lookup closure (key and pixel size → image, or nil for the placeholder);
/// the `Display` answers it from its cache. Thread: one thread at a time (it uses the `FontSet`).
public final class ScreenRenderer {
    public let fonts: FontSet
    public var theme: Theme

    /// Artwork for a key at a size, or nil (not loaded, not decodable, no key): the placeholder.
    public typealias ArtworkLookup = (_ key: String, _ size: Size) -> Image?

    public init(fonts: FontSet, theme: Theme = .dark) {
        self.fonts = fonts
        self.theme = theme
    }

    /// Horizontal placement of a line of text in its rectangle.
    public enum Alignment: Sendable {
        case left, center, right
    }

    /// Draws `state` over the whole canvas.
    public func render(_ state: ScreenState, on canvas: Canvas, artwork: ArtworkLookup = { _, _ in nil }) {
        canvas.withClip(canvas.bounds) {
            switch state {
            case .nowPlaying(let s): drawNowPlaying(s, canvas, artwork)
            case .browse(let s): drawBrowse(s, canvas, artwork)
            case .help(let s): drawHelp(s, canvas)
            case .message(let s): drawMessage(s, canvas)
            case .exhibit(let s): drawExhibit(s, canvas)
            case .off: canvas.fill(Color(rgb: 0))
            }
        }
    }

    /// The artwork keys `state` shows at `size`, with the pixel size each is drawn at.
    public static func artworkNeeds(_ state: ScreenState, size: Size) -> [(key: String, size: Size)] {
        switch state {
        case .nowPlaying(let s):
            guard let key = s.artworkKey else { return [] }
            let rect = NowPlayingLayout(size: size).artwork
            return rect.isEmpty ? [] : [(key, Size(width: rect.width, height: rect.height))]
        case .browse(let s):
            let layout = BrowseLayout(size: size)
            guard layout.thumbnailSize > 0 else { return [] }
            let first = layout.firstVisibleRow(selected: s.selectedIndex, count: s.items.count)
            let last = min(s.items.count, first + layout.visibleRows)
            guard first < last else { return [] }
            let side = Size(width: layout.thumbnailSize, height: layout.thumbnailSize)
            return s.items[first..<last].compactMap { item in item.artworkKey.map { ($0, side) } }
        case .help, .message, .exhibit, .off:
            return []
        }
    }

    // MARK: - text helpers

    /// One line of `text` in `rect`: shortened with "…" to fit, vertically centred, clipped.
    public func drawText(
        _ text: String, _ font: Font, _ color: Color, in rect: Rect, on canvas: Canvas, align: Alignment = .left
    ) {
        let line = fonts.fitted(DisplayFormat.singleLine(text), font, maxWidth: rect.width)
        let width = fonts.width(of: line, font)
        let x: Int
        switch align {
        case .left: x = rect.x
        case .center: x = rect.x + (rect.width - width) / 2
        case .right: x = rect.maxX - width
        }
        canvas.withClip(rect) {
            fonts.draw(line, font, color, on: canvas, x: x, top: rect.y + (rect.height - font.lineHeight) / 2)
        }
    }

    /// `text` wrapped over `rects` (one line each); the last line ends in "…" if text is left.
    func drawWrapped(
        _ text: String, _ font: Font, _ color: Color, in rects: [Rect], on canvas: Canvas, align: Alignment
    ) {
        guard let first = rects.first else { return }
        let lines = fonts.wrapped(DisplayFormat.singleLine(text), font, maxWidth: first.width, maxLines: rects.count)
        for (line, rect) in zip(lines, rects) { drawText(line, font, color, in: rect, on: canvas, align: align) }
    }

    /// Draws one character centred on its ink (not its advance) in `rect`.
    func drawSymbol(_ scalar: Unicode.Scalar, _ font: Font, _ color: Color, in rect: Rect, on canvas: Canvas) {
        let g = fonts.glyph(scalar, font)
        guard g.width > 0 else { return }
        g.coverage.withUnsafeBufferPointer { mask in
            canvas.withClip(rect) {
                canvas.drawMask(
                    mask, width: g.width, height: g.height, x: rect.x + (rect.width - g.width) / 2,
                    y: rect.y + (rect.height - g.height) / 2, color)
            }
        }
    }

    /// A neutral square with a note glyph: artwork that is missing, loading or undecodable.
    func drawPlaceholder(in rect: Rect, on canvas: Canvas) {
        guard !rect.isEmpty else { return }
        canvas.fillRoundedRect(rect, radius: Double(rect.width) * 0.06, theme.panel)
        let note = Font(.regular, size: max(6, rect.height * 11 / 20))
        drawSymbol("\u{266A}", note, theme.placeholderGlyph, in: rect, on: canvas)
    }

    func drawArtwork(_ key: String?, in rect: Rect, on canvas: Canvas, _ artwork: ArtworkLookup) {
        guard !rect.isEmpty else { return }
        if let key, let image = artwork(key, Size(width: rect.width, height: rect.height)) {
            canvas.withClip(rect) {
                if !image.isOpaque { canvas.fill(rect, theme.panel) }
                canvas.draw(image, in: rect)
            }
        } else {
            drawPlaceholder(in: rect, on: canvas)
        }
    }

    // MARK: - now playing

    func drawNowPlaying(_ s: NowPlayingState, _ canvas: Canvas, _ artwork: ArtworkLookup) {
        let layout = NowPlayingLayout(size: canvas.size)
        let m = layout.metrics
        canvas.fill(theme.background)
        drawArtwork(s.artworkKey, in: layout.artwork, on: canvas, artwork)

        let align: Alignment = m.isLandscape ? .left : .center
        let title = nonEmpty(s.title) ?? "Unknown Title"
        drawWrapped(title, m.title, theme.primaryText, in: layout.titleLines, on: canvas, align: align)
        drawText(
            nonEmpty(s.artist) ?? "Unknown Artist", m.body, theme.primaryText, in: layout.artist, on: canvas,
            align: align)
        if let album = layout.album {
            drawText(
                nonEmpty(s.album) ?? "Unknown Album", m.body, theme.secondaryText, in: album, on: canvas, align: align)
        }

        var fraction = 0.0
        if let total = s.totalSeconds, total > 0, s.elapsedSeconds.isFinite { fraction = s.elapsedSeconds / total }
        canvas.drawProgressBar(layout.progress, fraction: fraction, track: theme.track, fill: theme.accent)
        drawPlaybackIcon(s.playback, in: layout.stateIcon, on: canvas)
        drawText(DisplayFormat.time(s.elapsedSeconds), m.small, theme.secondaryText, in: layout.elapsed, on: canvas)
        drawText(
            DisplayFormat.time(s.totalSeconds), m.small, theme.secondaryText, in: layout.total, on: canvas,
            align: .right)
        if let info = layout.queueInfo {
            let label = DisplayFormat.singleLine(s.categoryLabel)
            let position = s.queueCount > 0 ? "\(s.queuePosition)/\(s.queueCount)" : ""
            let text = label.isEmpty ? position : position.isEmpty ? label : "\(label) · \(position)"
            drawText(text, m.small, theme.secondaryText, in: info, on: canvas, align: .center)
        }

        if let status = nonEmpty(s.statusLine) {
            canvas.fill(layout.banner, theme.warning)
            drawText(
                status, Font(.bold, size: m.small.size), theme.onWarning,
                in: layout.banner.insetBy(dx: m.margin, dy: 0),
                on: canvas, align: .center)
        }
        if let volume = s.volumeOverlay { drawVolume(volume, range: s.volumeRange, layout, canvas) }
    }

    func drawPlaybackIcon(_ playback: PlaybackState, in rect: Rect, on canvas: Canvas) {
        let x = Double(rect.x)
        let y = Double(rect.y)
        let w = Double(rect.width)
        let h = Double(rect.height)
        switch playback {
        case .playing:
            canvas.fillPolygon([(x + w * 0.1, y), (x + w, y + h / 2), (x + w * 0.1, y + h)], theme.accent)
        case .paused:
            let bar = max(2, Int((w * 0.32).rounded()))
            canvas.fill(Rect(x: rect.x + Int(w * 0.08), y: rect.y, width: bar, height: rect.height), theme.primaryText)
            canvas.fill(
                Rect(x: rect.maxX - bar - Int(w * 0.08), y: rect.y, width: bar, height: rect.height), theme.primaryText)
        case .stopped:
            canvas.fill(rect.insetBy(dx: max(1, rect.width / 10), dy: max(1, rect.height / 10)), theme.secondaryText)
        }
    }

    /// The volume overlay: the percentage ("· max" / "· min" at a configured limit) and a bar with
    /// a tick at each limit that cuts the scale, so a parent sees why it goes no further.
    func drawVolume(_ percent: Int, range: ClosedRange<Int>, _ layout: NowPlayingLayout, _ canvas: Canvas) {
        let m = layout.metrics
        let panel = layout.volumePanel
        let clamped = min(100, max(0, percent))
        canvas.fillRoundedRect(panel.insetBy(dx: -1, dy: -1), radius: Double(m.margin), theme.track)
        canvas.fillRoundedRect(panel, radius: Double(m.margin), theme.panel)
        let inner = panel.insetBy(dx: m.margin, dy: m.margin)
        let label = Rect(x: inner.x, y: inner.y, width: inner.width, height: m.body.lineHeight)
        let limit =
            range.upperBound < 100 && clamped >= range.upperBound
            ? " · max" : range.lowerBound > 0 && clamped <= range.lowerBound ? " · min" : ""
        drawText(
            "Volume \(clamped)%\(limit)", m.header, theme.primaryText, in: label, on: canvas,
            align: .center)
        let bar = Rect(x: inner.x, y: label.maxY + m.gap * 2, width: inner.width, height: m.barHeight * 2)
        canvas.drawProgressBar(bar, fraction: Double(clamped) / 100, track: theme.track, fill: theme.accent)
        for bound in [range.lowerBound, range.upperBound] where bound > 0 && bound < 100 {
            let x = bar.x + bar.width * bound / 100
            canvas.fill(Rect(x: x - 1, y: bar.y - m.gap, width: 2, height: bar.height + 2 * m.gap), theme.primaryText)
        }
    }

    // MARK: - browse

    func drawBrowse(_ s: BrowseState, _ canvas: Canvas, _ artwork: ArtworkLookup) {
        let layout = BrowseLayout(size: canvas.size)
        let m = layout.metrics
        canvas.fill(theme.background)
        drawText(s.categoryLabel, m.header, theme.primaryText, in: layout.headerLabel, on: canvas)
        let count = s.items.count
        let selected = min(max(0, s.selectedIndex), max(0, count - 1))
        if count > 0 {
            drawText(
                "\(selected + 1)/\(count)", m.small, theme.secondaryText, in: layout.headerCount, on: canvas,
                align: .right)
        }
        canvas.fill(layout.rule, theme.accent)
        guard count > 0 else {
            drawText("Nothing here", m.body, theme.secondaryText, in: layout.list, on: canvas, align: .center)
            return
        }
        let first = layout.firstVisibleRow(selected: selected, count: count)
        for i in 0..<layout.visibleRows {
            let index = first + i
            guard index < count else { break }
            let item = s.items[index]
            let row = layout.row(i)
            let isSelected = index == selected
            if isSelected { canvas.fillRoundedRect(row, radius: Double(m.gap) * 1.5, theme.accent) }
            var textX = row.x + m.gap * 2
            if layout.thumbnailSize > 0 {
                let thumb = Rect(
                    x: row.x + m.gap, y: row.y + (row.height - layout.thumbnailSize) / 2, width: layout.thumbnailSize,
                    height: layout.thumbnailSize)
                drawArtwork(item.artworkKey, in: thumb, on: canvas, artwork)
                textX = thumb.maxX + m.gap * 2
            }
            let textWidth = row.maxX - m.gap * 2 - textX
            let titleColor = isSelected ? theme.onAccent : theme.primaryText
            let subtitleColor = isSelected ? theme.onAccent : theme.secondaryText
            let titleFont = Font(isSelected ? .bold : .regular, size: m.body.size)
            if layout.showsSubtitles {
                let top = row.y + (row.height - m.body.lineHeight - m.small.lineHeight) / 2
                let titleRect = Rect(x: textX, y: top, width: textWidth, height: m.body.lineHeight)
                drawText(item.title, titleFont, titleColor, in: titleRect, on: canvas)
                let subtitleRect = Rect(x: textX, y: titleRect.maxY, width: textWidth, height: m.small.lineHeight)
                drawText(item.subtitle ?? "", m.small, subtitleColor, in: subtitleRect, on: canvas)
            } else {
                let top = row.y + (row.height - m.body.lineHeight) / 2
                let titleRect = Rect(x: textX, y: top, width: textWidth, height: m.body.lineHeight)
                drawText(item.title, titleFont, titleColor, in: titleRect, on: canvas)
            }
        }
        if count > layout.visibleRows {
            let track = layout.scrollTrack
            canvas.fillRoundedRect(track, radius: Double(track.width) / 2, theme.track)
            let thumbHeight = max(track.width * 2, track.height * layout.visibleRows / count)
            let travel = track.height - thumbHeight
            let y = track.y + travel * first / max(1, count - layout.visibleRows)
            canvas.fillRoundedRect(
                Rect(x: track.x, y: y, width: track.width, height: thumbHeight), radius: Double(track.width) / 2,
                theme.scrollThumb)
        }
    }

    // MARK: - help

    func drawHelp(_ s: HelpState, _ canvas: Canvas) {
        let layout = HelpLayout(size: canvas.size)
        let m = layout.metrics
        canvas.fill(theme.background)
        drawText(s.title, m.header, theme.primaryText, in: layout.headerLabel, on: canvas)
        canvas.fill(layout.rule, theme.accent)
        let pages = layout.pageCount(entries: s.entries.count)
        let page = ((s.page % pages) + pages) % pages
        // Spread the entries evenly over the pages (9 entries on 2 pages: 5 + 4, not 8 + 1).
        let perPage = (s.entries.count + pages - 1) / pages
        let shown = s.entries[min(s.entries.count, page * perPage)..<min(s.entries.count, (page + 1) * perPage)]
        let controlFont = m.header
        // The control column is as wide as the widest control on the page, at most the layout's.
        let widest = shown.map { fonts.width(of: DisplayFormat.singleLine($0.control), controlFont) }.max() ?? 0
        for (i, entry) in shown.enumerated() {
            let r = layout.row(i)
            let control = Rect(
                x: r.control.x, y: r.control.y, width: min(r.control.width, widest), height: r.control.height)
            let actionX = min(r.action.x, control.maxX + m.gap * 3)
            let action = Rect(x: actionX, y: r.action.y, width: r.action.maxX - actionX, height: r.action.height)
            drawText(entry.control, controlFont, theme.accent, in: control, on: canvas)
            drawText(entry.action, m.body, theme.primaryText, in: action, on: canvas)
        }
        guard pages > 1 else { return }
        if let centers = layout.dotCenters(pages: pages) {
            let radius = Double(layout.dotDiameter) / 2
            for (i, c) in centers.enumerated() {
                if i == page {
                    canvas.fillCircle(centerX: c.x, centerY: c.y, radius: radius, theme.pageDotActive)
                } else {
                    canvas.fillCircle(centerX: c.x, centerY: c.y, radius: radius * 0.7, theme.pageDotInactive)
                }
            }
        } else {
            drawText(
                "\(page + 1) / \(pages)", m.small, theme.pageDotInactive, in: layout.indicator, on: canvas,
                align: .center)
        }
    }

    // MARK: - message

    func drawMessage(_ s: MessageState, _ canvas: Canvas) {
        let metrics = ScreenMetrics(size: canvas.size)
        let width = canvas.width - 2 * metrics.margin
        let titleLines = fonts.wrapped(DisplayFormat.singleLine(s.title), metrics.title, maxWidth: width, maxLines: 3)
        let detailLines =
            nonEmpty(s.detail).map {
                fonts.wrapped(DisplayFormat.singleLine($0), metrics.body, maxWidth: width, maxLines: 3)
            } ?? []
        let layout = MessageLayout(size: canvas.size, titleLines: titleLines.count, detailLines: detailLines.count)
        canvas.fill(theme.background)
        drawMessageIcon(s.kind, in: layout.icon, on: canvas)
        drawWrapped(s.title, metrics.title, theme.primaryText, in: layout.titleLines, on: canvas, align: .center)
        if let detail = nonEmpty(s.detail) {
            drawWrapped(detail, metrics.body, theme.secondaryText, in: layout.detailLines, on: canvas, align: .center)
        }
    }

    func drawMessageIcon(_ kind: MessageState.Kind, in rect: Rect, on canvas: Canvas) {
        guard rect.width >= 6 else { return }
        let cx = Double(rect.x) + Double(rect.width) / 2
        let cy = Double(rect.y) + Double(rect.height) / 2
        let radius = Double(rect.width) / 2
        switch kind {
        case .info, .error:
            let color = kind == .error ? theme.error : theme.accent
            canvas.fillCircle(centerX: cx, centerY: cy, radius: radius, color)
            let mark: Unicode.Scalar = kind == .error ? "!" : "i"
            drawSymbol(mark, Font(.bold, size: rect.height * 3 / 5), theme.background, in: rect, on: canvas)
        case .progress:
            // Eight dots on a ring, fading: a still "working" sign (the screen redraws on change only).
            for i in 0..<8 {
                let angle = Double(i) * Double.pi / 4 - Double.pi / 2
                let dot = radius * 0.16
                let color = theme.accent.mixed(with: theme.background, Double(i) * 0.1)
                canvas.fillCircle(
                    centerX: cx + cos(angle) * (radius - dot), centerY: cy + sin(angle) * (radius - dot), radius: dot,
                    color)
            }
        }
    }

    // MARK: - exhibit

    /// Exhibit mode's visitor screen: the attract card, or the clip playing; the volume overlay
    /// (the visitor's knob) on top as on now playing.
    func drawExhibit(_ s: ExhibitScreenState, _ canvas: Canvas) {
        canvas.fill(theme.background)
        if let title = s.clipTitle {
            drawExhibitClip(title, s, canvas)
        } else {
            drawExhibitAttract(s, canvas)
        }
        if let volume = s.volumeOverlay {
            drawVolume(volume, range: s.volumeRange, NowPlayingLayout(size: canvas.size), canvas)
        }
    }

    func drawExhibitAttract(_ s: ExhibitScreenState, _ canvas: Canvas) {
        let metrics = ScreenMetrics(size: canvas.size)
        let prompt = nonEmpty(s.prompt) ?? ""
        let font = fittingWords(
            prompt, ExhibitAttractLayout.promptFont(metrics), smallest: metrics.title.size,
            maxWidth: canvas.width - 2 * metrics.margin)
        let lines = fonts.wrapped(
            prompt, font, maxWidth: canvas.width - 2 * metrics.margin,
            maxLines: ExhibitAttractLayout.maxPromptLines(metrics))
        let language = nonEmpty(s.language)
        let layout = ExhibitAttractLayout(
            size: canvas.size, promptLines: lines.count, hasLanguage: language != nil, font: font)
        drawButtonIcon(in: layout.icon, on: canvas)
        drawWrapped(prompt, font, theme.primaryText, in: layout.promptLines, on: canvas, align: .center)
        if let language, let rect = layout.language {
            drawText(language, metrics.header, theme.accent, in: rect, on: canvas, align: .center)
        }
    }

    /// `font`, smaller (down to `smallest`) when a word of `text` is wider than `maxWidth`: in
    /// the exhibit's large type a compound ("Leuchtturmwärter") would otherwise break inside.
    public func fittingWords(_ text: String, _ font: Font, smallest: Int, maxWidth: Int) -> Font {
        func widest(_ f: Font) -> Int { text.split(separator: " ").map { fonts.width(of: $0, f) }.max() ?? 0 }
        let width = widest(font)
        guard width > maxWidth, maxWidth > 0, font.size > smallest else { return font }
        // Widths grow with the size: one estimate, then a few steps down for the rounding.
        var fitted = Font(font.style, size: max(smallest, font.size * maxWidth / width))
        for _ in 0..<4 where fitted.size > smallest && widest(fitted) > maxWidth { fitted.size -= 1 }
        return fitted
    }

    /// A round push button seen from above: a ring around a disc, in the accent colour.
    func drawButtonIcon(in rect: Rect, on canvas: Canvas) {
        guard rect.width >= 8 else { return }
        let cx = Double(rect.x) + Double(rect.width) / 2
        let cy = Double(rect.y) + Double(rect.height) / 2
        let radius = Double(rect.width) / 2
        canvas.fillCircle(centerX: cx, centerY: cy, radius: radius, theme.accent)
        canvas.fillCircle(centerX: cx, centerY: cy, radius: radius * 0.8, theme.background)
        canvas.fillCircle(centerX: cx, centerY: cy, radius: radius * 0.62, theme.accent)
    }

    func drawExhibitClip(_ title: String, _ s: ExhibitScreenState, _ canvas: Canvas) {
        let metrics = ScreenMetrics(size: canvas.size)
        let text = nonEmpty(title) ?? ""
        let font = fittingWords(
            text, ExhibitClipLayout.titleFont(metrics), smallest: metrics.title.size,
            maxWidth: canvas.width - 2 * metrics.margin)
        let lines = fonts.wrapped(
            text, font, maxWidth: canvas.width - 2 * metrics.margin, maxLines: ExhibitClipLayout.maxTitleLines(metrics))
        let language = nonEmpty(s.language)
        let layout = ExhibitClipLayout(
            size: canvas.size, titleLines: lines.count, hasLanguage: language != nil, font: font)
        if let language, let rect = layout.language {
            drawText(language, metrics.header, theme.accent, in: rect, on: canvas, align: .center)
        }
        drawWrapped(text, font, theme.primaryText, in: layout.titleLines, on: canvas, align: .center)
        var fraction = 0.0
        if let total = s.totalSeconds, total > 0, s.elapsedSeconds.isFinite { fraction = s.elapsedSeconds / total }
        canvas.drawProgressBar(layout.progress, fraction: fraction, track: theme.track, fill: theme.accent)
        drawText(
            DisplayFormat.time(s.elapsedSeconds), metrics.small, theme.secondaryText, in: layout.elapsed, on: canvas)
        drawText(
            DisplayFormat.time(s.totalSeconds), metrics.small, theme.secondaryText, in: layout.total, on: canvas,
            align: .right)
    }

    private func nonEmpty(_ text: String?) -> String? {
        guard let text else { return nil }
        let line = DisplayFormat.singleLine(text)
        return line.isEmpty ? nil : line
    }
}
