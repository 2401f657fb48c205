// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem

/// The page's settings: what the player says is in force (`kiosksettings`) and a parent's change
/// (`kiosksettingsset`), which the player checks with the config's own parser and keeps; the answer
/// says which keys apply now and which from the next start. And the box's check: what the doctor
/// found wrong at start, each with its fix (`kioskproblems`).
extension PhoneAPI {
    func problems() throws -> JSONValue {
        let found = try player().command("kioskproblems")
        var problems: [JSONValue] = []
        for record in found.records(startingAt: "problem") {
            problems.append(
                .object([
                    ("text", .string(record.value("problem") ?? "")),
                    ("fix", record.value("fix").map { .string($0) } ?? .null),
                ]))
        }
        var lines: [JSONValue] = []
        for record in found.records(startingAt: "line") {
            lines.append(
                .object([
                    ("status", .string(record.value("line") ?? "info")),
                    ("group", .string(record.value("group") ?? "")),
                    ("text", .string(record.value("text") ?? "")),
                    ("fix", record.value("linefix").map { .string($0) } ?? .null),
                ]))
        }
        return .object([
            ("checked", .bool(found.value("checked") == "1")),
            ("powerWarning", found.value("powerwarning").map { .string($0) } ?? .null),
            ("problems", .array(problems)), ("lines", .array(lines)),
        ])
    }

    func boxSettings() throws -> JSONValue {
        let found = try player().command("kiosksettings")
        func number(_ name: String) -> JSONValue { found.value(name).flatMap(Double.init).map { .number($0) } ?? .null }
        return .object([
            ("volumeMin", number("volumemin")), ("volumeMax", number("volumemax")),
            ("volumeAtBoot", number("volumeatboot")), ("idlePowerOffMinutes", number("idlepoweroffminutes")),
            ("speechMode", .string(found.value("speechmode") ?? "auto")),
            // The rules in force as check-config prints them, or null: none.
            ("bedtime", found.value("bedtime").flatMap { try? JSONValue.parse(Array($0.utf8), maxDepth: 6) } ?? .null),
            ("clockUnsynchronized", found.value("clockunsynchronized").map { .string($0) } ?? .null),
        ])
    }

    /// `{"volumeMax": 60, "speech": {"mode": "off"}, …}`: the keys of `Player.phoneSettingKeys`.
    func changeSettings(_ request: WebRequest, who: String) throws -> WebResponse {
        let changes: JSONValue
        do {
            changes = try JSONValue.parse(request.body, maxDepth: 6)
        } catch {
            return .error(400, "the request is not a JSON object")
        }
        guard let members = changes.object, !members.isEmpty else { return .error(400, "no settings given") }
        let answer: [(name: String, value: String)]
        do {
            answer = try player().command("kiosksettingsset", [changes.serialized(), who])
        } catch let refused as PlayerConnection.Refused {
            // The config's parser said why: the value, named, and what it expects.
            return .error(400, refused.description)
        }
        let now = answer.filter { $0.name == "now" }.map(\.value)
        let later = answer.filter { $0.name == "nextstart" }.map(\.value)
        Log.notice("web: \(who): settings \(members.map(\.key).joined(separator: ", "))")
        var out = try boxSettings()
        if case .object(var fields) = out {
            fields.append(("now", .array(now.map { .string($0) })))
            fields.append(("nextStart", .array(later.map { .string($0) })))
            out = .object(fields)
        }
        return .json(200, out)
    }
}
