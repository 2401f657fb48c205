// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import KioskSystem

/// One notice of the SD-card image's updater (`kiosk-update`, `kiosk-ab`), as the file
/// `KIOSK_UPDATE_NOTICE` names holds it (docs/updates.md, "How it works"): lines, the first the
/// kind.
///
/// - `info` or `error`, the title, the detail (optional): news, shown and said.
/// - `offer`, a title and detail for people reading the file, then `version=V`, `sha256=H` (the
///   bundle's SHA-256, which the confirmation must repeat) and `seconds=N` (how long kiosk-update
///   waits for it): a bundle newer than what runs, waiting for "hold Select to install".
/// - `withdrawn`, a title, then `sha256=H`: that offer is gone (its stick was removed, or nobody
///   answered in time).
///
/// Thread: a value; any thread.
public enum UpdateNotice: Equatable, Sendable {
    case news(MessageState)
    case offer(UpdateOffer)
    case withdrawn(sha256: String, title: String)

    /// The notice in the file's `text`, nil when it holds none (or an offer that is not well made).
    public static func parse(_ text: String) -> UpdateNotice? {
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingWhitespace() }
        guard let first = lines.first else { return nil }
        func value(_ key: String) -> String? {
            lines.dropFirst().first { $0.hasPrefix(key + "=") }.map { String($0.dropFirst(key.count + 1)) }
        }
        switch first {
        case "info", "error":
            guard lines.count > 1, !lines[1].isEmpty else { return nil }
            let detail = lines.count > 2 && !lines[2].isEmpty ? lines[2] : nil
            return .news(MessageState(title: lines[1], detail: detail, kind: first == "error" ? .error : .info))
        case "offer":
            guard let version = value("version"), UpdateOffer.isVersion(version),
                let hash = value("sha256"), UpdateOffer.isHash(hash)
            else { return nil }
            let seconds = value("seconds").flatMap { Int($0) }.map { min(max($0, 5), 3600) } ?? 120
            return .offer(UpdateOffer(version: version, sha256: hash, seconds: seconds))
        case "withdrawn":
            guard let hash = value("sha256"), UpdateOffer.isHash(hash) else { return nil }
            return .withdrawn(sha256: hash, title: lines.count > 1 && !lines[1].hasPrefix("sha256=") ? lines[1] : "")
        default:
            // A line without its kind (an older kiosk-update): the whole line, as news.
            return first.isEmpty ? nil : .news(MessageState(title: first, detail: nil, kind: .info))
        }
    }
}

/// A bundle kiosk-update found and waits to be told to install.
///
/// Thread: a value; any thread.
public struct UpdateOffer: Equatable, Sendable {
    public let version: String
    /// The bundle's SHA-256 in hex: the confirmation names it, so it confirms this bundle only.
    public let sha256: String
    /// How long kiosk-update waits for the confirmation.
    public let seconds: Int

    public init(version: String, sha256: String, seconds: Int) {
        self.version = version
        self.sha256 = sha256
        self.seconds = seconds
    }

    /// The confirmation file's text (`KIOSK_UPDATE_CONFIRM`), which kiosk-update compares.
    public var confirmation: String { "install \(sha256)\n" }

    /// A Debian version as kiosk-update prints it: 1 to 64 of letters, digits and `.+~:-`.
    static func isVersion(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count)
            && text.utf8.allSatisfy { $0.isASCIIAlphanumeric || ".+~:-_".utf8.contains($0) }
    }

    /// 64 lowercase hex digits.
    static func isHash(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}

extension UInt8 {
    fileprivate var isASCIIAlphanumeric: Bool {
        (0x30...0x39).contains(self) || (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self)
    }
}
