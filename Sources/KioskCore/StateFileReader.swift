// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskSystem

extension JSONReader {
    /// Parses one of the player's own state files, `{"format": FORMAT, "version": VERSION, …}`
    /// (card links, bedtime counts, the remembered headphones): another format or version is
    /// refused as "not a `what` of version VERSION", naming the file.
    static func stateFile(
        _ bytes: [UInt8], file: String, format: String, version: Int, what: String
    ) throws(ConfigError) -> JSONReader {
        let r = try JSONReader.parse(bytes, file: file)
        guard try r.string("format") == format, try r.int("version", range: 0...1000) == version else {
            throw ConfigError(file: file, path: "format", message: "not a \(what) of version \(version)")
        }
        return r
    }
}
