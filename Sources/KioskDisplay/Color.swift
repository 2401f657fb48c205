// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// An sRGB colour with alpha, stored as 0xAARRGGBB (straight, not premultiplied).
/// Thread: a value, any thread.
public struct Color: Hashable, Sendable, CustomStringConvertible {
    public var argb: UInt32

    public init(argb: UInt32) { self.argb = argb }

    /// An opaque colour from 0xRRGGBB.
    public init(rgb: UInt32) { argb = 0xFF00_0000 | (rgb & 0xFF_FFFF) }

    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        argb = UInt32(alpha) << 24 | UInt32(red) << 16 | UInt32(green) << 8 | UInt32(blue)
    }

    public var red: UInt8 { UInt8(truncatingIfNeeded: argb >> 16) }
    public var green: UInt8 { UInt8(truncatingIfNeeded: argb >> 8) }
    public var blue: UInt8 { UInt8(truncatingIfNeeded: argb) }
    public var alpha: UInt8 { UInt8(truncatingIfNeeded: argb >> 24) }

    /// The same colour with another alpha.
    public func withAlpha(_ alpha: UInt8) -> Color { Color(argb: argb & 0xFF_FFFF | UInt32(alpha) << 24) }

    /// `self` painted with its alpha over the opaque `background`.
    public func composited(over background: Color) -> Color {
        let a = Int(alpha)
        func mix(_ f: UInt8, _ b: UInt8) -> UInt8 { UInt8((Int(f) * a + Int(b) * (255 - a) + 127) / 255) }
        return Color(
            red: mix(red, background.red), green: mix(green, background.green), blue: mix(blue, background.blue))
    }

    /// Linear interpolation in sRGB: 0 gives `self`, 1 gives `other` (opaque result).
    public func mixed(with other: Color, _ fraction: Double) -> Color {
        let t = min(1, max(0, fraction))
        func mix(_ a: UInt8, _ b: UInt8) -> UInt8 { UInt8((Double(a) + (Double(b) - Double(a)) * t).rounded()) }
        return Color(red: mix(red, other.red), green: mix(green, other.green), blue: mix(blue, other.blue))
    }

    /// WCAG 2 relative luminance (0 black … 1 white) of the opaque colour.
    public var relativeLuminance: Double {
        func channel(_ c: UInt8) -> Double {
            let v = Double(c) / 255
            return v <= 0.040_45 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * channel(red) + 0.7152 * channel(green) + 0.0722 * channel(blue)
    }

    /// WCAG 2 contrast ratio (1…21) between two opaque colours.
    public func contrastRatio(with other: Color) -> Double {
        let a = relativeLuminance
        let b = other.relativeLuminance
        return (max(a, b) + 0.05) / (min(a, b) + 0.05)
    }

    /// The colour nearest to `self` (moving toward black or white, whichever can reach it) whose
    /// contrast with `background` is at least `minimum`. Used for UI marks that must stay visible
    /// whatever the theme (page dots, scroll indicators).
    public func ensuringContrast(_ minimum: Double, against background: Color) -> Color {
        if contrastRatio(with: background) >= minimum { return self }
        let black = Color(rgb: 0)
        let white = Color(rgb: 0xFF_FFFF)
        // Prefer the direction that can reach the minimum at all; white wins ties on dark backgrounds.
        let target = white.contrastRatio(with: background) >= black.contrastRatio(with: background) ? white : black
        var low = 0.0
        var high = 1.0
        for _ in 0..<20 {
            let middle = (low + high) / 2
            if mixed(with: target, middle).contrastRatio(with: background) >= minimum {
                high = middle
            } else {
                low = middle
            }
        }
        return mixed(with: target, high)
    }

    public var description: String {
        let hex = String(argb, radix: 16, uppercase: true)
        return "#" + String(repeating: "0", count: 8 - hex.count) + hex
    }
}
