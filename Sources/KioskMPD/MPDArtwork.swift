// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskLibrary
import KioskModel
import KioskSystem

/// Loads the pictures `albumart` and `readpicture` serve, off the loop thread (a USB stick can be
/// slow), one at a time on a `WorkerThread` (started by the first load), and keeps the last few so that the chunks
/// after the first come from memory.
///
/// Only what the catalog points at is read: a track's embedded picture, or the cover file of its
/// folder, and only when its real path (symbolic links resolved) is inside the volume's mount
/// point, so a link on a stick cannot expose a file outside it. Thread: loop thread.
final class MPDArtworkLoader {
    /// A picture's bytes and MIME type.
    struct Picture: Sendable {
        let bytes: [UInt8]
        let mimeType: String
    }

    /// What a client asks for: `albumart` (the cover, embedded or file) or `readpicture` (the
    /// picture embedded in the file only).
    enum Kind: Sendable, Hashable {
        case cover
        case embedded
    }

    struct Key: Hashable {
        let kind: Kind
        let path: String
    }

    private struct Job {
        let key: Key
        let track: Track
        let mountPoint: String
        let catalog: any CatalogSnapshot
        var completions: [(Picture?) -> Void]
    }

    private struct Finished: Sendable {
        let key: Key
        let picture: Picture?
    }

    private let loop: EventLoop
    private let maxBytes: Int
    private let cacheBytes: Int
    private var cache: [(key: Key, picture: Picture?)] = []
    private var queue: [Job] = []
    private var running: Job?
    private var worker: WorkerThread<@Sendable () -> Void>?
    private var mailbox: Mailbox<Finished>?
    private var stopped = false
    /// Loads done on the worker (for tests).
    private(set) var loads = 0

    init(loop: EventLoop, maxBytes: Int, cacheBytes: Int) {
        self.loop = loop
        self.maxBytes = maxBytes
        self.cacheBytes = cacheBytes
        mailbox = Mailbox(loop: loop) { [weak self] finished in self?.finished(finished) }
    }

    /// The picture if it is cached (`.some(nil)`: known to have none).
    func cached(_ key: Key) -> Picture?? {
        guard let index = cache.firstIndex(where: { $0.key == key }) else { return nil }
        let entry = cache.remove(at: index)
        cache.append(entry)
        return .some(entry.picture)
    }

    /// Loads the picture for `track` and calls `completion` on the loop thread.
    func load(
        _ kind: Kind, track: Track, mountPoint: String, catalog: any CatalogSnapshot,
        completion: @escaping (Picture?) -> Void
    ) {
        let key = Key(kind: kind, path: track.path)
        if let hit = cached(key) {
            completion(hit)
            return
        }
        if running?.key == key {
            running!.completions.append(completion)
            return
        }
        if let index = queue.firstIndex(where: { $0.key == key }) {
            queue[index].completions.append(completion)
            return
        }
        queue.append(Job(key: key, track: track, mountPoint: mountPoint, catalog: catalog, completions: [completion]))
        startNext()
    }

    /// Waits for a running load and drops the queued ones (their completions are not called).
    func stop() {
        stopped = true
        queue.removeAll()
        worker?.stop()
        running = nil
    }

    private func startNext() {
        guard !stopped, running == nil, !queue.isEmpty, let mailbox else { return }
        let job = queue.removeFirst()
        let key = job.key
        let track = job.track
        let mountPoint = job.mountPoint
        let catalog = job.catalog
        let limit = maxBytes
        do {
            if worker == nil { worker = try WorkerThread(name: "kiosk-mpd-art") { $0() } }
            worker!.submit {
                let picture = MPDArtworkLoader.read(
                    key.kind, track: track, mountPoint: mountPoint, catalog: catalog, limit: limit)
                mailbox.send(Finished(key: key, picture: picture))
            }
            running = job
        } catch {
            Log.error("mpd: cannot start the artwork thread: \(error)")
            for completion in job.completions { completion(nil) }
            startNext()
        }
    }

    private func finished(_ result: Finished) {
        guard let job = running, job.key == result.key else { return }
        running = nil
        loads += 1
        remember(result.key, result.picture)
        for completion in job.completions { completion(result.picture) }
        startNext()
    }

    private func remember(_ key: Key, _ picture: Picture?) {
        cache.removeAll { $0.key == key }
        cache.append((key, picture))
        var total = cache.reduce(0) { $0 + ($1.picture?.bytes.count ?? 0) }
        while cache.count > 8 || (total > cacheBytes && cache.count > 1) {
            total -= cache[0].picture?.bytes.count ?? 0
            cache.removeFirst()
        }
    }

    // MARK: - the worker

    /// Whether `path`'s real location is inside `mountPoint`'s.
    static func isInside(_ path: String, mountPoint: String) -> Bool {
        guard let real = try? Syscalls.canonicalPath(path), let root = try? Syscalls.canonicalPath(mountPoint) else {
            return false
        }
        return root == "/" ? real.hasPrefix("/") : real.hasPrefix(root + "/")
    }

    /// Runs on the worker thread.
    static func read(_ kind: Kind, track: Track, mountPoint: String, catalog: any CatalogSnapshot, limit: Int)
        -> Picture?
    {
        guard isInside(track.path, mountPoint: mountPoint) else {
            Log.warning("mpd: \(track.path) is not inside \(mountPoint); not reading it")
            return nil
        }
        switch catalog.artwork(for: track) {
        case .embedded(let bytes, let mimeType):
            guard bytes.count <= limit else { return nil }
            return Picture(bytes: bytes, mimeType: mimeType)
        case .file(let path, _):
            guard kind == .cover else { return nil }
            guard isInside(path, mountPoint: mountPoint) else {
                Log.warning("mpd: cover \(path) is not inside \(mountPoint); not reading it")
                return nil
            }
            // Beneath the track's own volume, a regular file only (StickFile): a FIFO, a socket or
            // a link named cover.jpg is refused without a wait.
            let bytes: [UInt8]
            do {
                bytes = try StickFile.read(path: path, inVolume: mountPoint, limit: limit)
            } catch {
                if error.rawValue != ENOENT { Log.warning("mpd: \(error)") }
                return nil
            }
            let lower = path.lowercased()
            let mime = lower.hasSuffix(".png") ? "image/png" : "image/jpeg"
            return Picture(bytes: bytes, mimeType: mime)
        case nil:
            return nil
        }
    }
}
