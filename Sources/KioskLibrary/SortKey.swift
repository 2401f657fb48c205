// SPDX-License-Identifier: GPL-3.0-or-later
/// A precomputed key that orders names the way a person expects on a small screen:
/// case- and accent-insensitive, numbers by value ("Track 2" before "Track 10"), numbers before
/// letters, punctuation and spacing runs treated alike, leading punctuation ignored, and (for
/// artists) a leading "The " ignored. Ties are broken by the original text, so the order is total.
///
/// Built once per name when a catalog is built; comparing two keys is a plain array comparison.
/// Thread: any (a value).
struct SortKey: Comparable, Hashable, Sendable {
    private let units: [UInt32]
    private let original: String

    init(_ text: String, ignoringArticle: Bool = false) {
        original = text
        if let ascii = SortKey.asciiUnits(text, ignoringArticle: ignoringArticle) {
            units = ascii
            return
        }
        var folded = TextFolding.fold(text)
        // Leading punctuation and spaces ("'Til Tuesday", "(What's the Story)") do not count,
        // unless the name is nothing else.
        if let first = folded.firstIndex(where: TextFolding.isAlphanumeric), first > 0 {
            folded.removeFirst(first)
        }
        if ignoringArticle, folded.count > 4, folded.starts(with: TextFolding.theArticle) {
            folded.removeFirst(4)
        }
        units = SortKey.encode(count: folded.count, from: 0) { folded[$0] }
    }

    /// The units of an all-ASCII text in one pass over its bytes (most names on a stick), or nil.
    private static func asciiUnits(_ text: String, ignoringArticle: Bool) -> [UInt32]? {
        var text = text
        return text.withUTF8 { bytes -> [UInt32]? in
            for b in bytes where b >= 0x80 { return nil }
            @inline(__always) func lower(_ b: UInt8) -> UInt32 { UInt32(b >= 0x41 && b <= 0x5A ? b + 0x20 : b) }
            @inline(__always) func isAlnum(_ b: UInt8) -> Bool { TextFolding.isAlphanumeric(UInt32(b)) }
            var i = bytes.firstIndex(where: isAlnum) ?? 0
            if ignoringArticle, bytes.count - i > 4, lower(bytes[i]) == 0x74, lower(bytes[i + 1]) == 0x68,
                lower(bytes[i + 2]) == 0x65, bytes[i + 3] == 0x20
            {
                i += 4
            }
            return encode(count: bytes.count, from: i) { lower(bytes[$0]) }
        }
    }

    /// Numbers become (1, digit count, digits…), letters their scalar value + 0x100, and every
    /// run of other characters a single 2, so "a-b" and "a b" sort together and digits first.
    /// `unit(i)` is the i-th folded unit (a lower-cased ASCII byte, or a folded scalar), `start`
    /// the first one that counts.
    @inline(__always)
    private static func encode(count: Int, from start: Int, _ unit: (Int) -> UInt32) -> [UInt32] {
        @inline(__always) func isDigit(_ s: UInt32) -> Bool { s >= 0x30 && s <= 0x39 }
        var out: [UInt32] = []
        out.reserveCapacity(count - start + 4)
        var i = start
        while i < count {
            let s = unit(i)
            if isDigit(s) {
                var j = i
                while j < count && isDigit(unit(j)) { j += 1 }
                var first = i
                while first < j - 1 && unit(first) == 0x30 { first += 1 }
                out.append(1)
                out.append(UInt32(j - first))
                for k in first..<j { out.append(unit(k)) }
                i = j
            } else if TextFolding.isAlphanumeric(s) {
                out.append(s + 0x100)
                i += 1
            } else {
                if out.last != 2 { out.append(2) }
                i += 1
            }
        }
        while out.last == 2 { out.removeLast() }
        return out
    }

    static func < (a: SortKey, b: SortKey) -> Bool {
        if a.units != b.units { return a.units.lexicographicallyPrecedes(b.units) }
        return a.original < b.original
    }

    static func == (a: SortKey, b: SortKey) -> Bool { a.units == b.units && a.original == b.original }

    func hash(into hasher: inout Hasher) {
        hasher.combine(units)
        hasher.combine(original)
    }

    /// Whether two names are the same for grouping and predicates (case and accents ignored).
    static func sameName(_ a: String, _ b: String) -> Bool { TextFolding.matchKey(a) == TextFolding.matchKey(b) }
}

/// Case and accent folding without Foundation: lower-casing through the stdlib's Unicode
/// properties, a table for the precomposed Latin letters, and combining marks dropped.
enum TextFolding {
    static let theArticle: [UInt32] = Array("the ".unicodeScalars.map(\.value))

    /// Folded scalars of `text`.
    static func fold(_ text: String) -> [UInt32] {
        var out: [UInt32] = []
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            let v = scalar.value
            if v < 0x80 {
                out.append(v >= 0x41 && v <= 0x5A ? v + 0x20 : v)
                continue
            }
            // Combining diacritical marks (text in decomposed form) carry only the accent.
            if (0x300...0x36F).contains(v) || (0x1AB0...0x1AFF).contains(v) || (0x1DC0...0x1DFF).contains(v)
                || (0x20D0...0x20FF).contains(v)
            {
                continue
            }
            if let replacement = latinFolds[v] {
                out.append(contentsOf: replacement)
                continue
            }
            let lower = scalar.properties.lowercaseMapping
            for l in lower.unicodeScalars {
                if let replacement = latinFolds[l.value] {
                    out.append(contentsOf: replacement)
                } else {
                    out.append(l.value)
                }
            }
        }
        return out
    }

    /// A string that is equal for names equal up to case, accents and spacing: the grouping key.
    static func matchKey(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        var lastWasSpace = true
        for v in fold(text) {
            let isSpace = v == 0x20 || v == 0x09 || v == 0xA0 || v == 0x3000
            if isSpace {
                if !lastWasSpace { scalars.append(" ") }
                lastWasSpace = true
            } else if let s = Unicode.Scalar(v) {
                scalars.append(s)
                lastWasSpace = false
            }
        }
        while scalars.last == " " { scalars.removeLast() }
        return String(scalars)
    }

    static func isAlphanumeric(_ v: UInt32) -> Bool {
        if v < 0x80 {
            return (v >= 0x30 && v <= 0x39) || (v >= 0x61 && v <= 0x7A) || (v >= 0x41 && v <= 0x5A)
        }
        guard let scalar = Unicode.Scalar(v) else { return false }
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .decimalNumber, .letterNumber, .otherNumber:
            return true
        default:
            return false
        }
    }

    /// Precomposed Latin letters → their base letters (lower case). Covers Latin-1 Supplement,
    /// Latin Extended-A and the common letters of Extended-B and Extended Additional.
    static let latinFolds: [UInt32: [UInt32]] = {
        let groups: [(String, String)] = [
            ("ÀÁÂÃÄÅàáâãäåĀāĂăĄąǍǎǞǟǠǡǺǻȀȁȂȃȦȧẠạẢảẤấẦầẨẩẪẫẬậẮắẰằẲẳẴẵẶặ", "a"),
            ("ÇçĆćĈĉĊċČč", "c"), ("ĎďĐđ", "d"),
            ("ÈÉÊËèéêëĒēĔĕĖėĘęĚěȄȅȆȇȨȩẸẹẺẻẼẽẾếỀềỂểỄễỆệ", "e"),
            ("ĜĝĞğĠġĢģǦǧ", "g"), ("ĤĥĦħ", "h"),
            ("ÌÍÎÏìíîïĨĩĪīĬĭĮįİıǏǐȈȉȊȋỈỉỊị", "i"), ("Ĵĵ", "j"), ("Ķķ", "k"),
            ("ĹĺĻļĽľĿŀŁł", "l"), ("ÑñŃńŅņŇňŉ", "n"),
            ("ÒÓÔÕÖØòóôõöøŌōŎŏŐőƠơǑǒǪǫǾǿȌȍȎȏȪȫȬȭȮȯȰȱỌọỎỏỐốỒồỔổỖỗỘộỚớỜờỞởỠỡỢợ", "o"),
            ("ŔŕŖŗŘř", "r"), ("ŚśŜŝŞşŠšȘș", "s"), ("ŢţŤťŦŧȚț", "t"),
            ("ÙÚÛÜùúûüŨũŪūŬŭŮůŰűŲųƯưǓǔǕǖǗǘǙǚǛǜȔȕȖȗỤụỦủỨứỪừỬửỮữỰự", "u"), ("Ŵŵ", "w"),
            ("ÝýÿŶŷŸỲỳỴỵỶỷỸỹ", "y"), ("ŹźŻżŽž", "z"),
            ("Ææ", "ae"), ("Œœ", "oe"), ("ß", "ss"), ("Þþ", "th"), ("Ðð", "d"), ("Ĳĳ", "ij"),
        ]
        var table: [UInt32: [UInt32]] = [:]
        for (letters, base) in groups {
            let replacement = base.unicodeScalars.map(\.value)
            for scalar in letters.unicodeScalars { table[scalar.value] = replacement }
        }
        return table
    }()
}
