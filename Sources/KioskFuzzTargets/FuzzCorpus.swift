// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem

/// The files of a corpus: a file itself, or every regular file in a folder (sorted, one level).
///
/// Thread: any.
public enum FuzzCorpus {
    public static func files(at path: String) -> [String] {
        guard let status = try? Syscalls.fileStatus(path) else { return [] }
        if status.st_mode & 0o170000 != 0o040000 { return [path] }
        var names: [String] = []
        try? Syscalls.visitDirectory(path) { entry in
            if entry.name.first != UInt8(ascii: "."), entry.kind == .regular {
                names.append(String(decoding: entry.name, as: UTF8.self))
            }
            return true
        }
        return names.sorted().map { path + "/" + $0 }
    }
}
