// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskAudio
import KioskSystem
import Synchronization
import Testing

@Suite struct RingBufferTests {
    @Test func capacityIsAPowerOfTwoInFramesForEveryFrameSize() {
        let ring = RingBuffer(byteCapacity: 100_000)
        #expect(ring.byteCapacity == 131_072)
        for frameBytes in [2, 3, 4, 6, 8, 12, 24, 32] {
            ring.configure(frameBytes: frameBytes)
            let capacity = ring.capacityFrames
            #expect(capacity & (capacity - 1) == 0, "\(frameBytes)-byte frames: \(capacity) frames")
            #expect(capacity * frameBytes <= ring.byteCapacity)
            #expect(capacity * 2 * frameBytes > ring.byteCapacity)
        }
    }

    @Test func regionsWrapAroundTheEndOfTheMemory() {
        let ring = RingBuffer(byteCapacity: 65536)
        ring.configure(frameBytes: 4)
        let capacity = ring.capacityFrames
        ring.commitWrite(capacity - 10)
        ring.commitRead(capacity - 10)
        let writable = ring.writableRegions()
        #expect(writable.firstFrames == 10)
        #expect(writable.secondFrames == capacity - 10)
        let values = writable.first.assumingMemoryBound(to: UInt32.self)
        for i in 0..<10 { values[i] = UInt32(i) }
        let wrapped = writable.second.assumingMemoryBound(to: UInt32.self)
        for i in 0..<5 { wrapped[i] = UInt32(10 + i) }
        ring.commitWrite(15)
        let readable = ring.readableRegions()
        #expect(readable.firstFrames == 10 && readable.secondFrames == 5)
        let a = readable.first.assumingMemoryBound(to: UInt32.self)
        let b = readable.second.assumingMemoryBound(to: UInt32.self)
        #expect((0..<10).map { a[$0] } + (0..<5).map { b[$0] } == (0..<15).map { UInt32($0) })
        #expect(ring.readableRegions(limit: 12).frames == 12)
    }

    @Test func fullRingOffersNoSpaceAndDiscardEmptiesIt() {
        let ring = RingBuffer(byteCapacity: 65536)
        ring.configure(frameBytes: 8)
        ring.commitWrite(ring.capacityFrames)
        #expect(ring.writable == 0)
        #expect(ring.writableRegions().frames == 0)
        ring.discard(upTo: ring.readPosition + 100)
        #expect(ring.readable == ring.capacityFrames - 100)
        ring.discardReadable()
        #expect(ring.readable == 0 && ring.writable == ring.capacityFrames)
    }

    /// Two threads move 1 M frames through a small ring; every frame arrives once, in order.
    @Test func producerAndConsumerThreadsSeeEveryFrameInOrder() throws {
        let ring = RingBuffer(byteCapacity: 65536)
        ring.configure(frameBytes: 4)
        let total = 1_000_000
        let mismatches = Atomic<Int>(0)
        let producer = try KioskThread(name: "ring-producer") {
            var next: UInt32 = 0
            while next < UInt32(total) {
                let regions = ring.writableRegions(limit: 777)
                if regions.frames == 0 {
                    sched_yield()
                    continue
                }
                let a = regions.first.assumingMemoryBound(to: UInt32.self)
                for i in 0..<regions.firstFrames { a[i] = next &+ UInt32(i) }
                let b = regions.second.assumingMemoryBound(to: UInt32.self)
                for i in 0..<regions.secondFrames { b[i] = next &+ UInt32(regions.firstFrames + i) }
                let n = min(regions.frames, total - Int(next))
                ring.commitWrite(n)
                next &+= UInt32(n)
            }
        }
        var expected: UInt32 = 0
        while expected < UInt32(total) {
            let regions = ring.readableRegions(limit: 1000)
            if regions.frames == 0 {
                sched_yield()
                continue
            }
            let a = regions.first.assumingMemoryBound(to: UInt32.self)
            for i in 0..<regions.firstFrames where a[i] != expected &+ UInt32(i) {
                mismatches.add(1, ordering: .relaxed)
            }
            let b = regions.second.assumingMemoryBound(to: UInt32.self)
            for i in 0..<regions.secondFrames where b[i] != expected &+ UInt32(regions.firstFrames + i) {
                mismatches.add(1, ordering: .relaxed)
            }
            ring.commitRead(regions.frames)
            expected &+= UInt32(regions.frames)
        }
        producer.join()
        #expect(mismatches.load(ordering: .relaxed) == 0)
        #expect(ring.readable == 0)
    }

    @Test func configureSizesTheRingToTheFramesAskedForAsAPowerOfTwo() {
        let ring = RingBuffer(byteCapacity: 3_072_000)  // 2 s of 192 kHz 32-bit stereo
        #expect(ring.byteCapacity == 4 << 20)
        ring.configure(frameBytes: 4, minimumFrames: 88200)  // 2 s of CD audio
        #expect(ring.capacityFrames == 131_072)
        #expect(ring.usedBytes == 512 << 10)
        ring.configure(frameBytes: 8, minimumFrames: 384_000)  // 2 s of 192 kHz 32-bit
        #expect(ring.capacityFrames == 524_288 && ring.usedBytes == ring.byteCapacity)
        ring.configure(frameBytes: 32, minimumFrames: 384_000)  // 8 channels: what the reservation holds
        #expect(ring.capacityFrames == 131_072 && ring.usedBytes == ring.byteCapacity)
    }

    /// The ring's memory is reserved, not touched: a page becomes resident when the producer first
    /// writes it, and the ring counts as faulted in once written all round.
    @Test func memoryIsFaultedInAsTheRingFirstFills() {
        let ring = RingBuffer(byteCapacity: 1 << 20)
        ring.configure(frameBytes: 4, minimumFrames: 16384)  // 64 KiB of the 1 MiB
        let base = ring.writableRegions().first
        #expect(residentBytes(base, ring.byteCapacity) == 0, "nothing resident before the first write")
        #expect(!ring.isFaultedIn)
        let half = ring.writableRegions(limit: 8192)
        memset(half.first, 1, half.firstFrames * 4)
        ring.commitWrite(8192)
        #expect(residentBytes(base, ring.byteCapacity) == 32 << 10, "the half written")
        #expect(!ring.isFaultedIn)
        ring.commitRead(8192)
        let rest = ring.writableRegions(limit: 8192)
        memset(rest.first, 1, rest.firstFrames * 4)
        ring.commitWrite(8192)
        #expect(residentBytes(base, ring.byteCapacity) == 64 << 10, "the whole ring, and no more")
        #expect(ring.isFaultedIn)
        ring.commitRead(8192)
        ring.configure(frameBytes: 4, minimumFrames: 8192)
        #expect(ring.isFaultedIn, "a smaller ring within written memory faults nothing in")
        ring.configure(frameBytes: 8, minimumFrames: 16384)
        #expect(!ring.isFaultedIn, "a larger one must be written all round first")
    }

    /// Going back to a smaller stream gives the memory past its ring back to the kernel.
    @Test func aSmallerRingGivesThePagesPastItBack() {
        let ring = RingBuffer(byteCapacity: 1 << 20)
        ring.configure(frameBytes: 8)
        let base = ring.writableRegions().first
        memset(base, 1, ring.byteCapacity)
        #expect(residentBytes(base, ring.byteCapacity) == 1 << 20)
        ring.configure(frameBytes: 4, minimumFrames: 16384)
        #expect(residentBytes(base, ring.byteCapacity) == 64 << 10)
        #expect(base.load(as: UInt8.self) == 1, "the memory the ring still uses is kept")
    }

    /// Each side learns from its commit whether the other, if waiting, must be woken: the consumer
    /// when the readable frames reach `consumerWakeFrames`, the producer when the free frames reach
    /// `producerWakeFrames`; not on the commits before or after.
    @Test func commitsSayWhenTheyCrossTheOtherSidesWakeLevel() {
        let ring = RingBuffer(byteCapacity: 65536)
        ring.configure(frameBytes: 4)
        #expect(ring.consumerWakeFrames == 1024 && ring.producerWakeFrames == 4096)
        let writes = (0..<20).map { _ in ring.commitWriteCrossing(100) }
        #expect(writes.indices.filter { writes[$0] } == [10], "the write that made 1100 readable, only")
        ring.commitRead(ring.readable)
        #expect(ring.commitWriteCrossing(2000), "a single write over the level")
        ring.commitWrite(ring.writable)
        let reads = (0..<60).map { _ in ring.commitReadCrossing(100) }
        #expect(reads.indices.filter { reads[$0] } == [40], "the read that freed 4100 frames, only")
    }

    @Test func queueHandsEveryElementAcrossThreadsInOrder() throws {
        let queue = SPSCQueue<UInt64>(capacity: 64)
        let total: UInt64 = 200_000
        let producer = try KioskThread(name: "spsc-producer") {
            var next: UInt64 = 0
            while next < total {
                if queue.push(next) { next += 1 } else { sched_yield() }
            }
        }
        var expected: UInt64 = 0
        var outOfOrder = 0
        while expected < total {
            guard let value = queue.pop() else {
                sched_yield()
                continue
            }
            if value != expected { outOfOrder += 1 }
            expected += 1
        }
        producer.join()
        #expect(outOfOrder == 0)
        #expect(queue.pop() == nil)
    }

    @Test func queueKeepsOrderAndRefusesWhenFull() {
        let queue = SPSCQueue<Int>(capacity: 4)
        for i in 0..<4 { #expect(queue.push(i)) }
        #expect(!queue.push(99))
        #expect(queue.peek() == 0)
        #expect((0..<4).map { _ in queue.pop() } == [0, 1, 2, 3])
        #expect(queue.pop() == nil)
    }
}

@Suite struct SampleFormatTests {
    @Test func deviceEncodingsArePreferredExactAndRingFirst() {
        let sixteen = SampleEncoding.candidates(bits: 16, ring: .s16)
        #expect(sixteen.map(\.encoding) == [.s16, .s24_3, .s24, .s32])
        #expect(sixteen.allSatisfy { $0.exact })
        let twentyFour = SampleEncoding.candidates(bits: 24, ring: .s32)
        #expect(twentyFour.map(\.encoding) == [.s32, .s24_3, .s24, .s16])
        #expect(twentyFour.map(\.exact) == [true, true, true, false])
        let thirtyTwo = SampleEncoding.candidates(bits: 32, ring: .s32)
        #expect(thirtyTwo.map(\.encoding) == [.s32, .s24, .s24_3, .s16])
        #expect(thirtyTwo.map(\.exact) == [true, false, false, false])
    }

    @Test func widerContainersKeepEverySample() {
        let samples: [Int16] = [0, 1, -1, 32767, -32768, 12345, -23456]
        for encoding in [SampleEncoding.s24_3, .s24, .s32] {
            var out = [UInt8](repeating: 0, count: samples.count * encoding.bytes)
            samples.withUnsafeBytes { input in
                out.withUnsafeMutableBytes { output in
                    SampleConverter.convert(
                        input.baseAddress!, .s16, to: output.baseAddress!, encoding, samples: samples.count)
                }
            }
            let expected = Fixtures.deviceBytes(samples.map { Int32($0) }, bits: 16, encoding: encoding)
            #expect(out == expected, "S16 → \(encoding)")
        }
        // 24 significant bits in the ring's 32-bit words → S24_3LE and S24_LE, exactly.
        let wide: [Int32] = [0, 1, -1, 8_388_607, -8_388_608, 1_234_567].map { $0 << 8 }
        for encoding in [SampleEncoding.s24_3, .s24] {
            var out = [UInt8](repeating: 0, count: wide.count * encoding.bytes)
            wide.withUnsafeBytes { input in
                out.withUnsafeMutableBytes { output in
                    SampleConverter.convert(
                        input.baseAddress!, .s32, to: output.baseAddress!, encoding, samples: wide.count)
                }
            }
            #expect(out == Fixtures.deviceBytes(wide.map { $0 >> 8 }, bits: 24, encoding: encoding))
        }
    }

    @Test func deviceNamesSelectTheSilentSinkOrAnALSAPCM() {
        #expect(AudioDevice(name: "none") == .silent)
        #expect(AudioDevice(name: "hw:CARD=DAC") == .alsa(pcm: "hw:CARD=DAC"))
        #expect(AudioDevice.silent.name == ClockOutput.deviceName)
        for name in ["none", "default", "plughw:1,0"] { #expect(AudioDevice(name: name).name == name) }
        #expect(makeAudioOutput(device: "none") is ClockOutput)
        #expect(makeAudioOutput(device: "null") is ALSAOutput)
    }

    @Test func mixerUsesTheControlDeviceOfThePCMsCard() {
        #expect(ALSAMixer.controlDevice(forPCM: "hw:1,0") == "hw:1")
        #expect(ALSAMixer.controlDevice(forPCM: "plughw:CARD=sndrpihifiberry,DEV=0") == "hw:CARD=sndrpihifiberry")
        #expect(ALSAMixer.controlDevice(forPCM: "default") == "default")
        #expect(ALSAMixer.controlDevice(forPCM: "none") == "default")
    }

    @Test func softwareVolumeIsIdentityAtFullAndScalesBelow() {
        #expect(SampleConverter.gain(percent: 100) == SampleConverter.unity)
        #expect(SampleConverter.gain(percent: 0) == 0)
        #expect(SampleConverter.gain(percent: 50) == SampleConverter.unity / 4)
        let samples: [Int16] = [1000, -1000, 32767, -32768]
        var out = [Int16](repeating: 0, count: 4)
        samples.withUnsafeBytes { input in
            out.withUnsafeMutableBytes { output in
                SampleConverter.convert(
                    input.baseAddress!, .s16, to: output.baseAddress!, .s16, samples: 4,
                    gain: SampleConverter.gain(percent: 50))
            }
        }
        #expect(out == samples.map { $0 >> 2 })
    }
}

/// Bytes of `[address, address + count)` resident in RAM (`mincore(2)`).
private func residentBytes(_ address: UnsafeMutableRawPointer, _ count: Int) -> Int {
    let page = Int(sysconf(Int32(_SC_PAGESIZE)))
    var pages = [UInt8](repeating: 0, count: (count + page - 1) / page)
    guard mincore(address, count, &pages) == 0 else { return -1 }
    return pages.filter { $0 & 1 != 0 }.count * page
}
