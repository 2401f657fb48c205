import CKioskShims

/// The most heap a piece of work held above what was in use when the gauge was made, from samples
/// the work takes where its allocations peak (after a decoder's buffers exist, before they are
/// freed). glibc's count of the whole process: another thread's allocations show up too, so it is
/// for budgets with room (tens of MB), not for byte-exact checks. Under AddressSanitizer (the fuzz
/// build) it reads ASan's allocator instead.
///
/// Thread: a value; whoever owns it.
public struct HeapGauge: Sendable {
    public let baseline: Int
    /// Largest sample minus `baseline` (0 before the first sample).
    public private(set) var peak = 0

    public init() { baseline = kiosk_heap_in_use() }

    /// Bytes in use now above the baseline (negative when something was freed meanwhile).
    public static func inUse(above baseline: Int) -> Int { kiosk_heap_in_use() - baseline }

    public mutating func sample() { peak = max(peak, Self.inUse(above: baseline)) }
}
