// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem

/// What the artwork worker made of one request.
struct ArtworkResult: Sendable {
    let key: String
    let size: Size
    /// The decoded, scaled picture; nil when there were no bytes or they could not be decoded.
    let image: Image?
    /// Why there is no image, for the log.
    let problem: String?
    /// The request was dropped unanswered (too many queued): it may be asked for again.
    var dropped = false
    /// The loader had nothing (no picture, no cover file): the placeholder, without a warning.
    var nothingToShow = false
}

/// Loads, decodes and scales artwork on a `WorkerThread` so the loop thread never waits on a
/// file or a decoder. Newest requests first (when scrolling a list, the rows now on screen
/// matter most); results go back through a `Mailbox`.
///
/// Thread: `request` and `stop` from the loop thread; the jobs run on the worker's thread.
final class ArtworkWorker: Sendable {
    struct Job: Sendable {
        let key: String
        let size: Size
        let load: @Sendable () -> [UInt8]?
    }

    private let worker: WorkerThread<Job>
    private let deliver: Mailbox<ArtworkResult>
    /// Queued jobs beyond this are dropped (oldest first): they are for screens long gone.
    static let maxQueued = 64

    init(limits: ImageLimits, deliver: Mailbox<ArtworkResult>) throws(Errno) {
        self.deliver = deliver
        worker = try WorkerThread(name: "kiosk-artwork", order: .newestFirst, maxQueued: Self.maxQueued) { job in
            deliver.send(Self.run(job, limits: limits))
        }
    }

    func request(_ job: Job) {
        if let dropped = worker.submit(job) {
            deliver.send(ArtworkResult(key: dropped.key, size: dropped.size, image: nil, problem: nil, dropped: true))
        }
    }

    /// Stops after the job in progress and waits for the thread. Safe to call twice.
    func stop() { worker.stop() }

    static func run(_ job: Job, limits: ImageLimits) -> ArtworkResult {
        guard let bytes = job.load() else {
            return ArtworkResult(
                key: job.key, size: job.size, image: nil, problem: "no artwork bytes", nothingToShow: true)
        }
        do {
            let image = try ImageDecoder.decode(bytes, target: .fill(job.size), limits: limits)
            return ArtworkResult(key: job.key, size: job.size, image: image, problem: nil)
        } catch {
            return ArtworkResult(key: job.key, size: job.size, image: nil, problem: error.description)
        }
    }
}

/// Decoded artwork by (key, size), least recently used dropped first. Failures are remembered
/// too, so an undecodable cover is not decoded again on every redraw. Thread: the loop thread.
struct ArtworkCache {
    enum Entry {
        case image(Image)
        case failed
    }

    private struct Slot {
        var entry: Entry
        var lastUse: UInt64
        var bytes: Int
    }

    struct Key: Hashable {
        let key: String
        let size: Size
    }

    let maxEntries: Int
    let maxBytes: Int
    private var slots: [Key: Slot] = [:]
    private var clock: UInt64 = 0
    private(set) var totalBytes = 0

    init(maxEntries: Int = 48, maxBytes: Int = 8 << 20) {
        self.maxEntries = maxEntries
        self.maxBytes = maxBytes
    }

    var count: Int { slots.count }

    mutating func get(_ key: String, _ size: Size) -> Entry? {
        let k = Key(key: key, size: size)
        guard var slot = slots[k] else { return nil }
        clock += 1
        slot.lastUse = clock
        slots[k] = slot
        return slot.entry
    }

    func contains(_ key: String, _ size: Size) -> Bool { slots[Key(key: key, size: size)] != nil }

    mutating func insert(_ key: String, _ size: Size, _ entry: Entry) {
        let k = Key(key: key, size: size)
        if let old = slots[k] { totalBytes -= old.bytes }
        clock += 1
        let bytes: Int
        if case .image(let image) = entry { bytes = image.pixels.count * 4 } else { bytes = 0 }
        slots[k] = Slot(entry: entry, lastUse: clock, bytes: bytes)
        totalBytes += bytes
        while slots.count > maxEntries || (totalBytes > maxBytes && slots.count > 1) {
            guard let oldest = slots.min(by: { $0.value.lastUse < $1.value.lastUse }) else { break }
            totalBytes -= oldest.value.bytes
            slots[oldest.key] = nil
        }
    }

    mutating func removeAll(key: String) {
        for k in slots.keys where k.key == key {
            totalBytes -= slots[k]!.bytes
            slots[k] = nil
        }
    }
}
