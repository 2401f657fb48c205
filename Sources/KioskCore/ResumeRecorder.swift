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
    private let store: ResumeStore
    private var soonScheduled = false
    private var periodic: TimerID?

    /// - Parameter snapshot: the state to save, asked for at each save.
    init(directory: String, scheduler: any Scheduler, snapshot: @escaping () -> ResumeState) {
        self.directory = directory
        self.scheduler = scheduler
        self.snapshot = snapshot
        store = ResumeStore(directory: directory)
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
        do {
            try store.save(snapshot())
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
