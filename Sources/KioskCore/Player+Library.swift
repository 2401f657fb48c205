// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import KioskSystem

/// The library coming and going (`LibraryShelf`): sticks added (the saved track plays at once),
/// scanned, removed (the queue keeps the other sticks' tracks). Thread: the loop thread, like
/// `Player`.
extension Player {
    /// One library event and the catalog after it; the screen is drawn once for it.
    public func handle(_ event: LibraryEvent, catalog newCatalog: any CatalogSnapshot) {
        scheduler.assertInLoop()
        // A scan's end already brought its catalog: the change that follows it is no news.
        if case .catalogChanged = event, newCatalog === catalog { return }
        outbox.remoteChanges.note(newCatalog === catalog ? .library : [.library, .catalog])
        shelf.apply(event, catalog: newCatalog)
        navigation.keepCategoryAvailable(newCatalog)
        switch event {
        case .volumeAdded(let id, let mountPoint):
            if isExhibit {
                exportPlayCounts(to: mountPoint)
                loadStickStation(volume: id.rawValue, mountPoint: mountPoint)
            } else {
                fastResume(volume: id, mountPoint: mountPoint)
                stickSetArrived(mountPoint: mountPoint)
            }
        case .volumeRemoved(let id, let mountPoint):
            stickSetRemoved(mountPoint: mountPoint)
            volumeRemoved(id, mountPoint: mountPoint)
        case .scanProgress:
            // The count of tracks found so far is all that changed: the library screen shows it.
            refreshScreen()
            return
        case .scanFinished, .catalogChanged: break
        }
        if isExhibit {
            if case .volumeRemoved(let id, _) = event { stickStationRemoved(volume: id.rawValue) }
            followFolderStation()
            if queue.isEmpty || status != .playing {
                startExhibit()
            } else if case .scanFinished = event {
                attractScanned()
            }
            refreshScreen()
            return
        }
        tryResume()
        playWaitingCard()
        refreshScreen()
    }

    /// Whether a scan runs (on any volume), and whether volume `id` is present.
    var isScanning: Bool { shelf.isScanning }
    func isPresent(_ volumeID: String) -> Bool { shelf.isPresent(volumeID) }

    /// A stick went away. When the current track was on it, playback stops and a message says why;
    /// the queue keeps the tracks of the other volumes (when it had any), and the state is saved.
    private func volumeRemoved(_ id: VolumeID, mountPoint: String) {
        let removed = MessageState(title: "USB stick removed", detail: "Playback stopped", kind: .info)
        if restoredTrack?.volumeID == id.rawValue && queue.isEmpty {
            // The restored track's stick went before its catalog came: stop; the saved state stays
            // for when it comes back.
            dropRestoredTrack()
            showTransient(removed, seconds: 4)
            return
        }
        guard queue.contains(where: { $0.volume == id }) else { return }
        let currentGone = currentTrack?.volume == id
        let frame = currentGone ? 0 : positionFrames
        if currentGone {
            Log.notice("the volume of the current track went away (\(mountPoint)); playback stopped")
            // No engine.stop(): it would send the decoder to open the current track again, which is
            // gone ("Cannot play …" over this message). The new queue below stops the engine.
            setStatus(.stopped)
            showTransient(removed, seconds: 4)
        }
        // The entries that stay keep their ids (MPD removes the songs of a vanished stick alike).
        playQueue.removeEntries(Set(queue.indices.filter { queue[$0].volume == id }))
        if queue.isEmpty {
            clearQueue()
        } else {
            startQueue(at: currentGone ? 0 : queueIndex, frame: frame, status: status)
        }
        if mode == .browse { show(.nowPlaying) }
    }
}
