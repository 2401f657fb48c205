// SPDX-License-Identifier: GPL-3.0-or-later
import KioskCore
import KioskLibrary
import KioskModel

/// Writes items one after another into the output as the client reads, about 4 KB at a time (a
/// step of a client's turn: small enough that 60 clients' steps stay short on a slow CPU).
final class ItemProducer: MPDProducer {
    private let count: Int
    private var next = 0
    private let emit: (Int, inout [UInt8]) -> Void

    init(count: Int, emit: @escaping (Int, inout [UInt8]) -> Void) {
        self.count = count
        self.emit = emit
    }

    func produce(into output: inout [UInt8]) -> Bool {
        let start = output.count
        while next < count && output.count - start < 4 << 10 {
            emit(next, &output)
            next += 1
        }
        return next >= count
    }
}

/// The text of responses: songs, numbers, pairs. Thread: any (pure functions).
enum MPDFormat {
    static func append(_ text: String, to output: inout [UInt8]) {
        output.append(contentsOf: text.utf8)
    }

    /// `name: value\n`, with line breaks in the value (never in clean tags) replaced by spaces.
    static func pair(_ name: String, _ value: String, to output: inout [UInt8]) {
        output.append(contentsOf: name.utf8)
        output.append(contentsOf: ": ".utf8)
        for byte in value.utf8 { output.append(byte == 0x0A || byte == 0x0D ? 0x20 : byte) }
        output.append(0x0A)
    }

    /// A number with three decimals, as MPD prints `elapsed` and `duration`.
    static func fixed3(_ value: Double) -> String {
        let millis = Int((max(0, value) * 1000).rounded())
        let fraction = millis % 1000
        let padded = fraction < 10 ? "00\(fraction)" : fraction < 100 ? "0\(fraction)" : "\(fraction)"
        return "\(millis / 1000).\(padded)"
    }

    /// Milliseconds as MPD prints a range's times: "S.mmm".
    static func milliseconds(_ value: UInt32) -> String {
        let fraction = value % 1000
        return "\(value / 1000)." + (fraction < 10 ? "00" : fraction < 100 ? "0" : "") + "\(fraction)"
    }

    /// A song as MPD describes it: `file`, `Range` for a queue entry playing part of it,
    /// `Last-Modified`, `Format`, the tags, `Time`, `duration` (the range's), and `Pos`/`Id` for a
    /// queue entry.
    static func song(
        _ track: Track, uri: String, tags: Set<MPDTag>, queue: (position: Int, id: Int)? = nil,
        priority: UInt8 = 0, range: SongRange = .whole, format: Bool = true, to output: inout [UInt8]
    ) {
        pair("file", uri, to: &output)
        // MPD's `PrintRange`: nothing for the whole song, an open end as "S-".
        if let end = range.endMS {
            pair("Range", "\(milliseconds(range.startMS))-\(milliseconds(end))", to: &output)
        } else if range.startMS > 0 {
            pair("Range", "\(milliseconds(range.startMS))-", to: &output)
        }
        pair("Last-Modified", MPDTime.iso8601(nanoseconds: track.modificationTime), to: &output)
        if format { pair("Format", "\(track.sampleRate):\(track.bitsPerSample):\(track.channels)", to: &output) }
        for tag in MPDTag.printOrder where tags.contains(tag) {
            for value in tag.values(of: track) { pair(tag.rawValue, value, to: &output) }
        }
        if let duration = range.duration(ofFileSeconds: track.durationSeconds) {
            pair("Time", "\(Int(duration.rounded()))", to: &output)
            pair("duration", fixed3(duration), to: &output)
        }
        if let queue {
            pair("Pos", "\(queue.position)", to: &output)
            pair("Id", "\(queue.id)", to: &output)
            if priority != 0 { pair("Prio", "\(priority)", to: &output) }
        }
    }
}
