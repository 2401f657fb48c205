// SPDX-License-Identifier: GPL-3.0-or-later
/// A binary min-heap of (deadline, id), ordered by deadline then id (the order timers were made).
struct DeadlineHeap {
    private var items: [(deadline: UInt64, id: UInt64)] = []

    var top: (deadline: UInt64, id: UInt64)? { items.first }
    var count: Int { items.count }

    private static func less(_ a: (deadline: UInt64, id: UInt64), _ b: (deadline: UInt64, id: UInt64)) -> Bool {
        a.deadline != b.deadline ? a.deadline < b.deadline : a.id < b.id
    }

    mutating func push(deadline: UInt64, id: UInt64) {
        items.append((deadline, id))
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            if !Self.less(items[child], items[parent]) { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    @discardableResult
    mutating func pop() -> (deadline: UInt64, id: UInt64)? {
        guard !items.isEmpty else { return nil }
        items.swapAt(0, items.count - 1)
        let result = items.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < items.count && Self.less(items[left], items[smallest]) { smallest = left }
            if right < items.count && Self.less(items[right], items[smallest]) { smallest = right }
            if smallest == parent { break }
            items.swapAt(parent, smallest)
            parent = smallest
        }
        return result
    }
}
