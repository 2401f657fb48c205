// SPDX-License-Identifier: GPL-3.0-or-later
/// The screen's colours. Marks that must stay visible (page dots, scroll indicator) are derived
/// from the background so that their contrast is at least `minimumMarkContrast` (WCAG 3:1 for
/// graphical objects) whatever colours a theme picks. Thread: a value.
public struct Theme: Sendable, Equatable {
    public var background: Color
    /// Panels, the artwork placeholder, list thumbnails without art.
    public var panel: Color
    public var primaryText: Color
    public var secondaryText: Color
    public var accent: Color
    /// Text on the accent colour (the selected list row).
    public var onAccent: Color
    /// The unfilled part of progress and volume bars.
    public var track: Color
    public var error: Color
    public var warning: Color
    public var onWarning: Color
    /// The note glyph on the artwork placeholder.
    public var placeholderGlyph: Color

    /// Contrast every indicator mark keeps against `background`.
    public static let minimumMarkContrast = 3.0

    public init(
        background: Color, panel: Color, primaryText: Color, secondaryText: Color, accent: Color, onAccent: Color,
        track: Color, error: Color, warning: Color, onWarning: Color, placeholderGlyph: Color
    ) {
        self.background = background
        self.panel = panel
        self.primaryText = primaryText
        self.secondaryText = secondaryText
        self.accent = accent
        self.onAccent = onAccent
        self.track = track
        self.error = error
        self.warning = warning
        self.onWarning = onWarning
        self.placeholderGlyph = placeholderGlyph
    }

    /// Light text on near-black: the default (backlit LCDs look best dark).
    public static let dark = Theme(
        background: Color(rgb: 0x101216), panel: Color(rgb: 0x2A2E36), primaryText: Color(rgb: 0xF2F4F7),
        secondaryText: Color(rgb: 0xA8B0BD), accent: Color(rgb: 0x3D9BFF), onAccent: Color(rgb: 0x06121F),
        track: Color(rgb: 0x3A404B), error: Color(rgb: 0xFF5C5C), warning: Color(rgb: 0xFFB020),
        onWarning: Color(rgb: 0x1A1200), placeholderGlyph: Color(rgb: 0x6B7380))

    /// Dark text on white.
    public static let light = Theme(
        background: Color(rgb: 0xFFFFFF), panel: Color(rgb: 0xE6E9EE), primaryText: Color(rgb: 0x14171C),
        secondaryText: Color(rgb: 0x596170), accent: Color(rgb: 0x0A66D0), onAccent: Color(rgb: 0xFFFFFF),
        track: Color(rgb: 0xD5DAE1), error: Color(rgb: 0xC62828), warning: Color(rgb: 0xB26A00),
        onWarning: Color(rgb: 0xFFFFFF), placeholderGlyph: Color(rgb: 0x9AA2AE))

    /// Looks a theme up by name ("dark", "light").
    public static func named(_ name: String) -> Theme? {
        switch name {
        case "dark": .dark
        case "light": .light
        default: nil
        }
    }

    /// The current page's dot: the accent, made to contrast with the background.
    public var pageDotActive: Color {
        accent.ensuringContrast(Theme.minimumMarkContrast, against: background)
    }

    /// The other pages' dots: the secondary text colour, made to contrast with the background.
    /// (They must be told apart from the active dot by size too, not by colour alone.)
    public var pageDotInactive: Color {
        secondaryText.mixed(with: background, 0.35).ensuringContrast(Theme.minimumMarkContrast, against: background)
    }

    /// The scroll indicator's thumb.
    public var scrollThumb: Color {
        secondaryText.ensuringContrast(Theme.minimumMarkContrast, against: background)
    }
}
