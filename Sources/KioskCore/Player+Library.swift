import KioskDisplay
import KioskLibrary
import KioskSystem

/// The library coming and going: sticks added (the saved track plays at once), scanned, removed
/// (the queue keeps the other sticks' tracks). Thread: the loop thread, like `Player`.
extension Player {
    public func handle(_ event: LibraryEvent, catalog newCatalog: Catalog) {
        switch event {
        case .volumeAdded(let id, let mountPoint):
            volumesPresent.insert(id.rawValue)
            scanning[id.rawValue] = 0
            fastResume(volume: id, mountPoint: mountPoint)
        case .scanProgress(let id, let found):
            scanning[id.rawValue] = found
        case .scanFinished(let id, _, _, _):
            scanning[id.rawValue] = nil
        case .volumeRemoved(let id, let mountPoint):
            volumesPresent.remove(id.rawValue)
            scanning[id.rawValue] = nil
            volumeRemoved(id, mountPoint: mountPoint)
        case .catalogChanged:
            break
        }
        catalog = newCatalog
        if !availableCategories.contains(category), let first = availableCategories.first { category = first }
        tryResume()
        playWaitingCard()
        refreshScreen()
    }

    /// A stick went away. When the current track was on it, playback stops and a message says why;
    /// the queue keeps the tracks of the other volumes (when it had any), and the state is saved.
    func volumeRemoved(_ id: VolumeID, mountPoint: String) {
        if provisional?.volumeID == id.rawValue && queue.isEmpty {
            // The restored track's stick went before its catalog came: stop; the saved state stays
            // for when it comes back.
            dropProvisional()
            showTransient(
                MessageState(title: "USB stick removed", detail: "Playback stopped", kind: .info), seconds: 4)
            return
        }
        guard queue.contains(where: { $0.volume == id }) else { return }
        let currentGone = currentTrack?.volume == id
        let remaining = queue.filter { $0.volume != id }
        if currentGone {
            Log.notice("the volume of the current track went away (\(mountPoint)); playback stopped")
            // No engine.stop(): it would send the decoder to open the current track again, which is
            // gone ("Cannot play …" over this message). The new queue below stops the engine.
            status = .stopped
            recorder.stopPeriodic()
            showTransient(
                MessageState(title: "USB stick removed", detail: "Playback stopped", kind: .info), seconds: 4)
        }
        let keptIndex = currentGone ? 0 : (remaining.firstIndex(of: queue[queueIndex]) ?? 0)
        playQueue.replace(with: remaining, collection: playQueue.collection)
        if queue.isEmpty {
            playQueue.clear()
            positionFrames = 0
            engineQueueIsProvisional = false
            engine.setQueue([], startAt: 0, startFrame: 0)
            recorder.saveSoon()
        } else {
            startQueue(
                at: keptIndex, frame: currentGone ? 0 : positionFrames, status: currentGone ? .stopped : status)
        }
        if mode == .browse { mode = .nowPlaying }
    }
}
