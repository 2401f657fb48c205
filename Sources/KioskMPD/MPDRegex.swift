// SPDX-License-Identifier: GPL-3.0-or-later
import CPCRE2
import KioskSystem

/// A regular expression of a filter's `=~`/`!~`, compiled by PCRE2 as MPD compiles it
/// (src/lib/pcre/UniqueRegex.cxx: DOTALL, no captures, CASELESS for `search`), so a pattern means
/// what it means to MPD. Bounded, because a client chooses the pattern: each match stops at
/// `matchLimit` steps (PCRE2's match limit, for backtracking patterns like `(a+)+b`), and one
/// command's matches together at `budgetNanoseconds`; past either the regex is `exhausted`, matches
/// nothing more, and the command answers an error instead of stalling the loop.
/// Thread: the loop thread (a compiled pattern and its match data are not shared).
final class MPDRegex {
    static let maxPatternBytes = 1024
    static let matchLimit: UInt32 = 100_000
    static let depthLimit: UInt32 = 5_000
    static let budgetNanoseconds: UInt64 = 500_000_000

    private let code: OpaquePointer
    private let matchData: OpaquePointer
    private let context: OpaquePointer
    private var calls = 0
    private var startedNs: UInt64?
    /// Whether a match went past its limit or the command past its budget.
    private(set) var exhausted = false

    init(_ pattern: String, foldCase: Bool) throws(MPDError) {
        let bytes = Array(pattern.utf8)
        guard bytes.count <= Self.maxPatternBytes else {
            throw .argument("Regular expression longer than \(Self.maxPatternBytes) bytes")
        }
        var options = UInt32(PCRE2_DOTALL | PCRE2_NO_AUTO_CAPTURE)
        if foldCase { options |= UInt32(PCRE2_CASELESS) }
        var errorNumber: Int32 = 0
        var errorOffset = 0
        let compiled = bytes.withUnsafeBufferPointer {
            pcre2_compile_8($0.baseAddress, $0.count, options, &errorNumber, &errorOffset, nil)
        }
        guard let compiled else {
            var message = [UInt8](repeating: 0, count: 256)
            _ = pcre2_get_error_message_8(errorNumber, &message, message.count)
            let text = String(decoding: message.prefix { $0 != 0 }, as: UTF8.self)
            throw .argument("Error in regex at offset \(errorOffset): \(text)")
        }
        code = compiled
        matchData = pcre2_match_data_create_from_pattern_8(compiled, nil)
        context = pcre2_match_context_create_8(nil)
        pcre2_set_match_limit_8(context, Self.matchLimit)
        pcre2_set_depth_limit_8(context, Self.depthLimit)
    }

    deinit {
        pcre2_match_context_free_8(context)
        pcre2_match_data_free_8(matchData)
        pcre2_code_free_8(code)
    }

    /// Whether the pattern matches somewhere in `text` (false once exhausted).
    func matches(_ text: String) -> Bool {
        guard !exhausted else { return false }
        calls += 1
        if calls & 63 == 1 {
            let now = Syscalls.monotonicNanoseconds()
            if let started = startedNs {
                if now - started > Self.budgetNanoseconds { exhausted = true }
            } else {
                startedNs = now
            }
            if exhausted { return false }
        }
        var text = text
        let result = text.withUTF8 { pcre2_match_8(code, $0.baseAddress, $0.count, 0, 0, matchData, context) }
        if result >= 0 { return true }
        if result != PCRE2_ERROR_NOMATCH { exhausted = true }
        return false
    }
}
