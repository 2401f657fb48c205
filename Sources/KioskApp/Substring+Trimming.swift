// SPDX-License-Identifier: GPL-3.0-or-later

/// The lines of the image's notice files (the settings' error, the update's news) without the
/// whitespace around them. Thread: any (a pure function).
extension Substring {
    func trimmingWhitespace() -> String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
