// SPDX-License-Identifier: GPL-3.0-or-later
import KioskApp
import KioskConfig
import KioskSystem
import KioskTestSupport
import Testing

@Suite struct ResolvedScreenTests {
    func parse(_ text: String, file: String = "boards/test.json") throws(ConfigError) -> BoardProfile {
        try BoardProfile.parse(Array(text.utf8), file: file)
    }

    /// `check-config --framebuffer` (what deploy/kiosk-console takes the console off) names the
    /// framebuffer the player opens, and none when it draws on no framebuffer.
    @Test func theFramebufferForTheConsoleHelperIsTheOneThePlayerOpens() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try dir.write("sys/fb0/name", "vc4drmfb\n")
        try dir.write("sys/fb1/name", "fb_ili9340\n")
        try dir.write("dev/fb0", "")  // a device path fallback that must not be taken for a panel
        let (sys, dev) = (dir.file("sys"), dir.file("dev"))
        let hdmi = try parse(#"{"name": "test", "screen": {"type": "framebuffer", "fbName": "vc4drmfb"}}"#)
        #expect(
            ResolvedConfig(config: Config(), board: hdmi).framebufferDevice(sysfs: sys, devices: dev) == dev + "/fb0")
        var config = Config()
        config.screen.fbName = "fb_ili9340"
        #expect(ResolvedConfig(config: config, board: hdmi).framebufferDevice(sysfs: sys, devices: dev) == dev + "/fb1")
        config.screen.fbName = "absent"
        config.screen.device = dir.file("dev/fb7")
        #expect(ResolvedConfig(config: config, board: hdmi).framebufferDevice(sysfs: sys, devices: dev) == nil)
        for type in [ScreenType.png, .terminal, .none, .spi] {
            var other = Config()
            other.screen.type = type
            #expect(ResolvedConfig(config: other, board: hdmi).framebufferDevice(sysfs: sys, devices: dev) == nil)
        }
        // A panel with a kernel driver when its fb is there, else driven over spidev: no fb.
        let panels = TestPaths.repository + "/boards"
        let pitft = try BoardProfile.load(file: panels + "/pitft28.json")
        #expect(
            ResolvedConfig(config: Config(), board: pitft).framebufferDevice(sysfs: sys, devices: dev) == dev + "/fb1")
        try dir.write("sys/fb1/name", "simple\n")
        #expect(ResolvedConfig(config: Config(), board: pitft).framebufferDevice(sysfs: sys, devices: dev) == nil)
        let pirate = try BoardProfile.load(file: panels + "/pirate-audio.json")
        #expect(ResolvedConfig(config: Config(), board: pirate).framebufferDevice(sysfs: sys, devices: dev) == nil)
    }
}
