// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import Glibc
import KioskCommandLine
import KioskLibrary
import KioskModel
import KioskSystem

/// `bench memory`: what the library holds in memory for a 10 000-track stick, as the player
/// holds it after a start: the scan result (taken from the index) and the catalog built from it,
/// made on a scan thread as the `Library` makes them. Counted inside the process: bytes malloc
/// has handed out (glibc's mallinfo2), and the anonymous resident memory (RssAnon) they cost
/// after `malloc_trim`, which includes what fragmentation keeps.
extension BenchCommand {
    /// What one scan left behind, handed from the scan thread.
    private final class Result: Sendable {
        let value = Locked<
            (VolumeContents, Catalog, ScanStatistics, scan: UInt64, catalog: UInt64, inUse: Int, anon: Int)?
        >(nil)
    }

    static func libraryMemory(_ parsed: ParsedArguments) throws -> Int32 {
        let name = "bench memory"
        let library = parsed.value("--library") ?? "/var/tmp/kiosk-player-bench-library-10000"
        if parsed.value("--library") == nil { try ensureStartupLibrary(library) }
        var template = Array("/tmp/kiosk-bench-memory-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw ToolError("mkdtemp: \(Errno.current)") }
        let state = String(cString: made)
        defer { removeTree(state) }
        let volume = VolumeIdentity.identify(directory: library)
        let indexPath = "\(state)/\(volume.rawValue).sqlite"
        // The index, as a first scan leaves it (made here, so the scan measured below starts a
        // malloc arena of its own, as the player's does).
        _ = try VolumeScanner().scan(volume: volume, mountPoint: library, indexPath: indexPath)
        func line(_ text: String) { printLine("\(name): \(text)") }
        func kib(_ bytes: Int) -> String { "\(bytes / 1024) KiB" }

        let before = inUse()
        let anonBefore = residentAnonymousBytes()
        let result = Result()
        try onScanThread {
            let started = Syscalls.monotonicNanoseconds()
            guard
                let (contents, stats) = try? VolumeScanner().scan(
                    volume: volume, mountPoint: library, indexPath: indexPath)
            else { return }
            let scanned = Syscalls.monotonicNanoseconds()
            let afterScan = inUse()
            let anonScan = residentAnonymousBytes()
            let catalog = Catalog(volumes: [contents])
            // As the library keeps them: the scan result takes the catalog's track array.
            let kept = catalog.sharingTracks(with: contents)
            let built = Syscalls.monotonicNanoseconds()
            result.value.withLock {
                $0 = (kept, catalog, stats, scanned - started, built - scanned, afterScan, anonScan)
            }
        }
        guard let (contents, catalog, stats, scanTime, catalogTime, afterScan, anonScan) = result.value.withLock({ $0 })
        else {
            throw ToolError("\(library): the scan failed")
        }
        let afterCatalog = inUse()
        let anonAfter = residentAnonymousBytes()
        let tracks = max(1, catalog.trackCount)
        line(
            "library \(library): \(catalog.trackCount) tracks (\(stats.filesRead) files read, \(stats.filesUnchanged) from the index); Track is \(MemoryLayout<Track>.stride) bytes"
        )
        line(
            "scan result (from the index, \(formatMilliseconds(scanTime))): \(kib(afterScan - before)), \((afterScan - before) / tracks) bytes per track; resident after malloc_trim +\(kib(anonScan - anonBefore)) anonymous"
        )
        line(
            "catalog (\(formatMilliseconds(catalogTime))): +\(kib(afterCatalog - afterScan)), \((afterCatalog - afterScan) / tracks) bytes per track"
        )
        line(
            "both, as the player holds them: \(kib(afterCatalog - before)) allocated, \((afterCatalog - before) / tracks) bytes per track; resident after malloc_trim +\(kib(anonAfter - anonBefore)) anonymous; peak RSS \(kib(Syscalls.peakResidentBytes()))"
        )
        withExtendedLifetime((contents, catalog)) {}
        return 0
    }

    /// Runs `body` on a thread of its own, as the library's scans run, and waits for it.
    private static func onScanThread(_ body: @escaping @Sendable () -> Void) throws {
        let thread = try KioskThread(name: "kiosk-scan", body)
        thread.join()
    }

    /// Bytes malloc has handed out, after giving free memory back to the kernel.
    private static func inUse() -> Int {
        _ = kiosk_malloc_trim()
        var used = 0
        var free = 0
        kiosk_malloc_usage(&used, &free)
        return used
    }

    /// RssAnon of /proc/self/status in bytes.
    private static func residentAnonymousBytes() -> Int {
        guard let bytes = try? Syscalls.readFile("/proc/self/status", limit: 1 << 16) else { return 0 }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where line.hasPrefix("RssAnon:") {
            return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
        }
        return 0
    }
}
