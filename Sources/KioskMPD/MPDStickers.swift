// SPDX-License-Identifier: GPL-3.0-or-later
import KioskLibrary
import KioskSystem

/// MPD's sticker database (src/sticker/Database.cxx): name=value pairs attached to songs by their
/// URI, in an SQLite file in the state directory with MPD's own schema, so that a client's ratings
/// and play counts survive restarts. Opened on first use; a file that cannot be opened is reported
/// to the client that asked, and tried again on the next command. Bounded: at most `maxStickers`
/// rows, names and values of at most `maxValueBytes`, and `maxTotalBytes` of URIs, names and values
/// in all (issue 44: 100 000 rows of 8 KB were allowed, 800 MB on the SD card).
/// Thread: loop thread (the connection is opened there with `SQLITE_OPEN_NOMUTEX`).
final class MPDStickers {
    enum Operator {
        case exists
        case equals(String)
        case lessThan(String)
        case greaterThan(String)
    }

    let path: String
    let maxStickers: Int
    let maxValueBytes: Int
    let maxTotalBytes: Int
    private var db: SQLiteDatabase?
    /// Bytes of the URIs, names and values stored: summed when the database is opened, then kept
    /// up to date by `set` and `delete` (so that no change costs a scan of the table).
    private(set) var storedBytes = 0

    init(path: String, maxStickers: Int, maxValueBytes: Int, maxTotalBytes: Int = 8 << 20) {
        self.path = path
        self.maxStickers = maxStickers
        self.maxValueBytes = maxValueBytes
        self.maxTotalBytes = maxTotalBytes
    }

    /// What the `-wal` file is cut back to after a checkpoint.
    static let walLimitBytes = 1 << 20

    /// The most the sticker files (database and WAL) take on disk for `totalBytes` of stickers:
    /// each row's URI and name are stored twice (table and unique index), pages are at least half
    /// full after splits, each row has some 30 bytes of headers and cell pointers in each, plus
    /// SQLite's fixed pages and the WAL (its limit and one transaction past it).
    static func diskBound(totalBytes: Int, rows: Int) -> Int {
        4 * totalBytes + 128 * rows + (64 << 10) + walLimitBytes + (1 << 20)
    }

    /// A row's bytes as `storedBytes` counts them, in SQL.
    private static let rowBytes = "length(CAST(uri AS BLOB))+length(CAST(name AS BLOB))+length(CAST(value AS BLOB))"

    /// The open database, created with MPD's schema when new. A file that is not a database (or is
    /// damaged) is kept beside it as `.corrupt` and a new one started, so stickers work again.
    private func database() throws(MPDError) -> SQLiteDatabase {
        if let db { return db }
        do throws(SQLiteError) {
            db = try open()
        } catch {
            guard error.isCorruption else { throw failure(error) }
            Log.error("mpd: stickers: \(error); kept as \(path).corrupt, starting a new sticker database")
            for leftover in ["-wal", "-shm"] { try? Syscalls.unlink(path + leftover) }
            do throws(Errno) { try Syscalls.rename(path, path + ".corrupt") } catch {
                throw MPDError(.system, "\(error)")
            }
            do throws(SQLiteError) { db = try open() } catch { throw failure(error) }
        }
        return db!
    }

    private func open() throws(SQLiteError) -> SQLiteDatabase {
        let opened = try SQLiteDatabase(path: path)
        // WAL with synchronous=NORMAL, as the library's index: a power cut loses at most the last
        // change, and a change costs no fsync on the loop thread. The WAL is checkpointed at 256
        // pages and cut back to 1 MiB after, so that it adds a known amount to the sticker total
        // (by default it grows to 1000 pages and keeps that size).
        try opened.execute(
            "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA wal_autocheckpoint=256; "
                + "PRAGMA journal_size_limit=\(Self.walLimitBytes)")
        try opened.execute(
            """
            CREATE TABLE IF NOT EXISTS sticker(type VARCHAR NOT NULL, uri VARCHAR NOT NULL, \
            name VARCHAR NOT NULL, value VARCHAR NOT NULL);
            CREATE UNIQUE INDEX IF NOT EXISTS sticker_value ON sticker(type, uri, name);
            """)
        let sum = try opened.prepare("SELECT coalesce(sum(\(Self.rowBytes)), 0) FROM sticker")
        storedBytes = try sum.step() ? sum.int(0) : 0
        sum.reset()
        return opened
    }

    /// SQLite's failures as MPD reports them (`SqliteError`: ACK_ERROR_UNKNOWN), naming the file.
    private func failure(_ error: SQLiteError) -> MPDError {
        Log.error("mpd: stickers: \(error)")
        return MPDError(.unknown, "sticker database \(path): \(error.message)")
    }

    /// The value of sticker `name` of the song `uri`, nil when it has none.
    func value(uri: String, name: String) throws(MPDError) -> String? {
        if name.isEmpty { return nil }
        let db = try database()
        do throws(SQLiteError) {
            let statement = try db.prepare("SELECT value FROM sticker WHERE type='song' AND uri=? AND name=?")
            statement.bind(1, uri)
            statement.bind(2, name)
            return try statement.step() ? statement.string(0) : nil
        } catch {
            throw failure(error)
        }
    }

    /// Every sticker of the song `uri`, by name (MPD prints them from a `std::map`).
    func list(uri: String) throws(MPDError) -> [(name: String, value: String)] {
        let db = try database()
        do throws(SQLiteError) {
            let statement = try db.prepare(
                "SELECT name, value FROM sticker WHERE type='song' AND uri=? ORDER BY name")
            statement.bind(1, uri)
            var result: [(String, String)] = []
            while try statement.step() { result.append((statement.string(0) ?? "", statement.string(1) ?? "")) }
            return result
        } catch {
            throw failure(error)
        }
    }

    /// Sets sticker `name` of the song `uri`; true when something changed (an empty name is
    /// ignored, as in MPD).
    func set(uri: String, name: String, value: String) throws(MPDError) -> Bool {
        if name.isEmpty { return false }
        guard name.utf8.count <= maxValueBytes, value.utf8.count <= maxValueBytes else {
            throw .argument("Sticker name or value too long (at most \(maxValueBytes) bytes)")
        }
        let db = try database()
        let outcome: StoreOutcome
        do throws(SQLiteError) {
            outcome = try store(db, uri: uri, name: name, value: value)
        } catch {
            throw failure(error)
        }
        switch outcome {
        case .stored: return true
        case .tooMany: throw MPDError(.unknown, "sticker database is full (\(maxStickers) stickers)")
        case .tooManyBytes:
            throw MPDError(.unknown, "sticker database is full (\(maxTotalBytes) bytes of stickers in all)")
        }
    }

    /// What `store` did: stored, or refused for the row count or the byte total. Thread: a value; any.
    private enum StoreOutcome { case stored, tooMany, tooManyBytes }

    /// Update, else insert, unless the change would pass `maxStickers` or `maxTotalBytes`.
    private func store(
        _ db: SQLiteDatabase, uri: String, name: String, value: String
    ) throws(SQLiteError) -> StoreOutcome {
        let old = try db.prepare(
            "SELECT length(CAST(value AS BLOB)) FROM sticker WHERE type='song' AND uri=? AND name=?")
        old.bind(1, uri)
        old.bind(2, name)
        // Each read is reset before the write: a statement left stepping keeps the transaction
        // open, the write then commits only when it is finalized, outside `sqlite3_step`, where
        // SQLite runs no auto-checkpoint, and the WAL grew without bound (39.6 MB of 8 MiB of
        // stickers in the attack of issue 44; the main file stayed at one page).
        let oldBytes = try old.step() ? old.int(0) : nil
        old.reset()
        if let oldBytes {
            let total = storedBytes - oldBytes + value.utf8.count
            // A change that does not grow the total is always taken (a full database can still be edited).
            guard total <= maxTotalBytes || total <= storedBytes else { return .tooManyBytes }
            let update = try db.prepare("UPDATE sticker SET value=? WHERE type='song' AND uri=? AND name=?")
            update.bind(1, value)
            update.bind(2, uri)
            update.bind(3, name)
            try update.run()
            storedBytes = total
            return .stored
        }
        let total = storedBytes + uri.utf8.count + name.utf8.count + value.utf8.count
        guard total <= maxTotalBytes else { return .tooManyBytes }
        let count = try db.prepare("SELECT count(*) FROM sticker")
        let rows = try count.step() ? count.int(0) : Int.max
        count.reset()
        guard rows < maxStickers else { return .tooMany }
        let insert = try db.prepare("INSERT INTO sticker(type, uri, name, value) VALUES('song', ?, ?, ?)")
        insert.bind(1, uri)
        insert.bind(2, name)
        insert.bind(3, value)
        try insert.run()
        storedBytes = total
        return .stored
    }

    /// Deletes sticker `name` of the song `uri`, or all its stickers when `name` is nil; false when
    /// there was none.
    func delete(uri: String, name: String?) throws(MPDError) -> Bool {
        let db = try database()
        do throws(SQLiteError) {
            let condition = name == nil ? "type='song' AND uri=?" : "type='song' AND uri=? AND name=?"
            let freed = try db.prepare("SELECT coalesce(sum(\(Self.rowBytes)), 0) FROM sticker WHERE \(condition)")
            let statement = try db.prepare("DELETE FROM sticker WHERE \(condition)")
            for query in [freed, statement] {
                query.bind(1, uri)
                if let name { query.bind(2, name) }
            }
            let bytes = try freed.step() ? freed.int(0) : 0
            freed.reset()
            try statement.run()
            let deleted = db.changes > 0
            if deleted { storedBytes = max(0, storedBytes - bytes) }
            return deleted
        } catch {
            throw failure(error)
        }
    }

    /// The songs under `base` (`""` = all; else `base/…`) with sticker `name` whose value passes
    /// `op` (compared as byte strings, as SQLite compares text), in URI order.
    func find(base: String, name: String, _ op: Operator) throws(MPDError) -> [(uri: String, value: String)] {
        var sql = "SELECT uri, value FROM sticker WHERE type='song' AND name=?"
        var operand: String?
        switch op {
        case .exists: break
        case .equals(let value):
            sql += " AND value=?"
            operand = value
        case .lessThan(let value):
            sql += " AND value<?"
            operand = value
        case .greaterThan(let value):
            sql += " AND value>?"
            operand = value
        }
        sql += " ORDER BY uri"
        let prefix = base.isEmpty ? "" : base + "/"
        let db = try database()
        do throws(SQLiteError) {
            let statement = try db.prepare(sql)
            statement.bind(1, name)
            if let operand { statement.bind(2, operand) }
            var result: [(String, String)] = []
            while try statement.step() {
                let uri = statement.string(0) ?? ""
                // A prefix of bytes, not MPD's LIKE (which folds ASCII case and reads `%` and `_`
                // as wildcards before MPD's own byte comparison drops those rows again).
                if uri.utf8.starts(with: prefix.utf8) { result.append((uri, statement.string(1) ?? "")) }
            }
            return result
        } catch {
            throw failure(error)
        }
    }
}
