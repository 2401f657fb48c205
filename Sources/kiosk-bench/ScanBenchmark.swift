// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskCommandLine
import KioskLibrary
import KioskSystem

extension BenchCommand {
    /// `bench scan [--mixed]`: generates a synthetic library once (cached under /var/tmp; all FLAC,
    /// or with `--mixed` half FLAC, 30 % MP3, 10 % M4A, 10 % Ogg Vorbis/Opus), then times a full
    /// scan into a fresh index, a rescan with nothing changed, and a rescan after 1 % of the files
    /// were rewritten; prints the index size and the peak RSS. The full scan checks FLAC, MP3, M4A,
    /// Ogg Vorbis and Opus files by their headers, as the `Library` does, and the background
    /// playability pass that decodes their first frames is timed after it; `--decode-in-scan`
    /// decodes them in the scan instead.
    static func scanLibrary(_ parsed: ParsedArguments) throws -> Int32 {
        let trackCount = parsed.int("--tracks") ?? 10_000
        let threads = parsed.int("--threads") ?? VolumeScanner.defaultReaderThreads
        let cold = parsed.has("--cold")
        let decodeInScan = parsed.has("--decode-in-scan")
        if cold && getuid() != 0 { throw ToolError("--cold drops the page cache and needs root") }
        var layout = SyntheticLibrary.Layout()
        layout.albums = max(1, trackCount / layout.tracksPerAlbum)
        layout.mixedFormats = parsed.has("--mixed")
        if layout.mixedFormats, let format = MusicFileEncoder.formats.first(where: { !MusicFileEncoder.canMake($0) }) {
            throw ToolError(
                "--mixed makes \(format) files with \(MusicFileEncoder.programs(for: format).joined(separator: " and ")): install them (apt-get install flac lame ffmpeg vorbis-tools opus-tools)"
            )
        }
        let library =
            parsed.value("--library")
            ?? "/var/tmp/kiosk-player-bench-library-\(layout.mixedFormats ? "mixed-" : "")\(layout.trackCount)"
        try ensureLibrary(at: library, layout: layout)

        let state = try makeTemporaryDirectory("kiosk-bench-scan")
        defer { removeTree(state) }
        let volume = VolumeIdentity.identify(directory: library)
        let indexPath = "\(state)/\(volume.rawValue).sqlite"

        struct Phase {
            var stats: ScanStatistics
            var contents: VolumeContents
            var wall: Double
            var cpu: Double
            var catalogWall: Double
            var catalogCPU: Double
            var catalog: Catalog
            /// Scan and catalog: the music is browsable after this long.
            var totalWall: Double { wall + catalogWall }
            var totalCPU: Double { cpu + catalogCPU }
        }
        /// One scan as the `Library` runs it: with the contents and catalog of an earlier scan
        /// (`previous`) the catalog is kept when the scan finds nothing changed.
        func timedScan(previous: Phase? = nil) throws -> Phase {
            if cold { dropCaches() }
            let scanner = VolumeScanner(readerThreads: threads, decodesFirstFrames: decodeInScan)
            let cpu0 = Syscalls.processCPUNanoseconds()
            let wall0 = Syscalls.monotonicNanoseconds()
            let (contents, stats) = try scanner.scan(
                volume: volume, mountPoint: library, indexPath: indexPath, previous: previous?.contents)
            let wall1 = Syscalls.monotonicNanoseconds()
            let cpu1 = Syscalls.processCPUNanoseconds()
            let catalog =
                stats.reusedPrevious && previous != nil ? previous!.catalog : Catalog(volumes: [contents])
            let wall2 = Syscalls.monotonicNanoseconds()
            let cpu2 = Syscalls.processCPUNanoseconds()
            return Phase(
                stats: stats, contents: contents, wall: Double(wall1 - wall0) / 1e9, cpu: Double(cpu1 - cpu0) / 1e9,
                catalogWall: Double(wall2 - wall1) / 1e9, catalogCPU: Double(cpu2 - cpu1) / 1e9, catalog: catalog)
        }

        let full = try timedScan()
        // The background pass, as the Library starts it when the scan has finished.
        let passCPU0 = Syscalls.processCPUNanoseconds()
        let pass = PlayabilityPass.runToEnd(
            full.contents, indexPath: indexPath, threads: min(2, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))))
        let passCPU = Double(Syscalls.processCPUNanoseconds() - passCPU0) / 1e9
        // Nothing changed, the earlier scan's result in memory (a rescan of a present stick, or
        // one plugged in again): what MPD's `update` does with its in-memory database.
        let unchanged = try timedScan(previous: full)
        // Nothing changed, nothing in memory (the player restarted): from the index.
        let fromIndex = try timedScan()
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
        let changed = try timedScan(previous: fromIndex)

        func line(_ text: String) { printLine("bench scan: \(text)") }
        func s(_ seconds: Double) -> String { formatSeconds(seconds, digits: 3) + " s" }
        func times(_ phase: Phase) -> String {
            "\(s(phase.totalWall)) wall, \(s(phase.totalCPU)) CPU (scan \(s(phase.wall)) wall / \(s(phase.cpu)) CPU, catalog \(s(phase.catalogWall)) wall / \(s(phase.catalogCPU)) CPU)"
        }
        line(
            "library \(library): \(full.stats.musicFiles) music files\(layout.mixedFormats ? " (mixed formats)" : ""), \(layout.albums) albums, \(full.stats.playlists) playlists; \(threads) reader thread(s); \(cold ? "cold page cache (dropped before each scan)" : "warm page cache")"
        )
        line(
            "full scan: \(times(full)); walk \(s(full.stats.walkSeconds)); \(full.stats.filesRead) files read (\(decodeInScan ? "each first frame decoded" : "listed by headers")), \(Int(Double(full.stats.filesRead) / max(full.wall, 1e-9))) files/s; \(full.catalog.trackCount) tracks, \(full.catalog.problems.count) problems"
        )
        line(
            "background playability pass: \(pass.checked) first frames decoded in \(s(pass.seconds)) wall, \(s(passCPU)) CPU (idle priority); \(pass.failed) unplayable"
        )
        line(
            "no-change rescan: \(times(unchanged)); \(percent(unchanged.totalWall, of: full.totalWall)) of the full scan's wall, \(percent(unchanged.totalCPU, of: full.totalCPU)) of its CPU; \(unchanged.stats.filesRead) files read\(unchanged.stats.reusedPrevious ? ", nothing changed: previous contents and catalog kept" : "")"
        )
        line(
            "no-change rescan, nothing in memory (after a restart; from the index): \(times(fromIndex)); \(percent(fromIndex.totalWall, of: full.totalWall)) of the full scan's wall; \(fromIndex.stats.filesRead) files read"
        )
        line(
            "rescan after 1 % changed (\(rewritten) files rewritten): \(times(changed)); \(changed.stats.filesRead) files read"
        )
        line(
            "index \(mebibytes(changed.stats.indexBytes)) MiB; peak RSS \(mebibytes(Int64(Syscalls.peakResidentBytes()))) MiB"
        )
        return 0
    }

    /// Drops the page cache, dentries and inodes (root only), so the next scan reads from the disk
    /// as a freshly plugged stick would.
    private static func dropCaches() {
        sync()
        if let fd = try? FileDescriptor.open("/proc/sys/vm/drop_caches", O_WRONLY) {
            try? fd.writeAll(Array("3\n".utf8))
        }
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
        let description = "v2 \(layout)"
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
            "bench scan: generated \(summary.tracks) tracks (\(summary.embeddedPictures) with embedded art, \(summary.coverFiles) cover files, \(summary.playlists) playlists) in \(formatSeconds(Double(Syscalls.monotonicNanoseconds() - start) / 1e9, digits: 3)) s"
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
