// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import Glibc
import KioskConfig
import KioskDoctor
import KioskHardware
import KioskSystem
import KioskTestSupport
import Testing

/// A box as a directory tree: /proc, /sys, /boot, /dev and /etc under a temporary root, which each
/// test breaks in exactly the place one check looks, then mends.
struct FakeBox {
    let dir: TemporaryDirectory
    var root: SystemRoot { SystemRoot(prefix: dir.path) }

    init() throws { dir = try TemporaryDirectory("kiosk-doctor") }

    func write(_ path: String, _ text: String) throws { try dir.write(String(path.dropFirst()), text) }
    func mkdir(_ path: String) throws { try Syscalls.mkdirs(root.path(path)) }
    func remove(_ path: String) { _ = run("/bin/rm", ["-rf", root.path(path)]) }

    func context(board: String, config: String = "{}") throws -> DoctorContext {
        var parsed = try Config.parse(Array(config.utf8), file: "config.json")
        if parsed.board == "auto" { parsed.board = board }
        let requested = parsed.board
        let profile = try BoardProfile.load(
            name: Doctor.boardName(requested: requested, root: root), extraDirectory: parsed.boardsDirectory)
        return DoctorContext(
            root: root, resolved: ResolvedConfig(config: parsed, board: profile), requestedBoard: requested)
    }
}

extension [DoctorLine] {
    func failed(_ containing: String) -> DoctorLine? { first { $0.status == .fail && $0.text.contains(containing) } }
    func passed(_ containing: String) -> DoctorLine? { first { $0.status == .pass && $0.text.contains(containing) } }
    var dump: String { map { "\($0.status.symbol) \($0.text) \($0.fix ?? "")" }.joined(separator: "\n") }
}

@Suite struct DoctorBoardTests {
    @Test func autoChoosesTheProfileFromTheDeviceTreeModelAndSaysSo() throws {
        let box = try FakeBox()
        defer { box.dir.remove() }
        try box.write("/proc/device-tree/model", "Raspberry Pi 4 Model B Rev 1.4\u{0}")
        let context = try box.context(board: "auto")
        #expect(context.resolved.board.name == "rpi4")
        let lines = BoardCheck.lines(context)
        #expect(
            lines.passed("rpi4: \"board\" is \"auto\" and the device-tree model \"Raspberry Pi 4 Model B Rev 1.4\"")
                != nil, "\(lines.dump)")
        #expect(!lines.contains { $0.text.contains("not a Raspberry Pi") })
    }

    @Test func withoutAModelAutoFallsBackAndAHATEEPROMIsNamed() throws {
        let box = try FakeBox()
        defer { box.dir.remove() }
        try box.write("/proc/device-tree/hat/product", "Pirate Audio Line-out\u{0}")
        try box.write("/proc/device-tree/hat/vendor", "Pimoroni Ltd.\u{0}")
        let context = try box.context(board: "auto")
        #expect(context.resolved.board.name == "usb-keypad-hdmi")
        let lines = BoardCheck.lines(context)
        #expect(Doctor.run(context).preface.first?.hasPrefix("This is not a Raspberry Pi") == true)
        let hat = try #require(lines.first { $0.text.contains("HAT EEPROM: Pirate Audio Line-out by Pimoroni Ltd.") })
        #expect(hat.fix?.contains("\"board\"") == true)
    }
}

@Suite struct DoctorSoundTests {
    @Test func cardsAreParsedAndCardNamesTakenFromPCMNames() throws {
        let box = try FakeBox()
        defer { box.dir.remove() }
        try box.write(
            "/proc/asound/cards",
            """
             0 [Headphones     ]: bcm2835_headpho - bcm2835 Headphones
                                  bcm2835 Headphones
             1 [sndrpihifiberry]: HifiberryDac - snd_rpi_hifiberry_dac
                                  snd_rpi_hifiberry_dac

            """)
        #expect(
            SoundCheck.cards(box.root) == [
                .init(index: 0, id: "Headphones", name: "bcm2835 Headphones"),
                .init(index: 1, id: "sndrpihifiberry", name: "snd_rpi_hifiberry_dac"),
            ])
        #expect(SoundCheck.cardName(of: "hw:CARD=sndrpihifiberry,DEV=0") == "sndrpihifiberry")
        #expect(SoundCheck.cardName(of: "plughw:1,0") == "1")
        #expect(SoundCheck.cardName(of: "default") == nil)
    }

    @Test func aMissingHATCardIsAFailureNamingTheOverlay() throws {
        let box = try FakeBox()
        defer { box.dir.remove() }
        try box.write("/proc/asound/cards", " 0 [Headphones     ]: bcm2835_headpho - bcm2835 Headphones\n")
        let lines = SoundCheck.lines(try box.context(board: "pirate-audio"))
        let line = try #require(lines.failed("card \"sndrpihifiberry\" is not among the cards"), "\(lines.dump)")
        #expect(line.fix?.contains("dtoverlay=hifiberry-dac") == true)
    }

    @Test func noCardAtAllIsAFailure() throws {
        let box = try FakeBox()
        defer { box.dir.remove() }
        let lines = SoundCheck.lines(try box.context(board: "pirate-audio"))
        #expect(lines.failed("no sound card") != nil, "\(lines.dump)")
    }

    @Test func aDeviceThatTakesEverythingIsBitPerfect() throws {
        let box = try FakeBox()
        defer { box.dir.remove() }
        let caps = try ALSACapabilities.query(device: "null").get()
        #expect(caps.channels.contains(1) && caps.channels.contains(2) && caps.channels.contains(6))
        #expect(caps.rates.contains(22050) && caps.rates.contains(192_000))
        #expect(caps.formats.contains("S16_LE") && caps.formats.contains("S32_LE"))
        #expect(caps.conversions.isEmpty)
        let lines = SoundCheck.lines(
            try box.context(board: "usb-keypad-hdmi", config: #"{"audio": {"device": "null"}}"#))
        #expect(lines.passed("device null takes") != nil, "\(lines.dump)")
        #expect(lines.passed("bit-perfect") != nil)
    }

    @Test func anUnknownDeviceFailsWithTheALSAError() throws {
        let box = try FakeBox()
        defer { box.dir.remove() }
        let lines = SoundCheck.lines(
            try box.context(board: "usb-keypad-hdmi", config: #"{"audio": {"device": "no_such_pcm_here"}}"#))
        #expect(lines.failed("no_such_pcm_here") != nil, "\(lines.dump)")
    }

    @Test func aMissingMixerControlIsAFailureNamingTheFix() throws {
        let box = try FakeBox()
        defer { box.dir.remove() }
        let lines = SoundCheck.lines(
            try box.context(
                board: "usb-keypad-hdmi", config: #"{"audio": {"device": "hw:CARD=NoSuchCard,DEV=0", "mixer": "PCM"}}"#)
        )
        let line = try #require(lines.failed("the volume control \"PCM\" cannot be used"), "\(lines.dump)")
        #expect(line.fix?.contains("\"mixer\": null") == true)
    }
}

/// `kiosk-player doctor` against alsa-lib PCMs as strict as a DAC HAT (a `multi` over ALSA's file
/// plugin: 2 channels only) and a HAT at 48 kHz only (a `plug` whose slave is fixed at 2 ch and
/// 48 kHz, opened without ALSA's conversions), defined in an .asoundrc in $HOME of the child.
@Suite(.tags(.integration), .serialized) struct DoctorConstrainedDeviceTests {
    func doctor(_ box: FakeBox, device: String, json: Bool = false) throws -> ProcessResult {
        if !box.root.exists("/config.json") { try box.write("/config.json", #"{"board": "usb-keypad-hdmi"}"#) }
        try box.write("/home/.asoundrc", constrainedDevicesALSAConfig(capturingTo: "/dev/null"))
        var environment = currentEnvironment()
        environment["HOME"] = box.root.path("/home")
        return run(
            TestPaths.playerBinary,
            ["doctor", "--root", box.dir.path, "--config", box.root.path("/config.json"), "--device", device]
                + (json ? ["--json"] : []),
            environment: environment, timeoutSeconds: 60)
    }

    @Test func aStereoOnlyDeviceGetsMonoCopiedAndSurroundDownmixed() throws {
        let box = try FakeBox()
        defer { box.dir.remove() }
        let result = try doctor(box, device: "stereo_only")
        #expect(result.output.contains("✓ sound:"), "\(result.output)")
        #expect(result.output.contains("device stereo_only takes"), "\(result.output)")
        #expect(result.output.contains(", 2 ch,"), "\(result.output)")
        #expect(result.output.contains("1 → 2 ch (copied)"), "\(result.output)")
        #expect(result.output.contains("6 → 2 ch (downmixed)"), "\(result.output)")
        #expect(!result.output.contains("Hz (libsoxr)"), "any rate: nothing resampled\n\(result.output)")
        #expect(result.errors.isEmpty, "ALSA's own messages are silenced: \(result.errors)")
    }

    @Test func a48kHzOnlyDeviceGetsEveryOtherRateResampled() throws {
        let box = try FakeBox()
        defer { box.dir.remove() }
        let result = try doctor(box, device: "hat")
        #expect(result.output.contains("device hat takes"), "\(result.output)")
        #expect(result.output.contains("48000 Hz;"), "\(result.output)")
        #expect(result.output.contains("44100 → 48000 Hz (libsoxr)"), "\(result.output)")
        #expect(result.output.contains("96000 → 48000 Hz (libsoxr)"), "\(result.output)")
        #expect(result.output.contains("1 → 2 ch (copied)"), "\(result.output)")
    }

    @Test func theExitStatusIsOneWhenALineFailsAndJSONSaysSo() throws {
        let box = try FakeBox()
        defer { box.dir.remove() }
        let result = try doctor(box, device: "stereo_only", json: true)
        #expect(result.status == 1, "the fake tree has no state directory: \(result.output)")
        let json = try JSONValue.parse(Array(result.output.utf8))
        #expect(json["ok"] == .bool(false))
        let lines = json["lines"]?.array ?? []
        #expect(lines.contains { $0["status"]?.string == "fail" && $0["fix"]?.string != nil })
    }

    @Test func theExitStatusIsZeroWhenEveryRequiredCheckPasses() throws {
        let box = try FakeBox()
        defer { box.dir.remove() }
        try box.mkdir("/var/lib/kiosk-player")
        try box.write("/etc/passwd", "kiosk-player:x:990:990::/var/lib/kiosk-player:/usr/sbin/nologin\n")
        try box.write(
            "/etc/group",
            "audio:x:29:kiosk-player\nvideo:x:44:\ninput:x:105:\ngpio:x:993:\nspi:x:994:\nkiosk-player:x:990:\n")
        try box.write("/boards/plain.json", #"{"name": "plain", "screen": {"type": "none"}}"#)
        try box.write("/config.json", #"{"board": "plain", "boardsDirectory": "\#(box.root.path("/boards"))"}"#)
        let result = try doctor(box, device: "stereo_only")
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("required checks pass"), "\(result.output)")
    }
}

@Suite struct DoctorBootConfigTests {
    @Test func theHATsLinesAreFoundOrNamedWithTheLineToAdd() throws {
        let box = try FakeBox()
        defer { box.dir.remove() }
        let context = try box.context(board: "pirate-audio")
        #expect(BootConfigCheck.lines(context).failed("no /boot/firmware/config.txt") != nil)
        try box.write("/boot/firmware/config.txt", "# comment\ndtparam=audio=on\n#dtoverlay=hifiberry-dac\n")
        var lines = BootConfigCheck.lines(context)
        let overlay = try #require(lines.failed("dtoverlay=hifiberry-dac is missing"), "\(lines.dump)")
        #expect(overlay.fix == "echo 'dtoverlay=hifiberry-dac' | sudo tee -a /boot/firmware/config.txt && sudo reboot")
        #expect(lines.failed("dtparam=spi=on is missing") != nil)
        try box.write(
            "/boot/firmware/config.txt",
            "dtparam=i2c_arm=on,spi=on\n[all]\ndtoverlay=hifiberry-dac\ngpio=25=op,dh # amp\n")
        lines = BootConfigCheck.lines(context)
        #expect(lines.allSatisfy { $0.status == .pass } && lines.count == 3, "\(lines.dump)")
    }

    @Test func linesInAnIncludedFileCount() throws {
        let box = try FakeBox()
        defer { box.dir.remove() }
        try box.write("/boot/firmware/config.txt", "arm_64bit=1\ninclude kiosk-board.txt # the board\n")
        try box.write(
            "/boot/firmware/kiosk-board.txt",
            "dtparam=spi=on\ndtoverlay=spi0-2cs,no_miso\ndtoverlay=hifiberry-dac\ngpio=25=op,dh\n")
        let lines = BootConfigCheck.lines(try box.context(board: "pirate-audio"))
        #expect(lines.allSatisfy { $0.status == .pass } && lines.count == 3, "\(lines.dump)")
    }

    @Test func anIncludeOfAMissingFileAddsNothing() throws {
        let box = try FakeBox()
        defer { box.dir.remove() }
        try box.write("/boot/firmware/config.txt", "include kiosk-board.txt\ndtparam=spi=on\n")
        let lines = BootConfigCheck.lines(try box.context(board: "pirate-audio"))
        #expect(lines.failed("dtoverlay=hifiberry-dac is missing") != nil, "\(lines.dump)")
        #expect(lines.passed("dtparam=spi=on in /boot/firmware/config.txt") != nil, "\(lines.dump)")
    }

    @Test func onTheImageTheFixNamesTheSettingsFileNotConfigTxt() throws {
        let box = try FakeBox()
        defer { box.dir.remove() }
        try box.write(BootConfigCheck.imageSettingsScript, "#!/bin/sh\n")
        try box.write("/boot/firmware/config.txt", "include kiosk-board.txt\n")
        try box.write("/boot/firmware/kiosk-board.txt", "# Written by kiosk-settings for the board \"rpi3\"\n")
        let lines = BootConfigCheck.lines(try box.context(board: "pirate-audio"))
        let overlay = try #require(lines.failed("dtoverlay=hifiberry-dac is missing"), "\(lines.dump)")
        let fix = try #require(overlay.fix)
        #expect(fix.contains("set \"board\" in kiosk-settings.json"), "\(fix)")
        #expect(!fix.contains("tee"), "\(fix)")
    }

    @Test func onTheImageAnOverlayItLacksIsNamedAsSuch() throws {
        let box = try FakeBox()
        defer { box.dir.remove() }
        try box.write(BootConfigCheck.imageSettingsScript, "#!/bin/sh\n")
        try box.write("/boot/firmware/config.txt", "include kiosk-board.txt\n")
        try box.write(
            "/boot/firmware/kiosk-board.txt",
            "dtparam=spi=on\n# dtoverlay=hifiberry-dac: no such overlay on this image\ngpio=25=op,dh\n")
        let lines = BootConfigCheck.lines(try box.context(board: "pirate-audio"))
        let overlay = try #require(lines.failed("dtoverlay=hifiberry-dac is missing"), "\(lines.dump)")
        #expect(
            overlay.fix?.hasPrefix("this image has no overlay for dtoverlay=hifiberry-dac") == true, "\(lines.dump)")
    }

    @Test func olderPiOSKeepsConfigTxtInBoot() throws {
        let box = try FakeBox()
        defer { box.dir.remove() }
        try box.write("/boot/config.txt", "dtparam=spi=on\n")
        let lines = BootConfigCheck.lines(try box.context(board: "waveshare-144"))
        #expect(lines.passed("dtparam=spi=on in /boot/config.txt") != nil, "\(lines.dump)")
    }

    @Test func aProfileWithABadConfigTxtLineIsRefused() throws {
        let json = #"{"name": "bad", "configTxt": ["dtoverlay hifiberry-dac"]}"#
        #expect(throws: ConfigError.self) { try BoardProfile.parse(Array(json.utf8), file: "/x/bad.json") }
        let good = #"{"name": "good", "configTxt": ["dtoverlay=hifiberry-dac"]}"#
        #expect(try BoardProfile.parse(Array(good.utf8), file: "/x/good.json").configTxt == ["dtoverlay=hifiberry-dac"])
    }
}

@Suite(.serialized) struct DoctorGPIOTests {
    @Test func noChipWithTheProfilesLabelIsAFailure() throws {
        let box = try FakeBox()
        defer { box.dir.remove() }
        try box.mkdir("/dev")
        let lines = GPIOCheck.lines(try box.context(board: "rpi4"))
        let line = try #require(lines.failed("no GPIO chip found"), "\(lines.dump)")
        #expect(line.fix?.contains("gpiodetect") == true)
    }

    @Test(
        .tags(.integration),
        .enabled(if: SimulatedChip.unavailableReason == nil, "needs gpio-sim (the VM system test runs it)"))
    func aHeldLineNamesItsHolderAndAFreedLinePasses() throws {
        let sim = try SimulatedChip(lines: 8)
        let box = try FakeBox()
        defer { box.dir.remove() }
        try box.write(
            "/boards/sim.json",
            #"{"name": "sim", "gpioChip": ["\#(sim.label)"], "buttons": [{"name": "a", "line": 3, "press": "play-pause"}]}"#
        )
        let context = try box.context(board: "sim", config: #"{"boardsDirectory": "\#(box.root.path("/boards"))"}"#)
        let chip = try GPIOChip.find([sim.label]).get()
        let held = kiosk_gpio_output_request(chip.path, 3, 0, 0, "other-program")
        var lines = GPIOCheck.lines(DoctorContext(root: .live, resolved: context.resolved, requestedBoard: "sim"))
        #expect(lines.failed("line 3 (button a) is held by \"other-program\"") != nil, "\(lines.dump)")
        kiosk_gpio_line_release(held)
        lines = GPIOCheck.lines(DoctorContext(root: .live, resolved: context.resolved, requestedBoard: "sim"))
        #expect(lines.passed("lines 3 free") != nil, "\(lines.dump)")
    }

    @Test(
        .tags(.integration),
        .enabled(if: SimulatedChip.unavailableReason == nil, "needs gpio-sim (the VM system test runs it)"))
    func theOutputsAreListedAndAHeldLatchLineNamesItsHolder() throws {
        let sim = try SimulatedChip(lines: 8)
        let box = try FakeBox()
        defer { box.dir.remove() }
        try box.write(
            "/boards/sim.json",
            #"{"name": "sim", "gpioChip": ["\#(sim.label)"], "outputs": {"statusLight": {"line": 4, "patterns": {"stopped": "slow"}}, "powerLatch": {"line": 5, "activeLow": true}}}"#
        )
        let context = try box.context(board: "sim", config: #"{"boardsDirectory": "\#(box.root.path("/boards"))"}"#)
        let chip = try GPIOChip.find([sim.label]).get()
        let held = kiosk_gpio_output_request(chip.path, 5, 0, 0, "gpio-poweroff")
        defer { kiosk_gpio_line_release(held) }
        let lines = GPIOCheck.lines(DoctorContext(root: .live, resolved: context.resolved, requestedBoard: "sim"))
        #expect(
            lines.contains {
                $0.status == .info
                    && $0.text
                        == "outputs: status light line 4 (playing steady, paused slow, stopped slow, linking fast, error fast, lowPower fast, ready slow, closed off, sleepSoon slow, batteryLow fast), power latch line 5 active low"
            }, "\(lines.dump)")
        #expect(lines.failed("line 5 (the power latch) is held by \"gpio-poweroff\"") != nil, "\(lines.dump)")
        #expect(lines.passed("lines 4 free") != nil, "\(lines.dump)")
    }
}

@Suite struct DoctorSPITests {
    @Test func thePanelsSpidevMissingIsAFailureAndPresentPasses() throws {
        let box = try FakeBox()
        defer { box.dir.remove() }
        let context = try box.context(board: "pirate-audio")
        let line = try #require(SPICheck.lines(context).failed("/dev/spidev0.1 for the st7789 panel is missing"))
        #expect(line.fix?.contains("dtparam=spi=on") == true)
        try box.write("/dev/spidev0.1", "")
        #expect(SPICheck.lines(context).passed("/dev/spidev0.1 for the st7789 panel is present") != nil)
    }

    @Test func aConfiguredRC522ThatDoesNotAnswerIsAFailure() throws {
        let box = try FakeBox()
        defer { box.dir.remove() }
        let config = #"{"cards": {"readers": [{"type": "rc522", "spiBus": 0, "spiCS": 0}]}}"#
        let context = try box.context(board: "usb-keypad-hdmi", config: config)
        #expect(SPICheck.lines(context).failed("/dev/spidev0.0 for the RC522 reader is missing") != nil)
        try box.write("/dev/spidev0.0", "")  // a plain file: the spidev ioctls fail on it
        let lines = SPICheck.lines(context)
        #expect(lines.failed("RC522 on /dev/spidev0.0") != nil, "\(lines.dump)")
    }
}

@Suite struct DoctorScreenTests {
    @Test func theFramebufferIsFoundByNameAndTheConsoleOwnerNamed() throws {
        let box = try FakeBox()
        defer { box.dir.remove() }
        let context = try box.context(board: "qemu-gpio-sim")
        var lines = ScreenCheck.lines(context)
        let missing = try #require(lines.failed("the screen (\"Virtual FB\") was not found"), "\(lines.dump)")
        #expect(missing.detail?.contains("no framebuffer named \"Virtual FB\" under /sys/class/graphics") == true)
        try box.write("/sys/class/graphics/fb0/name", "Virtual FB\n")
        try box.write("/sys/class/vtconsole/vtcon0/name", "(S) dummy device\n")
        try box.write("/sys/class/vtconsole/vtcon0/bind", "0\n")
        try box.write("/sys/class/vtconsole/vtcon1/name", "(M) frame buffer device\n")
        try box.write("/sys/class/vtconsole/vtcon1/bind", "1\n")
        lines = ScreenCheck.lines(context)
        #expect(lines.passed("framebuffer \"Virtual FB\" is /dev/fb0") != nil, "\(lines.dump)")
        let console = try #require(lines.first { $0.detail == "console: fbcon is bound (vtcon1)" }, "\(lines.dump)")
        #expect(console.text.contains("the login text and cursor show on the screen"))
        #expect(console.fix?.contains("/sys/class/vtconsole/vtcon1/bind") == true)
    }
}

@Suite struct DoctorUSBTests {
    @Test func aStickUnderTheMediaRootIsScannedAndNoneIsInformation() throws {
        let box = try FakeBox()
        defer { box.dir.remove() }
        let context = try box.context(board: "usb-keypad-hdmi", config: #"{"mediaRoots": ["/media/kiosk"]}"#)
        try box.write("/proc/self/mountinfo", "22 1 8:2 / / rw,relatime shared:1 - ext4 /dev/sda2 rw\n")
        var lines = USBCheck.lines(context)
        #expect(lines.count == 1 && lines[0].status == .info && lines[0].text.contains("no USB stick"))
        try box.write("/media/kiosk/MUSIC/readme.txt", "not music")
        try box.write(
            "/proc/self/mountinfo",
            "22 1 8:2 / / rw,relatime shared:1 - ext4 /dev/sda2 rw\n"
                + "90 22 8:17 / /media/kiosk/MUSIC ro,nosuid,nodev,noexec,relatime - vfat /dev/sdb1 ro,fmask=0022\n")
        lines = USBCheck.lines(context)
        #expect(
            lines.passed("/dev/sdb1 on /media/kiosk/MUSIC (vfat, ro,nosuid,nodev,noexec): 0 music files") != nil,
            "\(lines.dump)")
    }
}

@Suite struct DoctorPowerTests {
    @Test func theRpiVoltAlarmIsAFailureWhileItLasts() throws {
        let box = try FakeBox()
        defer { box.dir.remove() }
        let context = try box.context(board: "usb-keypad-hdmi")
        #expect(PowerCheck.lines(context).first?.text.contains("cannot tell") == true)
        try box.write("/sys/class/hwmon/hwmon0/name", "cpu_thermal\n")
        try box.write("/sys/class/hwmon/hwmon1/name", "rpi_volt\n")
        try box.write("/sys/class/hwmon/hwmon1/in0_lcrit_alarm", "1\n")
        #expect(PowerCheck.lines(context).failed("under-voltage in the last 2 s") != nil)
        try box.write("/sys/class/hwmon/hwmon1/in0_lcrit_alarm", "0\n")
        #expect(PowerCheck.lines(context).passed("no under-voltage in the last 2 s") != nil)
    }

    @Test(.tags(.integration)) func theFirmwaresThrottledFlagsAreReadThroughVcgencmd() throws {
        let box = try FakeBox()
        defer { box.dir.remove() }
        let context = try box.context(board: "usb-keypad-hdmi")
        try box.write("/usr/bin/vcgencmd", "#!/bin/sh\necho throttled=0x50005\n")
        chmod(box.root.path("/usr/bin/vcgencmd"), 0o755)
        var lines = PowerCheck.lines(context)
        #expect(lines.failed("0x50005: now under-voltage, throttled") != nil, "\(lines.dump)")
        try box.write("/usr/bin/vcgencmd", "#!/bin/sh\necho throttled=0x50000\n")
        lines = PowerCheck.lines(context)
        #expect(lines.first { $0.status == .info && $0.text.contains("recently under-voltage, throttled") } != nil)
        try box.write("/usr/bin/vcgencmd", "#!/bin/sh\necho throttled=0x0\n")
        #expect(PowerCheck.lines(context).passed("no under-voltage or throttling") != nil)
    }
}

@Suite struct DoctorStateTests {
    @Test func theStateDirectoryMustExistBeWritableAndNotOnAReadOnlyMount() throws {
        let box = try FakeBox()
        defer { box.dir.remove() }
        let context = try box.context(board: "usb-keypad-hdmi")
        try box.write("/proc/self/mountinfo", "22 1 8:2 / / rw,relatime shared:1 - ext4 /dev/mmcblk0p2 rw\n")
        var lines = StateCheck.lines(context)
        let missing = try #require(lines.failed("(/var/lib/kiosk-player) does not exist"), "\(lines.dump)")
        #expect(
            missing.fix?.hasSuffix("sudo install -d -o kiosk-player -g kiosk-player -m 0750 /var/lib/kiosk-player")
                == true)
        try box.mkdir("/var/lib/kiosk-player")
        lines = StateCheck.lines(context)
        let writable = try #require(lines.passed("/var/lib/kiosk-player is writable"), "\(lines.dump)")
        #expect(writable.detail == "on /, ext4 rw,relatime")
        try box.write(
            "/proc/self/mountinfo",
            "22 1 8:2 / / ro,relatime shared:1 - ext4 /dev/mmcblk0p2 ro\n")
        #expect(StateCheck.lines(context).failed("read-only mount") != nil)
    }

    @Test func theServiceGroupsMustExist() throws {
        let box = try FakeBox()
        defer { box.dir.remove() }
        let context = try box.context(board: "usb-keypad-hdmi")
        try box.write("/etc/group", "audio:x:29:\nvideo:x:44:\ninput:x:105:\n")
        var lines = StateCheck.lines(context)
        let groups = try #require(lines.failed("the groups gpio spi it needs are missing"), "\(lines.dump)")
        #expect(!groups.text.contains("SupplementaryGroups="), "the unit's setting is detail")
        #expect(groups.fix?.contains("sudo groupadd --system gpio; sudo groupadd --system spi") == true)
        #expect(lines.failed("the player's user kiosk-player does not exist") != nil)
        try box.write("/etc/group", "audio:x:29:kiosk-player\nvideo:x:44:\ninput:x:105:\ngpio:x:993:\nspi:x:994:\n")
        try box.write(
            "/etc/passwd",
            "root:x:0:0::/root:/bin/sh\nkiosk-player:x:990:990::/var/lib/kiosk-player:/usr/sbin/nologin\n")
        lines = StateCheck.lines(context)
        #expect(lines.passed("groups audio video input gpio spi exist") != nil, "\(lines.dump)")
        #expect(lines.passed("user kiosk-player exists") != nil)
    }
}

@Suite(.tags(.integration)) struct DoctorToneTests {
    @Test func theToneIsLeftOnlyThenRightOnlyThroughThePlayer() throws {
        let box = try FakeBox()
        defer { box.dir.remove() }
        try box.write("/config.json", #"{"board": "usb-keypad-hdmi"}"#)
        let raw = box.root.path("/tone.raw")
        let result = run(
            TestPaths.playerBinary,
            [
                "doctor", "--root", box.dir.path, "--config", box.root.path("/config.json"), "--device",
                "file:'\(raw)',raw", "--tone",
            ], timeoutSeconds: 60)
        #expect(result.output.contains("✓ tone:"), "\(result.output)\(result.errors)")
        let bytes = try Syscalls.readFile(raw)
        let samples = stride(from: 0, to: bytes.count - 1, by: 2).map {
            Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8)
        }
        #expect(samples.count == 2 * (TestTone.rate * 3 / 2), "1.5 s of 16-bit stereo")
        let left = stride(from: 0, to: samples.count, by: 2).map { Int(samples[$0]) }
        let right = stride(from: 1, to: samples.count, by: 2).map { Int(samples[$0]) }
        let firstHalf = 0..<(left.count / 2)
        let secondHalf = (left.count / 2)..<left.count
        #expect(firstHalf.map { abs(left[$0]) }.max() ?? 0 > 8000)
        #expect(firstHalf.allSatisfy { right[$0] == 0 })
        #expect(secondHalf.map { abs(right[$0]) }.max() ?? 0 > 8000)
        #expect(secondHalf.allSatisfy { left[$0] == 0 })
    }
}

@Suite struct DoctorReportTests {
    @Test func theFailuresOnlyTextKeepsTheFixesAndTheSummary() {
        let report = DoctorReport(lines: [
            .pass("board", "rpi4"), .info("usb", "no stick"), .fail("state", "missing", fix: "sudo install -d X"),
        ])
        #expect(!report.passed)
        #expect(
            report.text(onlyFailures: true)
                == "✗ state: missing\n           fix: sudo install -d X\n1 required check failed (1 passed): fix the ✗ lines above\n"
        )
        #expect(report.text.hasPrefix("✓ board: rpi4\n– usb:   no stick\n"))
    }

    @Test func quickListsASticksMountWithoutScanningIt() throws {
        let box = try FakeBox()
        defer { box.dir.remove() }
        var context = try box.context(board: "usb-keypad-hdmi", config: #"{"mediaRoots": ["/media/kiosk"]}"#)
        context.scanSticks = false
        try box.write("/proc/self/mountinfo", "90 22 8:17 / /media/kiosk/STICK ro,nosuid - vfat /dev/sdb1 ro\n")
        let lines = USBCheck.lines(context)
        #expect(
            lines.passed("/dev/sdb1 on /media/kiosk/STICK (vfat, ro,nosuid) (not scanned: --quick)") != nil,
            "\(lines.dump)")
    }
}

/// The clock line: only for an exhibit with opening hours or bedtime rules with windows or a wake
/// time, which need a clock to be trusted.
@Suite struct DoctorClockTests {
    static let withHours = #"{"exhibit": {"hours": [{"days": "daily", "open": "09:00", "close": "17:00"}]}}"#

    @Test func withoutAnExhibitsHoursThereIsNoClockLine() throws {
        let box = try FakeBox()
        defer { box.dir.remove() }
        #expect(ClockCheck.lines(try box.context(board: "exhibit-4")).isEmpty)
    }

    @Test func aClockWithoutSyncOrRTCFailsWithHowToGetOne() throws {
        let box = try FakeBox()
        defer { box.dir.remove() }
        let lines = ClockCheck.lines(try box.context(board: "exhibit-4", config: Self.withHours))
        let line = try #require(lines.failed("no NTP sync, no RTC"), "\(lines.dump)")
        #expect(line.text.contains("the opening hours are not applied") && (line.fix ?? "").contains("i2c-rtc,ds3231"))
    }

    @Test func bedtimeWindowsWithoutAClockSayTheBudgetCountsFromTheLastKnownTime() throws {
        let box = try FakeBox()
        defer { box.dir.remove() }
        let config = #"{"bedtime": {"wake": "06:30", "dailyMinutes": 60}}"#
        let lines = ClockCheck.lines(try box.context(board: "rpi4", config: config))
        let line = try #require(lines.failed("no NTP sync, no RTC"), "\(lines.dump)")
        #expect(line.text.contains("the bedtime windows and wake time are not applied, the daily budget counts"))
    }

    @Test func anRTCThatSetTheClockAtBootOrTimesyncdSyncPasses() throws {
        let box = try FakeBox()
        defer { box.dir.remove() }
        try box.write("/sys/class/rtc/rtc0/hctosys", "0\n")
        let unset = ClockCheck.lines(try box.context(board: "exhibit-4", config: Self.withHours))
        #expect(unset.failed("an RTC is there but did not set the clock at boot") != nil, "\(unset.dump)")
        try box.write("/sys/class/rtc/rtc0/hctosys", "1\n")
        #expect(
            ClockCheck.lines(try box.context(board: "exhibit-4", config: Self.withHours)).passed("synchronized") != nil)
        try box.write("/sys/class/rtc/rtc0/hctosys", "0\n")
        try box.write("/run/systemd/timesync/synchronized", "")
        #expect(
            ClockCheck.lines(try box.context(board: "exhibit-4", config: Self.withHours)).passed("synchronized") != nil)
    }
}

/// `kiosk-player doctor` on a machine that is not a Raspberry Pi (a laptop trying the demo): it
/// says so first and judges only what applies there.
@Suite struct DoctorNotAPiTests {
    /// A PC's root as recorded: an x86 machine's /proc (no device tree), no sound card, no
    /// framebuffer, the package not installed.
    func laptop() throws -> FakeBox {
        let box = try FakeBox()
        try box.write("/proc/asound/cards", "--- no soundcards ---\n")
        try box.write("/proc/self/mountinfo", "22 1 8:2 / / rw,relatime shared:1 - ext4 /dev/sda2 rw\n")
        try box.write("/etc/group", "root:x:0:\naudio:x:29:\n")
        try box.write("/etc/passwd", "root:x:0:0::/root:/bin/sh\n")
        return box
    }

    @Test func itSaysSoFirstAndNoRaspberryPiPartIsAFailure() throws {
        let box = try laptop()
        defer { box.dir.remove() }
        let report = Doctor.run(try box.context(board: "auto"))
        #expect(report.text.hasPrefix("This is not a Raspberry Pi: it names no Raspberry Pi model."), "\(report.text)")
        #expect(report.failures.isEmpty, "\(report.text)")
        for check in ["sound", "config.txt", "gpio", "spi", "screen", "power", "state"] {
            let line = try #require(report.lines.first { $0.check == check }, "\(check): \(report.text)")
            #expect(line.status == .info && line.text.hasPrefix("not checked here: "), "\(report.text)")
        }
        #expect(report.passed)
    }

    @Test func aModelThatIsNoPiIsNamed() throws {
        let box = try laptop()
        defer { box.dir.remove() }
        try box.write("/proc/device-tree/model", "linux,dummy-virt\u{0}")
        let report = Doctor.run(try box.context(board: "auto"))
        #expect(
            report.preface.first?.hasPrefix("This is not a Raspberry Pi: its model is \"linux,dummy-virt\".") == true)
    }

    @Test func theServiceIsCheckedWhereItIsInstalled() throws {
        let box = try laptop()
        defer { box.dir.remove() }
        try box.write("/usr/lib/systemd/system/kiosk-player.service", "[Service]\n")
        let report = Doctor.run(try box.context(board: "auto"))
        let state = try #require(report.failures.first { $0.check == "state" }, "\(report.text)")
        #expect(state.fix?.contains("install the kiosk-player package") == true)
        #expect(report.failures.contains { $0.check == "groups" })
    }

    @Test func aNamedBoardIsCheckedInFullPiOrNot() throws {
        let box = try laptop()
        defer { box.dir.remove() }
        let report = Doctor.run(try box.context(board: "qemu-gpio-sim"))
        #expect(report.preface.first?.contains("The board qemu-gpio-sim was named") == true, "\(report.text)")
        #expect(!report.lines.contains { $0.text.hasPrefix("not checked here") }, "\(report.text)")
        #expect(report.failures.contains { $0.check == "gpio" })
    }

    @Test func aRaspberryPiHasNoPreface() throws {
        let box = try laptop()
        defer { box.dir.remove() }
        try box.write("/proc/device-tree/model", "Raspberry Pi 4 Model B Rev 1.4\u{0}")
        let report = Doctor.run(try box.context(board: "auto"))
        #expect(report.preface.isEmpty)
        #expect(report.failures.contains { $0.check == "sound" }, "\(report.text)")
    }

    @Test func technicalDetailShowsOnlyWhenVerbose() throws {
        let box = try laptop()
        defer { box.dir.remove() }
        try box.write("/usr/lib/systemd/system/kiosk-player.service", "[Service]\n")
        let report = Doctor.run(try box.context(board: "auto"))
        for word in ["/etc/passwd", "SupplementaryGroups=", "EEPROM", "ext4"] {
            #expect(!report.text.contains(word), "\(word) in:\n\(report.text)")
        }
        let verbose = report.text(onlyFailures: false, verbose: true)
        #expect(verbose.contains("detail: no kiosk-player in /etc/passwd"))
        #expect(verbose.contains("SupplementaryGroups="))
    }
}
