// SPDX-License-Identifier: GPL-3.0-or-later

extension StringProtocol {
    /// The text without the whitespace around it (spaces, tabs, line ends): a line of a /proc or
    /// /sys file, of config.txt, of a notice file. Thread: any (a pure function).
    public func trimmingWhitespace() -> String {
        guard let start = firstIndex(where: { !$0.isWhitespace }), let end = lastIndex(where: { !$0.isWhitespace })
        else { return "" }
        return String(self[start...end])
    }
}
