// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskModel
import KioskSystem

/// A volume the library currently knows about. Thread: any (a value).
public struct LibraryVolume: Sendable, Hashable {
    public let id: VolumeID
    public let mountPoint: String
    /// Whether a scan of it is queued or running.
    public let isScanning: Bool
    /// Figures of its last finished scan.
    public let statistics: ScanStatistics?
}

/// The music on the volumes present now: volumes come and go (mount watcher, `addVolume`),
/// each is scanned on a worker thread, and `catalog` is replaced by a new snapshot when a scan
/// finishes or a volume leaves.
///
/// Scans run one at a time on a `WorkerThread`; progress and results come back through a
/// `Mailbox`, so `onEvent` and every property are used on the loop thread only. A volume that
/// goes away leaves the catalog at once (its index stays on disk, so its return rescans only what
/// changed).
///
/// A scan lists a FLAC, MP3, M4A, Ogg Vorbis or Opus file from its headers; after it, a
/// `PlayabilityPass` decodes the first block of each such file at idle priority, and the files that fail leave the catalog (a
/// `catalogChanged` event, their problems added) before anyone can choose them. A file chosen in
/// between is skipped by the player with its reason, as any file that fails to decode.
/// Thread: the loop thread.
public final class Library {
    public let stateDirectory: String
    public let mediaRoots: [String]
    public let limits: ScanLimits
    /// The current snapshot of all present volumes.
    public private(set) var catalog: Catalog = .empty

    private let loop: EventLoop
    private let onEvent: (LibraryEvent, Catalog) -> Void
    private let indexDirectory: String
    private var watcher: MountWatcher?
    private var mailbox: Mailbox<WorkerMessage>?
    /// Runs the scans (one job at a time: the loop starts the next when the last has finished).
    private let worker: WorkerThread<@Sendable () -> Void>

    private struct Present {
        let id: VolumeID
        let mountPoint: String
        /// Bumped on each arrival, so a result computed for an earlier presence is recognised.
        let generation: Int
        var contents: VolumeContents?
        var statistics: ScanStatistics?
        /// What the playability pass took out of `contents` since its scan (paths, problems listed),
        /// so a catalog built meanwhile from the contents before (another volume's scan) can be
        /// brought up to date.
        var passRemovals: [(gone: Set<String>, problems: [LibraryProblem])] = []
    }

    private struct Job {
        let number: Int
        let volume: VolumeID
        let generation: Int
        let cancellation: ScanCancellation
        /// How many pass removals each other volume's contents had when the job took them.
        let passRemovalsSeen: [VolumeID: Int]
    }

    private var present: [VolumeID: Present] = [:]
    /// The contents of the volume that left last, kept so that its return (the same stick
    /// unplugged and plugged in again) rescans without reading the index when nothing changed.
    private var departed: VolumeContents?
    private var queue: [VolumeID] = []
    private var running: Job?
    private var nextJob = 1
    private var nextGeneration = 1
    /// The background playability pass of each volume that has one running.
    private var passes: [VolumeID: (number: Int, pass: PlayabilityPass)] = [:]
    private var nextPass = 1

    /// Threads of a playability pass (idle priority: more than the cores would gain nothing).
    static var passThreads: Int { min(2, max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    /// Messages from the scan worker to the loop.
    private enum WorkerMessage: Sendable {
        case progress(job: Int, volume: VolumeID, tracks: Int)
        case finished(job: Int, outcome: Outcome)
        /// The catalog with what the volume's index remembers, built before the scan's walk.
        case remembered(job: Int, volume: VolumeID, tracks: Int, catalog: Catalog, included: [VolumeID: Int])
        case pass(number: Int, volume: VolumeID, report: PlayabilityPass.Report)
    }

    private struct Outcome: Sendable {
        let contents: VolumeContents
        let statistics: ScanStatistics
        /// The merged catalog built on the worker, and which (volume, generation) it holds; nil
        /// when the scan returned the contents the loop's catalog holds already (nothing changed).
        let catalog: Catalog?
        let included: [VolumeID: Int]
    }

    /// - Parameters:
    ///   - stateDirectory: indexes go to `<stateDirectory>/library/<volume-id>.sqlite`.
    ///   - mediaRoots: folders under which mounted volumes are picked up (e.g. `/media`).
    ///   - onEvent: called on the loop thread with each event and the catalog after it.
    public init(
        loop: EventLoop, stateDirectory: String, mediaRoots: [String], limits: ScanLimits = ScanLimits(),
        onEvent: @escaping (LibraryEvent, Catalog) -> Void
    ) throws {
        self.loop = loop
        self.stateDirectory = stateDirectory
        self.mediaRoots = mediaRoots.map { $0.count > 1 && $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        self.limits = limits
        self.onEvent = onEvent
        indexDirectory = stateDirectory + "/library"
        try Syscalls.mkdirs(indexDirectory)
        worker = try WorkerThread(name: "kiosk-scan") { $0() }
        mailbox = Mailbox(loop: loop) { [weak self] message in self?.receive(message) }
    }

    deinit {
        running?.cancellation.cancel()
        worker.stop()
        for (_, entry) in passes { entry.pass.cancel() }
        for (_, entry) in passes { entry.pass.join() }
    }

    /// Begins watching the mount table; volumes mounted under the media roots now are scanned.
    public func start() {
        loop.assertInLoop()
        guard watcher == nil else { return }
        let watcher = MountWatcher(loop: loop, mediaRoots: mediaRoots) { [unowned self] added, removed in
            for mount in removed { self.volumeLeft(mountPoint: mount.mountPoint) }
            for mount in added { self.volumeArrived(id: VolumeIdentity.identify(mount), mountPoint: mount.mountPoint) }
        }
        self.watcher = watcher
        do {
            try watcher.start()
        } catch {
            Log.error("library: cannot watch mounts: \(error); only added folders will be scanned")
        }
    }

    /// Stops watching and cancels a running scan (waits for the worker to notice).
    public func stop() {
        loop.assertInLoop()
        watcher?.stop()
        watcher = nil
        queue.removeAll()
        if let job = running {
            job.cancellation.cancel()
            worker.waitUntilIdle()  // the worker stays for scans started after this
            running = nil
        }
        for (_, entry) in passes { entry.pass.cancel() }
        for (_, entry) in passes { entry.pass.join() }
        passes.removeAll()
    }

    /// Whether a background playability pass runs (on any volume).
    public var isCheckingPlayability: Bool { !passes.isEmpty }

    /// Adds a plain folder (demo, tests), scanned like a mounted volume. Adding a folder that is
    /// present already rescans it.
    public func addVolume(path: String) {
        loop.assertInLoop()
        let mountPoint = (try? Syscalls.canonicalPath(path)) ?? path
        if let existing = present.values.first(where: { $0.mountPoint == mountPoint }) {
            enqueue(existing.id)
            return
        }
        volumeArrived(id: VolumeIdentity.identify(directory: mountPoint), mountPoint: mountPoint)
    }

    /// Removes a folder added with `addVolume` (or a volume by its mount point).
    public func removeVolume(path: String) {
        loop.assertInLoop()
        volumeLeft(mountPoint: (try? Syscalls.canonicalPath(path)) ?? path)
    }

    /// Rescans every present volume (only changed files are read).
    public func rescanAll() {
        loop.assertInLoop()
        for id in present.keys.sorted() { enqueue(id) }
    }

    /// The volumes present now.
    public var volumes: [LibraryVolume] {
        present.values.sorted { $0.mountPoint < $1.mountPoint }.map { volume in
            LibraryVolume(
                id: volume.id, mountPoint: volume.mountPoint,
                isScanning: running?.volume == volume.id || queue.contains(volume.id), statistics: volume.statistics)
        }
    }

    /// Whether no scan is queued or running.
    public var isIdle: Bool { running == nil && queue.isEmpty }

    /// The index file of a volume.
    public func indexPath(for volume: VolumeID) -> String { "\(indexDirectory)/\(volume.rawValue).sqlite" }

    // MARK: - volumes coming and going

    private func volumeArrived(id: VolumeID, mountPoint: String) {
        if let old = present[id] {
            if old.mountPoint == mountPoint {
                enqueue(id)
                return
            }
            // The same stick at a new mount point: treat as leaving and coming back.
            volumeLeft(mountPoint: old.mountPoint)
        }
        present[id] = Present(id: id, mountPoint: mountPoint, generation: nextGeneration)
        nextGeneration += 1
        Log.info("library: volume \(id) at \(mountPoint)")
        emit(.volumeAdded(id, mountPoint: mountPoint))
        enqueue(id)
    }

    private func volumeLeft(mountPoint: String) {
        guard let volume = present.values.first(where: { $0.mountPoint == mountPoint }) else { return }
        present[volume.id] = nil
        departed = volume.contents
        queue.removeAll { $0 == volume.id }
        if running?.volume == volume.id { running?.cancellation.cancel() }
        if let pass = stopPass(of: volume.id) { worker.submit { pass.join() } }
        Log.info("library: volume \(volume.id) at \(mountPoint) went away")
        emit(.volumeRemoved(volume.id, mountPoint: mountPoint))
        let updated = catalog.removing(volumes: [volume.id])
        if updated !== catalog {
            catalog = updated
            emit(.catalogChanged)
        }
    }

    /// Tells the owner of `event`, with the catalog after it: the owner never reads it back.
    private func emit(_ event: LibraryEvent) { onEvent(event, catalog) }

    // MARK: - scanning

    private func enqueue(_ id: VolumeID) {
        if queue.contains(id) { return }
        if let job = running, job.volume == id {
            // Running already: scan again afterwards, so changes made meanwhile are seen.
            queue.append(id)
            return
        }
        queue.append(id)
        startNext()
    }

    private func startNext() {
        guard running == nil, let mailbox else { return }
        while let id = queue.first {
            queue.removeFirst()
            guard let volume = present[id] else { continue }
            let number = nextJob
            nextJob += 1
            let cancellation = ScanCancellation()
            let others = present.values.filter { $0.id != id }.compactMap(\.contents)
            var included: [VolumeID: Int] = [id: volume.generation]
            for other in present.values where other.id != id && other.contents != nil {
                included[other.id] = other.generation
            }
            let mountPoint = volume.mountPoint
            let indexPath = indexPath(for: id)
            let limits = limits
            let includedVolumes = included
            // What an earlier scan produced: the catalog holds it already when the volume has
            // contents; a volume that just came back may find its contents from before it left.
            let previous = volume.contents ?? (departed?.volume == id ? departed : nil)
            let inCatalog = volume.contents != nil
            // The scan writes the index the pass writes: the pass ends first (on the worker).
            let pass = stopPass(of: id)
            worker.submit {
                pass?.join()
                Syscalls.setThreadNiceness(VolumeScanner.niceness)
                Library.runScan(
                    job: number, id: id, mountPoint: mountPoint, indexPath: indexPath, previous: previous,
                    inCatalog: inCatalog, others: others, limits: limits, included: includedVolumes,
                    cancellation: cancellation, mailbox: mailbox)
            }
            running = Job(
                number: number, volume: id, generation: volume.generation, cancellation: cancellation,
                passRemovalsSeen: present.mapValues(\.passRemovals.count))
            return
        }
    }

    /// The worker's body: scan, build the merged catalog (unless nothing changed), send the result.
    private static func runScan(
        job: Int, id: VolumeID, mountPoint: String, indexPath: String, previous: VolumeContents?, inCatalog: Bool,
        others: [VolumeContents], limits: ScanLimits, included: [VolumeID: Int], cancellation: ScanCancellation,
        mailbox: Mailbox<WorkerMessage>
    ) {
        let scanner = VolumeScanner(limits: limits, decodesFirstFrames: false)
        var contents: VolumeContents
        var statistics: ScanStatistics
        // A volume met for the first time since the start: what its index remembers is listed
        // at once, and the scan takes the unchanged files from it.
        var start = previous
        if previous == nil,
            let remembered = RememberedContents.load(
                volume: id, mountPoint: mountPoint, indexPath: indexPath, limits: limits),
            !cancellation.isCancelled
        {
            start = remembered
            mailbox.send(
                .remembered(
                    job: job, volume: id, tracks: remembered.tracks.count,
                    catalog: Catalog(volumes: others + [remembered], limits: limits), included: included))
        }
        do {
            (contents, statistics) = try scanner.scan(
                volume: id, mountPoint: mountPoint, indexPath: indexPath, previous: start,
                cancellation: cancellation
            ) { tracks in
                mailbox.send(.progress(job: job, volume: id, tracks: tracks))
            }
        } catch {
            if cancellation.isCancelled { return mailbox.send(.finished(job: job, outcome: cancelledOutcome(id))) }
            // A volume that cannot be scanned at all shows up as one problem.
            contents = VolumeContents(
                volume: id, mountPoint: mountPoint, tracks: [], playlists: [], covers: [:],
                problems: [LibraryProblem(volume: id, relativePath: "", reason: "\(error)")])
            statistics = ScanStatistics(volume: id, mountPoint: mountPoint)
            statistics.problems = 1
        }
        let catalog =
            statistics.reusedPrevious && inCatalog ? nil : Catalog(volumes: others + [contents], limits: limits)
        // The catalog of this volume alone holds its tracks in canonical order: the contents kept
        // for the next rescan take that array, so each track is stored once.
        if let catalog { contents = catalog.sharingTracks(with: contents) }
        mailbox.send(
            .finished(
                job: job,
                outcome: Outcome(contents: contents, statistics: statistics, catalog: catalog, included: included)
            ))
    }

    private static func cancelledOutcome(_ id: VolumeID) -> Outcome {
        Outcome(
            contents: VolumeContents(
                volume: id, mountPoint: "", tracks: [], playlists: [], covers: [:], problems: []),
            statistics: ScanStatistics(volume: id, mountPoint: ""), catalog: .empty, included: [:])
    }

    private func receive(_ message: WorkerMessage) {
        switch message {
        case .progress(let job, let volume, let tracks):
            guard running?.number == job else { return }
            emit(.scanProgress(volume, tracksFound: tracks))
        case .finished(let number, let outcome):
            guard let job = running, job.number == number else { return }
            running = nil
            if !job.cancellation.isCancelled, var volume = present[job.volume], volume.generation == job.generation {
                let unchanged = outcome.catalog == nil && volume.contents != nil
                volume.contents = outcome.contents
                volume.statistics = outcome.statistics
                volume.passRemovals = []
                present[job.volume] = volume
                if departed?.volume == job.volume { departed = nil }
                var merged: Catalog
                if let built = outcome.catalog {
                    merged = upToDate(built, of: job, included: outcome.included)
                } else if unchanged {
                    merged = catalog
                } else {
                    // Cannot happen (nil only when the volume had contents), but stay correct.
                    merged = Catalog(
                        volumes: present.values.compactMap(\.contents).sorted { $0.volume < $1.volume },
                        limits: limits)
                }
                let changed = merged !== catalog
                catalog = merged
                let stats = outcome.statistics
                Log.info(
                    "library: scanned \(job.volume) in \(stats.seconds) s: \(stats.tracks) tracks, \(stats.filesRead) files read, \(stats.problems) problems\(stats.reusedPrevious ? " (nothing changed)" : "")"
                )
                Self.logLeftOut(outcome.contents.problems, volume: job.volume)
                emit(
                    .scanFinished(
                        job.volume, tracks: stats.tracks, problems: stats.problems, seconds: stats.seconds))
                if changed { emit(.catalogChanged) }
                startPass(of: job.volume)
            }
            startNext()
        case .remembered(let number, let id, let tracks, let built, let included):
            guard let job = running, job.number == number, !job.cancellation.isCancelled,
                present[id]?.generation == job.generation
            else { return }
            Log.info("library: \(tracks) tracks of \(id) listed from its index while the scan confirms them")
            catalog = upToDate(built, of: job, included: included)
            emit(.catalogChanged)
        case .pass(let number, let id, let report):
            guard passes[id]?.number == number, let contents = present[id]?.contents else { return }
            switch report {
            case .failed(let failed):
                // Listed within the scan's limit on problems (a stick of broken files must not hold
                // a line for each); every one leaves the catalog.
                let gone = Set(failed.map(\.relativePath))
                let listed = Array(failed.prefix(max(0, limits.maxProblems - contents.problems.count)))
                present[id]?.contents = contents.leavingOut(gone, problems: listed)
                present[id]?.passRemovals.append((gone, listed))
                catalog = catalog.removing(unplayable: gone, of: id, problems: listed)
                Self.logLeftOut(failed, volume: id)
                emit(.catalogChanged)
            case .finished(let checked, let failed, let seconds, let complete):
                passes[id] = nil
                if complete { present[id]?.contents = contents.everyFileConfirmed() }
                Log.info(
                    "library: decoded the first frame of \(checked) files of \(id) in \(seconds) s: \(failed) unplayable\(complete ? "" : " (to finish at the next scan)")"
                )
            }
        }
    }

    /// `built` (a catalog the worker made for `job` from the volumes in `included`) without the
    /// volumes gone or rescanned since, and without the files the playability pass took out of
    /// the other volumes while the job ran.
    private func upToDate(_ built: Catalog, of job: Job, included: [VolumeID: Int]) -> Catalog {
        // Drop what the worker included but is gone (or came back and is being rescanned).
        let stale = Set(
            included.compactMap { id, generation in
                id == job.volume || present[id]?.generation == generation && present[id]?.contents != nil ? nil : id
            })
        var merged = built.removing(volumes: stale)
        for (other, seen) in job.passRemovalsSeen where other != job.volume && !stale.contains(other) {
            for removal in present[other]?.passRemovals.dropFirst(seen) ?? [] {
                merged = merged.removing(unplayable: removal.gone, of: other, problems: removal.problems)
            }
        }
        return merged
    }

    /// Starts the background playability pass of volume `id` when its contents list files the
    /// scan did not decode (and no scan of it is waiting, which would stop it).
    private func startPass(of id: VolumeID) {
        guard let volume = present[id], let contents = volume.contents, !contents.unconfirmed.isEmpty,
            !queue.contains(id), let mailbox
        else { return }
        _ = stopPass(of: id)
        let number = nextPass
        nextPass += 1
        let pass = PlayabilityPass(
            volume: id, mountPoint: volume.mountPoint, files: contents.unconfirmed, indexPath: indexPath(for: id),
            limits: limits, threads: Self.passThreads
        ) { report in
            mailbox.send(.pass(number: number, volume: id, report: report))
        }
        passes[id] = (number, pass)
    }

    /// Cancels the pass of volume `id`, if one runs, and returns it (for someone to join).
    private func stopPass(of id: VolumeID) -> PlayabilityPass? {
        guard let entry = passes.removeValue(forKey: id) else { return nil }
        entry.pass.cancel()
        return entry.pass
    }

    /// Files left out by a scan, and files listed with something ignored, with their reasons, in
    /// the journal: the first `leftOutLogLines` of them (a stick of broken files must not flood
    /// it), then a count.
    static let leftOutLogLines = 20

    static func logLeftOut(_ problems: [LibraryProblem], volume: VolumeID) {
        let files = problems.filter { !$0.relativePath.isEmpty }
        for problem in files.prefix(leftOutLogLines) {
            let what = problem.severity == .excluded ? "left out" : "listed, but"
            Log.notice("library: \(what) \(volume): \(problem.relativePath): \(problem.reason)")
        }
        if files.count > leftOutLogLines {
            Log.notice(
                "library: \(volume): \(files.count - leftOutLogLines) more problems (kiosk-player scan lists them all)")
        }
    }
}
