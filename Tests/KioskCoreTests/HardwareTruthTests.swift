// SPDX-License-Identifier: GPL-3.0-or-later
import KioskAudio
import KioskConfig
import KioskCore
import KioskSystem
import KioskTestSupport
import Testing

/// The hardware facts behind the profiles (issue 46): latches held from power-on, the pins a HAT's
/// overlay takes, a HAT's card and mixer, a card the device tree gives no pins, the Compute Modules.
@Suite struct HardwareTruthTests {
    static let boards = TestPaths.repository + "/boards"
    static let fixtures = TestPaths.repository + "/Tests/Fixtures/hardware"

    func parse(_ text: String) throws(ConfigError) -> BoardProfile {
        try BoardProfile.parse(Array(text.utf8), file: Self.boards + "/test.json")
    }

    /// The error's description, or "" when there was none.
    func describe(_ body: () throws -> BoardProfile) -> String {
        do {
            _ = try body()
            return ""
        } catch { return "\(error)" }
    }

    // MARK: latches

    @Test func aPowerLatchIsHeldFromPowerOnByItsConfigTxtLine() throws {
        let high = try parse(#"{"name": "test", "outputs": {"powerLatch": {"line": 4}}}"#)
        #expect(high.configTxt == ["gpio=4=op,dh"])
        let low = try parse(#"{"name": "test", "outputs": {"powerLatch": {"line": 26, "activeLow": true}}}"#)
        #expect(low.configTxt == ["gpio=26=op,dl"])
    }

    @Test func aConfigTxtLineThatLetsTheLatchLineGoIsRefused() {
        expectError(
            describedAs: Self.boards
                + #"/test.json: configTxt: the power latch on line 4 needs "gpio=4=op,dh" (it holds the latch from power-on)"#
        ) { try parse(#"{"name": "test", "configTxt": ["gpio=4=ip,pu"], "outputs": {"powerLatch": {"line": 4}}}"#) }
    }

    /// Every shipped profile that drives a latch writes the line itself (what `doctor` checks).
    @Test func everyShippedLatchNamesItsHeldLineInItsOwnFile() throws {
        var latches = 0
        for file in listDirectory(Self.boards).filter({ $0.hasSuffix(".json") }) {
            let profile = try BoardProfile.load(file: "\(Self.boards)/\(file)")
            guard let latch = profile.outputs.powerLatch, !profile.isTest else { continue }
            latches += 1
            let raw = try JSONValue.parse(try Syscalls.readFile("\(Self.boards)/\(file)", limit: 1 << 20))
            let lines = raw.object?.first { $0.key == "configTxt" }?.value.array?.compactMap(\.string) ?? []
            #expect(lines.contains(latch.heldConfigTxt), "\(file) lists \(latch.heldConfigTxt)")
        }
        #expect(latches >= 1)
    }

    @Test func theOnOffShimProfileKeepsOffItsPinsAndLatchesOnFour() throws {
        let shim = try BoardProfile.load(file: Self.boards + "/onoff-shim.json")
        #expect(shim.outputs.powerLatch?.line == 4)
        #expect(shim.configTxt.contains("gpio=4=op,dh"))
        #expect(shim.reservedLines.contains { $0.line == 17 })
        #expect(!shim.usedLines.contains { $0.line == 17 && $0.use != "OnOff SHIM button and LED" })
    }

    // MARK: HATs

    @Test func theHATTableParsesAndEachHATNamesItsOverlayCardAndSource() throws {
        let hats = try BoardHat.table(near: Self.boards + "/rpi4.json")
        for name in [
            "hifiberry-dac", "hifiberry-dacplus", "hifiberry-amp", "hifiberry-miniamp", "hifiberry-digi",
            "iqaudio-dacplus", "iqaudio-digiampplus", "max98357a", "pirate-audio", "justboom-dac", "audremap",
        ] {
            let hat = try #require(hats.first { $0.name == name }, "\(name) is in the table")
            #expect(hat.configTxt.contains { $0.hasPrefix("dtoverlay=") })
            #expect(!hat.card.isEmpty && !hat.source.isEmpty && !hat.pins.isEmpty)
        }
        #expect(BoardHat.claiming(22, in: hats).map(\.name) == ["iqaudio-dacplus", "iqaudio-digiampplus"])
    }

    /// `boards --check` runs the loader: a button on a pin the HAT's overlay drives is refused.
    @Test func aButtonOnAPinItsHATTakesIsRefusedNamingBoth() {
        expectError(
            describedAs: Self.boards
                + "/test.json: GPIO line 22 is used twice: by amplifier mute (iqaudio-dacplus fragment@3, an output) and by button knob-push"
        ) {
            try parse(
                #"{"name": "test", "hat": "iqaudio-dacplus", "buttons": [{"name": "knob-push", "line": 22, "press": "play-pause"}]}"#
            )
        }
        expectError(
            describedAs: Self.boards
                + "/test.json: GPIO line 26 is used twice: by MiniAmp shutdown (HiFiBerry MiniAmp) and by button D"
        ) {
            try parse(
                #"{"name": "test", "hat": "hifiberry-miniamp", "buttons": [{"name": "D", "line": 26, "press": "next"}]}"#
            )
        }
    }

    @Test func aHATSetsTheCardTheMixerTheOverlayLineAndItsPinsInOnePlace() throws {
        let profile = try parse(
            #"{"name": "test", "hat": "hifiberry-dacplus", "configTxt": ["dtparam=spi=on"], "audio": {"device": "hdmi:CARD=vc4hdmi0,DEV=0", "mixer": "PCM"}}"#
        )
        #expect(profile.hat?.name == "hifiberry-dacplus")
        #expect(profile.audio.device == AudioDevice(name: "hw:CARD=sndrpihifiberry,DEV=0"))
        #expect(profile.audio.fallbackDevices == [AudioDevice(name: "hdmi:CARD=vc4hdmi0,DEV=0")])
        #expect(profile.audio.mixer == "Digital")
        #expect(profile.configTxt == ["dtparam=spi=on", "dtoverlay=hifiberry-dacplus"])
        #expect(Set(profile.reservedLines.map(\.line)) == [2, 3, 18, 19, 20, 21])
    }

    @Test func theConfigsHATGoesOnTheBoardAndItsCollisionsAreRefused() throws {
        let dac = try BoardProfile.load(
            name: "rpi4", extraDirectory: Self.boards, hat: "hifiberry-dac", configFile: "c")
        #expect(dac.audio.device == AudioDevice(name: "hw:CARD=sndrpihifiberry,DEV=0"))
        #expect(dac.audio.mixer == nil, "the PCM5102A has no mixer: the board's PCM is gone")
        #expect(dac.configTxt.contains("dtoverlay=hifiberry-dac"))
        #expect(
            describe {
                try BoardProfile.load(name: "rpi4", extraDirectory: Self.boards, hat: "hifiberry-dacc", configFile: "c")
            }
            .hasPrefix(#"c: hat: unknown HAT "hifiberry-dacc" (known: "#))
        #expect(
            describe {
                try BoardProfile.load(
                    name: "rpi4", extraDirectory: Self.boards, hat: "iqaudio-dacplus", configFile: "c")
            }
            .hasSuffix(
                "GPIO line 22 is used twice: by amplifier mute (iqaudio-dacplus fragment@3, an output) and by button knob-push"
            ))
    }

    // MARK: mixer null

    @Test func anExplicitNullMixerMeansNoneAndAnAbsentOneTheBoards() throws {
        let rpi4 = try BoardProfile.load(file: Self.boards + "/rpi4.json")
        let absent = try Config.parse(Array(#"{"audio": {"device": "hw:CARD=sndrpihifiberry,DEV=0"}}"#.utf8), file: "c")
        let null = try Config.parse(
            Array(#"{"audio": {"device": "hw:CARD=sndrpihifiberry,DEV=0", "mixer": null}}"#.utf8), file: "c")
        #expect(!absent.audio.mixerNone && null.audio.mixerNone)
        #expect(ResolvedConfig(config: absent, board: rpi4).mixer == "PCM")
        #expect(ResolvedConfig(config: null, board: rpi4).mixer == nil)
        #expect(
            ResolvedConfig(config: null, board: rpi4).json().object?.first { $0.key == "audio" }?.value
                .object?.first { $0.key == "mixer" }?.value.isNull == true)
    }

    // MARK: cards that sound, boards that measure

    @Test func aPi400sHeadphonesCardHasNoPinsAndIsNotChosen() throws {
        let tree = DeviceTree(prefix: Self.fixtures + "/pi400")
        #expect(tree.headphonesHavePins == false)
        #expect(tree.silentCards == ["Headphones"])
        let exhibit = try BoardProfile.load(file: Self.boards + "/exhibit-4.json")
        let resolved = ResolvedConfig(config: Config(), board: exhibit)
        #expect(resolved.audioDevices.first == AudioDevice(name: "plughw:CARD=Headphones,DEV=0"))
        #expect(
            resolved.audioDevices(skipping: tree.silentCards).first == AudioDevice(name: "hdmi:CARD=vc4hdmi0,DEV=0"))
        let pi4 = DeviceTree(prefix: Self.fixtures + "/pi4-iqaudio-dacplus")
        #expect(pi4.headphonesHavePins == true && pi4.silentCards.isEmpty)
    }

    @Test func underVoltageIsUnmeasurableOnAZeroWAndAComputeModuleOnly() {
        #expect(DeviceTree(prefix: Self.fixtures + "/zero-w").underVoltageUnmeasurable)
        #expect(DeviceTree(prefix: Self.fixtures + "/cm4").underVoltageUnmeasurable)
        #expect(!DeviceTree(prefix: Self.fixtures + "/pi400").underVoltageUnmeasurable)
    }

    @Test func computeModulesGetTheNoJackProfile() throws {
        #expect(BoardProfile.autoDetectName(model: "Raspberry Pi Compute Module 4 Rev 1.0") == "rpi-cm")
        #expect(BoardProfile.autoDetectName(model: "Raspberry Pi Compute Module 5 Rev 1.0") == "rpi-cm")
        let cm = try BoardProfile.load(file: Self.boards + "/rpi-cm.json")
        let devices = [cm.audio.device].compactMap { $0 } + cm.audio.fallbackDevices
        #expect(!devices.contains { $0.name.contains("Headphones") })
    }

    @Test func aPi5sDesignWareI2SStopsItsClockOnPauseAndAPi4sDoesNot() {
        #expect(DeviceTree(prefix: Self.fixtures + "/pi5-dac").i2sStopsClockOnPause)
        #expect(!DeviceTree(prefix: Self.fixtures + "/pi4-iqaudio-dacplus").i2sStopsClockOnPause)
    }

    @Test func theDeviceTreeNamesThePinsEnabledDevicesClaim() {
        let claims = DeviceTree(prefix: Self.fixtures + "/pi4-iqaudio-dacplus").pinctrlClaims
        #expect(claims[22] == "/soc/sound")
        #expect(claims[18] == "/soc/i2s@7e203000")
        #expect(claims[9] == nil, "spi0 is disabled: its pins are not claimed")
        #expect(claims[5] == nil)
    }

    @Test func theRecordedPi4TreeNamesTheOverlaysPinsThoughNoDriverHoldsTheMutePin() {
        // Recorded from the image on QEMU's raspi4b (Tests/Fixtures/hardware/README.md): the kernel's
        // own /proc/device-tree, the iqaudio-dacplus layout merged by fdtoverlay.
        let claims = DeviceTree(prefix: Self.fixtures + "/qemu-pi4-iqaudio-dacplus").pinctrlClaims
        #expect(claims[22] == "/soc/sound")
        #expect((18...21).allSatisfy { claims[$0] == "/soc/i2s@7e203000" }, "\(claims)")
        #expect(claims[2] == "/soc/i2c@7e804000" && claims[3] == "/soc/i2c@7e804000")
        #expect(claims[14] == nil, "the mini UART is off under QEMU (card_dtb_raspi4): \(claims)")
    }
}

/// A box with no output that can sound says so on the screen and by its light.
@Suite(.serialized) struct NoSoundTests {
    @Test func whenEveryOutputFailsTheScreenSaysWhatToPlugInAndTheLightShowsAnError() throws {
        let rig = try PlayerRig(volumes: [PlayerFixtures.main], devices: ["hw:CARD=NoSuchCard"])
        try rig.selectCategory(.album)
        try rig.press(.select)
        #expect(try rig.run { rig.audioEvents.contains { if case .deviceLost = $0 { true } else { false } } })
        guard case .nowPlaying(let screen) = rig.player.screenState() else {
            Issue.record("not the now-playing screen")
            return
        }
        #expect(screen.statusLine == "No sound: plug in an HDMI screen with speakers or a DAC")
        #expect(rig.player.currentLightState == .error)
    }
}
