// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskInput
import KioskLibrary
import KioskSystem

/// Files the file-reading targets need: one private directory per process (removed at exit), an
/// input written there under a name, and the input profile event scripts are checked against.
///
/// Thread: the fuzzing thread.
enum FuzzFiles {
    /// `/tmp/kiosk-fuzz-PID` (or `$TMPDIR`), made once.
    static let directory: String = {
        let base = currentTemporaryDirectory()
        let path = "\(base)/kiosk-fuzz-\(getpid())"
        try? Syscalls.mkdirs(path)
        atexit { _ = Syscalls.runAndWait("/bin/rm", arguments: ["-rf", FuzzFiles.directory]) }
        return path
    }()

    private static func currentTemporaryDirectory() -> String {
        if let text = Syscalls.environment("TMPDIR"), text.hasPrefix("/") { return text }
        return "/tmp"
    }

    /// Writes `data` to `name` in the directory, runs `body` with its path, removes it.
    static func withFile(_ name: String, _ data: [UInt8], _ body: (String) -> Void) {
        let path = directory + "/" + name
        guard (try? SyntheticLibrary.writeFile(path: path, bytes: data)) != nil else { return }
        body(path)
        unlink(path)
    }

    /// Writes `data` as `name` in a state directory of its own, runs `body` with the directory.
    static func withStateFile(_ name: String, _ data: [UInt8], _ body: (String) -> Void) {
        let state = directory + "/state"
        try? Syscalls.mkdirs(state)
        withFile("state/" + name, data) { _ in body(state) }
        // What the reader may have left: the file set aside as damaged.
        unlink(state + "/" + name + ".bad")
    }

    /// A board like the QEMU test board's: buttons, an encoder, evdev keys.
    static let profile: InputProfile = {
        let json = #"""
            {"buttons": [{"name": "play", "line": 0, "press": "play-pause", "longPress": "stop"},
                         {"name": "next", "line": 2, "press": "next", "hold": "next"}],
             "encoders": [{"name": "knob", "a": 5, "b": 6, "clockwise": "volume-up", "counterClockwise": "volume-down"}],
             "chords": [{"buttons": ["play", "next"], "holdMs": 1000, "action": "shuffle"}],
             "evdev": [{"device": "fuzz", "keys": {"KEY_PLAYPAUSE": "play-pause", "KEY_A": "select"}}]}
            """#
        // The profile is fixed text: it parses.
        let reader = try! JSONReader.parse(Array(json.utf8), file: "fuzz-board.json")
        return try! InputProfile.parse(reader, settings: InputSettings())
    }()
}
