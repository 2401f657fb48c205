// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import Glibc
import KioskSystem
import Synchronization

/// A single-producer/single-consumer ring of audio frames, lock-free and allocation-free after
/// `init`.
///
/// `init` reserves `byteCapacity` bytes (enough for the largest stream) without touching them;
/// `configure` sizes the ring to the stream it is about to hold (`minimumFrames`: the seconds asked
/// for, at the stream's rate), so a CD stream uses 512 KiB of a 4 MiB reservation. A page is
/// faulted in (and locked in RAM when permitted) the first time the producer writes it: during the
/// ring's first lap after a `configure` that made it larger, never after, so the steady state has
/// no page faults. A `configure` that makes it smaller gives the pages beyond the new size back.
///
/// Frames have one size at a time (`frameBytes`); the capacity in frames is a power of two, so a
/// frame index maps to a slot by masking. Indices are free-running frame counts (`Int`, never
/// wrapping in practice): the producer publishes `writeIndex` with release ordering after filling
/// frames, the consumer reads it with acquire ordering, and symmetrically for `readIndex`.
///
/// Both sides get two regions (`writableRegions` / `readableRegions`): the part up to the end of
/// the memory and the part wrapped to its start, so the decoder writes in place and the output hands
/// the memory to the device without a copy.
///
/// Thread: one producer thread calls `writableRegions`, `commitWrite`, `configure`; one consumer
/// thread calls `readableRegions`, `commitRead`, `discardReadable`. `configure` may only run while
/// the ring is empty and the consumer has promised not to read it until new frames are published
/// (the engine's reset handshake guarantees this). `readable`/`writable` counts may be read by either.
public final class RingBuffer: @unchecked Sendable {
    /// Two pieces of ring memory in frame order: `first` then `second` (empty unless wrapped).
    public struct Regions {
        public let first: UnsafeMutableRawPointer
        public let firstFrames: Int
        public let second: UnsafeMutableRawPointer
        public let secondFrames: Int
        public var frames: Int { firstFrames + secondFrames }

        public init(
            first: UnsafeMutableRawPointer, firstFrames: Int, second: UnsafeMutableRawPointer, secondFrames: Int
        ) {
            self.first = first
            self.firstFrames = firstFrames
            self.second = second
            self.secondFrames = secondFrames
        }

        /// One contiguous buffer of `frames` frames.
        public init(_ buffer: UnsafeMutableRawPointer, frames: Int) {
            self.init(first: buffer, firstFrames: frames, second: buffer, secondFrames: 0)
        }
    }

    /// Bytes reserved: the most any geometry may use.
    public let byteCapacity: Int
    private let storage: UnsafeMutableRawPointer
    private let pageBytes = max(4096, Int(sysconf(Int32(_SC_PAGESIZE))))
    private let writeIndex = Atomic<Int>(0)
    private let readIndex = Atomic<Int>(0)
    // Geometry: written by the producer only while the consumer keeps off (see `configure`); read
    // after the acquire of an index that was released after the change.
    private let frameBytesValue = Atomic<Int>(4)
    private let capacityValue = Atomic<Int>(0)
    /// Producer: the bytes from the start that may be faulted in (the largest geometry since pages
    /// were last given back).
    private var touchedBytes = 0
    /// Producer: the bytes from the start known to be faulted in (a geometry written all round).
    private var faultedBytes = 0
    /// Producer: the write position from which the current geometry has been written all round.
    private var lapEnd = 0

    /// Reserves `byteCapacity` bytes (rounded up to a power of two, at least 64 KiB) and sets the
    /// whole reservation up for 4-byte frames.
    public init(byteCapacity requested: Int) {
        var capacity = 65536
        while capacity < requested { capacity <<= 1 }
        byteCapacity = capacity
        guard let memory = kiosk_ring_reserve(capacity) else {
            fatalError("audio ring: cannot map \(capacity) bytes: \(Errno.current)")
        }
        storage = memory
        configure(frameBytes: 4)
    }

    deinit { kiosk_ring_free(storage, byteCapacity) }

    /// Bytes of one frame in the current geometry.
    public var frameBytes: Int { frameBytesValue.load(ordering: .relaxed) }
    /// Frames the ring holds in the current geometry (a power of two).
    public var capacityFrames: Int { capacityValue.load(ordering: .relaxed) }

    /// Producer, ring empty and consumer off: sets the frame size (1…256 bytes) and the capacity:
    /// the smallest power of two of at least `minimumFrames` frames, as far as the reservation
    /// holds (by default the whole of it). Pages past a smaller geometry are given back.
    public func configure(frameBytes: Int, minimumFrames: Int = .max) {
        precondition(frameBytes > 0 && frameBytes <= 256)
        if isFaultedIn { faultedBytes = max(faultedBytes, usedBytes) }
        var frames = 1
        while frames < minimumFrames && frames * 2 * frameBytes <= byteCapacity { frames <<= 1 }
        frameBytesValue.store(frameBytes, ordering: .relaxed)
        capacityValue.store(frames, ordering: .relaxed)
        // Whole pages past the new geometry hold another stream's frames, not needed now.
        let pages = min(byteCapacity, (frames * frameBytes + pageBytes - 1) / pageBytes * pageBytes)
        if touchedBytes > pages { kiosk_ring_release(storage + pages, touchedBytes - pages) }
        touchedBytes = pages
        faultedBytes = min(faultedBytes, pages)
        let write = writeIndex.load(ordering: .relaxed)
        lapEnd = usedBytes <= faultedBytes ? write : write + frames
    }

    /// Bytes the current geometry uses (faulted in as the ring first fills).
    public var usedBytes: Int { capacityFrames * frameBytes }

    /// Producer: whether all of the current geometry's memory has been written since it was set up,
    /// so that writing it faults no page in.
    public var isFaultedIn: Bool { writeIndex.load(ordering: .relaxed) >= lapEnd }

    // MARK: - wake levels
    //
    // Each side wakes the other only when a commit carries the count the other waits for across its
    // level, not on every commit: a waiting consumer waits for `consumerWakeFrames` readable frames,
    // a waiting producer for `producerWakeFrames` free ones. While a side waits, only the other side
    // moves the count, so the commit that reaches the level is the one that sees the crossing.

    /// Readable frames a waiting consumer is woken for (or a marker, the end of the stream, a
    /// command): a device period's worth, so it wakes once per batch, not per decoded block.
    public var consumerWakeFrames: Int { min(1024, capacityFrames / 4) }
    /// Free frames a waiting producer is woken for: a quarter of the ring, refilled in one go.
    public var producerWakeFrames: Int { capacityFrames / 4 }

    /// Producer: commits `frames` and says whether the readable count crossed `consumerWakeFrames`
    /// (a waiting consumer must be woken).
    public func commitWriteCrossing(_ frames: Int) -> Bool {
        commitWrite(frames)
        // Counted after the commit: a consumer that read meanwhile is not waiting, and one that
        // waits has not moved since it last looked, so `after - frames` is what it saw.
        let after = readable
        let level = consumerWakeFrames
        return after >= level && after - frames < level
    }

    /// Consumer: commits `frames` and says whether the free count crossed `producerWakeFrames` (a
    /// waiting producer must be woken).
    public func commitReadCrossing(_ frames: Int) -> Bool {
        commitRead(frames)
        let after = writable
        let level = producerWakeFrames
        return after >= level && after - frames < level
    }

    /// The producer's index: frames ever published.
    public var writePosition: Int { writeIndex.load(ordering: .acquiring) }
    /// The consumer's index: frames ever consumed.
    public var readPosition: Int { readIndex.load(ordering: .acquiring) }

    /// Frames the consumer may read now.
    public var readable: Int { writeIndex.load(ordering: .acquiring) &- readIndex.load(ordering: .acquiring) }
    /// Frames the producer may write now.
    public var writable: Int { capacityFrames &- readable }

    private func regions(from index: Int, count: Int) -> Regions {
        let capacity = capacityFrames
        let frameBytes = self.frameBytes
        let slot = index & (capacity - 1)
        let firstFrames = min(count, capacity - slot)
        return Regions(
            first: storage + slot * frameBytes, firstFrames: firstFrames,
            second: storage, secondFrames: count - firstFrames)
    }

    /// Producer: where the next `writable` frames go.
    public func writableRegions(limit: Int = .max) -> Regions {
        let write = writeIndex.load(ordering: .relaxed)
        let read = readIndex.load(ordering: .acquiring)
        return regions(from: write, count: min(limit, capacityFrames - (write &- read)))
    }

    /// Producer: publishes `frames` frames written into the writable regions.
    public func commitWrite(_ frames: Int) {
        let write = writeIndex.load(ordering: .relaxed)
        writeIndex.store(write &+ frames, ordering: .releasing)
    }

    /// Consumer: the frames published and not yet consumed, at most `limit`.
    public func readableRegions(limit: Int = .max) -> Regions {
        let read = readIndex.load(ordering: .relaxed)
        let write = writeIndex.load(ordering: .acquiring)
        return regions(from: read, count: min(limit, write &- read))
    }

    /// Consumer: gives `frames` consumed frames back to the producer.
    public func commitRead(_ frames: Int) {
        let read = readIndex.load(ordering: .relaxed)
        readIndex.store(read &+ frames, ordering: .releasing)
    }

    /// Consumer: drops everything published so far; returns the new read position.
    @discardableResult
    public func discardReadable() -> Int {
        let write = writeIndex.load(ordering: .acquiring)
        readIndex.store(write, ordering: .releasing)
        return write
    }

    /// Consumer: drops published frames up to position `index` (not beyond what was published).
    public func discard(upTo index: Int) {
        let write = writeIndex.load(ordering: .acquiring)
        let read = readIndex.load(ordering: .relaxed)
        let target = min(index, write)
        if target > read { readIndex.store(target, ordering: .releasing) }
    }
}

/// A fixed-capacity single-producer/single-consumer queue, allocated once; `push` and `pop` never
/// allocate or lock. Elements may hold references (the engine's commands and events carry strings
/// and clips): `push` initializes a slot, `pop` moves the element out, and what is left at `deinit` is
/// released there. Publishing follows the ring's rule: the producer fills a slot, then stores `tail`
/// releasing; the consumer loads `tail` acquiring before it reads the slot, and stores `head`
/// releasing after it moved the element out, which the producer's acquiring load of `head` pairs
/// with before it writes that slot again.
///
/// Thread: one producer thread (`push`, `isFull`), one consumer thread (`peek`, `pop`, `isEmpty`).
public final class SPSCQueue<Element>: @unchecked Sendable {
    private let slots: UnsafeMutablePointer<Element>
    private let capacity: Int
    private let head = Atomic<Int>(0)  // next to pop (consumer)
    private let tail = Atomic<Int>(0)  // next to push (producer)

    /// `capacity` is rounded up to a power of two.
    public init(capacity requested: Int) {
        var capacity = 2
        while capacity < requested { capacity <<= 1 }
        self.capacity = capacity
        slots = UnsafeMutablePointer<Element>.allocate(capacity: capacity)
        // Touch the memory now rather than on the audio thread.
        memset(UnsafeMutableRawPointer(slots), 0, capacity * MemoryLayout<Element>.stride)
    }

    deinit {
        while pop() != nil {}
        slots.deallocate()
    }

    /// Producer: appends `element`; false when full.
    @discardableResult
    public func push(_ element: consuming Element) -> Bool {
        let t = tail.load(ordering: .relaxed)
        if t &- head.load(ordering: .acquiring) >= capacity { return false }
        (slots + (t & (capacity - 1))).initialize(to: element)
        tail.store(t &+ 1, ordering: .releasing)
        return true
    }

    /// Producer: whether a push would fail.
    public var isFull: Bool { tail.load(ordering: .relaxed) &- head.load(ordering: .acquiring) >= capacity }

    /// Consumer: whether nothing is queued (a wait's predicate; no element is read).
    public var isEmpty: Bool { head.load(ordering: .relaxed) == tail.load(ordering: .acquiring) }

    /// Consumer: the oldest element, left in place (a copy).
    public func peek() -> Element? {
        let h = head.load(ordering: .relaxed)
        if h == tail.load(ordering: .acquiring) { return nil }
        return slots[h & (capacity - 1)]
    }

    /// Consumer: removes and returns the oldest element.
    public func pop() -> Element? {
        let h = head.load(ordering: .relaxed)
        if h == tail.load(ordering: .acquiring) { return nil }
        let element = (slots + (h & (capacity - 1))).move()
        head.store(h &+ 1, ordering: .releasing)
        return element
    }

    /// Either side: elements queued now.
    public var count: Int { tail.load(ordering: .acquiring) &- head.load(ordering: .acquiring) }
}
