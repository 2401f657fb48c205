// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskModel
import KioskSystem
import Synchronization

/// The background half of a scan's playability check: decodes the first frame of each file the
/// scan listed from its headers alone (`VolumeContents.unconfirmed`), in walk order, so that a file
/// whose audio does not decode leaves the library soon after the scan instead of slowing it.
///
/// Its threads run in Linux's SCHED_IDLE class: they get the CPU only when no other thread wants
/// it, so playback, the screen and the next scan are not delayed. Files that fail are reported
/// (`Report.failed`, one problem each) at most `batchNanoseconds` apart; every result is written
/// to the volume's index (`VolumeIndex.storeConfirmation`: confirmed, or its problem), so a restart
/// does not check a file again. A transient failure (the stick going away) is neither reported
/// nor written: the file stays unconfirmed and is checked at the next pass. Each decode is entered
/// in the scan's read journal (`ScanReadJournal`, beside the index; the scan and the pass never
/// run at once), so a file that crashes the decoder is left out by the next scan instead of
/// crashing the player at every start.
///
/// Thread: `init`, `cancel` and `join` from one thread at a time (the library's loop thread, or its
/// scan worker for `join`); the checks on the pass's own threads (the first starts and joins the
/// others), which call `report`.
package final class PlayabilityPass: @unchecked Sendable {
    /// What the pass tells its owner.
    package enum Report: Sendable {
        /// Files found unplayable since the last report.
        case failed([LibraryProblem])
        /// The pass ended: `checked` files decoded or failed, `complete` when every unconfirmed
        /// file was decided (not cancelled, no transient failure).
        case finished(checked: Int, failed: Int, seconds: Double, complete: Bool)
    }

    /// Most time between a failure and its report: the screen changes at most this often.
    static let batchNanoseconds: UInt64 = 250_000_000

    /// Results written to the index in one transaction.
    static let indexBatch = 256

    let volume: VolumeID
    let files: [ScannedFile]
    private let mountPoint: String
    private let indexPath: String?
    private let limits: ScanLimits
    private let threadCount: Int
    private let report: @Sendable (Report) -> Void
    private let next = Atomic<Int>(0)
    private let cancelled = Atomic<Bool>(false)
    private let state = Mutex(Shared())
    /// The first thread (it starts and joins the others); nil when no thread could start.
    private var leader: WorkerGroup?

    /// What the threads share: results not yet written, failures not yet reported.
    private struct Shared {
        var results: [(file: ScannedFile, problem: String?)] = []
        var unreported: [LibraryProblem] = []
        var lastReport: UInt64 = 0
        var checked = 0
        var failed = 0
        var transient = 0
    }

    /// Starts checking `files` of `volume` on `threads` threads.
    init(
        volume: VolumeID, mountPoint: String, files: [ScannedFile], indexPath: String?, limits: ScanLimits,
        threads: Int, report: @escaping @Sendable (Report) -> Void
    ) {
        self.volume = volume
        self.mountPoint = mountPoint
        self.files = files
        self.indexPath = indexPath
        self.limits = limits
        self.report = report
        threadCount = max(1, threads)
        let started = Syscalls.monotonicNanoseconds()
        state.withLock { $0.lastReport = started }
        let first = WorkerGroup(name: "kiosk-check", count: 1) { [self] _ in
            Syscalls.setThreadIdle()
            self.lead(started: started)
        }
        if first.count == 1 { leader = first } else { cancelled.store(true, ordering: .relaxed) }
    }

    /// Asks the threads to stop after the file each is checking (results so far are still written).
    func cancel() { cancelled.store(true, ordering: .relaxed) }

    /// Waits for the pass to end (cancel it first to end it early).
    func join() {
        leader?.join()
    }

    /// Checks the unconfirmed files of `contents` (writing `indexPath`) and waits for the end:
    /// `bench scan`'s way. Returns the files checked, how many failed, and the pass's wall time.
    package static func runToEnd(
        _ contents: VolumeContents, indexPath: String?, limits: ScanLimits = ScanLimits(), threads: Int
    ) -> (checked: Int, failed: Int, seconds: Double) {
        let end = Mutex((checked: 0, failed: 0, seconds: 0.0))
        let pass = PlayabilityPass(
            volume: contents.volume, mountPoint: contents.mountPoint, files: contents.unconfirmed,
            indexPath: indexPath, limits: limits, threads: threads
        ) { report in
            if case .finished(let checked, let failed, let seconds, _) = report {
                end.withLock { $0 = (checked, failed, seconds) }
            }
        }
        pass.join()
        return end.withLock { $0 }
    }

    /// The first thread: opens the index and the journal, starts the others, checks files like
    /// them, writes the index as results come, and when every file is taken waits for the others
    /// and reports the end.
    private func lead(started: UInt64) {
        var index = indexPath.flatMap { try? VolumeIndex(path: $0) }
        // The scan's journal, with the scan's slots: the pass's threads use its helpers' slots.
        let journal = indexPath.flatMap {
            ScanReadJournal.open(path: $0 + ".reading", slots: VolumeScanner.defaultReaderThreads + 1)?.0
        }
        let helpers = WorkerGroup(name: "kiosk-check", count: threadCount - 1, first: 2) { [self] k in
            Syscalls.setThreadIdle()
            check(with: MusicFileReader(limits: limits), journal: journal, slot: k + 3)
        }
        check(with: MusicFileReader(limits: limits), journal: journal, slot: 2) {
            write(to: &index, atLeast: Self.indexBatch)
        }
        helpers.join()
        write(to: &index, atLeast: 1)
        index?.checkpoint()
        let (failures, checked, failed, transient) = state.withLock { shared in
            defer { shared.unreported = [] }
            return (shared.unreported, shared.checked, shared.failed, shared.transient)
        }
        if !failures.isEmpty { report(.failed(failures)) }
        let complete = transient == 0 && checked == files.count
        let seconds = Double(Syscalls.monotonicNanoseconds() - started) / 1e9
        report(.finished(checked: checked, failed: failed, seconds: seconds, complete: complete))
    }

    /// Checks files until none is left or the pass is cancelled; `afterEach` runs after each file.
    private func check(
        with reader: MusicFileReader, journal: ScanReadJournal?, slot: Int, afterEach: () -> Void = {}
    ) {
        while !cancelled.load(ordering: .relaxed) {
            let i = next.wrappingAdd(1, ordering: .relaxed).oldValue
            guard i < files.count else { break }
            let file = files[i]
            let path = mountPoint == "/" ? "/" + file.relativePath : mountPoint + "/" + file.relativePath
            let failure =
                journal.map { $0.reading(slot: slot, file.relativePath) { reader.confirmFirstFrame(path: path) } }
                ?? reader.confirmFirstFrame(path: path)
            let now = Syscalls.monotonicNanoseconds()
            let due: [LibraryProblem] = state.withLock { shared in
                if let failure, failure.transient {
                    shared.transient += 1
                } else {
                    shared.checked += 1
                    shared.results.append((file, failure?.reason))
                    if let failure {
                        shared.failed += 1
                        shared.unreported.append(
                            LibraryProblem(
                                volume: volume, relativePath: file.relativePath,
                                reason: "\(failure.reason) (found after the scan listed it)"))
                    }
                }
                guard !shared.unreported.isEmpty, now - shared.lastReport >= Self.batchNanoseconds else { return [] }
                shared.lastReport = now
                defer { shared.unreported = [] }
                return shared.unreported
            }
            if !due.isEmpty { report(.failed(due)) }
            afterEach()
        }
    }

    /// Writes the results gathered so far to the index once there are `atLeast` of them. An index
    /// that cannot be written is left alone (it is a cache: the files are checked again next time).
    private func write(to index: inout VolumeIndex?, atLeast: Int) {
        guard let current = index else { return }
        let batch: [(file: ScannedFile, problem: String?)] = state.withLock { shared in
            guard shared.results.count >= atLeast else { return [] }
            defer { shared.results = [] }
            return shared.results
        }
        if batch.isEmpty { return }
        do {
            try current.begin()
            for (file, problem) in batch { try current.storeConfirmation(file, problem: problem) }
            try current.commit()
        } catch {
            Log.warning("library: \(current.path): the playability checks cannot be written (\(error))")
            index = nil
        }
    }
}
