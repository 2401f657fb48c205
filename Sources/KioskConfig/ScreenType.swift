// SPDX-License-Identifier: GPL-3.0-or-later
import KioskDisplay

/// Which screen the player drives, as `screen.type` in config.json and `--screen` name it: the
/// board's kinds (`ScreenProfile.Kind`) plus the two that need no hardware. Parsed once where the
/// config or the command line is read; unknown names are errors there.
///
/// Thread: a value; any thread.
public enum ScreenType: String, Sendable, CaseIterable {
    /// The board's panel: its framebuffer when the kernel has one, else the SPI panel, else none.
    case auto
    /// A Linux framebuffer (/dev/fbN, found by its sysfs name or path).
    case framebuffer
    /// The board's SPI panel over spidev.
    case spi
    /// No screen.
    case none
    /// PNG files (one file rewritten, or a file per frame in `screen.pngDirectory`).
    case png
    /// The terminal (Unicode half blocks, 24-bit colour).
    case terminal

    /// The type a board profile's screen kind stands for.
    public init(_ kind: ScreenProfile.Kind) {
        switch kind {
        case .auto: self = .auto
        case .framebuffer: self = .framebuffer
        case .spi: self = .spi
        case .none: self = .none
        }
    }
}
