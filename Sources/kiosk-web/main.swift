// SPDX-License-Identifier: GPL-3.0-or-later
// kiosk-web: the phone page's HTTP server, a process of its own with fewer privileges than the
// player (deploy/systemd/kiosk-web.service), on GNU libmicrohttpd. It talks to the player only
// through the player's MPD socket (Sources/KioskWeb/PhoneAPI.swift); docs/phone.md is the guide.
import CKioskWeb
import Glibc
import KioskSystem
import KioskWeb
import KioskWebServer
import KioskWebSettings

// MARK: - the command line

func usage() -> Never {
    Log.error("usage: kiosk-web [--config FILE] [--bind ADDRESS] [--port PORT]")
    exit(2)
}

var configPath = "/etc/kiosk-player/config.json"
var bindAddress: String?
var portOverride: Int?
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    func value() -> String {
        guard let next = arguments.popFirst() else { usage() }
        return next
    }
    switch argument {
    case "--config": configPath = value()
    case "--bind": bindAddress = value()
    case "--port":
        guard let port = Int(value()), (1...65535).contains(port) else { usage() }
        portOverride = port
    case "--help", "-h":
        print("kiosk-web [--config FILE] [--bind ADDRESS] [--port PORT]: the phone page (docs/phone.md)")
        exit(0)
    default: usage()
    }
}

// No config file is the player's defaults, where the page is off: not a failure of the unit (an
// image's first boot before its settings are applied, a box that never had a config).
guard Syscalls.exists(configPath) else {
    Log.notice("kiosk-web: no \(configPath): the phone page is off")
    exit(0)
}
let config: WebSettings.PageConfig
do {
    config = try WebSettings.pageConfig(try ConfigError.contents(of: configPath), file: configPath)
} catch {
    Log.error("kiosk-web: \(error)")
    exit(1)
}
guard config.web.enabled else {
    Log.notice("kiosk-web: the phone page is off (\(configPath): \"web\": {\"enabled\": true} turns it on)")
    exit(0)
}
var settings = config
if let portOverride { settings.web.port = portOverride }

// The signals that end the server are taken with sigwait on this thread; every thread started
// below inherits the mask, so none is interrupted by them. A closed connection never kills (EPIPE).
var stopSignals = sigset_t()
sigemptyset(&stopSignals)
sigaddset(&stopSignals, SIGTERM)
sigaddset(&stopSignals, SIGINT)
pthread_sigmask(SIG_BLOCK, &stopSignals, nil)
signal(SIGPIPE, SIG_IGN)

var limits = PhoneAccess.Limits()
limits.pairingSeconds = UInt64(settings.web.pairingSeconds)
limits.sessionSeconds = UInt64(settings.web.sessionDays) * 86_400
let events = PlayerEvents()
let api = PhoneAPI(settings: settings, events: events, access: PhoneAccess(limits: limits))
let server = WebServer(api: api)
let watcher = PlayerWatcher(socketPath: settings.mpdSocket, password: settings.mpdPassword, events: events)
do {
    try watcher.start()
} catch {
    Log.error("kiosk-web: \(error)")
    exit(1)
}

let maxBody = PhoneAPI.maxBodyBytes
let daemon = WebDaemon.start(server: server, port: settings.web.port, bind: bindAddress)
guard let daemon else {
    Log.error("kiosk-web: cannot listen on port \(settings.web.port): \(Errno(rawValue: errno, context: "listen"))")
    exit(1)
}
Log.notice(
    "kiosk-web: the phone page is on port \(settings.web.port)\(bindAddress.map { " of \($0)" } ?? ""); the player at \(settings.mpdSocket)"
)

var caught: Int32 = 0
sigwait(&stopSignals, &caught)
Log.notice("kiosk-web: stopping (signal \(caught))")
watcher.stop()
events.stop()
kiosk_web_stop(daemon)
exit(0)
