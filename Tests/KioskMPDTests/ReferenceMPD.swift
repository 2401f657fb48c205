// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem
import KioskTestSupport

/// Debian's mpd as a child process over a music directory, on a Unix socket in `directory`, with a
/// null output and a software mixer (so `setvol` works), no state file; its database is built
/// (`update`, then `status` polled) before `init` returns. Thread: the test's own.
final class ReferenceMPD {
    static let executable = "/usr/bin/mpd"
    let process: ChildProcess
    let socket: String
    let log: String

    init(music: String, directory: String, songs: Int) throws {
        socket = directory + "/socket"
        log = directory + "/mpd.log"
        try Syscalls.mkdirs(directory + "/playlists")
        let config = """
            music_directory "\(music)"
            playlist_directory "\(directory)/playlists"
            db_file "\(directory)/database"
            sticker_file "\(directory)/sticker.sql"
            bind_to_address "\(socket)"
            log_file "\(log)"
            auto_update "no"
            zeroconf_enabled "no"
            audio_output {
                type "null"
                name "null"
                mixer_type "software"
            }

            """
        try AtomicFile.replace(directory + "/mpd.conf", with: Array(config.utf8))
        process = try ChildProcess(
            ReferenceMPD.executable, ["--no-daemon", directory + "/mpd.conf"], log: directory + "/mpd.out")
        var client: TestClient?
        _ = waitFor(seconds: 20) { [socket] in
            client = try? TestClient(unix: socket)
            return client != nil
        }
        guard let client else { throw TestFailure("mpd did not come up: \(process.log)") }
        _ = try client.command("update")
        let built = waitFor(seconds: 30) {
            guard let status = try? client.pairs("status"), let stats = try? client.pairs("stats") else { return false }
            return status["updating_db"] == nil && stats["songs"] == "\(songs)"
        }
        guard built else { throw TestFailure("mpd did not build its database of \(songs) songs: \(process.log)") }
    }

    deinit { process.stop() }
}
