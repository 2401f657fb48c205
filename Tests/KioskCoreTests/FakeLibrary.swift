// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import KioskSystem
import KioskTestSupport

@testable import KioskCore
@testable import KioskLibrary

/// What the player rig needs of a library: volumes come and go, scans end, the catalog.
protocol RigLibrary: AnyObject {
    func addVolume(path: String)
    func removeVolume(path: String)
    var isIdle: Bool { get }
    var catalog: Catalog { get }
    func stop()
}

extension Library: RigLibrary {}

/// The library of the player-logic tests, without a loop or threads: a folder added is scanned at
/// once by the real `VolumeScanner` (the fixture volumes once per process), and the events reach
/// the player on virtual time as the `Library` sends them: `volumeAdded` now, `scanFinished` and
/// `catalogChanged` `scanMilliseconds` later (a saved track can play in between, as on a box).
///
/// Thread: the test's thread only.
final class FakeLibrary: RigLibrary {
    /// Virtual time a scan takes.
    static let scanMilliseconds = 5

    private let clock: VirtualClock
    private let onEvent: (LibraryEvent, Catalog) -> Void
    private(set) var catalog = Catalog.empty
    /// A scan first shows every other track in reverse path order (as a long scan's catalog grows
    /// before its end), and ends a second later with the whole volume.
    var growingScans = false
    private var scanned: [VolumeID: VolumeContents] = [:]
    private var scanning: [VolumeID: TimerID] = [:]

    init(clock: VirtualClock, onEvent: @escaping (LibraryEvent, Catalog) -> Void) {
        self.clock = clock
        self.onEvent = onEvent
    }

    var isIdle: Bool { scanning.isEmpty }

    func addVolume(path: String) {
        let mountPoint = (try? Syscalls.canonicalPath(path)) ?? path
        let id = VolumeIdentity.identify(directory: mountPoint)
        onEvent(.volumeAdded(id, mountPoint: mountPoint), catalog)
        scanning[id] = clock.schedule(afterMilliseconds: Self.scanMilliseconds) { [weak self] in
            self?.finishScan(id, mountPoint: mountPoint)
        }
    }

    func removeVolume(path: String) {
        let mountPoint = (try? Syscalls.canonicalPath(path)) ?? path
        let id = VolumeIdentity.identify(directory: mountPoint)
        if let timer = scanning.removeValue(forKey: id) { clock.cancel(timer) }
        onEvent(.volumeRemoved(id, mountPoint: mountPoint), catalog)
        guard scanned.removeValue(forKey: id) != nil else { return }
        catalog = Self.catalog(of: scanned)
        onEvent(.catalogChanged, catalog)
    }

    func stop() {
        for timer in scanning.values { clock.cancel(timer) }
        scanning = [:]
    }

    private func finishScan(_ id: VolumeID, mountPoint: String) {
        scanning[id] = nil
        // A folder that cannot be scanned (gone already) adds nothing, as in the `Library`.
        let contents = Self.scan(id, mountPoint: mountPoint)
        if growingScans, let contents, scanned[id] == nil {
            let paths = contents.tracks.map(\.relativePath).sorted(by: >)
            let found = Set(paths.indices.filter { $0 % 2 == 0 }.map { paths[$0] })
            scanned[id] = VolumeContents(
                volume: id, mountPoint: mountPoint, tracks: contents.tracks.filter { found.contains($0.relativePath) },
                playlists: [], covers: [:], problems: [])
            catalog = Self.catalog(of: scanned)
            onEvent(.catalogChanged, catalog)
            scanning[id] = clock.schedule(afterMilliseconds: 1000) { [weak self] in
                self?.finishScan(id, mountPoint: mountPoint)
            }
            return
        }
        scanned[id] = contents
        catalog = Self.catalog(of: scanned)
        let tracks = contents?.tracks.count ?? 0
        onEvent(.scanFinished(id, tracks: tracks, problems: contents?.problems.count ?? 0, seconds: 0), catalog)
        onEvent(.catalogChanged, catalog)
    }

    private static func catalog(of volumes: [VolumeID: VolumeContents]) -> Catalog {
        Catalog(volumes: volumes.values.sorted { $0.volume < $1.volume })
    }

    /// The fixture volumes never change (a version marker says they are complete): scanned once.
    private static let fixtureScans = Locked<[String: VolumeContents]>([:])

    private static func scan(_ id: VolumeID, mountPoint: String) -> VolumeContents? {
        let isFixture = mountPoint.hasPrefix(PlayerFixtures.root + "/")
        if isFixture, let done = fixtureScans.withLock({ $0[mountPoint] }) { return done }
        let scanner = VolumeScanner(readerThreads: 1)
        guard let contents = try? scanner.scan(volume: id, mountPoint: mountPoint, indexPath: nil).contents else {
            return nil
        }
        if isFixture { fixtureScans.withLock { $0[mountPoint] = contents } }
        return contents
    }
}
