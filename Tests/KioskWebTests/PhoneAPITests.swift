// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem
import KioskWeb
import KioskWebSettings
import Testing

/// What the page refuses before it asks the player anything (the player's socket here leads
/// nowhere, so a request that got past the checks would answer 503, not the refusal expected).
@Suite struct PhoneAPITests {
    let api: PhoneAPI

    init() throws {
        var config = try WebSettings.pageConfig(
            Array(#"{"mpd": {"socket": "/nonexistent/mpd.socket"}}"#.utf8), file: "c")
        config.web.enabled = true
        api = PhoneAPI(
            settings: config, events: PlayerEvents(), access: PhoneAccess(random: SeededRandom(state: 7)),
            clock: { 1_000_000_000 })
    }

    func request(
        _ method: String, _ target: String, headers: [String: String] = [:], body: String = ""
    ) -> WebResponse {
        let lowered = Dictionary(uniqueKeysWithValues: headers.map { ($0.key.lowercased(), $0.value) })
        return api.handle(
            WebRequest(
                method: method, target: target, header: { lowered[$0.lowercased()] }, body: Array(body.utf8),
                client: "127.0.0.1"))
    }

    static let apiRoutes: [(String, String)] = [
        ("GET", "/api/session"), ("GET", "/api/status"), ("GET", "/api/cards"), ("GET", "/api/collections"),
        ("GET", "/api/events"), ("POST", "/api/control"), ("POST", "/api/volume"), ("POST", "/api/cards/link"),
        ("POST", "/api/cards/unlink"), ("POST", "/api/logout"), ("GET", "/api/nothing"), ("DELETE", "/api/cards"),
    ]

    @Test func everyAPIRouteWithoutASessionIsRefused() {
        for (method, path) in Self.apiRoutes {
            let json = ["Content-Type": "application/json"]
            #expect(request(method, path, headers: json, body: "{}").status == 401, "\(method) \(path)")
            #expect(
                request(
                    method, path,
                    headers: json.merging(["Cookie": "kiosk_session=" + String(repeating: "a", count: 64)]) { $1 },
                    body: "{}"
                ).status == 401,
                "\(method) \(path) with a made-up cookie")
        }
    }

    @Test func thePageItselfHoldsNoDataAndCarriesItsPolicy() {
        let page = request("GET", "/")
        #expect(page.status == 200)
        let policy = page.headers.first { $0.0 == "Content-Security-Policy" }?.1 ?? ""
        #expect(policy.contains("default-src 'none'") && policy.contains("frame-ancestors 'none'"))
        #expect(page.headers.contains { $0 == ("X-Content-Type-Options", "nosniff") })
    }

    @Test func pairingMustBeJSONFromThisPage() {
        #expect(
            request("POST", "/api/pair", headers: ["Content-Type": "text/plain"], body: #"{"code":"1"}"#).status == 415)
        #expect(
            request(
                "POST", "/api/pair",
                headers: ["Content-Type": "application/json", "Origin": "http://evil.example", "Host": "box.local"],
                body: #"{"code":"123456"}"#
            ).status == 403)
        #expect(
            request("POST", "/api/pair", headers: ["Content-Type": "application/json"], body: "not json").status == 400)
        // No code asked for yet.
        #expect(
            request("POST", "/api/pair", headers: ["Content-Type": "application/json"], body: #"{"code":"123456"}"#)
                .status == 403)
    }

    @Test func theCookieIsFoundAmongOthers() {
        #expect(PhoneAPI.cookieValue("kiosk_session", in: "a=1; kiosk_session=abc; b=2") == "abc")
        #expect(PhoneAPI.cookieValue("kiosk_session", in: "kiosk_sessionx=abc") == nil)
        #expect(PhoneAPI.cookieValue("kiosk_session", in: nil) == nil)
    }
}
