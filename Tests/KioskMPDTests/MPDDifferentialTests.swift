import Glibc
import KioskSystem
import KioskTestSupport
import Testing

/// A difference between KioskPlayer's answer and mpd 0.23.12's that is known, with its reason.
struct KnownDifference: Sendable {
    /// How much it matters to a client.
    enum Kind: String, Sendable {
        /// (a) A client feature errors or shows nothing.
        case featureFails = "a"
        /// (b) The answer differs, but clients work.
        case differsButWorks = "b"
        /// (c) Cosmetic: wording, a list's contents, a bound.
        case cosmetic = "c"
    }

    /// The exchange's key: `scene: line` as the report prints it.
    let exchange: String
    let kind: Kind
    let reason: String

    init(_ exchange: String, _ kind: Kind, _ reason: String) {
        self.exchange = exchange
        self.kind = kind
        self.reason = reason
    }
}

/// Every difference the differential test knows of. The test fails on a difference not listed here
/// and on a row whose exchange no longer differs, so the table stays true; regenerate it with
/// `KIOSK_MPD_DIFF_REPORT=/tmp/mpd-diff.txt swift test --skip-build --filter MPDDifferentialTests`
/// (the report ends with the table as Swift, new rows marked TODO).
let knownDifferences: [KnownDifference] = []

/// What one exchange answered on both servers, normalised.
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
        let protocolCommands = Set(results.flatMap(\.exchange.commands).filter { !$0.hasPrefix("mpc ") })
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

    /// Both answers side by side, at most 60 lines.
    static func describe(_ result: ExchangeResult) -> String {
        var lines: [String] = []
        for index in 0..<max(result.kiosk.count, result.mpd.count) {
            let left = index < result.kiosk.count ? result.kiosk[index] : ""
            let right = index < result.mpd.count ? result.mpd[index] : ""
            let mark = left == right ? " " : "≠"
            lines.append("  \(mark) \(left.padding(to: 48)) | \(right)")
        }
        if lines.count > 60 { lines = Array(lines.prefix(60)) + ["  … \(lines.count - 60) more lines"] }
        return "  kiosk-player\(String(repeating: " ", count: 39))| mpd 0.23.12\n" + lines.joined(separator: "\n")
    }

    static func row(_ key: String, _ kind: KnownDifference.Kind, _ reason: String) -> String {
        "    KnownDifference(#\"\(key)\"#, .\(kindName(kind)), #\"\(reason)\"#),"
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
            if !result.identical { text += DifferentialOutcome.describe(result) + "\n" }
        }
        text += "\nlet knownDifferences: [KnownDifference] = [\n"
        for result in results where !result.identical {
            let known = rows[result.exchange.key]
            text +=
                DifferentialOutcome.row(
                    result.exchange.key, known?.kind ?? .differsButWorks, known?.reason ?? "TODO: why, and the class")
                + "\n"
        }
        return text + "]\n"
    }
}

extension String {
    func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}

/// KioskPlayer's MPD server and Debian's mpd 0.23.12 answer the same script over one library; only
/// ids, times and versions are normalised. Differences are either in `knownDifferences`, with their
/// reason and class, or the test fails.
@Suite(.tags(.integration), .serialized)
struct MPDDifferentialTests {
    @Test func kioskPlayerAnswersTheScriptAsMPDDoesExceptForTheKnownDifferences() throws {
        guard access(ReferenceMPD.executable, X_OK) == 0 else {
            try skipTest("\(ReferenceMPD.executable) is not installed (deploy/install-deps.sh installs mpd)")
            return
        }
        let started = Syscalls.monotonicNanoseconds()
        let harness = try Harness(stick: DifferentialLibrary.write)
        let reference = try ReferenceMPD(
            music: harness.directory.file("sticks"), directory: harness.directory.file("mpd"),
            songs: harness.trackCount)
        defer { reference.process.stop() }
        let exchanges = DifferentialScript.exchanges()
        let (kioskSocket, mpdSocket, mpc) = (harness.socketPath, reference.socket, which("mpc"))
        let results = try harness.client(timeoutSeconds: 300) {
            try DifferentialRun.run(exchanges, kioskSocket: kioskSocket, mpdSocket: mpdSocket, mpc: mpc)
        }
        let outcome = DifferentialOutcome(results: results, table: knownDifferences)
        print(outcome.summary + " (\((Syscalls.monotonicNanoseconds() - started) / 1_000_000) ms)")
        if let path = getenv("KIOSK_MPD_DIFF_REPORT").map({ String(cString: $0) }), !path.isEmpty {
            try AtomicFile.replace(path, with: Array(outcome.report.utf8))
            print("MPD differential report written to \(path)")
        }
        for result in outcome.new {
            Issue.record(
                """
                New difference from mpd 0.23.12 in "\(result.exchange.key)":
                \(DifferentialOutcome.describe(result))
                If it is known, add to knownDifferences:
                \(DifferentialOutcome.row(result.exchange.key, .differsButWorks, "why"))
                """)
        }
        for row in outcome.stale {
            Issue.record(
                "\"\(row.exchange)\" no longer differs from mpd 0.23.12 (or left the script): remove its row from knownDifferences"
            )
        }
    }
}
