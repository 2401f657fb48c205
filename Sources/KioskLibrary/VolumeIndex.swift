// SPDX-License-Identifier: GPL-3.0-or-later
import CSQLite
import Glibc
import KioskModel
import KioskSystem

/// What the index remembers about one FLAC file, valid while its size and mtime are unchanged.
struct IndexedFile: Sendable {
    let size: Int64
    let modificationTime: Int64
    let outcome: StoredOutcome
    /// Whether a playable file's first frame was decoded (at the scan, or since by the background
    /// `PlayabilityPass`); false while only its headers were checked.
    var confirmed = true

    /// Whether this is what `file` holds: same size and mtime, and a track made of it keeps the
    /// path's very bytes (a name spelt with composed or decomposed accents is another file).
    func stands(for file: ScannedFile) -> Bool {
        guard size == file.size, modificationTime == file.modificationTime else { return false }
        if case .known(let track, _) = outcome { return track.relativePath.utf8.elementsEqual(file.relativePath.utf8) }
        return true
    }
}

/// A stored read result (transient failures are never stored).
enum StoredOutcome: Sendable {
    // Boxed: the scan keeps one per file (200 000 on a big stick), most of them small.
    indirect case playable(TrackInfo, warnings: [String])
    /// The track an earlier scan of the same volume made of the file (nothing to make again).
    indirect case known(Track, warnings: [String])
    case unplayable(reason: String)
}

/// What the index remembers about one playlist file.
struct IndexedPlaylist: Sendable {
    let size: Int64
    let modificationTime: Int64
    let playlist: PlaylistFile
}

/// The per-volume index: one SQLite database, `<state>/library/<volume-id>.sqlite`.
///
/// Schema version in `PRAGMA user_version`; a database of another version, or a damaged one, is
/// deleted and rebuilt (the index is a cache: the stick holds the truth). Rows are keyed by
/// relative path and carry (size, mtime), so a rescan reopens only files that changed.
/// WAL journal with `synchronous=NORMAL`: a power cut loses at most the last transaction, never
/// the database.
///
/// Thread: the scan worker that opened it.
final class VolumeIndex {
    /// 2: the `extras` column (MPD's tags beyond the box's own); an index of version 1 has none of
    /// them read, so it is rebuilt. 3: the `replaygain` column (`ReplayGainInfo.stored`). 4: the
    /// `confirmed` column (the first frame decoded, `TrackInfo.firstFrameDecoded`).
    static let schemaVersion = 4
    private static let separator: Character = "\u{1F}"

    let path: String
    private let database: SQLiteDatabase
    private var upsertFile: SQLiteStatement?
    private var deleteFileStatement: SQLiteStatement?
    private var confirmStatement: SQLiteStatement?
    /// Set when an existing database had to be thrown away.
    private(set) var resetReason: String?

    /// Whether the tables were made when it was opened (a new file, or one of another schema
    /// version): then it holds no rows yet.
    private(set) var isNew = false

    init(path: String) throws(SQLiteError) {
        self.path = path
        do {
            (database, isNew) = try VolumeIndex.open(path)
        } catch let error where error.isCorruption {
            VolumeIndex.deleteFiles(path)
            resetReason = "the index was damaged and was rebuilt (\(error.message))"
            (database, isNew) = try VolumeIndex.open(path)
        }
    }

    /// The index at `path` as it is, for reading: nil when it cannot be opened, is damaged or of
    /// another schema version — left untouched for the scan, which rebuilds it and says so.
    static func openExisting(path: String) -> VolumeIndex? {
        guard let database = try? SQLiteDatabase(path: path), (try? database.userVersion) == schemaVersion else {
            return nil
        }
        return VolumeIndex(path: path, database: database)
    }

    private init(path: String, database: SQLiteDatabase) {
        self.path = path
        self.database = database
    }

    /// Records that the database was thrown away and made anew after `error`.
    func noteRebuilt(after error: SQLiteError) {
        resetReason = "the index was damaged and was rebuilt (\(error.message))"
        isNew = true
    }

    private static func open(_ path: String) throws(SQLiteError) -> (SQLiteDatabase, created: Bool) {
        let db = try SQLiteDatabase(path: path)
        // A 256 KiB page cache (SQLite's default is 2 MB): rows are read and written in one pass,
        // so a bigger cache gains nothing (measured: same scan times), and its pages, allocated
        // while the tracks are made, would leave the scan's memory fragmented once freed.
        try db.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA cache_size=-256")
        let version = try db.userVersion
        if version != schemaVersion {
            try db.execute(
                """
                DROP TABLE IF EXISTS files; DROP TABLE IF EXISTS playlists; DROP TABLE IF EXISTS meta;
                CREATE TABLE files(
                    path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime INTEGER NOT NULL, problem TEXT, warnings TEXT,
                    title TEXT, artist TEXT, album TEXT, albumartist TEXT, genre TEXT, date TEXT,
                    track INTEGER, tracktotal INTEGER, disc INTEGER, disctotal INTEGER,
                    rate INTEGER, channels INTEGER, bits INTEGER, frames INTEGER, picture INTEGER, extras TEXT,
                    replaygain TEXT, confirmed INTEGER NOT NULL DEFAULT 1
                ) WITHOUT ROWID;
                CREATE TABLE playlists(
                    path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime INTEGER NOT NULL, name TEXT NOT NULL,
                    entries TEXT NOT NULL, warnings TEXT
                ) WITHOUT ROWID;
                CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
                PRAGMA user_version = \(schemaVersion);
                """)
        }
        return (db, version != schemaVersion)
    }

    /// Removes the database and its WAL side files.
    static func deleteFiles(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { try? Syscalls.unlink(path + suffix) }
    }

    /// Bytes the index takes on disk (database plus WAL).
    static func sizeOnDisk(_ path: String) -> Int64 {
        ["", "-wal"].reduce(Int64(0)) { total, suffix in
            total + ((try? Syscalls.fileStatus(path + suffix)).map { Int64($0.st_size) } ?? 0)
        }
    }

    // MARK: - reading

    /// The stored files by path (its bytes). Playable ones come as tracks of `volume`, made straight from the
    /// row's bytes: strings only for what the track keeps (path, title, and artist, album, genre
    /// and date values `strings` has not seen), raw tag arrays only for fields with several values,
    /// and the extra tags (their values shared through `strings` too).
    ///
    /// - Parameter expected: about how many rows there are (room is made for them at once).
    func loadFiles(expected: Int = 0, volume: TrackVolume, strings: inout StringPool) throws(SQLiteError)
        -> [PathKey: IndexedFile]
    {
        let s = try database.prepare(
            """
            SELECT path, size, mtime, problem, warnings, title, artist, album, albumartist, genre, date,
                   track, tracktotal, disc, disctotal, rate, channels, bits, frames, picture, extras, replaygain,
                   confirmed FROM files
            """)
        var result: [PathKey: IndexedFile] = [:]
        result.reserveCapacity(expected)
        var previous: Track?
        while try s.step() {
            guard let path = s.string(0) else { continue }
            let file = ScannedFile(relativePath: path, size: s.int64(1), modificationTime: s.int64(2))
            let outcome: StoredOutcome
            if let problem = s.string(3) {
                outcome = .unplayable(reason: problem)
            } else {
                let several = (5...10).contains { column in
                    s.withText(Int32(column)) { $0.contains(UInt8(ascii: "\u{1F}")) } ?? false
                }
                var values = Track.Values(
                    trackNumber: s.optionalInt(11), trackTotal: s.optionalInt(12), discNumber: s.optionalInt(13),
                    discTotal: s.optionalInt(14), sampleRate: s.int(15), channels: s.int(16),
                    bitsPerSample: s.int(17), totalFrames: s.isNull(18) ? nil : s.int64(18), hasPicture: s.int(19) != 0)
                var rawTags: TrackTags?
                let extras = Self.extras(s.string(20), strings: &strings)
                let replayGain = s.string(21).flatMap { ReplayGainInfo(stored: $0) }
                if several {
                    var tags = TrackTags()
                    tags.titles = Self.split(s.string(5))
                    tags.artists = Self.split(s.string(6))
                    tags.albums = Self.split(s.string(7))
                    tags.albumArtists = Self.split(s.string(8))
                    tags.genres = Self.split(s.string(9))
                    tags.dates = Self.split(s.string(10))
                    tags.trackNumber = values.trackNumber
                    tags.trackTotal = values.trackTotal
                    tags.discNumber = values.discNumber
                    tags.discTotal = values.discTotal
                    tags.extras = extras
                    tags.replayGain = replayGain ?? ReplayGainInfo()
                    func joined(_ values: [String]) -> String? {
                        values.isEmpty ? nil : values.count == 1 ? values[0] : values.joined(separator: ", ")
                    }
                    values.title = joined(tags.titles)
                    values.artist = joined(tags.artists).map { strings.shared($0) }
                    values.album = joined(tags.albums).map { strings.shared($0) }
                    values.albumArtist = joined(tags.albumArtists).map { strings.shared($0) }
                    values.genre = joined(tags.genres).map { strings.shared($0) }
                    values.date = tags.dates.first.map { strings.shared($0) }
                    rawTags = tags
                } else {
                    // One value a field (or none): the column is the value.
                    func pooled(_ column: Int32) -> String? {
                        s.withText(column) { $0.isEmpty ? nil : strings.shared(bytes: $0) } ?? nil
                    }
                    values.title = s.withText(5) { $0.isEmpty ? nil : String(decoding: $0, as: UTF8.self) } ?? nil
                    values.artist = pooled(6)
                    values.album = pooled(7)
                    values.albumArtist = pooled(8)
                    values.genre = pooled(9)
                    values.date = pooled(10)
                    if !extras.isEmpty || replayGain != nil {
                        var tags = TrackTags()
                        tags.extras = extras
                        tags.replayGain = replayGain ?? ReplayGainInfo()
                        rawTags = tags
                    }
                }
                let track = Track(volume: volume, file: file, values: values, rawTags: rawTags, sameFolderAs: previous)
                previous = track
                outcome = .known(track, warnings: Self.split(s.string(4)))
            }
            result[PathKey(path)] = IndexedFile(
                size: file.size, modificationTime: file.modificationTime, outcome: outcome, confirmed: s.int(22) != 0)
        }
        return result
    }

    func loadPlaylists() throws(SQLiteError) -> [PathKey: IndexedPlaylist] {
        let s = try database.prepare("SELECT path, size, mtime, name, entries, warnings FROM playlists")
        var result: [PathKey: IndexedPlaylist] = [:]
        while try s.step() {
            guard let path = s.string(0) else { continue }
            let entries = (s.string(4) ?? "").split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let playlist = PlaylistFile(
                relativePath: path, name: s.string(3) ?? PlaylistParser.stem(path),
                entries: entries.count == 1 && entries[0].isEmpty ? [] : entries, warnings: Self.split(s.string(5)))
            result[PathKey(path)] = IndexedPlaylist(size: s.int64(1), modificationTime: s.int64(2), playlist: playlist)
        }
        return result
    }

    func meta(_ key: String) throws(SQLiteError) -> String? {
        let s = try database.prepare("SELECT value FROM meta WHERE key = ?")
        s.bind(1, key)
        return try s.step() ? s.string(0) : nil
    }

    // MARK: - writing

    func begin() throws(SQLiteError) { try database.execute("BEGIN") }
    func commit() throws(SQLiteError) { try database.execute("COMMIT") }

    func store(_ file: ScannedFile, _ outcome: StoredOutcome) throws(SQLiteError) {
        if upsertFile == nil {
            upsertFile = try database.prepare(
                """
                INSERT OR REPLACE INTO files(path, size, mtime, problem, warnings, title, artist, album, albumartist,
                    genre, date, track, tracktotal, disc, disctotal, rate, channels, bits, frames, picture, extras,
                    replaygain, confirmed)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        }
        let s = upsertFile!
        s.bind(1, file.relativePath)
        s.bind(2, file.size)
        s.bind(3, file.modificationTime)
        switch outcome {
        case .unplayable(let reason):
            s.bind(4, reason)
            s.bind(23, 1)
        case .known(let track, let warnings):
            try store(file, .playable(track.info, warnings: warnings))
            return
        case .playable(let info, let warnings):
            s.bind(5, Self.join(warnings))
            s.bind(6, Self.join(info.tags.titles))
            s.bind(7, Self.join(info.tags.artists))
            s.bind(8, Self.join(info.tags.albums))
            s.bind(9, Self.join(info.tags.albumArtists))
            s.bind(10, Self.join(info.tags.genres))
            s.bind(11, Self.join(info.tags.dates))
            s.bind(12, info.tags.trackNumber)
            s.bind(13, info.tags.trackTotal)
            s.bind(14, info.tags.discNumber)
            s.bind(15, info.tags.discTotal)
            s.bind(16, info.sampleRate)
            s.bind(17, info.channels)
            s.bind(18, info.bitsPerSample)
            s.bind(19, info.totalFrames)
            s.bind(20, info.hasPicture ? 1 : 0)
            s.bind(21, Self.join(info.tags.extras.map { $0.tag.rawValue + "=" + $0.value }))
            s.bind(22, info.tags.replayGain.isEmpty ? nil : info.tags.replayGain.stored)
            s.bind(23, info.firstFrameDecoded ? 1 : 0)
        }
        try s.run()
    }

    /// Records what the background `PlayabilityPass` found about `file` (nil: its first frame
    /// decodes), when the row still describes the file (same size and mtime).
    func storeConfirmation(_ file: ScannedFile, problem: String?) throws(SQLiteError) {
        if confirmStatement == nil {
            confirmStatement = try database.prepare(
                "UPDATE files SET confirmed = 1, problem = ? WHERE path = ? AND size = ? AND mtime = ?")
        }
        let s = confirmStatement!
        s.bind(1, problem)
        s.bind(2, file.relativePath)
        s.bind(3, file.size)
        s.bind(4, file.modificationTime)
        try s.run()
    }

    func deleteFile(_ relativePath: String) throws(SQLiteError) {
        if deleteFileStatement == nil { deleteFileStatement = try database.prepare("DELETE FROM files WHERE path = ?") }
        deleteFileStatement!.bind(1, relativePath)
        try deleteFileStatement!.run()
    }

    func store(_ file: ScannedFile, playlist: PlaylistFile) throws(SQLiteError) {
        let s = try database.prepare(
            "INSERT OR REPLACE INTO playlists(path, size, mtime, name, entries, warnings) VALUES (?, ?, ?, ?, ?, ?)")
        s.bind(1, file.relativePath)
        s.bind(2, file.size)
        s.bind(3, file.modificationTime)
        s.bind(4, playlist.name)
        s.bind(5, playlist.entries.joined(separator: "\n"))
        s.bind(6, Self.join(playlist.warnings))
        try s.run()
    }

    func deletePlaylist(_ relativePath: String) throws(SQLiteError) {
        let s = try database.prepare("DELETE FROM playlists WHERE path = ?")
        s.bind(1, relativePath)
        try s.run()
    }

    func setMeta(_ key: String, _ value: String) throws(SQLiteError) {
        let s = try database.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)")
        s.bind(1, key)
        s.bind(2, value)
        try s.run()
    }

    /// Folds the WAL into the database file (after a scan, so the index is one compact file).
    func checkpoint() {
        try? database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    private static func join(_ values: [String]) -> String? {
        values.isEmpty ? nil : values.count == 1 ? values[0] : values.joined(separator: String(separator))
    }

    /// The `extras` column: `Name=value` entries (MPD's tag names); unknown names are skipped.
    private static func extras(_ text: String?, strings: inout StringPool) -> [ExtraTagValue] {
        guard let text else { return [] }
        return split(text).compactMap { entry in
            guard let equals = entry.firstIndex(of: "="), let tag = ExtraTag(rawValue: String(entry[..<equals]))
            else { return nil }
            return ExtraTagValue(tag, strings.shared(String(entry[entry.index(after: equals)...])))
        }
    }

    private static func split(_ text: String?) -> [String] {
        guard let text, !text.isEmpty else { return [] }
        if !text.utf8.contains(0x1F) { return [text] }
        return text.split(separator: separator, omittingEmptySubsequences: false).map(String.init)
    }
}
