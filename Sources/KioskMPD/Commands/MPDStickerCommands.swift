// SPDX-License-Identifier: GPL-3.0-or-later
/// `sticker get|set|delete|list|find song …` (MPD 0.23's src/command/StickerCommands.cxx): the
/// `song` domain only, songs named by their URI in the database (`MPDStickers` keeps them).
/// Thread: loop thread.
enum MPDStickerCommands {
    static func sticker(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        guard let stickers = s.stickers else { throw MPDError(.unknown, "sticker database is disabled") }
        guard r[1] == "song" else { throw .argument("unknown sticker domain") }
        let c = r.connection
        let a = r.arguments
        switch (a[0], a.count) {
        case ("get", 4):
            let uri = try song(s, a[2])
            guard let value = try stickers.value(uri: uri, name: a[3]) else { throw .noExist("no such sticker") }
            c.write("sticker: \(a[3])=\(value)\n")
        case ("list", 3):
            for (name, value) in try stickers.list(uri: try song(s, a[2])) { c.write("sticker: \(name)=\(value)\n") }
        case ("set", 5):
            if try stickers.set(uri: try song(s, a[2]), name: a[3], value: a[4]) { s.broadcast(.sticker) }
        case ("delete", 3), ("delete", 4):
            guard try stickers.delete(uri: try song(s, a[2]), name: a.count == 4 ? a[3] : nil) else {
                throw .noExist("no such sticker")
            }
            s.broadcast(.sticker)
        case ("find", 4), ("find", 6):
            var op = MPDStickers.Operator.exists
            if a.count == 6 {
                switch a[4] {
                case "=": op = .equals(a[5])
                case "<": op = .lessThan(a[5])
                case ">": op = .greaterThan(a[5])
                default: throw .argument("bad operator")
                }
            }
            let db = s.database
            // Only songs the database holds now (MPD's sticker_song_find_cb skips the others).
            let found = try stickers.find(base: a[2], name: a[3], op).filter { db.trackIndex(uri: $0.uri) != nil }
            let name = a[3]
            return .stream(
                ItemProducer(count: found.count) { i, out in
                    MPDFormat.pair("file", found[i].uri, to: &out)
                    MPDFormat.pair("sticker", name + "=" + found[i].value, to: &out)
                })
        default:
            throw .argument("bad request")
        }
        return .done
    }

    /// The URI of the song `uri` names (MPD's `Database::GetSong`: "No such song" otherwise).
    private static func song(_ s: MPDServer, _ uri: String) throws(MPDError) -> String {
        guard case .song(let index) = s.database.locate(uri), !uri.hasSuffix("/") else {
            throw .noExist("No such song")
        }
        return s.database.uri(ofTrackAt: index)
    }
}
