// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import KioskSystem

/// The state directory's durable writes (resume.state's records, client-queue.json, bookmarks.json,
/// cards.json),
/// made on a worker thread ("kiosk-writer") so that the loop never waits for the card: a pause's save took its
/// fdatasync on the loop, and an SD card that stalls for a few hundred milliseconds (a wear-levelling
/// pass) froze the screen and the buttons that long (issue 48).
///
/// Writes keep their order and coalesce: a save asked for while another waits replaces it (the
/// newest state is what counts), keeping a client queue the waiting one carried when the new one
/// has none. The queue file is written before the state that names it, and a state never names a
/// queue file this writer has not written (a failed queue write leaves the state naming the one
/// before, as a power cut between the two would).
///
/// Thread: `submit`, `flush` and `stop` from the loop thread; the files are touched only on the
/// writer's thread (`Files`), one write at a time.
final class StateWriter: Sendable {
    /// One save: the state and, when the queue is a remote client's that changed, its entries.
    struct Write: Sendable {
        var state: ResumeState
        var queue: (tracks: [Track], version: UInt32)?
    }

    /// The files and what was last written to them: the writer's thread only (its jobs run one at
    /// a time), which is what makes the unchecked sendability sound.
    private final class Files: @unchecked Sendable {
        let directory: String
        let store: ResumeStore
        let clientQueueFile: ClientQueueFile
        /// The version of the client queue now in `clientQueueFile`, written by this writer.
        var writtenQueueVersion: UInt32?

        init(directory: String) {
            self.directory = directory
            store = ResumeStore(directory: directory)
            clientQueueFile = ClientQueueFile(directory: directory)
        }
    }

    /// What waits to be written, and the files: shared by the loop (which adds) and the writer's
    /// thread (which takes and writes), each piece behind its own lock.
    private final class Pending: Sendable {
        let write = Locked<Write?>(nil)
        /// Whole files to replace (`AtomicFile`), the newest text per path, in the order first asked.
        let files = Locked<[(path: String, text: String)]>([])
        /// Per path, how many texts were asked for and how many of those are written (a coalesced
        /// text counts as written with the one that replaced it).
        let fileCounts = Locked<[String: (asked: Int, written: Int)]>([:])
        let queueWrites = Locked<Int>(0)
        let target: Files

        init(target: Files) { self.target = target }

        /// Writes what waits (on the writer's thread, or the caller's without one).
        func writeAll() {
            let write = self.write.withLock { slot in
                defer { slot = nil }
                return slot
            }
            if let write, StateWriter.perform(write, files: target) { queueWrites.withLock { $0 += 1 } }
            // The counts are read with the list: every text asked for up to now is in `texts`.
            let (texts, asked) = files.withLock { list in
                defer { list.removeAll() }
                return (list, fileCounts.withLock { $0.mapValues(\.asked) })
            }
            for file in texts {
                do {
                    if let slash = file.path.lastIndex(of: "/") { try Syscalls.mkdirs(String(file.path[..<slash])) }
                    try AtomicFile.replace(file.path, with: file.text)
                } catch {
                    Log.error("cannot save \(file.path): \(error)")
                }
                fileCounts.withLock { $0[file.path]?.written = asked[file.path] ?? 0 }
            }
        }
    }

    private let pending: Pending
    /// nil when no thread could be started: the writes are then made on the caller's thread, as
    /// before there was a writer (slower, never lost).
    private let worker: WorkerThread<Int>?

    init(directory: String) {
        let pending = Pending(target: Files(directory: directory))
        self.pending = pending
        do {
            // One token waits at most: the data is in `pending`, a token only says "look".
            worker = try WorkerThread(name: "kiosk-writer", maxQueued: 1) { _ in pending.writeAll() }
        } catch {
            Log.error("cannot start the state writer's thread (\(error)): the state is written on the loop")
            worker = nil
        }
    }

    /// Writes of the client queue file so far (for tests and the budget table: count what matters).
    var clientQueueWrites: Int { pending.queueWrites.withLock { $0 } }

    /// Queues `write`, replacing one that waits.
    func submit(_ write: Write) {
        pending.write.withLock { slot in
            var merged = write
            if merged.queue == nil { merged.queue = slot?.queue }
            slot = merged
        }
        kick()
    }

    /// Queues `text` to replace the file at `path` whole (written atomically), replacing a text
    /// for the same path that waits.
    func submitFile(_ path: String, text: String) {
        pending.files.withLock { list in
            pending.fileCounts.withLock { $0[path, default: (0, 0)].asked += 1 }
            if let index = list.firstIndex(where: { $0.path == path }) {
                list[index].text = text
            } else {
                list.append((path, text))
            }
        }
        kick()
    }

    /// Whether a text asked for `path` is not yet in the file (written, or failed and logged).
    func hasUnwrittenFile(_ path: String) -> Bool {
        pending.fileCounts.withLock { counts in counts[path].map { $0.asked != $0.written } ?? false }
    }

    private func kick() {
        if let worker {
            worker.submit(0)
        } else {
            pending.writeAll()
        }
    }

    /// Waits until every write asked for is on the device (at shutdown, and for tests).
    func flush() {
        // A write submitted while the worker took the one before has its own token queued, which
        // waitUntilIdle waits for too: nothing is pending once the worker is idle.
        worker?.waitUntilIdle()
    }

    /// Flushes, then stops the thread.
    func stop() {
        flush()
        worker?.stop()
    }

    /// The queue, then the state (on the writer's thread). True when the queue file was written.
    private static func perform(_ write: Write, files: Files) -> Bool {
        var state = write.state
        var wroteQueue = false
        if let queue = write.queue, queue.version != files.writtenQueueVersion, !queue.tracks.isEmpty {
            // A queue not written (too long, an error) is not the file's: the state then names none,
            // and a restart resumes the current track's folder.
            files.writtenQueueVersion = nil
            do {
                if try files.clientQueueFile.save(queue.tracks, version: queue.version) {
                    files.writtenQueueVersion = queue.version
                    wroteQueue = true
                }
            } catch {
                Log.error("cannot save the queue in \(files.directory): \(error)")
            }
        }
        if let named = state.clientQueueVersion, named != files.writtenQueueVersion {
            // Not written (too long, an error) or not yet (a save within the recorder's interval):
            // the state names the file as it is, without song ids (a restart numbers them afresh).
            state.clientQueueVersion = files.writtenQueueVersion
            state.songIDs = nil
        }
        do {
            try files.store.save(state)
        } catch {
            Log.error("cannot save state in \(files.directory): \(error)")
        }
        return wroteQueue
    }
}
