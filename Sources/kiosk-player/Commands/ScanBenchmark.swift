import Glibc
import KioskLibrary
import KioskSystem

extension BenchCommand {
    /// `bench scan`: generates a synthetic library once (cached under /var/tmp), then times a full
    /// scan into a fresh index, a rescan with nothing changed, and a rescan after 1 % of the files
    /// were rewritten; prints the index size and the peak RSS.
    static func scanLibrary(_ args: [String]) throws -> Int32 {
        let name = "bench scan"
        let parsed = try ParsedArguments(args, command: name, options: ["--library", "--tracks"])
        let trackCount = try parsed.int("--tracks", command: name, range: 20...200_000) ?? 10_000
        var layout = SyntheticLibrary.Layout()
        layout.albums = max(1, trackCount / layout.tracksPerAlbum)
        let library = parsed.value("--library") ?? "/var/tmp/kiosk-player-bench-library-\(layout.trackCount)"
        try ensureLibrary(at: library, layout: layout)

        let state = try makeTemporaryDirectory("kiosk-bench-scan")
        defer { removeTree(state) }
        let volume = VolumeIdentity.identify(directory: library)
        let indexPath = "\(state)/\(volume.rawValue).sqlite"

        func timedScan() throws -> (stats: ScanStatistics, catalogSeconds: Double, catalog: Catalog) {
            let scanner = VolumeScanner()
            let (contents, stats) = try scanner.scan(volume: volume, mountPoint: library, indexPath: indexPath)
            let start = Syscalls.monotonicNanoseconds()
            let catalog = Catalog(volumes: [contents])
            return (stats, Double(Syscalls.monotonicNanoseconds() - start) / 1e9, catalog)
        }

        let full = try timedScan()
        let unchanged = try timedScan()
        // Rewrite 1 % of the tracks with a new title (size and mtime change).
        let stamp = Syscalls.realtimeNanoseconds() / 1_000_000
        var rewritten = 0
        for index in stride(from: 50, to: layout.trackCount, by: 100) {
            var track = SyntheticLibrary.track(
                album: index / layout.tracksPerAlbum, number: index % layout.tracksPerAlbum, layout: layout)
            track.tags[0].value += " (take \(stamp))"
            try SyntheticLibrary.write(track, under: library, compressionLevel: layout.compressionLevel)
            rewritten += 1
        }
        let changed = try timedScan()

        let stats = full.stats
        func line(_ text: String) { printLine("bench scan: \(text)") }
        line(
            "library \(library): \(stats.flacFiles) FLAC files, \(layout.albums) albums, \(stats.playlists) playlists (warm page cache)"
        )
        line(
            "full scan: \(ScanCommand.seconds(stats.seconds)) + catalog \(ScanCommand.seconds(full.catalogSeconds)) = \(ScanCommand.seconds(stats.seconds + full.catalogSeconds)) (walk \(ScanCommand.seconds(stats.walkSeconds)); \(stats.filesRead) files read, \(Int(Double(stats.filesRead) / max(stats.seconds, 1e-9))) files/s; \(full.catalog.trackCount) tracks, \(full.catalog.problems.count) problems)"
        )
        let u = unchanged.stats
        line(
            "no-change rescan: \(ScanCommand.seconds(u.seconds)) + catalog \(ScanCommand.seconds(unchanged.catalogSeconds)) = \(ScanCommand.seconds(u.seconds + unchanged.catalogSeconds)) (\(percent(u.seconds, of: stats.seconds)) of the full scan, \(percent(u.seconds + unchanged.catalogSeconds, of: stats.seconds + full.catalogSeconds)) with catalog); \(u.filesRead) files read"
        )
        let c = changed.stats
        line(
            "rescan after 1 % changed (\(rewritten) files rewritten): \(ScanCommand.seconds(c.seconds)) + catalog \(ScanCommand.seconds(changed.catalogSeconds)); \(c.filesRead) files read"
        )
        line(
            "index \(mebibytes(c.indexBytes)) MiB (\(indexPath.split(separator: "/").last ?? "")); peak RSS \(mebibytes(Int64(Syscalls.peakResidentBytes()))) MiB"
        )
        return 0
    }

    private static func percent(_ part: Double, of whole: Double) -> String {
        let tenths = Int((part / max(whole, 1e-9) * 1000).rounded())
        return "\(tenths / 10).\(tenths % 10) %"
    }

    private static func mebibytes(_ bytes: Int64) -> String {
        let tenths = Int((Double(bytes) / 1_048_576 * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// Generates the library unless a complete one with the same layout is there already.
    /// Generation goes to `DIR.partial` and is renamed when complete.
    private static func ensureLibrary(at path: String, layout: SyntheticLibrary.Layout) throws {
        let marker = path + "/.kiosk-synthetic-library"
        let description = "v1 \(layout)"
        if let existing = try? Syscalls.readFile(marker, limit: 4096),
            String(decoding: existing, as: UTF8.self) == description
        {
            return
        }
        if Syscalls.exists(path) {
            guard Syscalls.exists(marker) else {
                throw ToolError("\(path) exists and is not a generated library; remove it or pass --library")
            }
            removeTree(path)
        }
        let partial = path + ".partial"
        removeTree(partial)
        printLine("bench scan: generating \(layout.trackCount) tracks in \(path) (once)…")
        let start = Syscalls.monotonicNanoseconds()
        let summary = try SyntheticLibrary.generate(at: partial, layout: layout)
        try SyntheticLibrary.writeFile(path: partial + "/.kiosk-synthetic-library", bytes: Array(description.utf8))
        try Syscalls.rename(partial, path)
        printLine(
            "bench scan: generated \(summary.tracks) tracks (\(summary.embeddedPictures) with embedded art, \(summary.coverFiles) cover files, \(summary.playlists) playlists) in \(ScanCommand.seconds(Double(Syscalls.monotonicNanoseconds() - start) / 1e9))"
        )
    }

    private static func makeTemporaryDirectory(_ prefix: String) throws -> String {
        var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw Errno.current.with("mkdtemp") }
        return String(cString: made)
    }

    /// `rm -rf` without following symbolic links.
    static func removeTree(_ path: String) {
        guard let st = try? Syscalls.linkStatus(path) else { return }
        if st.st_mode & S_IFMT == S_IFDIR {
            for entry in (try? Syscalls.readDirectory(path).entries) ?? [] { removeTree(path + "/" + entry.name) }
            try? Syscalls.removeDirectory(path)
        } else {
            try? Syscalls.unlink(path)
        }
    }
}
