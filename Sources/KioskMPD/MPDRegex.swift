import Glibc

/// A regular expression of a filter's `=~`/`!~`: POSIX extended syntax through glibc's `regcomp`
/// (MPD uses PCRE; the common patterns — anchors, classes, alternation, repetition — mean the
/// same). Back-references are refused and patterns are short: glibc matches the rest without
/// backtracking, so no pattern a client sends can stall the loop. Thread: the loop thread (a
/// compiled `regex_t` is not shared).
final class MPDRegex {
    /// Longer patterns are refused (the line limit would allow 8 KiB).
    static let maxPatternBytes = 512

    private var compiled = regex_t()

    init(_ pattern: String, foldCase: Bool) throws(MPDError) {
        let bytes = Array(pattern.utf8)
        guard bytes.count <= Self.maxPatternBytes else {
            throw .argument("Regular expression longer than \(Self.maxPatternBytes) bytes")
        }
        for i in bytes.indices.dropLast() where bytes[i] == UInt8(ascii: "\\") {
            if (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(bytes[i + 1]) {
                throw .argument("Back-references are not supported in regular expressions")
            }
        }
        let flags = REG_EXTENDED | REG_NOSUB | (foldCase ? REG_ICASE : 0)
        var candidate = regex_t()
        let status = regcomp(&candidate, pattern, flags)
        guard status == 0 else {
            // glibc has freed what it built; nothing to regfree.
            var message = [CChar](repeating: 0, count: 256)
            regerror(status, &candidate, &message, message.count)
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw .argument("Bad regular expression: \(text)")
        }
        compiled = candidate
    }

    deinit { regfree(&compiled) }

    /// Whether the pattern matches somewhere in `text` (unanchored, as PCRE's match).
    func matches(_ text: String) -> Bool { regexec(&compiled, text, 0, nil, 0) == 0 }
}
