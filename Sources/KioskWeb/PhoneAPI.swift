// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem
import KioskWebSettings

/// A request as the HTTP server hands it over: whole, its body bounded already.
///
/// Thread: a value; any.
public struct WebRequest {
    public var method: String
    /// The path, without the query.
    public var path: String
    public var query: [String: String]
    /// Header lookup (case-insensitive, as the server's).
    public var header: (String) -> String?
    public var body: [UInt8]
    /// The client's numeric address.
    public var client: String

    public init(
        method: String, target: String, header: @escaping (String) -> String?, body: [UInt8], client: String
    ) {
        self.method = method
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        path = String(parts.first ?? "")
        query = [:]
        if parts.count == 2 {
            for item in parts[1].split(separator: "&") {
                let kv = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                query[Self.percentDecoded(kv[0])] = kv.count == 2 ? Self.percentDecoded(kv[1]) : ""
            }
        }
        self.header = header
        self.body = body
        self.client = client
    }

    static func percentDecoded(_ text: Substring) -> String {
        var out: [UInt8] = []
        var bytes = Array(text.utf8)[...]
        while let byte = bytes.popFirst() {
            if byte == UInt8(ascii: "%"), bytes.count >= 2,
                let value = UInt8(String(decoding: bytes.prefix(2), as: UTF8.self), radix: 16)
            {
                out.append(value)
                bytes = bytes.dropFirst(2)
            } else {
                out.append(byte == UInt8(ascii: "+") ? 0x20 : byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// What the page answers.
///
/// Thread: a value; any.
public struct WebResponse {
    public enum Body {
        case bytes([UInt8])
        /// Server-sent events from `PlayerEvents`, from this event number on, for the session `id`.
        case events(from: Int, session: String)
    }

    public var status: UInt32
    public var headers: [(String, String)]
    public var body: Body

    public init(status: UInt32, contentType: String, body: [UInt8], headers: [(String, String)] = []) {
        self.status = status
        self.headers = [("Content-Type", contentType)] + headers
        self.body = .bytes(body)
    }

    static func json(_ status: UInt32, _ value: JSONValue, headers: [(String, String)] = []) -> WebResponse {
        WebResponse(
            status: status, contentType: "application/json",
            body: Array((value.serialized() + "\n").utf8), headers: headers)
    }

    static func error(_ status: UInt32, _ message: String, headers: [(String, String)] = []) -> WebResponse {
        json(status, .object([("error", .string(message))]), headers: headers)
    }
}

/// The phone page's routes: who may do what (`PhoneAccess`), then the player through its MPD socket
/// (`PlayerConnection`), each change logged with the session that made it. The server (kiosk-web)
/// only moves bytes; every answer is made here.
///
/// Thread: any; the server calls `handle` from a thread per connection (the access state is locked).
public final class PhoneAPI: @unchecked Sendable {
    public static let sessionCookie = "kiosk_session"
    /// The largest JSON body a request may have.
    public static let maxBodyBytes = 4096
    /// The largest piece of an upload (the server's body limit): 32 connections at once hold at
    /// most 8 MiB, inside the unit's MemoryMax.
    public static let maxPieceBytes = 256 << 10

    public let settings: WebSettings.PageConfig
    public let events: PlayerEvents
    private let access: Locked<PhoneAccess>
    private let networks: Locked<(list: LocalNetworks, readAt: UInt64)>
    private let clock: @Sendable () -> UInt64
    private let liveStreams = Locked(0)
    public static let maxLiveStreams = 8
    /// Where uploads go, when the page takes them (`WebSettings.PageConfig.musicFolder`).
    public let music: MusicFolder?

    public init(
        settings: WebSettings.PageConfig, events: PlayerEvents, access: PhoneAccess,
        clock: @escaping @Sendable () -> UInt64 = { Syscalls.monotonicNanoseconds() }
    ) {
        self.settings = settings
        self.events = events
        self.access = Locked(access)
        self.clock = clock
        networks = Locked((LocalNetworks.ofInterfaces(), clock()))
        music = settings.musicFolder.map {
            MusicFolder(root: $0, maxFileBytes: Int64(settings.web.maxUploadMB) << 20)
        }
    }

    /// Whether a connection from `address` is taken at all (config `web.allowOutsideSubnet`).
    public func admits(_ address: String) -> Bool {
        if settings.web.allowOutsideSubnet { return true }
        let now = clock()
        return networks.withLock { state in
            if now > state.readAt + 30_000_000_000
                || !state.list.contains(address) && now > state.readAt + 2_000_000_000
            {
                // Interfaces change (DHCP, Wi-Fi): read again, at most every 2 s for an unknown address.
                state = (LocalNetworks.ofInterfaces(), now)
            }
            return state.list.contains(address)
        }
    }

    /// The headers every answer carries: no framing, no sniffing, no referrer, scripts and styles
    /// only from the box.
    public static let commonHeaders: [(String, String)] = [
        (
            "Content-Security-Policy",
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        ),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        ("X-Frame-Options", "DENY"),
        ("Cache-Control", "no-store"),
    ]

    public func handle(_ request: WebRequest) -> WebResponse {
        var response = route(request)
        response.headers += Self.commonHeaders
        return response
    }

    private func route(_ request: WebRequest) -> WebResponse {
        // Only an upload's piece and a set given back may be larger than a JSON body (the server's
        // limit is the piece's).
        let isPiece = request.method == "PUT" && request.path == "/api/music/upload"
        let isSet = request.method == "POST" && request.path.hasPrefix("/api/set/")
        if request.body.count > Self.maxBodyBytes && !isPiece && !isSet {
            return .error(413, "the request is too large")
        }
        switch (request.method, request.path) {
        case ("GET", "/"), ("GET", "/index.html"):
            return WebResponse(status: 200, contentType: "text/html; charset=utf-8", body: PageAssets.index)
        case ("GET", "/app.js"):
            return WebResponse(status: 200, contentType: "text/javascript; charset=utf-8", body: PageAssets.script)
        case ("GET", "/music.js"):
            return WebResponse(
                status: 200, contentType: "text/javascript; charset=utf-8", body: PageAssets.musicScript)
        case ("GET", "/settings.js"):
            return WebResponse(
                status: 200, contentType: "text/javascript; charset=utf-8", body: PageAssets.settingsScript)
        case ("GET", "/app.css"):
            return WebResponse(status: 200, contentType: "text/css; charset=utf-8", body: PageAssets.style)
        case ("GET", "/favicon.ico"):
            // None (a browser asks for it on every first visit, paired or not).
            return WebResponse(status: 404, contentType: "text/plain; charset=utf-8", body: [])
        case ("POST", "/api/pair/code"):
            if let refusal = refuseCrossSite(request) { return refusal }
            return requestCode(request)
        case ("POST", "/api/pair"):
            if let refusal = refuseCrossSite(request) { return refusal }
            return pair(request)
        default:
            break
        }
        let now = clock()
        let token = Self.cookieValue(Self.sessionCookie, in: request.header("Cookie"))
        guard let session = access.withLock({ $0.session(token: token, now: now) }) else {
            return .error(401, "not paired: ask the box for a code")
        }
        if request.method != "GET" {
            if let refusal = refuseCrossSite(
                request, contentType: isPiece ? "application/octet-stream" : "application/json")
            {
                return refusal
            }
            guard PhoneAccess.csrfMatches(request.header("X-CSRF-Token"), session) else {
                Log.warning("web: \(request.client): a change without its session's CSRF token refused")
                return .error(403, "missing or wrong CSRF token")
            }
        }
        do {
            return try answer(request, session)
        } catch let refused as PlayerConnection.Refused {
            return .error(409, refused.description)
        } catch let problem as MusicFolder.Problem {
            return musicRefusal(problem, request)
        } catch let bad as ConfigError {
            // A value out of its range in the request's JSON (`JSONReader` says which).
            return .error(400, "\(bad.path): \(bad.message)")
        } catch {
            Log.warning("web: the player did not answer: \(error)")
            return .error(503, "the player does not answer")
        }
    }

    /// Requests that change something must be JSON (which a cross-site form cannot send without
    /// the browser asking first) and, when the browser says where they come from, from this page.
    private func refuseCrossSite(_ request: WebRequest, contentType: String = "application/json") -> WebResponse? {
        guard (request.header("Content-Type") ?? "").hasPrefix(contentType) else {
            return .error(415, "expected \(contentType)")
        }
        if let origin = request.header("Origin"), let host = request.header("Host"),
            origin != "http://\(host)" && origin != "https://\(host)"
        {
            Log.warning("web: \(request.client): a request from another site (\(origin)) refused")
            return .error(403, "cross-site request refused")
        }
        return nil
    }

    func body(_ request: WebRequest) throws(PlayerConnection.Refused) -> JSONReader {
        do {
            return try JSONReader(try JSONValue.parse(request.body, maxDepth: 4), file: "request")
        } catch {
            throw PlayerConnection.Refused(description: "the request is not a JSON object")
        }
    }

    func player() throws -> PlayerConnection {
        try PlayerConnection(socketPath: settings.mpdSocket, password: settings.mpdPassword)
    }

    // MARK: - pairing

    private func requestCode(_ request: WebRequest) -> WebResponse {
        let now = clock()
        let outcome = access.withLock { $0.requestCode(now: now) }
        switch outcome {
        case .showing:
            return .json(200, .object([("showing", .bool(true))]))
        case .tooSoon(let seconds):
            return .error(429, "wait \(seconds) s", headers: [("Retry-After", "\(seconds)")])
        case .new(let code):
            Log.notice("web: \(request.client) asked for a pairing code; the box shows and says it")
            do {
                _ = try player().command("kioskpaircode", [code, "\(settings.web.pairingSeconds)"])
            } catch {
                Log.warning("web: the box could not show the code: \(error)")
                return .error(503, "the player does not answer")
            }
            return .json(200, .object([("showing", .bool(true))]))
        }
    }

    private func pair(_ request: WebRequest) -> WebResponse {
        let typed: String
        do {
            typed = try body(request).string("code") ?? ""
        } catch {
            return .error(400, "expected {\"code\": \"123456\"}")
        }
        let now = clock()
        switch access.withLock({ $0.attempt(typed, from: request.client, now: now) }) {
        case .paired(let session):
            Log.notice("web: session \(session.id) paired from \(request.client)")
            let maxAge = UInt64(settings.web.sessionDays) * 86_400
            return .json(
                200, .object([("csrf", .string(session.csrf)), ("session", .string(session.id))]),
                headers: [
                    (
                        "Set-Cookie",
                        "\(Self.sessionCookie)=\(session.token); Path=/; Max-Age=\(maxAge); HttpOnly; SameSite=Strict"
                    )
                ])
        case .wrong(let left):
            Log.warning("web: \(request.client): wrong pairing code (\(left) tries left for this code)")
            return .error(403, left > 0 ? "wrong code" : "wrong code: ask the box for a new one")
        case .noCode:
            return .error(403, "no code is showing: ask the box for one")
        case .lockedOut(let seconds):
            Log.warning("web: \(request.client): too many wrong codes, refused for \(seconds) s")
            return .error(429, "too many wrong codes: wait \(seconds) s", headers: [("Retry-After", "\(seconds)")])
        }
    }

    // MARK: - with a session

    private func answer(_ request: WebRequest, _ session: PhoneAccess.Session) throws -> WebResponse {
        let who = "session \(session.id) (\(request.client))"
        switch (request.method, request.path) {
        case ("GET", "/api/session"):
            return .json(200, .object([("csrf", .string(session.csrf)), ("session", .string(session.id))]))
        case ("POST", "/api/logout"):
            access.withLock { $0.end(token: session.token) }
            Log.notice("web: \(who) logged out")
            return .json(
                200, .object([]),
                headers: [("Set-Cookie", "\(Self.sessionCookie)=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict")])
        case ("GET", "/api/status"):
            return .json(200, try status())
        case ("POST", "/api/control"):
            let action = try body(request).string("action") ?? ""
            let commands: [String: (String, [String])] = [
                "play": ("play", []), "pause": ("pause", ["1"]), "resume": ("pause", ["0"]),
                "next": ("next", []), "previous": ("previous", []), "stop": ("stop", []),
            ]
            guard let command = commands[action] else { return .error(400, "unknown action") }
            _ = try player().command(command.0, command.1)
            Log.notice("web: \(who): \(action)")
            return .json(200, try status())
        case ("POST", "/api/volume"):
            guard let volume = try body(request).int("volume", range: 0...100) else {
                return .error(400, "expected {\"volume\": 0…100}")
            }
            _ = try player().command("setvol", ["\(volume)"])
            Log.notice("web: \(who): volume \(volume)")
            return .json(200, try status())
        case ("GET", "/api/cards"):
            return .json(200, try cards())
        case ("GET", "/api/collections"):
            let category = request.query["category"] ?? "album"
            let records = try player().command("kioskcollections", [category]).records(startingAt: "key")
            return .json(
                200,
                .object([
                    (
                        "collections",
                        .array(
                            records.map { r in
                                .object([
                                    ("key", .string(r.value("key") ?? "")), ("name", .string(r.value("name") ?? "")),
                                    ("subtitle", .string(r.value("subtitle") ?? "")),
                                ])
                            })
                    )
                ]))
        case ("POST", "/api/cards/link"):
            let b = try body(request)
            guard let card = try b.string("card"), let key = try b.string("key") else {
                return .error(400, "expected card, category, key and mode")
            }
            let category = try b.string("category") ?? "album"
            let mode = try b.string("mode") ?? "album"
            _ = try player().command("kioskcardlink", [card, category, key, mode, who])
            Log.notice("web: \(who): card \(card) linked to \(category) (\(mode))")
            return .json(200, try cards())
        case ("POST", "/api/cards/rename"):
            let b = try body(request)
            guard let card = try b.string("card"), let name = try b.string("name", nonEmpty: false) else {
                return .error(400, "expected card and name")
            }
            do {
                _ = try player().command("kioskcardname", [card, name, who])
            } catch let refused as PlayerConnection.Refused {
                return .error(400, refused.description)
            }
            Log.notice("web: \(who): card \(card) named")
            return .json(200, try cards())
        case ("POST", "/api/cards/unlink"):
            guard let card = try body(request).string("card") else { return .error(400, "expected card") }
            _ = try player().command("kioskcardunlink", [card, who])
            Log.notice("web: \(who): card \(card) unlinked")
            return .json(200, try cards())
        case ("GET", "/api/events"):
            let admitted = liveStreams.withLock { count -> Bool in
                guard count < Self.maxLiveStreams else { return false }
                count += 1
                return true
            }
            guard admitted else { return .error(503, "too many live pages open") }
            var response = WebResponse(status: 200, contentType: "text/event-stream", body: [])
            response.body = .events(from: events.upcoming, session: session.id)
            return response
        case ("GET", "/api/problems"):
            return .json(200, try problems())
        case ("GET", "/api/settings"):
            return .json(200, try boxSettings())
        case ("POST", "/api/settings"):
            return try changeSettings(request, who: who)
        case (_, "/api/set"), (_, "/api/set/check"), (_, "/api/set/import"):
            return try setAnswer(request, who: who)
        case (_, "/api/music"), (_, "/api/music/upload"), (_, "/api/music/delete"):
            return try musicAnswer(request, session, who: who)
        default:
            return .error(404, "no such page")
        }
    }

    /// A live stream ended (the server calls it when its connection closes).
    public func liveStreamEnded() { liveStreams.withLock { $0 -= 1 } }

    private func status() throws -> JSONValue {
        let p = try player()
        let status = try p.command("status")
        let song = try p.command("currentsong")
        let state = try p.command("kioskstate")
        func number(_ text: String?) -> JSONValue { text.flatMap(Double.init).map { .number($0) } ?? .null }
        return .object([
            ("state", .string(status.value("state") ?? "stop")),
            ("volume", number(status.value("volume"))),
            ("volumeMin", number(state.value("volumemin"))),
            ("volumeMax", number(state.value("volumemax"))),
            ("elapsed", number(status.value("elapsed"))),
            ("duration", number(status.value("duration"))),
            ("title", .string(song.value("Title") ?? song.value("file") ?? "")),
            ("artist", .string(song.value("Artist") ?? "")),
            ("album", .string(song.value("Album") ?? "")),
        ])
    }

    private func cards() throws -> JSONValue {
        let p = try player()
        let links = try p.command("kioskcards").records(startingAt: "card")
        let state = try p.command("kioskstate")
        var last: JSONValue = .null
        if let uid = state.value("lastcard") {
            last = .object([
                ("card", .string(uid)), ("count", .number(Double(state.value("lastcardcount") ?? "0") ?? 0)),
                ("linked", .bool(state.value("lastcardlinked") == "1")),
            ])
        }
        return .object([
            ("last", last),
            (
                "cards",
                .array(
                    links.map { r in
                        .object([
                            ("card", .string(r.value("card") ?? "")), ("summary", .string(r.value("summary") ?? "")),
                            ("category", .string(r.value("category") ?? "")), ("key", .string(r.value("key") ?? "")),
                            ("name", .string(r.value("name") ?? "")), ("mode", .string(r.value("mode") ?? "")),
                        ])
                    })
            ),
        ])
    }

    /// The value of cookie `name` in a Cookie header.
    public static func cookieValue(_ name: String, in header: String?) -> String? {
        guard let header else { return nil }
        for part in header.split(separator: ";") {
            let kv = part.split(separator: "=", maxSplits: 1)
            if kv.count == 2, kv[0].trimmingWhitespace() == name { return kv[1].trimmingWhitespace() }
        }
        return nil
    }

    /// The watcher's card event for the page: `{"card": …, "linked": …, "count": …}`.
    public static func cardEvent(_ state: [(name: String, value: String)]) -> String? {
        guard let uid = state.value("lastcard") else { return nil }
        return JSONValue.object([
            ("card", .string(uid)), ("count", .number(Double(state.value("lastcardcount") ?? "0") ?? 0)),
            ("linked", .bool(state.value("lastcardlinked") == "1")),
        ]).serialized()
    }
}
