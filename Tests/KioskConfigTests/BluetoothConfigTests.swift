// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskSystem
import Testing

/// The `bluetooth` object of config.json: docs/configuration.md's example, the defaults, and bad
/// values refused with a message that names the key.
struct BluetoothConfigTests {
    static let example = #"{"bluetooth": {"adapter": "hci0", "maxVolume": 50, "pairSeconds": 90}}"#

    @Test func anEmptyObjectTurnsBluetoothOnWithTheDefaults() throws {
        let bluetooth = try #require(try ConfigText.parse(#"{"bluetooth": {}}"#).bluetooth)
        #expect(bluetooth.adapter == "hci0" && bluetooth.maxVolume == 60)
        #expect(bluetooth.pairSeconds == 60 && bluetooth.connectSeconds == 20 && bluetooth.speak)
    }

    @Test func noBluetoothObjectMeansBluetoothOff() throws {
        #expect(try ConfigText.parse("{}").bluetooth == nil)
    }

    @Test func theDocumentedExampleParses() throws {
        let bluetooth = try #require(try ConfigText.parse(Self.example).bluetooth)
        #expect(bluetooth.maxVolume == 50 && bluetooth.pairSeconds == 90)
    }

    @Test func badValuesNameTheirKey() {
        for (text, key) in [
            (#"{"bluetooth": {"adapter": "wlan0"}}"#, "bluetooth.adapter"),
            (#"{"bluetooth": {"maxVolume": 0}}"#, "bluetooth.maxVolume"),
            (#"{"bluetooth": {"pairSeconds": 5}}"#, "bluetooth.pairSeconds"),
            (#"{"bluetooth": {"connectSeconds": "soon"}}"#, "bluetooth.connectSeconds"),
            (#"{"bluetooth": {"pin": "0000"}}"#, "bluetooth"),
        ] {
            let error = ConfigText.error(text)
            #expect(error?.contains(key) == true, "\(text): \(error ?? "taken")")
        }
    }

    @Test func notWithExhibitMode() {
        let error = ConfigText.error(#"{"exhibit": {"clips": []}, "bluetooth": {}}"#)
        #expect(error?.contains("bluetooth") == true, "\(error ?? "taken")")
    }

    @Test func addressesAreSixHexPairs() {
        #expect(BluetoothConfig.isAddress("00:aa:01:00:00:23"))
        #expect(!BluetoothConfig.isAddress("00:aa:01:00:00"))
        #expect(!BluetoothConfig.isAddress("00:aa:01:00:00:2g"))
        #expect(BluetoothConfig.pcm(address: "00:AA:01:00:00:23") == "bluealsa:DEV=00:AA:01:00:00:23,PROFILE=a2dp")
    }
}
