// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem

/// config.json's `web` section: the phone page (`kiosk-web`). One parser for the player's loader
/// (`check-config`, `Config.parse`) and the page's process, which reads nothing else of the config
/// but the MPD socket it talks to the player through. Off unless `enabled` is true.
///
/// Thread: a value; any.
public struct WebSettings: Sendable, Equatable {
    public var enabled = false
    /// The TCP port the page is served on, on every address of the box (80: `http://box.local/`).
    public var port = 80
    /// Requests only from the networks of the box's own interfaces (and loopback) unless true.
    public var allowOutsideSubnet = false
    /// How long a paired phone stays paired without a visit.
    public var sessionDays = 30
    /// How long the code the box shows and says is valid.
    public var pairingSeconds = 180
    /// The folder music uploaded from the phone goes to (nil: the first of `libraryDirectories`;
    /// with neither, the page takes no uploads). kiosk-web.service may write only there.
    public var musicFolder: String?
    /// The largest file the page takes.
    public var maxUploadMB = 1024

    public static let keys = [
        "enabled", "port", "allowOutsideSubnet", "sessionDays", "pairingSeconds", "musicFolder", "maxUploadMB",
    ]

    public init() {}

    /// Reads the section (each key checked, unknown keys refused with the list of known ones).
    public static func parse(_ r: JSONReader) throws(ConfigError) -> WebSettings {
        var s = WebSettings()
        s.enabled = try r.bool("enabled") ?? s.enabled
        s.port = try r.int("port", range: 1...65535) ?? s.port
        s.allowOutsideSubnet = try r.bool("allowOutsideSubnet") ?? s.allowOutsideSubnet
        s.sessionDays = try r.int("sessionDays", range: 1...365) ?? s.sessionDays
        s.pairingSeconds = try r.int("pairingSeconds", range: 30...600) ?? s.pairingSeconds
        if let folder = try r.string("musicFolder") {
            guard folder.hasPrefix("/"), !folder.split(separator: "/").contains("..") else {
                throw r.error("musicFolder", "must be an absolute path without '..' (got \"\(folder)\")")
            }
            s.musicFolder = folder
        }
        s.maxUploadMB = try r.int("maxUploadMB", range: 1...65536) ?? s.maxUploadMB
        try r.finish(known: keys)
        return s
    }

    /// The page's process's view of a config file: this section, and where the player's MPD socket
    /// is and its password (`mpd.socket`, `mpd.password`), with nothing else checked: the player's
    /// `check-config` checks the whole file.
    public struct PageConfig: Sendable, Equatable {
        public var web: WebSettings
        public var mpdSocket: String
        public var mpdPassword: String?
        /// Where uploads go: `web.musicFolder`, else the first of `libraryDirectories`, else none.
        public var musicFolder: String?
    }

    /// The page's configuration from config.json's text: an enabled page uses the player's socket
    /// (`mpd.socket`, or `$RUNTIME_DIRECTORY/mpd.socket` of the player: /run/kiosk-player/mpd.socket).
    public static func pageConfig(_ bytes: [UInt8], file: String) throws(ConfigError) -> PageConfig {
        let r = try JSONReader.parse(bytes, file: file)
        let web = try r.object("web").map { (w) throws(ConfigError) in try parse(w) } ?? WebSettings()
        var socket = "/run/kiosk-player/mpd.socket"
        var password: String?
        if let m = try r.object("mpd") {
            if let path = try m.string("socket", nonEmpty: false), path.hasPrefix("/") { socket = path }
            password = try m.string("password")
        }
        var folder = web.musicFolder
        if folder == nil, let first = try r.strings("libraryDirectories", maxCount: 16)?.first, first.hasPrefix("/") {
            folder = first
        }
        return PageConfig(web: web, mpdSocket: socket, mpdPassword: password, musicFolder: folder)
    }
}
