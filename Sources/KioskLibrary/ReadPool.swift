// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem
import Synchronization

/// Music files to read (tags and first frame), shared out to reader threads: files are submitted
/// (from any thread), and the scanning thread takes the outcomes in its own order, writing the
/// index meanwhile, and reads a file itself when nothing it needs is ready. A file is read once
/// however often it is submitted. Files are named by their place in the list the pool was made
/// with, so no path is hashed or compared while the scan runs.
///
/// Thread: `submit` from any thread; `outcome(for:reader:)`, `startHelpers` and `close` from the
/// scanning thread only.
final class ReadPool: @unchecked Sendable {
    private enum Entry {
        case waiting
        case queued
        case reading
        case done(FileReadOutcome)
    }

    let mountPoint: String
    /// The files to read (relative paths); the pool's methods take places in this list.
    let paths: [String]
    let limits: ScanLimits
    let cancellation: ScanCancellation?
    /// Whether a FLAC file's first frame is decoded (else its header is checked, see
    /// `MusicFileReader.read(path:decodingFirstFrame:)`).
    let decodesFirstFrame: Bool
    /// Where each reader says which file it reads (nil: no index, no journal).
    let journal: ScanReadJournal?
    private let lock = ConditionLock()
    // Guarded by `lock`.
    private var queue: [Int] = []
    private var queueHead = 0
    /// Each file's state, by its place in `paths` (`waiting` again once its outcome is taken).
    private var entries: [Entry]
    private var closed = false
    private var readCount = 0
    private var helpers: WorkerGroup?

    init(
        mountPoint: String, paths: [String], limits: ScanLimits, cancellation: ScanCancellation?,
        journal: ScanReadJournal? = nil, decodesFirstFrame: Bool = true
    ) {
        self.mountPoint = mountPoint
        self.paths = paths
        entries = Array(repeating: .waiting, count: paths.count)
        self.decodesFirstFrame = decodesFirstFrame
        self.limits = limits
        self.cancellation = cancellation
        self.journal = journal
    }

    private var isCancelled: Bool { cancellation?.isCancelled == true }

    /// Files read so far (for progress).
    var filesRead: Int {
        lock.lock()
        defer { lock.unlock() }
        return readCount
    }

    /// Starts `count` helper threads (at the scan's nice value) that read submitted files.
    func startHelpers(_ count: Int) {
        let limits = limits
        helpers = WorkerGroup(name: "kiosk-scan", count: count) { [self] n in
            Syscalls.setThreadNiceness(VolumeScanner.niceness)
            help(MusicFileReader(limits: limits), slot: n + 2)
        }
    }

    /// Gives file `file` its outcome without a read by the pool (read before, alone).
    func preset(_ file: Int, _ outcome: FileReadOutcome) {
        lock.lock()
        entries[file] = .done(outcome)
        lock.unlock()
    }

    /// Reads file `file` on this thread with the journal's `slot` saying so.
    func readNow(_ file: Int, with reader: MusicFileReader, slot: Int) -> FileReadOutcome {
        let relativePath = paths[file]
        let path = mountPoint == "/" ? "/" + relativePath : mountPoint + "/" + relativePath
        let decoding = decodesFirstFrame
        guard let journal else { return reader.read(path: path, decodingFirstFrame: decoding) }
        return journal.reading(slot: slot, relativePath) { reader.read(path: path, decodingFirstFrame: decoding) }
    }

    /// Asks for file `file` to be read (once).
    func submit(_ file: Int) {
        lock.lock()
        if !closed, case .waiting = entries[file] {
            entries[file] = .queued
            queue.append(file)
            lock.signal()
        }
        lock.unlock()
    }

    /// Takes the next queued file off the queue and marks it being read. Call with `lock` held.
    private func claimNext() -> Int? {
        while queueHead < queue.count {
            let file = queue[queueHead]
            queueHead += 1
            if queueHead > 4096 && queueHead * 2 > queue.count {
                queue.removeFirst(queueHead)
                queueHead = 0
            }
            if case .queued = entries[file] {
                entries[file] = .reading
                return file
            }
        }
        return nil
    }

    /// Reads file `file` (claimed by this thread) and publishes the outcome.
    private func read(_ file: Int, with reader: MusicFileReader, slot: Int) {
        let outcome = readNow(file, with: reader, slot: slot)
        lock.lock()
        entries[file] = .done(outcome)
        readCount += 1
        lock.broadcast()
        lock.unlock()
    }

    /// A helper's body: read queued files until the pool is closed.
    private func help(_ reader: MusicFileReader, slot: Int) {
        lock.lock()
        while true {
            while !closed && queueHead == queue.count { lock.wait() }
            if closed || isCancelled { break }
            guard let file = claimNext() else { continue }
            lock.unlock()
            read(file, with: reader, slot: slot)
            lock.lock()
        }
        lock.unlock()
    }

    /// The outcome of file `file`: read by a helper, or by this thread now when nobody has
    /// started on it. While a helper is still reading it, this thread reads other queued files.
    /// Nil when the scan was cancelled meanwhile.
    func outcome(for file: Int, reader: MusicFileReader) -> FileReadOutcome? {
        lock.lock()
        defer { lock.unlock() }
        while !isCancelled {
            switch entries[file] {
            case .done(let outcome):
                entries[file] = .waiting
                return outcome
            case .waiting, .queued:
                entries[file] = .reading
                lock.unlock()
                read(file, with: reader, slot: ScanReadJournal.scanningThreadSlot)
                lock.lock()
            case .reading:
                if let other = claimNext() {
                    lock.unlock()
                    read(other, with: reader, slot: ScanReadJournal.scanningThreadSlot)
                    lock.lock()
                } else {
                    lock.wait()
                }
            }
        }
        return nil
    }

    /// Stops the helpers (each finishes the file it is reading) and waits for them.
    func close() {
        lock.lock()
        closed = true
        lock.broadcast()
        lock.unlock()
        helpers?.join()
        helpers = nil
    }
}
