// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem
import KioskTestSupport
import Testing

/// A difference between KioskPlayer's answer and mpd 0.23.12's that is known, with its reason.
/// Thread: any (a value).
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

    /// One row per exchange, all for one reason.
    static func rows(_ kind: Kind, _ reason: String, _ exchanges: [String]) -> [KnownDifference] {
        exchanges.map { KnownDifference($0, kind, reason) }
    }
}

/// Every difference the differential test knows of. The test fails on a difference not listed here
/// and on a row whose exchange no longer differs, so the table stays true; regenerate it with
/// `KIOSK_MPD_DIFF_REPORT=/tmp/mpd-diff.txt swift test --skip-build --filter MPDDifferentialTests`
/// (the report ends with the table as Swift, new rows marked TODO).
let knownDifferences: [KnownDifference] = [
    KnownDifference.rows(
        .differsButWorks,
        #"by design (issue 33): crossfade and mixramp are accepted and status goes on reporting none (the box plays gapless, never overlapping)"#,
        [
            #"volume, crossfade, replay gain: status #2"#,
            #"volume, crossfade, replay gain: status #3"#,
        ]),
    KnownDifference.rows(
        .differsButWorks,
        #"the root of lsinfo lists the sticks' playlists by name, as listplaylists and load take them (mpd: only its playlist directory's), and its directory has no Last-Modified"#,
        [
            #"browse: lsinfo"#,
            #"browse: lsinfo """#,
            #"browse: lsinfo /"#,
            #"mpc: $ mpc lsplaylists"#,
            #"mpc: $ mpc lsplaylists #2"#,
            #"mpc: $ mpc ls"#,
        ]),
    KnownDifference.rows(
        .differsButWorks,
        #"listplaylists lists the sticks' playlists (by name, as `load` takes them); mpd lists only its playlist directory (a stick's playlist is loaded by its path there)"#,
        [
            #"stored playlists: ~listplaylists"#,
            #"stored playlists: ~listplaylists #2"#,
            #"stored playlists: ~listplaylists #3"#,
            #"stored playlists: ~listplaylists #4"#,
        ]),
    KnownDifference.rows(
        .cosmetic, #"`commands` lists KioskPlayer's commands (mpd: its own, partitions, mounts, messages)"#,
        [
            #"client and server: commands"#
        ]),
    KnownDifference.rows(
        .differsButWorks,
        #"outputs are the configured ALSA devices, one playing at a time (mpd here: its null output)"#,
        [
            #"client and server: outputs"#,
            #"mpc: $ mpc outputs"#,
        ]),
    KnownDifference.rows(
        .cosmetic, #"decoders lists the box's decoders and their suffixes and MIME types"#,
        [
            #"client and server: decoders"#
        ]),
    KnownDifference.rows(
        .cosmetic, #"no URL handlers (the box plays only the sticks; mpd lists file:// and its input plugins)"#,
        [
            #"client and server: urlhandlers"#
        ]),
    KnownDifference.rows(
        .cosmetic, #"binarylimit above 256 KiB is capped silently (mpd: ACK Number too large)"#,
        [
            #"client and server: binarylimit 99999999"#
        ]),
].flatMap { $0 }

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
        // mpd stops before the harness removes the directory it works in.
        defer { withExtendedLifetime(harness) { reference.process.stop() } }
        let mpc = which("mpc")
        var exchanges = DifferentialScript.exchanges()
        var table = knownDifferences
        if mpc == nil {
            print("◇ mpc is not installed (deploy/install-deps.sh installs it): the script's mpc lines are left out")
            exchanges.removeAll { $0.kind == .mpc }
            table.removeAll { $0.exchange.contains(": $ mpc ") }
        }
        let (kioskSocket, mpdSocket) = (harness.socketPath, reference.socket)
        let results = try harness.client(timeoutSeconds: 300) { [exchanges] in
            try DifferentialRun.run(exchanges, kioskSocket: kioskSocket, mpdSocket: mpdSocket, mpc: mpc)
        }
        let outcome = DifferentialOutcome(results: results, table: table)
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
