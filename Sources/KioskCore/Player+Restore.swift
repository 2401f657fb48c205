import KioskAudio
import KioskLibrary
import KioskSystem

/// Restoring the saved queue after a restart. The saved track plays as soon as its stick is
/// mounted, before the stick's scan ends (the engine gets that one file, the screen shows what the
/// saved state says of it); when the catalog is ready the queue around it (the saved collection,
/// else the track's folder) takes over without a break. Thread: the loop thread, like `Player`.
extension Player {
    /// Restores the saved queue once its volume's tracks are in the catalog: the saved collection,
    /// else (it is gone, e.g. a deleted playlist) the track's folder.
    func tryResume() {
        guard let resume = pendingResume, let catalog, let volumeID = resume.volumeID,
            let relativePath = resume.relativePath
        else { return }
        guard volumesPresent.contains(volumeID) else { return }
        var tracks: [Track] = []
        var collection: Collection?
        if let ref = resume.collection, let cat = KioskLibrary.Category(rawValue: ref.category),
            let match = catalog.collection(cat, key: ref.key)
        {
            collection = match
            tracks = catalog.tracks(of: match)
        }
        var index = tracks.firstIndex { $0.volume.rawValue == volumeID && $0.relativePath == relativePath }
        if index == nil, let track = catalog.track(volume: VolumeID(rawValue: volumeID), relativePath: relativePath),
            let folder = catalog.collection(.folder, key: "\(volumeID)\u{1F}\(track.folder)")
        {
            collection = folder
            tracks = catalog.tracks(of: folder)
            index = tracks.firstIndex(of: track)
        }
        guard let index else {
            // Still scanning that volume: wait; otherwise the saved track is gone.
            if scanning[volumeID] == nil {
                Log.notice("saved track \(relativePath) is no longer on the stick; not resuming")
                pendingResume = nil
                if provisional != nil { dropProvisional() }
            }
            return
        }
        pendingResume = nil
        playQueue.replace(
            with: tracks, collection: collection, audiobook: audiobooks.isAudiobook(tracks), current: index)
        if provisional != nil {
            adoptProvisional(at: index)
            return
        }
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
        guard let resume = pendingResume, provisional == nil, queue.isEmpty, resume.volumeID == id.rawValue,
            let relativePath = resume.relativePath
        else { return }
        let path = mountPoint == "/" ? "/" + relativePath : mountPoint + "/" + relativePath
        guard Syscalls.exists(path) else { return }
        provisional = resume
        engineQueueIsProvisional = true
        provisionalFinished = false
        engine.setQueue(
            [TrackRequest(id: Self.provisionalID, path: path)], startAt: 0, startFrame: resume.positionFrames)
        positionFrames = resume.positionFrames
        sampleRate = resume.sampleRate
        status = resume.playing ? .playing : (resume.positionFrames > 0 ? .paused : .stopped)
        if status == .playing {
            engine.play()
            recorder.startPeriodic()
        }
        Log.info(
            "resuming \(relativePath) at \(resume.positionSeconds) s (frame \(resume.positionFrames))\(Self.describe(resume)), before the scan of its stick ends"
        )
    }

    /// The catalog came: the restored track becomes entry `index` of its queue without a break;
    /// the engine gets the rest of the queue when the track ends (or at the first skip).
    private func adoptProvisional(at index: Int) {
        provisional = nil
        playQueue.index = index
        playQueue.adoptID(Self.provisionalID, forEntry: index)
        provideArtworkForCurrentTrack()
        if provisionalFinished {
            provisionalFinished = false
            continueAfterProvisional()
        }
        recorder.saveSoon()
    }

    /// The restored track ended: the next entry of its queue plays (or the queue ends).
    func continueAfterProvisional() {
        engineQueueIsProvisional = false
        advance(after: queueIndex)
    }

    /// Stops a restored track whose queue cannot follow (its stick went, or it is gone).
    func dropProvisional() {
        provisional = nil
        provisionalFinished = false
        engineQueueIsProvisional = false
        engine.setQueue([], startAt: 0, startFrame: 0)
        status = .stopped
        positionFrames = 0
        recorder.stopPeriodic()
    }
}
