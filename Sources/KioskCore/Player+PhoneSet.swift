// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem

/// The box's set (`StickSet`: cards, their rounds, bookmarks and settings) to and from the phone
/// page, the same file a stick carries (`kiosk-set.json`): the page saves it to the phone and gives
/// one back. A set from the page is checked whole by the stick's own parser, shown to the parent as
/// a summary first (the page's confirmation stands for the box's "hold Select", the parent being
/// paired), then imported as a stick's is, the state before kept for one undo on the box.
///
/// Thread: the loop thread, like `Player`.
extension Player {
    /// The largest set the page may give back: the stick's limit (`StickSet.sizeLimit`, about a
    /// thousand cards and five hundred bookmarks).
    public static let phoneSetLimit = StickSet.sizeLimit

    /// This box's set, what an export to a stick writes, as compact JSON (one line).
    public var phoneSetJSON: String {
        scheduler.assertInLoop()
        return currentStickSet.document.serialized()
    }

    /// What the set in `bytes` holds ("12 cards, 30 bookmarks, settings"), or why it cannot be
    /// used, naming the problem as a stick's would; imports it when `importing`.
    public func phoneSet(_ bytes: [UInt8], importing: Bool, by who: String) throws(PhoneRequestError) -> String {
        scheduler.assertInLoop()
        let file = "the set from the phone"
        guard bytes.count <= Self.phoneSetLimit else {
            throw PhoneRequestError("\(file) is larger than \(Self.phoneSetLimit >> 10) KiB")
        }
        let set: StickSet
        do {
            set = try StickSet.parse(bytes, file: file)
        } catch {
            throw PhoneRequestError("\(error)")
        }
        let summary = set.summary + (set.settings == nil ? "" : ", settings")
        guard importing else { return summary }
        Log.notice("stick set: \(file) (\(summary)) imported by \(who)")
        importStickSet(set, file: file)
        outbox.remoteChanges.note(.cards)
        refreshScreen()
        return summary
    }
}
