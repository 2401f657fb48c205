import Glibc
import KioskSystem
import Synchronization

/// Music files to read (tags and first frame), shared out to reader threads: files are submitted
/// (from any thread), and the scanning thread takes the outcomes in its own order, writing the
/// index meanwhile, and reads a file itself when nothing it needs is ready. A file is read once
/// however often it is submitted.
///
/// Thread: `submit` from any thread; `outcome(for:reader:)`, `startHelpers` and `close` from the
/// scanning thread only.
final class ReadPool: @unchecked Sendable {
    private enum Entry {
        case queued
        case reading
        case done(FileReadOutcome)
    }

    let mountPoint: String
    let limits: ScanLimits
    let cancellation: ScanCancellation?
    /// Whether a FLAC file's first frame is decoded (else its header is checked, see
    /// `MusicFileReader.read(path:decodingFirstFrame:)`).
    let decodesFirstFrame: Bool
    /// Where each reader says which file it reads (nil: no index, no journal).
    let journal: ScanReadJournal?
    private let lock = ConditionLock()
    // Guarded by `lock`.
    private var queue: [String] = []
    private var queueHead = 0
    private var entries: [String: Entry] = [:]
    private var closed = false
    private var readCount = 0
    private var helpers: [KioskThread] = []

    init(
        mountPoint: String, limits: ScanLimits, cancellation: ScanCancellation?, journal: ScanReadJournal? = nil,
        decodesFirstFrame: Bool = true
    ) {
        self.mountPoint = mountPoint
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
        for n in 0..<max(0, count) {
            let limits = limits
            guard
                let thread = try? KioskThread(
                    name: "kiosk-scan-\(n + 1)",
                    { [self] in
                        Syscalls.setThreadNiceness(VolumeScanner.niceness)
                        help(MusicFileReader(limits: limits), slot: n + 2)
                    })
            else { break }
            helpers.append(thread)
        }
    }

    /// Gives `relativePath` its outcome without a read by the pool (read before, alone).
    func preset(_ relativePath: String, _ outcome: FileReadOutcome) {
        lock.lock()
        entries[relativePath] = .done(outcome)
        lock.unlock()
    }

    /// Reads `relativePath` on this thread with the journal's `slot` saying so.
    func readNow(_ relativePath: String, with reader: MusicFileReader, slot: Int) -> FileReadOutcome {
        let path = mountPoint == "/" ? "/" + relativePath : mountPoint + "/" + relativePath
        let decoding = decodesFirstFrame
        guard let journal else { return reader.read(path: path, decodingFirstFrame: decoding) }
        return journal.reading(slot: slot, relativePath) { reader.read(path: path, decodingFirstFrame: decoding) }
    }

    /// Asks for `relativePath` to be read (once).
    func submit(_ relativePath: String) {
        lock.lock()
        if !closed && entries[relativePath] == nil {
            entries[relativePath] = .queued
            queue.append(relativePath)
            lock.signal()
        }
        lock.unlock()
    }

    /// Takes the next queued file off the queue and marks it being read. Call with `lock` held.
    private func claimNext() -> String? {
        while queueHead < queue.count {
            let path = queue[queueHead]
            queueHead += 1
            if queueHead > 4096 && queueHead * 2 > queue.count {
                queue.removeFirst(queueHead)
                queueHead = 0
            }
            if case .queued? = entries[path] {
                entries[path] = .reading
                return path
            }
        }
        return nil
    }

    /// Reads `path` (claimed by this thread) and publishes the outcome.
    private func read(_ path: String, with reader: MusicFileReader, slot: Int) {
        let outcome = readNow(path, with: reader, slot: slot)
        lock.lock()
        entries[path] = .done(outcome)
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
            guard let path = claimNext() else { continue }
            lock.unlock()
            read(path, with: reader, slot: slot)
            lock.lock()
        }
        lock.unlock()
    }

    /// The outcome of `relativePath`: read by a helper, or by this thread now when nobody has
    /// started on it. While a helper is still reading it, this thread reads other queued files.
    /// Nil when the scan was cancelled meanwhile.
    func outcome(for relativePath: String, reader: MusicFileReader) -> FileReadOutcome? {
        lock.lock()
        defer { lock.unlock() }
        while !isCancelled {
            switch entries[relativePath] {
            case .done(let outcome)?:
                entries[relativePath] = nil
                return outcome
            case nil, .queued?:
                entries[relativePath] = .reading
                lock.unlock()
                read(relativePath, with: reader, slot: ScanReadJournal.scanningThreadSlot)
                lock.lock()
            case .reading?:
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
        for thread in helpers { thread.join() }
        helpers.removeAll()
    }
}
