// SPDX-License-Identifier: GPL-3.0-or-later
import KioskTestSupport

/// What one exchange answered on both servers, normalised. Thread: any (a value).
struct ExchangeResult: Sendable {
    let exchange: DifferentialScript.Exchange
    let kiosk: [String]
    let mpd: [String]
    var identical: Bool { kiosk == mpd }
}

/// Runs the script on both servers over one connection each (mpc lines as separate processes).
/// Thread: the client thread of the harness.
enum DifferentialRun {
    static func run(
        _ exchanges: [DifferentialScript.Exchange], kioskSocket: String, mpdSocket: String, mpc: String?
    ) throws -> [ExchangeResult] {
        var kiosk = try DifferentialPeer(name: "kiosk-player", socket: kioskSocket, mpc: mpc)
        var mpd = try DifferentialPeer(name: "mpd", socket: mpdSocket, mpc: mpc)
        var results: [ExchangeResult] = []
        var scene: String?
        for exchange in exchanges {
            if exchange.scene != scene {
                scene = exchange.scene
                try kiosk.resetForScene()
                try mpd.resetForScene()
            }
            switch exchange.kind {
            case .mark:
                let name = String(exchange.line.dropFirst(6))
                try kiosk.mark(name)
                try mpd.mark(name)
            case .unchecked:
                let text = String(exchange.line.dropFirst(6)).splitOn(" ; ").joined(separator: "\n")
                _ = try kiosk.exchange(text)
                _ = try mpd.exchange(text)
            case .mpc:
                let arguments = splitArguments(String(exchange.line.dropFirst(6)))
                results.append(
                    ExchangeResult(exchange: exchange, kiosk: kiosk.runMPC(arguments), mpd: mpd.runMPC(arguments)))
            case .protocolLines(let sorted):
                let text = exchange.line.splitOn(" ; ").joined(separator: "\n")
                func answer(_ peer: inout DifferentialPeer) throws -> [String] {
                    do {
                        let lines = try peer.normalisedExchange(try peer.resolve(text))
                        return sorted ? lines.sorted() : lines
                    } catch {
                        // A closed or silent connection is an answer too; the next exchange gets a new one.
                        peer = try DifferentialPeer(name: peer.name, socket: peer.socket, mpc: peer.mpc)
                        return ["<no answer: \(error)>"]
                    }
                }
                results.append(ExchangeResult(exchange: exchange, kiosk: try answer(&kiosk), mpd: try answer(&mpd)))
            }
            try kiosk.registerQueueIDs()
            try mpd.registerQueueIDs()
        }
        return results
    }
}

/// The results held against the table: counts, new differences, stale rows, and the report.
/// Thread: the test's own.
struct DifferentialOutcome {
    let results: [ExchangeResult]
    let table: [KnownDifference]
    var rows: [String: KnownDifference] = [:]

    init(results: [ExchangeResult], table: [KnownDifference]) {
        self.results = results
        self.table = table
        for row in table { rows[row.exchange] = row }
    }

    var new: [ExchangeResult] { results.filter { !$0.identical && rows[$0.exchange.key] == nil } }
    var known: [ExchangeResult] { results.filter { !$0.identical && rows[$0.exchange.key] != nil } }
    /// Rows whose exchange answers the same on both servers now, or is no longer in the script.
    var stale: [KnownDifference] {
        let differing = Set(results.filter { !$0.identical }.map(\.exchange.key))
        return table.filter { !differing.contains($0.exchange) }
    }

    var summary: String {
        // Command-list brackets and the script's made-up command are not MPD commands.
        let protocolCommands = Set(
            results.flatMap(\.exchange.commands).filter {
                !$0.hasPrefix("mpc ") && !$0.hasPrefix("command_list_") && $0 != "bogus"
            })
        let mpcCommands = Set(results.flatMap(\.exchange.commands).filter { $0.hasPrefix("mpc ") })
        let differingCommands = Set(results.filter { !$0.identical }.flatMap(\.exchange.commands))
        func count(_ kind: KnownDifference.Kind) -> Int { known.filter { rows[$0.exchange.key]?.kind == kind }.count }
        return """
            MPD differential test, KioskPlayer against mpd 0.23.12: \(protocolCommands.count) MPD commands and \
            \(mpcCommands.count) mpc subcommands in \(results.count) exchanges; \
            \(results.filter(\.identical).count) identical, \(known.count) known differences \
            (a: \(count(.featureFails)), b: \(count(.differsButWorks)), c: \(count(.cosmetic))), \
            \(new.count) new, \(stale.count) stale rows; \
            commands answering every exchange identically: \
            \(protocolCommands.subtracting(differingCommands).count) of \(protocolCommands.count), mpc subcommands: \
            \(mpcCommands.subtracting(differingCommands).count) of \(mpcCommands.count)
            """
    }

    /// Both answers side by side, at most `limit` lines.
    static func describe(_ result: ExchangeResult, limit: Int = 60) -> String {
        var lines: [String] = []
        for index in 0..<max(result.kiosk.count, result.mpd.count) {
            let left = index < result.kiosk.count ? result.kiosk[index] : ""
            let right = index < result.mpd.count ? result.mpd[index] : ""
            let mark = left == right ? " " : "≠"
            lines.append("  \(mark) \(left.padding(to: 48)) | \(right)")
        }
        if lines.count > limit { lines = Array(lines.prefix(limit)) + ["  … \(lines.count - limit) more lines"] }
        return "  kiosk-player\(String(repeating: " ", count: 39))| mpd 0.23.12\n" + lines.joined(separator: "\n")
    }

    static func row(_ key: String, _ kind: KnownDifference.Kind, _ reason: String) -> String {
        "    KnownDifference(#\"\(key)\"#, .\(kindName(kind)), #\"\(reason)\"#),"
    }

    /// The table as Swift: one `rows` group per reason, in the order the script meets them.
    static func table(_ rows: [KnownDifference]) -> String {
        var groups: [(kind: KnownDifference.Kind, reason: String, exchanges: [String])] = []
        for row in rows {
            if let index = groups.firstIndex(where: { $0.kind == row.kind && $0.reason == row.reason }) {
                groups[index].exchanges.append(row.exchange)
            } else {
                groups.append((row.kind, row.reason, [row.exchange]))
            }
        }
        var text = "let knownDifferences: [KnownDifference] = [\n"
        for group in groups {
            text += "    KnownDifference.rows(\n        .\(kindName(group.kind)), #\"\(group.reason)\"#,\n        [\n"
            text += group.exchanges.map { "            #\"\($0)\"#,\n" }.joined()
            text += "        ]),\n"
        }
        return text + "].flatMap { $0 }\n"
    }

    static func kindName(_ kind: KnownDifference.Kind) -> String {
        switch kind {
        case .featureFails: "featureFails"
        case .differsButWorks: "differsButWorks"
        case .cosmetic: "cosmetic"
        }
    }

    /// Every exchange with its result, the differing ones with both answers, then the table as
    /// Swift: the known rows as they are, new ones marked TODO, stale ones left out.
    var report: String {
        var text = summary + "\n\n"
        for result in results {
            let status =
                result.identical
                ? (rows[result.exchange.key] == nil ? "identical" : "identical (stale row)")
                : rows[result.exchange.key].map { "known (\($0.kind.rawValue)): \($0.reason)" } ?? "NEW"
            text += "[\(status)] \(result.exchange.key)\n"
            if !result.identical { text += DifferentialOutcome.describe(result, limit: 1000) + "\n" }
        }
        let current = results.filter { !$0.identical }.map { result in
            rows[result.exchange.key]
                ?? KnownDifference(result.exchange.key, .differsButWorks, "TODO: why, and the class")
        }
        return text + "\n" + DifferentialOutcome.table(current)
    }
}

extension String {
    func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
