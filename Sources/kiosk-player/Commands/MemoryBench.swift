import CKioskShims
import Glibc
import KioskLibrary
import KioskSystem

/// `bench memory`: what the library holds in memory for a 10 000-track stick, counted inside the
/// process (bytes malloc has handed out, glibc's mallinfo2), as the player holds it after a start:
/// the scan result (taken from the index) and the catalog built from it.
extension BenchCommand {
    static var memoryBenchmarks: [Benchmark] {
        [Benchmark(name: "memory", summary: "bytes the library holds: scan result and catalog", run: libraryMemory)]
    }

    static func libraryMemory(_ args: [String]) throws -> Int32 {
        let name = "bench memory"
        let parsed = try ParsedArguments(args, command: name, options: ["--library"])
        let library = parsed.value("--library") ?? "/var/tmp/kiosk-player-bench-library-10000"
        if parsed.value("--library") == nil { try ensureStartupLibrary(library) }
        var template = Array("/tmp/kiosk-bench-memory-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw ToolError("mkdtemp: \(Errno.current)") }
        let state = String(cString: made)
        defer { removeTree(state) }
        let volume = VolumeIdentity.identify(directory: library)
        let indexPath = "\(state)/\(volume.rawValue).sqlite"
        // The index, as a first scan leaves it.
        do {
            let (contents, _) = try VolumeScanner().scan(volume: volume, mountPoint: library, indexPath: indexPath)
            _ = contents.tracks.count
        }
        func inUse() -> Int {
            _ = kiosk_malloc_trim()
            var used = 0
            var free = 0
            kiosk_malloc_usage(&used, &free)
            return used
        }
        func line(_ text: String) { printLine("\(name): \(text)") }
        func kib(_ bytes: Int) -> String { "\(bytes / 1024) KiB" }

        let before = inUse()
        let started = Syscalls.monotonicNanoseconds()
        var (contents, stats) = try VolumeScanner().scan(volume: volume, mountPoint: library, indexPath: indexPath)
        let scanned = Syscalls.monotonicNanoseconds()
        let afterScan = inUse()
        let catalog = Catalog(volumes: [contents])
        // As the library keeps them: the scan result takes the catalog's track array.
        contents = catalog.sharingTracks(with: contents)
        let built = Syscalls.monotonicNanoseconds()
        let afterCatalog = inUse()
        let tracks = max(1, catalog.trackCount)
        line(
            "library \(library): \(contents.tracks.count) tracks (\(stats.filesRead) files read, \(stats.filesUnchanged) from the index); Track is \(MemoryLayout<Track>.stride) bytes"
        )
        line(
            "scan result (from the index, \(formatMilliseconds(scanned - started))): \(kib(afterScan - before)), \((afterScan - before) / tracks) bytes per track"
        )
        line(
            "catalog (\(formatMilliseconds(built - scanned))): +\(kib(afterCatalog - afterScan)), \((afterCatalog - afterScan) / tracks) bytes per track"
        )
        line(
            "both, as the player holds them: \(kib(afterCatalog - before)), \((afterCatalog - before) / tracks) bytes per track"
        )
        withExtendedLifetime((contents, catalog)) {}
        return 0
    }
}
