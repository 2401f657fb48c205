// SPDX-License-Identifier: GPL-3.0-or-later
import CSQLite

/// An SQLite error: the operation, SQLite's result code and message.
package struct SQLiteError: Error, CustomStringConvertible {
    package let code: Int32
    package let message: String
    package let context: String

    package var description: String { "\(context): \(message) (SQLite code \(code))" }

    /// The database file is damaged or is not a database: delete it and start again.
    package var isCorruption: Bool {
        let primary = code & 0xFF
        return primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB
    }
}

/// A connection to one SQLite database file.
///
/// Thread: the thread that opened it (connections are opened with `SQLITE_OPEN_NOMUTEX`).
package final class SQLiteDatabase {
    private let handle: OpaquePointer
    package let path: String

    package init(path: String) throws(SQLiteError) {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError(code: rc, message: message, context: "open \(path)")
        }
        handle = db
        self.path = path
        sqlite3_busy_timeout(db, 2000)
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    package func error(_ rc: Int32, _ context: String) -> SQLiteError {
        SQLiteError(code: rc, message: String(cString: sqlite3_errmsg(handle)), context: context)
    }

    /// Runs one or more statements that return no rows.
    package func execute(_ sql: String) throws(SQLiteError) {
        let rc = sqlite3_exec(handle, sql, nil, nil, nil)
        if rc != SQLITE_OK { throw error(rc, String(sql.prefix(60))) }
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE (`sqlite3_changes`).
    package var changes: Int { Int(sqlite3_changes(handle)) }

    package func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard rc == SQLITE_OK, let statement else { throw error(rc, "prepare \(sql.prefix(60))") }
        return SQLiteStatement(statement: statement, database: self)
    }

    /// `PRAGMA user_version`: the schema version this program wrote.
    package var userVersion: Int {
        get throws(SQLiteError) {
            let statement = try prepare("PRAGMA user_version")
            guard try statement.step() else { return 0 }
            return statement.int(0)
        }
    }
}

/// A prepared statement. Bind indices start at 1, column indices at 0.
/// Thread: its database's thread.
package final class SQLiteStatement {
    private let statement: OpaquePointer
    private let database: SQLiteDatabase

    init(statement: OpaquePointer, database: SQLiteDatabase) {
        self.statement = statement
        self.database = database
    }

    deinit {
        sqlite3_finalize(statement)
    }

    package func bind(_ index: Int32, _ value: String?) {
        guard var value else {
            sqlite3_bind_null(statement, index)
            return
        }
        // The bytes with their length: no NUL-terminated copy, no strlen (SQLite copies them).
        value.withUTF8 { bytes in
            let empty: StaticString = ""
            let start = UnsafeRawPointer(bytes.baseAddress ?? empty.utf8Start).assumingMemoryBound(to: CChar.self)
            sqlite3_bind_text(statement, index, start, Int32(bytes.count), csqlite_transient())
        }
    }

    package func bind(_ index: Int32, _ value: Int64?) {
        if let value { sqlite3_bind_int64(statement, index, value) } else { sqlite3_bind_null(statement, index) }
    }

    package func bind(_ index: Int32, _ value: Int?) { bind(index, value.map(Int64.init)) }

    /// Advances; true when a row is available.
    package func step() throws(SQLiteError) -> Bool {
        let rc = sqlite3_step(statement)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        throw database.error(rc, "step")
    }

    /// Runs the statement to completion and resets it for the next bindings.
    package func run() throws(SQLiteError) {
        defer { reset() }
        while try step() {}
    }

    package func reset() {
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
    }

    package func isNull(_ column: Int32) -> Bool { sqlite3_column_type(statement, column) == SQLITE_NULL }

    package func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(statement, column)) }

    package func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }

    package func optionalInt(_ column: Int32) -> Int? { isNull(column) ? nil : int(column) }

    /// The bytes of a text column (valid until the next step), nil for NULL.
    package func withText<R>(_ column: Int32, _ body: (UnsafeRawBufferPointer) -> R) -> R? {
        guard let text = sqlite3_column_text(statement, column) else { return nil }
        return body(UnsafeRawBufferPointer(start: text, count: Int(sqlite3_column_bytes(statement, column))))
    }

    package func string(_ column: Int32) -> String? {
        guard let text = sqlite3_column_text(statement, column) else { return nil }
        let count = Int(sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }
}
