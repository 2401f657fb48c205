// SPDX-License-Identifier: GPL-3.0-or-later
import CZlib
import Glibc

private typealias F = MusicTagFixtures

/// Tags built to cost a reader far more than their size: a zlib bomb in an ID3v2.4 frame, tens of
/// thousands of frames, items or atoms, an Ogg comment packet of 30 MB. Made in the test, never
/// committed.
enum HostileTagFixtures {
    /// A zlib stream of `prefix` followed by `zeros` zero bytes, deflated 64 KiB at a time (the
    /// input is never held whole: 200 MB of zeros become about 200 KB).
    static func zlibStream(_ prefix: [UInt8], zeros: Int) -> [UInt8] {
        var stream = z_stream()
        guard deflateInit_(&stream, 9, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return [] }
        defer { deflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        let zeroChunk = [UInt8](repeating: 0, count: 1 << 16)
        func feed(_ input: [UInt8], flush: Int32) {
            var input = input
            input.withUnsafeMutableBufferPointer { inBuffer in
                stream.next_in = inBuffer.baseAddress
                stream.avail_in = uInt(inBuffer.count)
                repeat {
                    chunk.withUnsafeMutableBufferPointer { out in
                        stream.next_out = out.baseAddress
                        stream.avail_out = uInt(out.count)
                        _ = deflate(&stream, flush)
                        output += out[0..<(out.count - Int(stream.avail_out))]
                    }
                } while stream.avail_out == 0
            }
        }
        feed(prefix, flush: Z_NO_FLUSH)
        var left = zeros
        while left > 0 {
            let n = min(left, zeroChunk.count)
            feed(n == zeroChunk.count ? zeroChunk : Array(zeroChunk[0..<n]), flush: Z_NO_FLUSH)
            left -= n
        }
        feed([], flush: Z_FINISH)
        return output
    }

    /// An ID3v2.4 frame with the compression and data-length-indicator flags, holding `body` as
    /// `compressed` (a zlib stream), and saying it inflates to `inflated` bytes.
    static func compressedFrame(_ id: String, compressed: [UInt8], inflated: Int) -> [UInt8] {
        var frame = Array(id.utf8)
        frame += F.syncsafe(4 + compressed.count)
        frame += [0x00, 0x09]  // compression (0x08) and data length indicator (0x01)
        frame += F.syncsafe(min(inflated, (1 << 28) - 1))
        return frame + compressed
    }

    // MARK: - MP4

    static func box(_ type: [UInt8], _ body: [UInt8]) -> [UInt8] { F.be32(body.count + 8) + type + body }

    /// `m4a` (an FFmpeg file with its moov last) with a udta/meta/ilst of `items` comment items.
    static func withItemList(_ m4a: [UInt8], items: Int) -> [UInt8]? {
        var list: [UInt8] = []
        list.reserveCapacity(items * 32)
        let comment: [UInt8] = [0xA9] + Array("cmt".utf8)
        for i in 0..<items {
            list += box(comment, box(Array("data".utf8), F.be32(1) + F.be32(0) + Array("c\(i)".utf8)))
        }
        return withItemListBody(m4a, list)
    }

    /// `m4a` with a title item in its ilst, then `depth` moov atoms each inside the one before.
    static func withNestedAtoms(_ m4a: [UInt8], depth: Int) -> [UInt8]? {
        var list = box([0xA9] + Array("nam".utf8), box(Array("data".utf8), F.be32(1) + F.be32(0) + Array("Deep".utf8)))
        for level in 0..<depth { list += F.be32(8 * (depth - level) + 8) + Array("moov".utf8) }
        list += F.be32(8) + Array("free".utf8)
        return withItemListBody(m4a, list)
    }

    /// `m4a` with its udta replaced by udta/meta/ilst holding `list`.
    static func withItemListBody(_ m4a: [UInt8], _ list: [UInt8]) -> [UInt8]? {
        var atoms: [(type: [UInt8], body: [UInt8])] = []
        var position = 0
        while position + 8 <= m4a.count {
            let size =
                Int(m4a[position]) << 24 | Int(m4a[position + 1]) << 16 | Int(m4a[position + 2]) << 8
                | Int(m4a[position + 3])
            guard size >= 8, position + size <= m4a.count else { return nil }
            atoms.append((Array(m4a[position + 4..<position + 8]), Array(m4a[position + 8..<position + size])))
            position += size
        }
        // Only a moov after the media data can grow without moving the sample offsets it holds.
        guard atoms.last?.type == Array("moov".utf8) else { return nil }
        var moov: [UInt8] = []
        var inner = 0
        let body = atoms.last!.body
        while inner + 8 <= body.count {
            let size =
                Int(body[inner]) << 24 | Int(body[inner + 1]) << 16 | Int(body[inner + 2]) << 8
                | Int(body[inner + 3])
            guard size >= 8, inner + size <= body.count else { return nil }
            if Array(body[inner + 4..<inner + 8]) != Array("udta".utf8) { moov += body[inner..<inner + size] }
            inner += size
        }
        var handler = F.be32(0) + F.be32(0)
        handler += Array("mdirappl".utf8)
        handler += [UInt8](repeating: 0, count: 9)
        let meta = F.be32(0) + box(Array("hdlr".utf8), handler) + box(Array("ilst".utf8), list)
        moov += box(Array("udta".utf8), box(Array("meta".utf8), meta))
        var out: [UInt8] = []
        for atom in atoms.dropLast() { out += box(atom.type, atom.body) }
        return out + box(Array("moov".utf8), moov)
    }

    // MARK: - Ogg

    private static let crcTable: [UInt32] = (0..<256).map { i -> UInt32 in
        var r = UInt32(i) << 24
        for _ in 0..<8 { r = r & 0x8000_0000 != 0 ? (r << 1) ^ 0x04C1_1DB7 : r << 1 }
        return r
    }

    static func crc(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0
        for b in bytes { c = (c << 8) ^ crcTable[Int((c >> 24) ^ UInt32(b))] }
        return c
    }

    /// The packets of a one-stream Ogg file, each with the granule position of the page it ends on.
    static func packets(_ ogg: [UInt8]) -> (serial: [UInt8], packets: [(bytes: [UInt8], granule: [UInt8])])? {
        var packets: [(bytes: [UInt8], granule: [UInt8])] = []
        var current: [UInt8] = []
        var position = 0
        var serial: [UInt8] = []
        while position + 27 <= ogg.count {
            guard ogg[position..<position + 4].elementsEqual("OggS".utf8) else { return nil }
            let segments = Int(ogg[position + 26])
            let lacing = Array(ogg[position + 27..<position + 27 + segments])
            serial = Array(ogg[position + 14..<position + 18])
            let granule = Array(ogg[position + 6..<position + 14])
            var body = position + 27 + segments
            for value in lacing {
                current += ogg[body..<body + Int(value)]
                body += Int(value)
                if value < 255 {
                    packets.append((current, granule))
                    current = []
                }
            }
            position = body
        }
        return (serial, packets)
    }

    /// An Ogg file of `packets`, each on pages of its own (the first page BOS, the last EOS).
    static func ogg(serial: [UInt8], packets: [(bytes: [UInt8], granule: [UInt8])]) -> [UInt8] {
        var out: [UInt8] = []
        var sequence = 0
        for (index, packet) in packets.enumerated() {
            var lacing = [UInt8](repeating: 255, count: packet.bytes.count / 255)
            lacing.append(UInt8(packet.bytes.count % 255))
            var offset = 0
            var first = true
            while !lacing.isEmpty {
                let segments = Array(lacing.prefix(255))
                lacing.removeFirst(segments.count)
                let length = segments.reduce(0) { $0 + Int($1) }
                let last = lacing.isEmpty
                var flags: UInt8 = first ? 0 : 1
                if index == 0 { flags |= 2 }
                if index == packets.count - 1 && last { flags |= 4 }
                var page = Array("OggS".utf8) + [0, flags]
                page += last ? packet.granule : [UInt8](repeating: 0xFF, count: 8)
                page += serial
                page += F.le32(sequence)
                page += [0, 0, 0, 0, UInt8(segments.count)]
                page += segments
                page += packet.bytes[offset..<offset + length]
                let sum = crc(page)
                page.replaceSubrange(22..<26, with: F.le32(Int(sum)))
                out += page
                offset += length
                sequence += 1
                first = false
            }
        }
        return out
    }

    /// `ogg` (a Vorbis or Opus file) with its comment packet replaced by one holding `count`
    /// comments of `commentBytes` bytes each.
    static func withComments(_ ogg: [UInt8], count: Int, commentBytes: Int) -> [UInt8]? {
        guard let (serial, original) = packets(ogg), original.count > 2 else { return nil }
        var list = original
        let vorbis = list[1].bytes.first == 3
        var packet = vorbis ? [3] + Array("vorbis".utf8) : Array("OpusTags".utf8)
        packet += F.le32(4) + Array("test".utf8)
        packet += F.le32(count)
        let comment =
            F.le32(commentBytes) + Array("COMMENT=".utf8)
            + [UInt8](repeating: UInt8(ascii: "y"), count: max(0, commentBytes - 8))
        packet.reserveCapacity(packet.count + count * comment.count + 1)
        for _ in 0..<count { packet += comment }
        if vorbis { packet.append(1) }
        list[1].bytes = packet
        return self.ogg(serial: serial, packets: list)
    }
}
