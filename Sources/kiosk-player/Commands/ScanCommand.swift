// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskCommandLine
import KioskLibrary
import KioskModel
import KioskSystem

/// `kiosk-player scan DIR [--json] [--state-dir DIR]`: scans a folder as the player scans a USB
/// stick and prints the catalog summary, every problem and the timing (or the catalog as JSON).
enum ScanCommand {
    static var command: Command {
        Command(
            name: "scan",
            summary: "scan a folder, print the catalog summary and problems",
            synopsis: ["DIR [--json] [--state-dir DIR]"],
            description: """
                Scans DIR like a USB stick: music files (tags, playability), playlists (.m3u, .m3u8)
                and cover images. Prints the number of collections per category, every file left
                out or read with a caveat (file: reason), and the time taken.

                """,
            options: [
                .flag(
                    "--json",
                    """
                    print the whole catalog as JSON instead (tracks, categories
                    with their tracks in play order, problems, statistics)
                    """),
                .text(
                    "--state-dir", "DIR",
                    """
                    keep the index in DIR/library/ (a second scan then reads only
                    files that changed); without it every file is read
                    """),
            ],
            run: run)
    }

    static func run(_ parsed: ParsedArguments) throws -> Int32 {
        guard parsed.positionals.count == 1 else {
            throw parsed.usageError(parsed.positionals.isEmpty ? "which folder?" : "one folder only")
        }
        let folder = parsed.positionals[0]
        guard let status = try? Syscalls.fileStatus(folder), status.st_mode & S_IFMT == S_IFDIR else {
            throw ToolError("\(folder): not a folder")
        }
        let root = try Syscalls.canonicalPath(folder)
        let volume = VolumeIdentity.identify(directory: root)
        var indexPath: String?
        if let state = parsed.value("--state-dir") {
            try Syscalls.mkdirs(state + "/library")
            indexPath = "\(state)/library/\(volume.rawValue).sqlite"
        }
        let scanner = VolumeScanner()
        let (contents, stats) = try scanner.scan(volume: volume, mountPoint: root, indexPath: indexPath)
        let buildStart = Syscalls.monotonicNanoseconds()
        let catalog = Catalog(volumes: [contents])
        let buildSeconds = Double(Syscalls.monotonicNanoseconds() - buildStart) / 1e9

        if parsed.has("--json") {
            guard case .object(var members) = catalog.jsonValue() else { return 1 }
            members.append(("statistics", statisticsJSON(stats, buildSeconds: buildSeconds)))
            printLine(JSONValue.object(members).serialized(pretty: true))
            return 0
        }
        printLine(
            "Scanned \(TerminalText.escaped(root)) in \(seconds(stats.seconds + buildSeconds)) (walk \(seconds(stats.walkSeconds)), catalog \(seconds(buildSeconds)))"
        )
        printLine(
            "music files: \(stats.musicFiles) (\(stats.filesRead) read, \(stats.filesUnchanged) unchanged from the index), playlists: \(stats.playlists), folders: \(stats.folders)"
        )
        printLine("Tracks: \(catalog.trackCount)")
        for category in Category.allCases {
            printLine("  \(category.title): \(catalog.collections(in: category).count)")
        }
        let excluded = catalog.problems.filter { $0.severity == .excluded }
        let warnings = catalog.problems.filter { $0.severity == .warning }
        printLine("Left out: \(excluded.count)")
        for problem in excluded {
            printLine(
                TerminalText.escaped(
                    "  \(problem.relativePath.isEmpty ? root : problem.relativePath): \(problem.reason)"))
        }
        printLine("Warnings: \(warnings.count)")
        for problem in warnings {
            printLine(
                TerminalText.escaped(
                    "  \(problem.relativePath.isEmpty ? root : problem.relativePath): \(problem.reason)"))
        }
        if let indexPath { printLine("Index: \(indexPath) (\(stats.indexBytes / 1024) KiB)") }
        return 0
    }

    static func statisticsJSON(_ stats: ScanStatistics, buildSeconds: Double) -> JSONValue {
        // The whole process's reads: what the tests budget, since a count does not slow down on a busy machine.
        let reads = Syscalls.readCounters()
        return .object([
            ("musicFiles", .number(Double(stats.musicFiles))),
            ("filesRead", .number(Double(stats.filesRead))),
            ("filesUnchanged", .number(Double(stats.filesUnchanged))),
            ("playlists", .number(Double(stats.playlists))),
            ("folders", .number(Double(stats.folders))),
            ("scanSeconds", .number(stats.seconds)),
            ("walkSeconds", .number(stats.walkSeconds)),
            ("catalogSeconds", .number(buildSeconds)),
            ("peakResidentBytes", .number(Double(Syscalls.peakResidentBytes()))),
            ("readBytes", .number(Double(reads.bytes))),
            ("readCalls", .number(Double(reads.calls))),
        ])
    }

    static func seconds(_ value: Double) -> String {
        let ms = Int((value * 1000).rounded())
        let frac = String(ms % 1000)
        return "\(ms / 1000).\(String(repeating: "0", count: 3 - frac.count))\(frac) s"
    }
}
