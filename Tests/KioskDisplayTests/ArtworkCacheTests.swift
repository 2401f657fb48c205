// SPDX-License-Identifier: GPL-3.0-or-later
import Testing

@testable import KioskDisplay

struct ArtworkCacheTests {
    let size = Size(width: 10, height: 10)

    @Test func leastRecentlyUsedEntryGoesFirst() {
        var cache = ArtworkCache(maxEntries: 3, maxBytes: 1 << 20)
        let image = Image(width: 10, height: 10, color: Color(rgb: 0))
        cache.insert("a", size, .image(image))
        cache.insert("b", size, .image(image))
        cache.insert("c", size, .failed)
        _ = cache.get("a", size)  // a is now the most recent
        cache.insert("d", size, .image(image))
        #expect(cache.contains("a", size) && cache.contains("c", size) && cache.contains("d", size))
        #expect(!cache.contains("b", size))
        #expect(cache.count == 3)
    }

    @Test func byteBudgetEvictsToo() {
        var cache = ArtworkCache(maxEntries: 100, maxBytes: 1000)
        let image = Image(width: 10, height: 10, color: Color(rgb: 0))  // 400 bytes
        for key in ["a", "b", "c"] { cache.insert(key, size, .image(image)) }
        #expect(cache.count == 2 && cache.totalBytes == 800)
        #expect(!cache.contains("a", size))
        cache.removeAll(key: "b")
        #expect(cache.count == 1 && cache.totalBytes == 400)
    }

    @Test func sameKeyAtAnotherSizeIsAnotherEntry() {
        var cache = ArtworkCache()
        cache.insert("a", size, .failed)
        #expect(!cache.contains("a", Size(width: 20, height: 20)))
    }

    @Test func workerDecodesAndReportsProblems() {
        let ok = ArtworkWorker.run(
            .init(key: "k", size: size) { try? ImageEncoder.png(Image(width: 4, height: 4, color: Color(rgb: 0xFF))) },
            limits: .default)
        #expect(ok.image?.width == 10 && ok.problem == nil)
        let none = ArtworkWorker.run(.init(key: "k", size: size) { nil }, limits: .default)
        #expect(none.image == nil && none.problem == "no artwork bytes")
        let bad = ArtworkWorker.run(.init(key: "k", size: size) { [1, 2, 3] }, limits: .default)
        #expect(bad.image == nil && bad.problem == "not a JPEG or PNG image")
    }
}
