// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskMPD
import KioskSystem
import KioskTestSupport
import Testing

/// Errors as MPD words them. The expected lines were taken from MPD 0.23 (Debian 12's mpd) with
/// the same commands; where `mpd` is installed, `realMPDAnswersTheSame` checks them against it
/// again.
@Suite(.tags(.integration), .serialized) struct MPDWordingTests {
    /// (command line, the ACK line MPD answers). The queue is empty and the player stopped.
    static let cases: [(String, String)] = [
        ("foo", #"ACK [5@0] {} unknown command "foo""#),
        ("status x", #"ACK [2@0] {status} wrong number of arguments for "status""#),
        ("play 0 1", #"ACK [2@0] {play} too many arguments for "play""#),
        ("list", #"ACK [2@0] {list} too few arguments for "list""#),
        ("password", #"ACK [2@0] {password} wrong number of arguments for "password""#),
        ("play 99", "ACK [2@0] {play} Bad song index"),
        ("playid 99", "ACK [50@0] {playid} No such song"),
        ("playid abc", "ACK [2@0] {playid} Integer expected: abc"),
        ("delete 7", "ACK [2@0] {delete} Bad song index"),
        ("delete abc", "ACK [2@0] {delete} Integer or range expected: abc"),
        ("setvol 101", "ACK [2@0] {setvol} Number too large: 101"),
        ("setvol -1", "ACK [2@0] {setvol} Number too large: -1"),
        ("setvol abc", "ACK [2@0] {setvol} Integer expected: abc"),
        ("volume abc", "ACK [2@0] {volume} Integer expected: abc"),
        ("seekcur abc", "ACK [2@0] {seekcur} Float expected: abc"),
        ("pause 2", "ACK [2@0] {pause} Boolean (0/1) expected: 2"),
        ("repeat 2", "ACK [2@0] {repeat} Boolean (0/1) expected: 2"),
        ("random 2", "ACK [2@0] {random} Boolean (0/1) expected: 2"),
        ("consume x", "ACK [2@0] {consume} Boolean (0/1) expected: x"),
        ("consume oneshot", "ACK [2@0] {consume} Boolean (0/1) expected: oneshot"),
        ("single x", "ACK [2@0] {single} Unrecognized single mode, expected 0, 1, or oneshot"),
        ("single 2", "ACK [2@0] {single} Unrecognized single mode, expected 0, 1, or oneshot"),
        ("next", "ACK [55@0] {next} Not playing"),
        ("plchanges abc", "ACK [2@0] {plchanges} Integer expected: abc"),
        ("lsinfo ../", "ACK [50@0] {lsinfo} No such directory"),
        ("lsinfo nonexistent", "ACK [50@0] {lsinfo} No such directory"),
        ("lsinfo /etc", "ACK [50@0] {lsinfo} No such file"),
        ("add nonexistent.flac", "ACK [50@0] {add} No such directory"),
        ("add ../x", "ACK [50@0] {add} No such directory"),
        ("add \"USBSTICK/../USBSTICK\"", "ACK [50@0] {add} No such directory"),
        ("add /etc/passwd", "ACK [50@0] {add} No such song"),
        ("add file:///etc/passwd", "ACK [50@0] {add} No such song"),
        ("list foo", "ACK [2@0] {list} Unknown tag type: foo"),
        ("list album group foo", "ACK [2@0] {list} Unknown tag type: foo"),
        ("find artist", "ACK [2@0] {find} Incorrect number of filter arguments"),
        (#"find "(artist ==)""#, "ACK [2@0] {find} Quoted string expected"),
        (#"find "(bogus == 'x')""#, "ACK [2@0] {find} Unknown filter type: bogus"),
        (#"find "(artist == 'x') junk""#, "ACK [2@0] {find} Unparsed garbage after expression"),
        (#"find "(artist == 'x'""#, "ACK [2@0] {find} ')' expected"),
        (#"find "(artist 'x')""#, "ACK [2@0] {find} '==' or '!=' expected"),
        (#"find "((artist == 'x') OR (album == 'y'))""#, "ACK [2@0] {find} 'AND' expected"),
        ("enableoutput 5", "ACK [50@0] {enableoutput} No such audio output"),
        ("enableoutput x", "ACK [2@0] {enableoutput} Integer expected: x"),
        ("listplaylistinfo nope", "ACK [50@0] {listplaylistinfo} No such playlist"),
        ("load nope", "ACK [50@0] {load} No such playlist"),
        ("albumart nope 0", "ACK [50@0] {albumart} No file exists"),
        ("albumart \"USBSTICK/Loose/untagged.flac\" abc", "ACK [2@0] {albumart} Integer expected: abc"),
        ("idle foo", "ACK [2@0] {idle} Unrecognized idle event: foo"),
        ("password x", "ACK [3@0] {password} incorrect password"),
        ("binarylimit 10", "ACK [2@0] {binarylimit} Value too small"),
        ("ping extra", #"ACK [2@0] {ping} wrong number of arguments for "ping""#),
        (#"status "unterminated"#, #"ACK [5@0] {} Missing closing '"'"#),
        (#"ping x"y"#, "ACK [5@0] {} Invalid unquoted character"),
        (#"ping "x"y"#, #"ACK [5@0] {} Space expected after closing '"'"#),
        ("ping 'x'", "ACK [5@0] {} Invalid unquoted character"),
        ("ping " + Array(repeating: "x", count: 64).joined(separator: " "), "ACK [2@0] {} Too many arguments"),
        (
            "ping " + Array(repeating: "x", count: 63).joined(separator: " "),
            #"ACK [2@0] {ping} wrong number of arguments for "ping""#
        ),
        ("command_list_end", #"ACK [5@0] {} unknown command "command_list_end""#),
    ]

    /// Sends every case on one connection; returns the answers.
    static func answers(_ client: TestClient) throws -> [String] {
        var result: [String] = []
        for (command, _) in cases {
            let response = try client.command(command)
            result.append(response.last ?? "")
        }
        // A command list stops at the failing command, which it names by its index.
        try client.send("command_list_begin\nping\nfoo\nping\ncommand_list_end\n")
        result.append(try client.response().last ?? "")
        return result
    }

    static var expected: [String] { cases.map(\.1) + [#"ACK [5@1] {} unknown command "foo""#] }

    /// The lines MPD 0.24 (Debian trixie's, and so the aarch64 tree's) words differently, by
    /// command line. The player answers as 0.23 does; these let `realMPDAnswersTheSame` check the
    /// table against either release.
    static let wordingOf024: [String: String] = [
        "consume x": "ACK [2@0] {consume} Unrecognized consume mode, expected 0, 1, or oneshot",
        "consume oneshot": "OK",  // 0.24 has a consume oneshot; 0.23 does not
        #"find "(artist 'x')""#: "ACK [2@0] {find} Unknown filter operator: 'x')",
        "ping " + Array(repeating: "x", count: 64).joined(separator: " "):
            #"ACK [2@0] {ping} wrong number of arguments for "ping""#,
    ]

    /// The version of the `mpd` program ("0.23.12"), from `mpd --version`.
    static func mpdVersion(_ mpd: String) -> [Int] {
        let first = run(mpd, ["--version"]).output.split(separator: "\n").first ?? ""
        let word = first.split(separator: " ").first { $0.first?.isNumber == true } ?? ""
        return word.split(separator: ".").compactMap { Int($0) }
    }

    @Test func errorsAreWordedAsMPDWordsThem() throws {
        let h = try Harness()
        let path = h.socketPath
        let answers = try h.client { try MPDWordingTests.answers(try TestClient(unix: path)) }
        for (answer, expected) in zip(answers, MPDWordingTests.expected) {
            #expect(answer == expected)
        }
        #expect(answers.count == MPDWordingTests.expected.count)
    }

    @Test func malformedCommandNamesCloseTheConnectionAsMPDDoes() throws {
        let h = try Harness()
        let path = h.socketPath
        let results = try h.client {
            var results: [(String, Bool)] = []
            for line in ["\"status\"", "PLAY", "Status", "", " ", "\u{1}\u{2}"] {
                let c = try TestClient(unix: path)
                c.timeoutMs = 3000
                try c.send(line + "\n")
                results.append((line, c.isClosedByServer()))
            }
            // A bad character inside the name is answered, then the connection is closed.
            let c = try TestClient(unix: path)
            try c.send("sta-tus\n")
            let answer = try c.readLine()
            results.append((answer, c.isClosedByServer()))
            return results
        }
        for (line, closed) in results.dropLast() { #expect(closed, "\(line.debugDescription) should close") }
        #expect(results.last?.0 == "ACK [5@0] {} Invalid word character")
        #expect(results.last?.1 == true)
    }

    /// Runs the cases against Debian's MPD, when it is installed, over the same music.
    @Test(.enabled(if: which("mpd") != nil, "mpd is not installed (apt-get install mpd) to compare with"))
    func realMPDAnswersTheSame() throws {
        let dir = try TemporaryDirectory("kiosk-refmpd")
        defer { dir.remove() }
        try Fixture.write(under: dir.file("music/USBSTICK"), seconds: 1)
        try Syscalls.mkdirs(dir.file("playlists"))
        let socket = dir.file("mpd.socket")
        try dir.write(
            "mpd.conf",
            """
            music_directory "\(dir.file("music"))"
            playlist_directory "\(dir.file("playlists"))"
            db_file "\(dir.file("db"))"
            bind_to_address "\(socket)"
            audio_output {
                type "null"
                name "null"
            }

            """)
        let mpd = try ChildProcess(
            which("mpd")!, ["--no-daemon", "--stderr", dir.file("mpd.conf")], log: dir.file("mpd.log"))
        defer { mpd.stop() }
        guard waitFor(seconds: 20, { Syscalls.exists(socket) && (try? TestClient(unix: socket)) != nil }) else {
            try skipTest("mpd did not start: \(mpd.log)")
            return
        }
        let client = try TestClient(unix: socket)
        let answers = try MPDWordingTests.answers(client)
        let version = MPDWordingTests.mpdVersion(which("mpd")!)
        let lines = MPDWordingTests.cases.map(\.0) + ["command list"]
        for (line, (answer, expected)) in zip(lines, zip(answers, MPDWordingTests.expected)) {
            let wording =
                version.lexicographicallyPrecedes([0, 24]) ? expected : MPDWordingTests.wordingOf024[line] ?? expected
            #expect(answer == wording, "real MPD \(version.map(String.init).joined(separator: "."))")
        }
    }
}
