// SPDX-License-Identifier: GPL-3.0-or-later
import KioskLibrary
import KioskSystem

/// Writes the resume state (resume.state, through a `ResumeStore`) when it matters: soon after a change (the changes of one
/// loop turn coalesce into one write), every `intervalMilliseconds` while playing (a power cut
/// loses at most that much of the position), and at once on pause, stop and shutdown. A remote
/// client's queue (`ClientQueueFile`, rewritten whole) is written at most once per
/// `clientQueueIntervalMilliseconds`: a client adding songs one by one cost a whole rewrite with
/// fsync per edit (issue 44: 10 adds at 1 600 entries wrote 9.8 MB). Between its writes the state
/// names the queue file last written, so a power cut loses at most that interval of queue edits.
///
/// Thread: the loop thread (the scheduler's) only.
final class ResumeRecorder {
    /// Period of the saves while playing: a little under 5 s, so that a power cut loses at most
    /// 5 s of the position even counting the time a save takes.
    static let defaultIntervalMilliseconds = 4_500

    let directory: String
    var intervalMilliseconds = ResumeRecorder.defaultIntervalMilliseconds
    private let scheduler: any Scheduler
    private let snapshot: () -> ResumeState
    /// The queue's entries, saved in `clientQueueFile` when the state names a client's queue.
    private let queue: () -> [Track]
    private let store: ResumeStore
    private let clientQueueFile: ClientQueueFile
    /// The version of the client queue in `clientQueueFile` (written by this recorder).
    private var savedClientQueueVersion: UInt32?
    private var soonScheduled = false
    private var periodic: TimerID?
    /// When the client queue file was last written, and the save that will write it next.
    private var clientQueueWrittenNs: UInt64?
    private var clientQueueSave: TimerID?
    /// Writes of the client queue file (for tests and the budget table: count what matters).
    private(set) var clientQueueWrites = 0
    /// Least time between two writes of the client queue file.
    var clientQueueIntervalMilliseconds = 3_000

    /// - Parameters:
    ///   - snapshot: the state to save, asked for at each save.
    ///   - queue: the queue's entries (saved when the state says a remote client built it).
    init(
        directory: String, scheduler: any Scheduler, snapshot: @escaping () -> ResumeState,
        queue: @escaping () -> [Track]
    ) {
        self.directory = directory
        self.scheduler = scheduler
        self.snapshot = snapshot
        self.queue = queue
        store = ResumeStore(directory: directory)
        clientQueueFile = ClientQueueFile(directory: directory)
    }

    /// Saves at the end of this loop turn.
    func saveSoon() {
        scheduler.assertInLoop()
        guard !soonScheduled else { return }
        soonScheduled = true
        scheduler.schedule(afterMilliseconds: 0) { [weak self] in
            self?.soonScheduled = false
            self?.saveNow()
        }
    }

    /// - Parameter flushingQueue: write the client's queue now even if it was written less than
    ///   `clientQueueIntervalMilliseconds` ago (at shutdown).
    func saveNow(flushingQueue: Bool = false) {
        scheduler.assertInLoop()
        var state = snapshot()
        if let version = state.clientQueueVersion, version != savedClientQueueVersion, !flushingQueue,
            let written = clientQueueWrittenNs,
            scheduler.nowNanoseconds &- written < UInt64(clientQueueIntervalMilliseconds) * 1_000_000
        {
            // Too soon after the last write: that file stays named (its own song ids are not
            // known here, so none are saved: a restart numbers the songs afresh), and one save at
            // the end of the interval writes the queue as it is then.
            state.clientQueueVersion = savedClientQueueVersion
            state.songIDs = nil
            if clientQueueSave == nil {
                let left = UInt64(clientQueueIntervalMilliseconds) * 1_000_000 - (scheduler.nowNanoseconds &- written)
                clientQueueSave = scheduler.schedule(afterMilliseconds: Int(left / 1_000_000) + 1) { [weak self] in
                    self?.clientQueueSave = nil
                    self?.saveNow()
                }
            }
        } else if let version = state.clientQueueVersion, version != savedClientQueueVersion {
            // The entries first, then the state that names them (a cut in between leaves the
            // state before, which does not).
            let tracks = queue()
            if !tracks.isEmpty {
                do {
                    clientQueueWrittenNs = scheduler.nowNanoseconds
                    if try clientQueueFile.save(tracks, version: version) {
                        savedClientQueueVersion = version
                        clientQueueWrites += 1
                    } else {
                        state.clientQueueVersion = nil
                    }
                } catch {
                    Log.error("cannot save the queue in \(directory): \(error)")
                    state.clientQueueVersion = nil
                }
            }
        }
        do {
            try store.save(state)
        } catch {
            Log.error("cannot save state in \(directory): \(error)")
        }
    }

    /// Saves every `intervalMilliseconds` from now on (while playing).
    func startPeriodic() {
        guard periodic == nil else { return }
        let period = max(50, intervalMilliseconds)
        periodic = scheduler.schedule(afterMilliseconds: period, repeatingMilliseconds: period) { [weak self] in
            self?.saveNow()
        }
    }

    func stopPeriodic() {
        if let timer = periodic { scheduler.cancel(timer) }
        periodic = nil
    }
}
