import KioskSystem
// SPDX-License-Identifier: GPL-3.0-or-later
import KioskWeb
import KioskWebSettings
import Testing

@Suite struct LocalNetworksTests {
    let networks = LocalNetworks(networks: [
        .init(address: [192, 168, 1, 10], mask: [255, 255, 255, 0]),
        .init(
            address: LocalNetworks.bytes("fd00:1:2:3::10")!,
            mask: [UInt8](repeating: 255, count: 8) + [UInt8](repeating: 0, count: 8)),
    ])

    @Test func addressesOnTheBoxsNetworksAreLocal() {
        #expect(networks.contains("192.168.1.1"))
        #expect(networks.contains("192.168.1.254"))
        #expect(networks.contains("fd00:1:2:3:abcd::1"))
    }

    @Test func addressesElsewhereAreNot() {
        #expect(!networks.contains("192.168.2.1"))
        #expect(!networks.contains("8.8.8.8"))
        #expect(!networks.contains("fd00:1:2:4::1"))
        #expect(!networks.contains("not an address"))
        #expect(!networks.contains(""))
    }

    @Test func theInterfacesIncludeLoopback() {
        let found = LocalNetworks.ofInterfaces()
        #expect(found.contains("127.0.0.1"))
        #expect(found.contains("::1"))
    }
}

@Suite struct WebSettingsTests {
    func page(_ json: String) throws -> WebSettings.PageConfig {
        try WebSettings.pageConfig(Array(json.utf8), file: "config.json")
    }

    @Test func offByDefault() throws {
        let c = try page("{}")
        #expect(!c.web.enabled)
        #expect(c.web.port == 80)
        #expect(c.mpdSocket == "/run/kiosk-player/mpd.socket")
    }

    @Test func theSectionAndTheMPDSocketAreRead() throws {
        let c = try page(
            #"{"web": {"enabled": true, "port": 8080, "sessionDays": 7}, "mpd": {"socket": "/tmp/x.socket", "password": "pw"}, "volume": 50}"#
        )
        #expect(c.web.enabled && c.web.port == 8080 && c.web.sessionDays == 7)
        #expect(c.mpdSocket == "/tmp/x.socket" && c.mpdPassword == "pw")
    }

    @Test func anUnknownKeyOrABadValueIsNamed() {
        #expect(throws: ConfigError.self) { try page(#"{"web": {"enabeld": true}}"#) }
        do {
            _ = try page(#"{"web": {"port": 70000}}"#)
            Issue.record("accepted")
        } catch {
            #expect("\(error)".contains("web.port"))
        }
    }
}
