// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskDisplay

/// The framebuffer the player drives, found once for `run` (Appliance) and for
/// `check-config --framebuffer` (deploy/kiosk-console, which takes the text console off that
/// framebuffer before the service starts): the two must never disagree.
extension ResolvedConfig {
    /// The /dev/fbN the player opens as it starts now, or nil when it draws on no framebuffer (an
    /// SPI panel over spidev, PNG, the terminal, no screen, or no framebuffer found).
    public func framebufferDevice(
        screenType override: ScreenType? = nil, sysfs: String = "/sys/class/graphics", devices: String = "/dev"
    ) -> String? {
        let profile = screenProfile
        switch screenType(override: override) {
        case .none, .png, .terminal, .spi:
            return nil
        case .auto where profile.spiPanel != nil:
            // Only a framebuffer found by its sysfs name; without one the panel is driven over spidev.
            return profile.fbName.flatMap { FramebufferSurface.find(name: $0, sysfs: sysfs, devices: devices) }
        case .framebuffer, .auto:
            return FramebufferSurface.device(for: profile, sysfs: sysfs, devices: devices)
        }
    }
}
