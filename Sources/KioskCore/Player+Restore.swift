// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import KioskSystem

/// Restoring the saved queue after a restart (`RestoreSession`). The saved track plays as soon as
/// its stick is mounted, before the stick's scan ends (the engine gets that one file, the screen
/// shows what the saved state says of it); when the catalog is ready the queue around it (the saved
/// collection, else the track's folder) takes over without a break. Thread: the loop thread, like
/// `Player`.
extension Player {
    /// Whether the engine's queue is the restored track alone (its queue not handed over yet).
    var engineHoldsRestoredTrackOnly: Bool { restore.engineHoldsRestoredTrackOnly }

    /// Whether engine id `id` is the restored track playing alone before its catalog came.
    func restoredTrackAlone(_ id: UInt64) -> Bool {
        id == RestoreSession.provisionalID && queue.isEmpty && restore.playingAloneState != nil
    }

    /// The listener or a remote client decides the queue from now on: a saved queue that has not
    /// been restored yet (its stick is still being scanned) must not replace it later.
    func takeOver() { apply(restore.handle(.takenOver)) }

    /// Restores the saved queue once its volume's tracks are in the catalog: the saved collection,
    /// else (it is gone, e.g. a deleted playlist) the track's folder.
    func tryResume() {
        guard let resume = restore.pending, let catalog, let volumeID = resume.volumeID,
            let relativePath = resume.relativePath, shelf.isPresent(volumeID)
        else { return }
        var tracks: [Track] = []
        var collection: Collection?
        if let ref = resume.collection, let cat = KioskModel.Category(rawValue: ref.category),
            let match = catalog.collection(cat, key: ref.key)
        {
            collection = match
            tracks = catalog.tracks(of: match)
        }
        if resume.collection == nil, let entries = resume.clientQueue {
            // A remote client's queue: once every stick it names that is still being scanned is
            // in the catalog; entries of absent sticks are left out.
            if entries.contains(where: { shelf.isScanning($0.volume) }) { return }
            tracks = entries.compactMap {
                catalog.track(volume: VolumeID(rawValue: $0.volume), relativePath: $0.relativePath)
            }
        }
        let isCurrent = { (track: Track) in track.volume.rawValue == volumeID && track.relativePath == relativePath }
        // The saved position when it still holds the track (a song may be queued twice).
        var index =
            tracks.indices.contains(resume.queueIndex) && isCurrent(tracks[resume.queueIndex])
            ? resume.queueIndex : tracks.firstIndex(where: isCurrent)
        if index == nil, let track = catalog.track(volume: VolumeID(rawValue: volumeID), relativePath: relativePath),
            let folder = catalog.collection(.folder, key: "\(volumeID)\u{1F}\(track.folder)")
        {
            collection = folder
            tracks = catalog.tracks(of: folder)
            index = tracks.firstIndex(of: track)
        }
        guard let index else {
            // Still scanning that volume: wait; otherwise the saved track is gone.
            if !shelf.isScanning(volumeID) {
                Log.notice("saved track \(relativePath) is no longer on the stick; not resuming")
                apply(restore.handle(.trackGone))
            }
            return
        }
        playQueue.replace(
            with: tracks, collection: collection, audiobook: memory.isAudiobook(tracks), current: index,
            once: resume.playsOnce)
        if let runs = resume.songIDs, let ids = QueueIdentity.ids(fromRuns: runs) { playQueue.adoptSongIDs(ids) }
        // MPD restores its current song too, stopped or not.
        playQueue.chooseCurrent()
        if restore.playingAloneState != nil {
            // The catalog came: the restored track becomes entry `index` of its queue without a
            // break; the engine gets the rest of the queue when the track ends (or at the first skip).
            apply(restore.handle(.placed(entry: index)))
            return
        }
        apply(restore.handle(.takenOver))
        let frame = tracks[index].sampleRate == resume.sampleRate ? resume.positionFrames : 0
        let rate = max(1, tracks[index].sampleRate)
        Log.info(
            "resuming \(relativePath) at \(Double(frame) / Double(rate)) s (frame \(frame))\(Self.describe(resume))")
        startQueue(at: index, frame: frame, status: resume.playing ? .playing : (frame > 0 ? .paused : .stopped))
    }

    /// ", paused" or ", stopped" for a log line of a saved state that was not playing.
    private static func describe(_ resume: ResumeState) -> String {
        resume.playing ? "" : resume.positionFrames > 0 ? ", paused" : ", stopped"
    }

    /// Plays the saved track as soon as its stick is there, before the scan of the stick ends:
    /// the engine gets that one file; the screen shows what the saved state says of it.
    func fastResume(volume id: VolumeID, mountPoint: String) {
        guard case .waiting(let resume) = restore, queue.isEmpty, resume.volumeID == id.rawValue,
            let relativePath = resume.relativePath
        else { return }
        let path = mountPoint == "/" ? "/" + relativePath : mountPoint + "/" + relativePath
        guard Syscalls.exists(path) else { return }
        apply(restore.handle(.trackFound(path: path)))
        Log.info(
            "resuming \(relativePath) at \(resume.positionSeconds) s (frame \(resume.positionFrames))\(Self.describe(resume)), before the scan of its stick ends"
        )
    }

    /// The restored track ended (the engine's queue was that track alone): the next entry of its
    /// queue plays (or the queue ends); before its catalog came, that waits for the catalog.
    func restoredTrackEnded() { apply(restore.handle(.trackEnded(queueKnown: !queue.isEmpty))) }

    /// The restored track's stick went before its catalog came: the engine stops; the saved state
    /// waits for the stick to come back.
    func dropRestoredTrack() { apply(restore.handle(.stickRemoved)) }

    /// The saved track playing alone, nil when none.
    var restoredTrack: ResumeState? { restore.playingAloneState }
}
