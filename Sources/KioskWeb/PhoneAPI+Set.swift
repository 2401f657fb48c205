// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem

/// The page's copy of the box's set (cards, their rounds, bookmarks and settings): saved to the
/// phone as `kiosk-set.json`, the very file a stick carries (docs/updates.md), and given back, first
/// to be checked (the page shows what it holds) and then to be imported. The player parses and
/// decides everything (`kioskset`, `kiosksetpiece`, `kiosksetimport`); the page's process only moves
/// the bytes, in hexadecimal pieces that fit an MPD line. A set given back is one request body, at
/// most the server's `maxPieceBytes` (256 KiB); a bigger one goes by stick (1 MiB).
extension PhoneAPI {
    /// Bytes of the set per `kiosksetpiece` line (twice as many hex digits, inside MPD's 8 KiB line).
    static let setPieceBytes = 3072

    func setAnswer(_ request: WebRequest, who: String) throws -> WebResponse {
        switch (request.method, request.path) {
        case ("GET", "/api/set"):
            let pieces = try player().command("kioskset").filter { $0.name == "piece" }.map(\.value)
            guard let set = try? JSONValue.parse(Array(pieces.joined().utf8)) else {
                return .error(503, "the player gave no set")
            }
            Log.notice("web: \(who): the box's set saved")
            return WebResponse(
                status: 200, contentType: "application/json",
                body: Array((set.serialized(pretty: true) + "\n").utf8),
                headers: [("Content-Disposition", #"attachment; filename="kiosk-set.json""#)])
        case ("POST", "/api/set/check"), ("POST", "/api/set/import"):
            let importing = request.path == "/api/set/import"
            guard !request.body.isEmpty else { return .error(400, "no file given") }
            let p = try player()
            var start = 0
            while start < request.body.count {
                let end = min(start + Self.setPieceBytes, request.body.count)
                _ = try p.command("kiosksetpiece", [Hex.encode(request.body[start..<end])])
                start = end
            }
            let answer: [(name: String, value: String)]
            do {
                answer = try p.command("kiosksetimport", [importing ? "import" : "check", who])
            } catch let refused as PlayerConnection.Refused {
                // The stick's parser said what is wrong with the file, and where.
                return .error(400, refused.description)
            }
            let summary = answer.value("summary") ?? ""
            if importing { Log.notice("web: \(who): imported a set (\(summary))") }
            return .json(200, .object([("summary", .string(summary)), ("imported", .bool(importing))]))
        default:
            return .error(404, "no such page")
        }
    }
}
