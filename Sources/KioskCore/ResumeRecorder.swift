import KioskLibrary
import KioskSystem

/// Writes the resume state (resume.state, through a `ResumeStore`) when it matters: soon after a change (the changes of one
/// loop turn coalesce into one write), every `intervalMilliseconds` while playing (a power cut
/// loses at most that much of the position), and at once on pause, stop and shutdown.
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

    func saveNow() {
        scheduler.assertInLoop()
        var state = snapshot()
        if let version = state.clientQueueVersion, version != savedClientQueueVersion {
            // The entries first, then the state that names them (a cut in between leaves the
            // state before, which does not).
            let tracks = queue()
            if !tracks.isEmpty {
                do {
                    if try clientQueueFile.save(tracks, version: version) {
                        savedClientQueueVersion = version
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
