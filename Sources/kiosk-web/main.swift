// SPDX-License-Identifier: GPL-3.0-or-later
// kiosk-web: the phone page's HTTP server, a process of its own with fewer privileges than the
// player (deploy/systemd/kiosk-web.service), on GNU libmicrohttpd. It talks to the player only
// through the player's MPD socket (Sources/KioskWeb/PhoneAPI.swift); docs/phone.md is the guide.
import CKioskWeb
import CMicroHTTPD
import Glibc
import KioskSystem
import KioskWeb
import KioskWebSettings

/// The server's state the C callbacks reach through their context pointer.
///
/// Thread: any (the daemon's threads); what it holds is thread-safe.
final class WebServer: @unchecked Sendable {
    let api: PhoneAPI
    init(api: PhoneAPI) { self.api = api }
}

/// One live page's stream of server-sent events, read by the daemon's thread of its connection.
///
/// Thread: that connection's thread.
final class LiveStream {
    let server: WebServer
    let session: String
    var next: Int
    var pending: [UInt8]
    var sent = 0

    init(server: WebServer, from: Int, session: String) {
        self.server = server
        self.session = session
        next = from
        // The browser reconnects after 3 s if the stream breaks.
        pending = Array("retry: 3000\n\n".utf8)
    }

    /// Fills `buffer` with up to `max` bytes; 0 never (blocks for the next event or a keep-alive
    /// every 5 s, well inside the daemon's 10 s idle timeout); -1 at the end.
    func read(into buffer: UnsafeMutablePointer<CChar>, max: Int) -> Int {
        if sent >= pending.count {
            pending = []
            sent = 0
            guard let events = server.api.events.wait(from: next, nanoseconds: 5_000_000_000) else { return -1 }
            if events.isEmpty {
                pending = Array(": keep-alive\n\n".utf8)
            } else {
                for event in events {
                    pending += Array("id: \(event.number)\nevent: \(event.name)\ndata: \(event.data)\n\n".utf8)
                    next = event.number + 1
                }
            }
        }
        let count = min(max, pending.count - sent)
        pending.withUnsafeBytes { raw in
            UnsafeMutableRawPointer(buffer).copyMemory(from: raw.baseAddress! + sent, byteCount: count)
        }
        sent += count
        return count
    }
}

private func makeResponse(_ server: WebServer, _ response: WebResponse) -> OpaquePointer? {
    let made: OpaquePointer?
    switch response.body {
    case .bytes(let bytes):
        made = bytes.withUnsafeBytes { raw in
            kiosk_web_response_copy(raw.baseAddress, raw.count)
        }
    case .events(let from, let session):
        let stream = LiveStream(server: server, from: from, session: session)
        made = MHD_create_response_from_callback(
            UInt64.max, 1024,
            { context, _, buffer, max in
                guard let context, let buffer else { return -1 }
                return Unmanaged<LiveStream>.fromOpaque(context).takeUnretainedValue().read(into: buffer, max: max)
            },
            Unmanaged.passRetained(stream).toOpaque(),
            { context in
                guard let context else { return }
                let stream = Unmanaged<LiveStream>.fromOpaque(context).takeRetainedValue()
                stream.server.api.liveStreamEnded()
            })
    }
    guard let made else { return nil }
    for (name, value) in response.headers { MHD_add_response_header(made, name, value) }
    return made
}

private func text(_ pointer: UnsafePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }

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

// The daemon's limits (docs/architecture.md, "The phone page"): a thread per connection with a small
// stack, at most 32 connections and 4 from one address, 10 s without a byte closes a connection
// (slowloris), 32 KiB of memory per connection for its headers, 4 KiB of body.
let maxBody = PhoneAPI.maxBodyBytes
let daemon: OpaquePointer? = (bindAddress ?? "").withCString { bind in
    var options = kiosk_web_options(
        port: UInt16(settings.web.port), bind_address: bindAddress == nil ? nil : bind,
        connection_limit: 32, per_ip_connection_limit: 4, timeout_seconds: 10,
        connection_memory_limit: 32 << 10, thread_stack_size: 256 << 10, max_body_bytes: maxBody)
    return kiosk_web_start(
        &options,
        { context, address, _ in
            guard let context, let address else { return 0 }
            var buffer = [CChar](repeating: 0, count: 64)
            kiosk_web_address_text(address, &buffer, 64)
            let client = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let server = Unmanaged<WebServer>.fromOpaque(context).takeUnretainedValue()
            return server.api.admits(client) ? 1 : 0
        },
        { context, request, status in
            guard let context, let request, let status else { return nil }
            let server = Unmanaged<WebServer>.fromOpaque(context).takeUnretainedValue()
            let r = request.pointee
            let connection = r.connection
            let body =
                r.body_length > 0 && r.body != nil
                ? Array(UnsafeRawBufferPointer(start: r.body, count: r.body_length)) : []
            let client = withUnsafeBytes(of: r.client) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            let webRequest = WebRequest(
                method: text(r.method), target: text(r.url),
                header: { name in
                    kiosk_web_header(connection, name).map { String(cString: $0) }
                },
                body: body, client: client)
            let response = server.api.handle(webRequest)
            status.pointee = response.status
            return makeResponse(server, response)
        },
        Unmanaged.passRetained(server).toOpaque())
}
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
