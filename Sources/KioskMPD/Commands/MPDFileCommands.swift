// SPDX-License-Identifier: GPL-3.0-or-later
import KioskLibrary
import KioskSystem

/// Files on the sticks as they are (MPD's src/command/FileCommands.cxx): `listfiles` lists a
/// directory's files, songs or not, with their sizes. Only directories of the database can be
/// named (a URI never reaches the file system unchecked: `MPDDatabase.locate`). Thread: loop thread.
enum MPDFileCommands {
    /// Entries listed at most per directory (a stick's directory of a million files stays bounded).
    static let maxEntries = 20_000

    /// `listfiles [URI]`: `directory: NAME` and `file: NAME` + `size:`, each with `Last-Modified:`,
    /// in the order the file system gives them (as MPD's local storage does); names with line
    /// breaks are left out, as MPD does.
    static func listFiles(_ s: MPDServer, _ r: MPDRequest) throws(MPDError) -> MPDOutcome {
        let db = s.database
        let uri = r.optional(0) ?? ""
        let c = r.connection
        switch db.locate(uri) {
        case .root:
            for (volume, name) in db.volumeNames.sorted(by: { $0.value < $1.value }) {
                c.write("directory: \(name)\n")
                if let mount = db.mountPoints[volume], let st = try? Syscalls.fileStatus(mount) {
                    let info = FileMetadata(st)
                    c.write("Last-Modified: \(MPDTime.iso8601(nanoseconds: info.modificationTime))\n")
                }
            }
            return .done
        case .directory(let path):
            guard let directory = db.filePath(ofDirectory: path) else { throw .noExist("No such directory") }
            let listing: [DirectoryEntry]
            do throws(Errno) {
                listing = try Syscalls.readDirectory(directory, limit: maxEntries) { _, _ in true }.entries
            } catch {
                throw MPDError(.system, "Failed to open directory: \(error)")
            }
            for entry in listing where !entry.name.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D }) {
                guard let info = entry.metadata else { continue }
                switch info.kind {
                case .regular: c.write("file: \(entry.name)\nsize: \(info.size)\n")
                case .directory: c.write("directory: \(entry.name)\n")
                default: continue
                }
                c.write("Last-Modified: \(MPDTime.iso8601(nanoseconds: info.modificationTime))\n")
            }
            return .done
        case .song, nil:
            throw .noExist("No such directory")
        }
    }
}
