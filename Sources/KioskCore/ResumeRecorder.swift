// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import KioskSystem

/// Decides when the resume state (resume.state, through a `ResumeStore`) is written, and hands it to
/// the `StateWriter`, which writes it off the loop: soon after a change (the changes of one loop
/// turn coalesce into one write), every `intervalMilliseconds` while playing (a power cut loses at
/// most that much of the position), and at once on pause, stop and shutdown. A remote
/// client's queue (`ClientQueueFile`, rewritten whole) is written at most once per
/// `clientQueueIntervalMilliseconds`: a client adding songs one by one cost a whole rewrite with
/// fsync per edit (issue 44: 10 adds at 1 600 entries wrote 9.8 MB). Between its writes the state
/// names the queue file last written, so a power cut loses at most that interval of queue edits.
///
/// Thread: the loop thread (the scheduler's) only; the writer has its own.
final class ResumeRecorder {
    /// Period of the saves while playing: a little under 5 s, so that a power cut loses at most
    /// 5 s of the position even counting the time a save takes.
    static let defaultIntervalMilliseconds = 4_500

    var intervalMilliseconds = ResumeRecorder.defaultIntervalMilliseconds
    private let scheduler: any Scheduler
    private let snapshot: () -> ResumeState
    /// The queue's entries, saved in the client queue file when the state names a client's queue.
    private let queue: () -> [Track]
    /// Where the writes go: a worker thread, so the loop never waits for the card (the bookmarks'
    /// file goes the same way).
    let writer: StateWriter
    /// The version of the client queue last handed to the writer, and when.
    private var submittedClientQueueVersion: UInt32?
    private var clientQueueSubmittedNs: UInt64?
    private var soonScheduled = false
    private var periodic: TimerID?
    /// The save that will hand the client queue over at the end of the interval.
    private var clientQueueSave: TimerID?
    /// Writes of the client queue file (for tests and the budget table: count what matters).
    var clientQueueWrites: Int { writer.clientQueueWrites }
    /// Least time between two writes of the client queue file.
    var clientQueueIntervalMilliseconds = 3_000

    /// - Parameters:
    ///   - snapshot: the state to save, asked for at each save.
    ///   - queue: the queue's entries (saved when the state says a remote client built it).
    init(
        directory: String, scheduler: any Scheduler, snapshot: @escaping () -> ResumeState,
        queue: @escaping () -> [Track]
    ) {
        self.scheduler = scheduler
        self.snapshot = snapshot
        self.queue = queue
        writer = StateWriter(directory: directory)
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

    /// Hands the state as it is now to the writer (which writes it at once, off the loop).
    /// - Parameter flushingQueue: hand the client's queue over now even if it was handed over less
    ///   than `clientQueueIntervalMilliseconds` ago (at shutdown).
    func saveNow(flushingQueue: Bool = false) {
        scheduler.assertInLoop()
        let state = snapshot()
        var write = StateWriter.Write(state: state, queue: nil)
        if let version = state.clientQueueVersion, version != submittedClientQueueVersion {
            if !flushingQueue, let submitted = clientQueueSubmittedNs,
                scheduler.nowNanoseconds &- submitted < UInt64(clientQueueIntervalMilliseconds) * 1_000_000
            {
                // Too soon after the last one: the state names the file as it is (the writer sees to
                // that), and one save at the end of the interval hands the queue over as it is then.
                if clientQueueSave == nil {
                    let left =
                        UInt64(clientQueueIntervalMilliseconds) * 1_000_000 - (scheduler.nowNanoseconds &- submitted)
                    clientQueueSave = scheduler.schedule(afterMilliseconds: Int(left / 1_000_000) + 1) { [weak self] in
                        self?.clientQueueSave = nil
                        self?.saveNow()
                    }
                }
            } else {
                // The entries go with the state that names them: the writer writes them first.
                write.queue = (queue(), version)
                submittedClientQueueVersion = version
                clientQueueSubmittedNs = scheduler.nowNanoseconds
            }
        }
        writer.submit(write)
    }

    /// Waits until every save handed over is on the device (shutdown; tests that read the files).
    func flush() { writer.flush() }

    /// Flushes and stops the writer's thread (the player's shutdown).
    func stop() { writer.stop() }

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
