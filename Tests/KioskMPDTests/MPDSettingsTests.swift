// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskCore
import KioskMPD
import KioskSystem
import Testing

@Suite struct MPDSettingsTests {
    func settings(_ json: String) throws -> MPDSettings? {
        let config = try Config.parse(Array(json.utf8), file: "config.json")
        return try MPDSettings.from(config.mpd)
    }

    @Test func offUnlessASocketOrAnAddressIsConfigured() throws {
        #expect(try settings("{}") == nil)
        #expect(try settings(#"{"mpd": {"socket": null, "listen": null, "password": "x"}}"#) == nil)
        #expect(try settings(#"{"mpd": {"socket": ""}}"#) == nil)
    }

    @Test func defaultSocketIsInTheRuntimeDirectory() throws {
        let s = try #require(try settings(#"{"mpd": {"socket": "default"}}"#))
        let runtime =
            Syscalls.environment("RUNTIME_DIRECTORY")?.split(separator: ":").first.map(String.init)
            ?? "/run/kiosk-player"
        #expect(s.socketPath == runtime + "/mpd.socket")
        #expect(s.tcpHost == nil)
        #expect(s.maxClients == 8)
        #expect(s.password == nil)
    }

    @Test(arguments: [
        ("127.0.0.1:6600", "127.0.0.1", 6600), (":6600", "127.0.0.1", 6600), ("localhost:6601", "127.0.0.1", 6601),
        ("0.0.0.0:6600", "0.0.0.0", 6600), ("[::1]:6600", "::1", 6600), ("*:6600", "*", 6600),
    ])
    func listenAddresses(_ listen: String, _ host: String, _ port: Int) throws {
        let s = try #require(try settings(#"{"mpd": {"listen": "\#(listen)", "maxClients": 3, "password": "pw"}}"#))
        #expect(s.tcpHost == host)
        #expect(s.tcpPort == UInt16(port))
        #expect(s.maxClients == 3)
        #expect(s.password == "pw")
    }

    @Test(arguments: [
        (
            #"{"mpd": {"socket": "mpd.sock"}}"#,
            #"config.json: mpd.socket: expected an absolute path or "default", got "mpd.sock""#
        ),
        (
            #"{"mpd": {"listen": "music.local:6600"}}"#,
            #"config.json: mpd.listen: expected a numeric address (e.g. 127.0.0.1, 0.0.0.0, ::1), "localhost" or "*", got "music.local""#
        ),
    ])
    func badValuesAreNamed(_ json: String, _ message: String) throws {
        #expect(throws: ConfigError.self) { try settings(json) }
        do {
            _ = try settings(json)
        } catch {
            #expect("\(error)" == message)
        }
    }
}

/// The phone page talks to the player through its MPD socket: enabling the page opens it.
@Suite struct WebSectionTests {
    @Test func anEnabledPhonePageOpensTheDefaultSocket() throws {
        let config = try Config.parse(Array(#"{"web": {"enabled": true}}"#.utf8), file: "config.json")
        #expect(config.web.enabled)
        #expect(try MPDSettings.from(config.mpd)?.socketPath?.hasSuffix("/mpd.socket") == true)
    }

    @Test func aConfiguredSocketIsKeptAndAPageOffOpensNone() throws {
        let kept = try Config.parse(
            Array(#"{"web": {"enabled": true}, "mpd": {"socket": "/tmp/x.socket"}}"#.utf8), file: "config.json")
        #expect(try MPDSettings.from(kept.mpd)?.socketPath == "/tmp/x.socket")
        let off = try Config.parse(Array(#"{"web": {"enabled": false, "port": 8080}}"#.utf8), file: "config.json")
        #expect(try MPDSettings.from(off.mpd) == nil)
    }

    @Test func aBadKeyOfTheSectionIsNamed() {
        do {
            _ = try Config.parse(Array(#"{"web": {"sessionDays": 0}}"#.utf8), file: "config.json")
            Issue.record("accepted")
        } catch {
            #expect("\(error)".contains("web.sessionDays"))
        }
    }
}
