// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskDoctor
import KioskSystem
import KioskTestSupport
import Testing

/// The doctor's checks of issue 46 against device trees of real boards (Tests/Fixtures/hardware).
@Suite struct HardwareChecksTests {
    static let fixtures = TestPaths.repository + "/Tests/Fixtures/hardware"

    func context(_ root: String, board: String, config: String = "{}") throws -> DoctorContext {
        let parsed = try Config.parse(Array(config.utf8), file: "config.json")
        let profile = try BoardProfile.load(
            name: board, extraDirectory: TestPaths.repository + "/boards", hat: parsed.hat, configFile: "config.json")
        return DoctorContext(
            root: SystemRoot(prefix: root), resolved: ResolvedConfig(config: parsed, board: profile),
            requestedBoard: board, scanSticks: false, probeDevices: false)
    }

    /// A copy of a fixture the test may break.
    func copy(_ fixture: String) throws -> TemporaryDirectory {
        let dir = try TemporaryDirectory("kiosk-hw")
        _ = run("/bin/cp", ["-a", Self.fixtures + "/" + fixture + "/.", dir.path])
        return dir
    }

    @Test func aButtonOnThePinIqaudioDacplusDrivesIsNamedFromPinmuxPins() throws {
        let lines = PinClaimCheck.lines(try context(Self.fixtures + "/pi4-iqaudio-dacplus", board: "rpi4"))
        let fail = try #require(
            lines.failed("button knob-push is wired to GPIO 22, which soc:sound claims"), "\(lines.dump)")
        #expect(
            fail.text.contains(
                "(amplifier mute (iqaudio-dacplus fragment@3, an output); HATs that take it: iqaudio-dacplus, iqaudio-digiampplus)"
            ))
        #expect(fail.fix?.contains("move button knob-push to a free line") == true)
        #expect(lines.count == 1, "the other buttons and the encoder are on free pins: \(lines.dump)")
    }

    @Test func withoutDebugfsTheDeviceTreesPinGroupsNameTheSameCollision() throws {
        let dir = try copy("pi4-iqaudio-dacplus")
        defer { dir.remove() }
        _ = run("/bin/rm", ["-rf", dir.path + "/sys/kernel/debug"])
        let lines = PinClaimCheck.lines(try context(dir.path, board: "rpi4"))
        #expect(lines.failed("button knob-push is wired to GPIO 22, which /soc/sound claims") != nil, "\(lines.dump)")
    }

    @Test func aProfileClearOfTheClaimsPasses() throws {
        let lines = PinClaimCheck.lines(try context(Self.fixtures + "/pi4-iqaudio-dacplus", board: "pirate-audio"))
        #expect(lines.failed("") == nil && lines.passed("pinmux-pins") != nil, "\(lines.dump)")
        #expect(
            lines.first { $0.status == .info && $0.text.contains("button Y-2019 is on GPIO 20, the I2S input") } != nil)
    }

    @Test func aProfileOnAnotherChipIsNotComparedWithTheHeadersPins() throws {
        // qemu-gpio-sim's lines 0-9 are a gpio-sim chip's, not the header's GPIO 0-9.
        let lines = PinClaimCheck.lines(try context(Self.fixtures + "/pi4-iqaudio-dacplus", board: "qemu-gpio-sim"))
        #expect(lines.isEmpty, "\(lines.dump)")
    }

    // MARK: trees the kernel wrote (recorded on QEMU from the image: Tests/Fixtures/hardware/README.md)

    @Test func aLineThePlayerHoldsIsNoClaimInTheKernelsPinmuxPins() throws {
        // The recording's player held its rpi4 buttons: "pin 5 (gpio5): (MUX UNCLAIMED) pinctrl-bcm2711:517".
        let claims = try #require(
            PinClaimCheck.debugfsClaims(
                SystemRoot(prefix: Self.fixtures + "/qemu-pi4-iqaudio-dacplus"), labels: ["pinctrl-bcm2711"]))
        #expect(claims[5] == nil && claims[22] == nil, "\(claims)")
        #expect((18...21).allSatisfy { claims[$0] == "fe203000.i2s" }, "\(claims)")
        #expect(claims[2] == "fe804000.i2c")
    }

    @Test func onTheRecordedPi4WithIqaudioDacplusAButtonOn22IsNamedThoughNoDriverHoldsIt() throws {
        // Debian's kernel has no iqaudio-dac driver: pinmux-pins leaves GPIO 22 to the player's
        // button, and only the device tree says the overlay takes it.
        let lines = PinClaimCheck.lines(try context(Self.fixtures + "/qemu-pi4-iqaudio-dacplus", board: "rpi4"))
        let fail = try #require(
            lines.failed("button knob-push is wired to GPIO 22, which /soc/sound claims"), "\(lines.dump)")
        #expect(fail.text.contains("HATs that take it: iqaudio-dacplus, iqaudio-digiampplus"))
        #expect(fail.fix?.contains("move button knob-push to a free line") == true)
        #expect(lines.count == 1, "the other buttons and the encoder are on free pins: \(lines.dump)")
    }

    @Test func onTheRecordedPi3WithHifiberryDacButtonsOnI2SPinsAreNamed() throws {
        let lines = PinClaimCheck.lines(try context(Self.fixtures + "/qemu-pi3-hifiberry-dac", board: "waveshare-144"))
        let fail = try #require(
            lines.failed("button down is wired to GPIO 19, which 3f203000.i2s claims"), "\(lines.dump)")
        #expect(fail.text.contains("HATs that take it: hifiberry-dac"))
        #expect(fail.fix?.contains("move button down to a free line") == true)
        #expect(lines.failed("button key1 is wired to GPIO 21, which 3f203000.i2s claims") != nil, "\(lines.dump)")
        #expect(lines.count == 2, "key2 on GPIO 20: the image's hifiberry-dac leaves DIN free: \(lines.dump)")
    }

    @Test func onTheRecordedPi3WithHifiberryDacButtonsOnFreePinsPass() throws {
        let lines = PinClaimCheck.lines(try context(Self.fixtures + "/qemu-pi3-hifiberry-dac", board: "pirate-audio"))
        #expect(lines.count == 1 && lines.passed("no button or encoder on a pin") != nil, "\(lines.dump)")
    }

    @Test func thePi400sSilentJackIsSkippedAndNoSinkMeansNoSound() throws {
        let dir = try copy("pi400")
        defer { dir.remove() }
        var lines = OutputCheck.lines(try context(dir.path, board: "exhibit-4"))
        #expect(lines.first { $0.status == .info && $0.text.contains("card Headphones has no pins") } != nil)
        let fail = try #require(lines.failed("no output that can sound"), "\(lines.dump)")
        #expect(fail.fix == "plug in an HDMI screen with speakers or a DAC")
        try dir.write("sys/class/drm/card1-HDMI-A-1/status", "connected\n")
        lines = OutputCheck.lines(try context(dir.path, board: "exhibit-4"))
        #expect(lines.failed("") == nil, "a connected HDMI sink sounds: \(lines.dump)")
    }

    @Test func underVoltageIsNotMeasurableOnAComputeModuleOrAZeroW() throws {
        for fixture in ["cm4", "zero-w"] {
            let lines = PowerCheck.lines(try context(Self.fixtures + "/" + fixture, board: "rpi-cm"))
            #expect(lines.count == 1 && lines[0].status == .info, "\(lines.dump)")
            #expect(lines[0].text.contains("not measurable on this board"))
        }
    }

    @Test func theLatchLineAndTheHATsOverlayAreCheckedInConfigTxt() throws {
        let root = Self.fixtures + "/pi4-iqaudio-dacplus"
        var lines = BootConfigCheck.lines(try context(root, board: "onoff-shim"))
        #expect(lines.failed("gpio=4=op,dh is missing") != nil, "\(lines.dump)")
        lines = BootConfigCheck.lines(try context(root, board: "rpi4", config: #"{"hat": "hifiberry-dacplus"}"#))
        #expect(lines.failed("dtoverlay=hifiberry-dacplus is missing") != nil, "\(lines.dump)")
        lines = BootConfigCheck.lines(try context(root, board: "rpi-cm", config: #"{"hat": "justboom-dac"}"#))
        #expect(lines.failed("dtoverlay=justboom-dac is missing") != nil, "\(lines.dump)")
    }

    @Test func aTmpfsUnderTheMediaRootsIsNoStick() throws {
        let box = try FakeBox()
        defer { box.dir.remove() }
        let context = try box.context(board: "usb-keypad-hdmi", config: #"{"mediaRoots": ["/mnt"]}"#)
        try box.write(
            "/proc/self/mountinfo",
            "22 1 8:2 / / rw,relatime shared:1 - ext4 /dev/sda2 rw\n"
                + "91 22 0:50 / /mnt/scratch rw,nosuid,nodev - tmpfs tmpfs rw,size=1024k\n")
        let lines = USBCheck.lines(context)
        #expect(lines.count == 1 && lines[0].text.contains("no USB stick"), "\(lines.dump)")
    }

    @Test func theImagesKernelDrivesAPCM5102AHat() throws {
        let root = Self.fixtures + "/qemu-pi3-hifiberry-dac"
        let lines = HatDriverCheck.lines(try context(root, board: "rpi3", config: #"{"hat": "hifiberry-dac"}"#))
        #expect(lines.count == 1 && lines[0].status == .pass, "\(lines.dump)")
        #expect(
            lines[0].text == "HAT hifiberry-dac (PCM5102A): kernel 6.12.118+deb13-arm64 has its driver snd-soc-pcm5102a"
        )
    }

    @Test func aPCM5122HatOnDebiansKernelIsNamedAsUnableToPlay() throws {
        let root = Self.fixtures + "/qemu-pi4-iqaudio-dacplus"
        let lines = HatDriverCheck.lines(
            try context(root, board: "usb-keypad-hdmi", config: #"{"hat": "iqaudio-dacplus"}"#))
        let fail = try #require(lines.failed("HAT iqaudio-dacplus (PCM5122) cannot play"), "\(lines.dump)")
        #expect(fail.text.contains("kernel 6.12.118+deb13-arm64 has no snd-soc-pcm512x-i2c, the PCM5122's driver"))
        #expect(fail.fix?.contains("Raspberry Pi OS's linux-image-rpi-v8") == true, "\(lines.dump)")
    }

    @Test func onTheImageAnUndrivenHatPointsToRaspberryPiOS() throws {
        let dir = try copy("qemu-pi4-iqaudio-dacplus")
        defer { dir.remove() }
        try dir.write("usr/lib/kiosk-image/kiosk-settings", "#!/bin/sh\n")
        let lines = HatDriverCheck.lines(
            try context(dir.path, board: "usb-keypad-hdmi", config: #"{"hat": "justboom-dac"}"#))
        let fail = try #require(lines.failed("HAT justboom-dac (PCM5122) cannot play"), "\(lines.dump)")
        #expect(fail.fix?.hasPrefix("this image's kernel cannot drive the PCM5122: install Raspberry Pi OS") == true)
    }

    @Test func aBuiltInCodecCountsWhateverItsUnderscores() throws {
        let dir = try copy("qemu-pi4-iqaudio-dacplus")
        defer { dir.remove() }
        try dir.write(
            "lib/modules/6.12.118+deb13-arm64/modules.builtin", "kernel/sound/soc/codecs/snd_soc_pcm512x_i2c.ko\n")
        let lines = HatDriverCheck.lines(
            try context(dir.path, board: "usb-keypad-hdmi", config: #"{"hat": "iqaudio-dacplus"}"#))
        #expect(lines.count == 1 && lines[0].status == .pass, "\(lines.dump)")
    }

    @Test func withoutTheKernelsModuleListTheDriverIsNotChecked() throws {
        let root = Self.fixtures + "/pi4-iqaudio-dacplus"
        let lines = HatDriverCheck.lines(
            try context(root, board: "usb-keypad-hdmi", config: #"{"hat": "iqaudio-dacplus"}"#))
        #expect(lines.count == 1 && lines[0].status == .info, "\(lines.dump)")
        #expect(lines[0].text.contains("not checked here"))
        #expect(HatDriverCheck.lines(try context(root, board: "rpi4")).isEmpty, "no HAT, no line")
    }
}
