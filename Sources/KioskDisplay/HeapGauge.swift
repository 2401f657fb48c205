// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims

/// The most heap a piece of work held above what was in use when the gauge was made, from samples
/// the work takes where its allocations peak (after a decoder's buffers exist, before they are
/// freed). glibc's count of the whole process: another thread's allocations show up too, so it is
/// for budgets with room (tens of MB), not for byte-exact checks. Under AddressSanitizer (the fuzz
/// build) it reads ASan's allocator instead. `off` samples nothing: mallinfo2 walks every arena's
/// free lists under their locks, a cost the appliance's own decodes need not pay.
///
/// Thread: a value; whoever owns it.
public struct HeapGauge: Sendable {
    public let baseline: Int
    /// Largest sample minus `baseline` (0 before the first sample).
    public private(set) var peak = 0
    private let measures: Bool

    public init() {
        baseline = kiosk_heap_in_use()
        measures = true
    }

    private init(off: Void) {
        baseline = 0
        measures = false
    }

    /// A gauge that never samples (its peak stays 0).
    public static var off: HeapGauge { HeapGauge(off: ()) }

    /// Bytes in use now above the baseline (negative when something was freed meanwhile).
    public static func inUse(above baseline: Int) -> Int { kiosk_heap_in_use() - baseline }

    public mutating func sample() {
        if measures { peak = max(peak, Self.inUse(above: baseline)) }
    }
}
