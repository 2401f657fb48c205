// SPDX-License-Identifier: GPL-3.0-or-later
import KioskLibrary
import KioskModel

/// A song filter as MPD parses it (src/song/Filter.cxx): filter expressions
/// `(TAG == 'VALUE')`, `(TAG != 'VALUE')`, `(TAG contains 'VALUE')`, `(!EXPR)`,
/// `(EXPR AND EXPR ...)`, `(file == 'URI')`, `(base 'DIR')`, `(modified-since 'TIME')`,
/// `(AudioFormat == 'R:B:C')`, and the old `TAG VALUE ...` pairs. `find` compares exactly;
/// `search` ignores case (and, for the old pairs, matches substrings). Regular expressions
/// (`=~`, `!~`) are PCRE2's, as MPD's (`MPDRegex`, bounded in time). Thread: the loop thread (a
/// compiled regular expression is not shared between threads).
indirect enum MPDFilter {
    /// How a string is compared.
    struct StringMatch {
        let value: String
        let foldCase: Bool
        let substring: Bool
        let negated: Bool
        /// The value's bytes, case-folded when `foldCase`.
        private let needle: [UInt8]
        /// For `=~`/`!~`: the value as a regular expression.
        private let regex: MPDRegex?

        init(_ value: String, foldCase: Bool, substring: Bool, negated: Bool, regex: MPDRegex? = nil) {
            self.value = value
            self.foldCase = foldCase
            self.substring = substring
            self.negated = negated
            self.regex = regex
            needle = foldCase ? MPDText.folded(value) : Array(value.utf8)
        }

        func matches(_ candidate: String) -> Bool { hits(candidate) != negated }

        /// Whether its regular expression gave up (`MPDRegex.exhausted`).
        var regexExhausted: Bool { regex?.exhausted ?? false }

        /// Whether one of `candidates` is hit, negated as a whole (MPD: `!=` holds when no value
        /// equals, not when some value differs); none is compared as "".
        func matches(any candidates: [String]) -> Bool {
            candidates.isEmpty ? matches("") : candidates.contains(where: hits) != negated
        }

        /// The comparison without the negation.
        private func hits(_ candidate: String) -> Bool {
            if let regex { return regex.matches(candidate) }
            if !foldCase && !substring { return candidate == value }
            return MPDText.find(needle, in: candidate, folding: foldCase, whole: !substring)
        }
    }

    /// A tag (nil: a tag the library does not keep, whose value is always "").
    enum TagSelector {
        case tag(MPDTag?)
        case any
    }

    case tag(TagSelector, StringMatch)
    case uri(StringMatch)
    case base(String)
    case modifiedSince(Int64)
    case audioFormat(rate: Int?, bits: Int?, channels: Int?)
    case not(MPDFilter)
    case and([MPDFilter])

    // MARK: - matching

    /// Whether a regular expression in it gave up at its limits: the command answers an error
    /// (what it matched so far is not the answer).
    var regexExhausted: Bool {
        switch self {
        case .tag(_, let match), .uri(let match): match.regexExhausted
        case .not(let inner): inner.regexExhausted
        case .and(let items): items.contains { $0.regexExhausted }
        case .base, .modifiedSince, .audioFormat: false
        }
    }

    /// The error a command answers when `regexExhausted`.
    static let regexTooCostly = MPDError(
        .argument,
        "Regular expression too costly: it gave up after \(MPDRegex.matchLimit) steps on a song or \(MPDRegex.budgetNanoseconds / 1_000_000) ms in all"
    )

    func matches(_ track: Track, uri: String) -> Bool {
        switch self {
        case .tag(.tag(let tag), let match):
            // A song without the tag is compared by its fallback's (AlbumArtist by Artist…), and
            // without those as if its value were empty.
            return match.matches(any: tag?.valuesWithFallback(of: track) ?? [])
        case .tag(.any, let match):
            // Every value of every tag (the tags made once, not once a tag).
            let tags = track.tags
            var tagged = false
            func check(_ values: [String]) -> Bool {
                tagged = tagged || !values.isEmpty
                return values.contains(where: { match.matches($0) })
            }
            if check(tags.artists) || check(tags.albums) || check(tags.albumArtists) || check(tags.titles)
                || check(tags.genres) || check(tags.dates) || check(tags.extras.map(\.value))
            {
                return true
            }
            for number in [track.trackNumber, track.discNumber] {
                if let number, check(["\(number)"]) { return true }
            }
            return tagged ? false : match.matches("")
        case .uri(let match):
            return match.matches(uri)
        case .base(let directory):
            return directory.isEmpty || uri.hasPrefix(directory + "/")
        case .modifiedSince(let nanoseconds):
            return track.modificationTime >= nanoseconds
        case .audioFormat(let rate, let bits, let channels):
            return (rate == nil || rate == track.sampleRate) && (bits == nil || bits == track.bitsPerSample)
                && (channels == nil || channels == track.channels)
        case .not(let inner):
            return !inner.matches(track, uri: uri)
        case .and(let items):
            return items.allSatisfy { $0.matches(track, uri: uri) }
        }
    }

    // MARK: - parsing

    /// Parses the filter arguments of `find`/`search`/`list`/`count` (all of `arguments`).
    static func parse(_ arguments: ArraySlice<String>, foldCase: Bool) throws(MPDError) -> MPDFilter {
        guard !arguments.isEmpty else { throw .argument("Incorrect number of filter arguments") }
        var items: [MPDFilter] = []
        var rest = arguments
        while let first = rest.first {
            if first.hasPrefix("(") {
                var parser = ExpressionParser(Array(first.utf8), foldCase: foldCase)
                let filter = try parser.expression()
                guard parser.atEnd else { throw .argument("Unparsed garbage after expression") }
                items.append(filter)
                rest = rest.dropFirst()
                continue
            }
            guard rest.count >= 2 else { throw .argument("Incorrect number of filter arguments") }
            let name = rest[rest.startIndex]
            let value = rest[rest.startIndex + 1]
            rest = rest.dropFirst(2)
            items.append(try pair(name, value, foldCase: foldCase))
        }
        return items.count == 1 ? items[0] : .and(items)
    }

    /// An old-style `TYPE VALUE` pair.
    private static func pair(_ name: String, _ value: String, foldCase: Bool) throws(MPDError) -> MPDFilter {
        // Before MPD 0.21, "search" also meant "substring"; the pairs keep that.
        let match = StringMatch(value, foldCase: foldCase, substring: foldCase, negated: false)
        switch name.lowercased() {
        case "file", "filename": return .uri(match)
        case "any": return .tag(.any, match)
        default: break
        }
        if name == "base" {
            var directory = value
            if directory.hasSuffix("/") { directory.removeLast() }
            guard directory.isEmpty || MPDDatabase.isSafe(directory) else { throw .argument("Bad URI") }
            return .base(directory)
        }
        if name == "modified-since" {
            guard let time = MPDTime.parse(value) else { throw .argument("Failed to parse time stamp") }
            return .modifiedSince(time)
        }
        guard MPDTag.knownNames.contains(name.lowercased()) else { throw .argument("Unknown filter type") }
        return .tag(.tag(MPDTag(name: name)), match)
    }

    /// The recursive-descent parser of one expression, over the argument's bytes.
    private struct ExpressionParser {
        let text: [UInt8]
        let foldCase: Bool
        var i = 0

        init(_ text: [UInt8], foldCase: Bool) {
            self.text = text
            self.foldCase = foldCase
        }

        var atEnd: Bool { i >= text.count }
        var current: UInt8 { i < text.count ? text[i] : 0 }

        mutating func skipSpaces() {
            while i < text.count && (text[i] == 0x20 || (text[i] >= 0x09 && text[i] <= 0x0D)) { i += 1 }
        }

        mutating func word() throws(MPDError) -> String {
            let start = i
            while i < text.count {
                let b = text[i]
                let letter = (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
                guard letter || b == UInt8(ascii: "_") || b == UInt8(ascii: "-") else { break }
                i += 1
            }
            guard i > start else { throw .argument("Word expected") }
            let result = String(decoding: text[start..<i], as: UTF8.self)
            skipSpaces()
            return result
        }

        mutating func quoted() throws(MPDError) -> String {
            let quote = current
            guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
                throw .argument("Quoted string expected")
            }
            i += 1
            var value: [UInt8] = []
            while current != quote {
                if current == UInt8(ascii: "\\") { i += 1 }
                guard !atEnd else { throw .argument("Closing quote not found") }
                value.append(text[i])
                i += 1
                if value.count >= 4096 { throw .argument("Quoted value is too long") }
            }
            i += 1
            skipSpaces()
            return String(decoding: value, as: UTF8.self)
        }

        mutating func closing() throws(MPDError) {
            guard current == UInt8(ascii: ")") else { throw .argument("')' expected") }
            i += 1
            skipSpaces()
        }

        func hasPrefix(_ prefix: String) -> Bool {
            let bytes = Array(prefix.utf8)
            guard text.count - i >= bytes.count else { return false }
            for (k, b) in bytes.enumerated() {
                let c = text[i + k]
                let lower = (c >= 0x41 && c <= 0x5A) ? c + 0x20 : c
                if lower != b { return false }
            }
            return true
        }

        mutating func expression() throws(MPDError) -> MPDFilter {
            // At "(".
            i += 1
            skipSpaces()
            if current == UInt8(ascii: "(") {
                let first = try expression()
                if current == UInt8(ascii: ")") {
                    i += 1
                    return first
                }
                guard try word() == "AND" else { throw .argument("'AND' expected") }
                var items = [first]
                while true {
                    guard current == UInt8(ascii: "(") else { throw .argument("'(' expected") }
                    items.append(try expression())
                    if current == UInt8(ascii: ")") {
                        i += 1
                        return .and(items)
                    }
                    guard try word() == "AND" else { throw .argument("'AND' expected") }
                }
            }
            if current == UInt8(ascii: "!") {
                i += 1
                skipSpaces()
                guard current == UInt8(ascii: "(") else { throw .argument("'(' expected") }
                let inner = try expression()
                guard current == UInt8(ascii: ")") else { throw .argument("')' expected") }
                i += 1
                skipSpaces()
                return .not(inner)
            }
            let name = try word()
            let lower = name.lowercased()
            if name == "modified-since" {
                let value = try quoted()
                try closing()
                guard let time = MPDTime.parse(value) else { throw .argument("Failed to parse time stamp") }
                return .modifiedSince(time)
            }
            if name == "base" {
                var value = try quoted()
                try closing()
                if value.hasSuffix("/") { value.removeLast() }
                return .base(value)
            }
            if lower == "audioformat" {
                let mask: Bool
                if hasPrefix("==") {
                    mask = false
                } else if hasPrefix("=~") {
                    mask = true
                } else {
                    throw .argument("'==' or '=~' expected")
                }
                i += 2
                skipSpaces()
                let value = try quoted()
                try closing()
                return try audioFormat(value, mask: mask)
            }
            let isFile = lower == "file" || lower == "filename"
            guard isFile || lower == "any" || MPDTag.knownNames.contains(lower) else {
                throw .argument("Unknown filter type: \(name)")
            }
            let match = try stringMatch()
            try closing()
            if isFile { return .uri(match) }
            if lower == "any" { return .tag(.any, match) }
            return .tag(.tag(MPDTag(name: name)), match)
        }

        mutating func stringMatch() throws(MPDError) -> StringMatch {
            if hasPrefix("contains ") {
                i += "contains ".utf8.count
                skipSpaces()
                return StringMatch(try quoted(), foldCase: foldCase, substring: true, negated: false)
            }
            if hasPrefix("!contains ") {
                i += "!contains ".utf8.count
                skipSpaces()
                return StringMatch(try quoted(), foldCase: foldCase, substring: true, negated: true)
            }
            if hasPrefix("=~") || hasPrefix("!~") {
                let negated = hasPrefix("!~")
                i += 2
                skipSpaces()
                let pattern = try quoted()
                return StringMatch(
                    pattern, foldCase: foldCase, substring: false, negated: negated,
                    regex: try MPDRegex(pattern, foldCase: foldCase))
            }
            let negated: Bool
            if hasPrefix("!=") {
                negated = true
            } else if hasPrefix("==") {
                negated = false
            } else {
                throw .argument("'==' or '!=' expected")
            }
            i += 2
            skipSpaces()
            return StringMatch(try quoted(), foldCase: foldCase, substring: false, negated: negated)
        }

        func audioFormat(_ value: String, mask: Bool) throws(MPDError) -> MPDFilter {
            let parts = value.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3 else { throw .argument("Failed to parse audio format") }
            func field(_ s: String) throws(MPDError) -> Int? {
                if mask && s == "*" { return nil }
                guard let n = Int(s), n > 0 else { throw .argument("Failed to parse audio format") }
                return n
            }
            return .audioFormat(rate: try field(parts[0]), bits: try field(parts[1]), channels: try field(parts[2]))
        }
    }
}

/// Byte-level text matching for filters: fast for ASCII (no allocation), Unicode lower-casing
/// otherwise. Thread: any (pure functions).
enum MPDText {
    @inline(__always)
    static func lower(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte }

    /// The lower-cased bytes of `text`.
    static func folded(_ text: String) -> [UInt8] {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.utf8.map(lower) }
        return Array(text.lowercased().utf8)
    }

    /// Whether `needle` is `text` (`whole`) or occurs in it, comparing case-folded when `folding`.
    static func find(_ needle: [UInt8], in text: String, folding: Bool, whole: Bool) -> Bool {
        var text = text
        let direct = text.withUTF8 { bytes -> Bool? in
            if folding && bytes.contains(where: { $0 >= 0x80 }) { return nil }
            return search(needle, in: bytes, folding: folding, whole: whole)
        }
        if let direct { return direct }
        let lowered = Array(text.lowercased().utf8)
        return lowered.withUnsafeBufferPointer { search(needle, in: $0, folding: false, whole: whole) }
    }

    private static func search(
        _ needle: [UInt8], in bytes: UnsafeBufferPointer<UInt8>, folding: Bool, whole: Bool
    ) -> Bool {
        if whole {
            guard bytes.count == needle.count else { return false }
            for i in 0..<needle.count where (folding ? lower(bytes[i]) : bytes[i]) != needle[i] { return false }
            return true
        }
        if needle.isEmpty { return true }
        guard bytes.count >= needle.count else { return false }
        let first = needle[0]
        var start = 0
        let last = bytes.count - needle.count
        outer: while start <= last {
            if (folding ? lower(bytes[start]) : bytes[start]) != first {
                start += 1
                continue
            }
            for k in 1..<needle.count where (folding ? lower(bytes[start + k]) : bytes[start + k]) != needle[k] {
                start += 1
                continue outer
            }
            return true
        }
        return false
    }
}
