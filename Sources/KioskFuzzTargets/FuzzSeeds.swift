// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskCore
import KioskLibrary
import KioskSystem

/// The seed corpus of each target, made from what the tests use: the shipped config and board
/// profiles, a resume and a bookmarks file as the box writes them, playlists, MPD sessions, real
/// files of every format (libFLAC's encoder here; mp3, m4a, ogg and opus through Debian's encoders
/// when they are installed) and the test images. `kiosk-fuzz seeds DIR` writes them to DIR/TARGET/.
///
/// Thread: any.
public enum FuzzSeeds {
    /// HTTP requests (`@SESSION@` and `@CSRF@` become a paired session's tokens: `WebFuzzRig`).
    static let webRequests: [String] = {
        let session = "Cookie: kiosk_session=@SESSION@\r\nX-CSRF-Token: @CSRF@\r\n"
        func post(_ path: String, _ body: String, type: String = "application/json") -> String {
            "POST \(path) HTTP/1.1\r\nHost: box\r\n\(session)Content-Type: \(type)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        }
        return [
            "GET / HTTP/1.1\r\nHost: box\r\n\r\n",
            "GET /api/status HTTP/1.1\r\nHost: box\r\n\(session)\r\n",
            "GET /api/music?folder=A%2FB HTTP/1.1\r\nHost: box\r\n\(session)\r\n",
            post("/api/pair", #"{"code": "123456"}"#),
            post("/api/volume", #"{"volume": 40}"#),
            post("/api/settings", #"{"volumeMax": 60, "speech": {"mode": null}}"#),
            post("/api/cards/link", #"{"card": "04A2B3C4D5", "key": "k", "mode": "track-per-tap"}"#),
            post(
                "/api/settings",
                #"{"bedtime": {"windows": [{"days": "mon-fri", "open": "16:00", "close": "19:30"}], "dailyMinutes": 45, "oneMore": {"minutes": 10}}}"#
            ),
            post("/api/cards/rename", #"{"card": "04A2B3C4D5", "name": "Grandma's stories"}"#),
            post(
                "/api/set/check",
                #"{"format": "kiosk-player-set", "version": 1, "cards": {"0000000007": {"action": "stop"}}, "bookmarks": []}"#
            ),
            post("/api/set/import", #"{"format": "kiosk-player-set", "version": 1, "settings": {"volumeMax": 70}}"#),
            "GET /api/set HTTP/1.1\r\nHost: box\r\n\(session)\r\n",
            post("/api/music/upload", #"{"path": "Album/01 Song.flac", "size": 8}"#),
            post("/api/music/delete", #"{"path": "Album"}"#),
            "PUT /api/music/upload?id=00000000000000-8&path=Album%2F01%20Song.flac&offset=0 HTTP/1.1\r\nHost: box\r\n\(session)Content-Type: application/octet-stream\r\nContent-Length: 8\r\n\r\nfLaC\0\0\0\"",
            "POST /api/volume HTTP/1.1\r\nHost: box\r\n\(session)Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{\"vo\r\n0\r\n\r\n",
            "GET /api/status HTTP/1.1\r\nHost: box\r\n\r\nGET /app.js HTTP/1.1\r\nHost: box\r\n\r\n",
        ]
    }()

    /// Writes the seeds of every target under `directory`; `repository` is the checkout (for the
    /// shipped config and boards). Returns how many files each target got.
    @discardableResult
    public static func write(to directory: String, repository: String) throws -> [FuzzTarget: Int] {
        var counts: [FuzzTarget: Int] = [:]
        func seed(_ target: FuzzTarget, _ name: String, _ bytes: [UInt8]) throws {
            try SyntheticLibrary.writeFile(path: "\(directory)/\(target.rawValue)/\(name)", bytes: bytes)
            counts[target, default: 0] += 1
        }
        func text(_ target: FuzzTarget, _ name: String, _ value: String) throws {
            try seed(target, name, Array(value.utf8))
        }

        // MPD: sessions and single lines.
        for (i, session) in mpdSessions.enumerated() {
            try text(.mpd, "session-\(i)", session)
            for (j, line) in session.split(separator: "\n").enumerated() {
                try text(.mpdLine, "line-\(i)-\(j)", String(line))
            }
        }
        for (i, session) in mpdTotalsSessions.enumerated() { try text(.mpdTotals, "session-\(i)", session) }
        // JSON files as owners write them, and as the box writes them.
        let config = try Syscalls.readFile(repository + "/deploy/config.json")
        try seed(.config, "config.json", config)
        try seed(.json, "config.json", config)
        try text(.config, "children.json", childrenConfig)
        for name in listBoards(repository) {
            let bytes = try Syscalls.readFile("\(repository)/boards/\(name)")
            try seed(.board, name, bytes)
            try seed(.json, "board-" + name, bytes)
        }
        var resume = ResumeState()
        resume.volumeID = "uuid-1234"
        resume.relativePath = "Artist/Album/01 Song.flac"
        resume.positionFrames = 441_000
        resume.sampleRate = 44_100
        resume.playing = true
        resume.shuffle = "tracks"
        resume.sleepRemainingSeconds = 600
        try text(.resume, "resume.json", resume.json().serialized(pretty: true))
        try text(.bookmarks, "bookmarks.json", bookmarksFile)
        try text(.cards, "cards.json", cardsFile)
        try seed(.json, "cards.json", Array(cardsFile.utf8))
        // Card readers: a chip that answers its version and then a 4-byte card, and a USB swipe.
        try seed(.cardReader, "rc522", [0x00] + rc522Replies)
        try seed(.cardReader, "usb-swipe", [0x01] + usbSwipe)
        for (i, script) in eventScripts.enumerated() { try text(.eventScript, "events-\(i).jsonl", script) }
        // The speech helper's stream: a greeting, a short prompt, a failure; texts as names are.
        try seed(.speechWire, "hello-speech-failure", speechStream)
        for (i, name) in spokenNames.enumerated() { try text(.speechText, "name-\(i)", name) }
        // Playlists.
        for (i, list) in playlists.enumerated() { try text(.playlist, "list-\(i).m3u8", list) }
        // Images.
        try seed(.image, "sample.jpg", SyntheticLibrary.sampleJPEG)
        try seed(.image, "solid.png", SyntheticLibrary.solidPNG(width: 8, height: 8, red: 200, green: 10, blue: 30))
        // Music files: FLAC with tags and a picture, and the other formats re-encoded from it.
        let work = "\(directory)/.work"
        try Syscalls.mkdirs(work)
        defer { _ = Syscalls.runAndWait("/bin/rm", arguments: ["-rf", work]) }
        let tags: [(name: String, value: String)] = [
            ("TITLE", "Seed"), ("ARTIST", "Fuzz"), ("ALBUM", "Corpus"), ("GENRE", "Audiobook"), ("TRACKNUMBER", "1/9"),
            ("DATE", "2026"),
        ]
        let picture = EmbeddedPicture(bytes: SyntheticLibrary.sampleJPEG, mimeType: "image/jpeg")
        let flac = work + "/seed.flac"
        try SyntheticLibrary.writeFLAC(path: flac, tags: tags, picture: picture, seconds: 0.2, compressionLevel: 0)
        try seed(.flac, "tagged.flac", try Syscalls.readFile(flac))
        let suffixes = ["mp3", "m4a", "ogg", "opus", "wav", "aiff", "mp2", "m4b"]
        for format in MusicFileEncoder.formats where MusicFileEncoder.canMake(format) {
            let source = work + "/\(format).flac"
            try SyntheticLibrary.writeFLAC(path: source, tags: tags, seconds: 0.2, compressionLevel: 0)
            let out = work + "/seed.\(format)"
            guard
                MusicFileEncoder.convert(
                    source, to: out, format: format, tags: tags, cover: (SyntheticLibrary.sampleJPEG, "jpg"))
            else { continue }
            let index = UInt8(suffixes.firstIndex(of: format)!)
            try seed(.tags, "seed-\(format)", [index] + (try Syscalls.readFile(out, limit: 1 << 22)))
        }
        try seed(.tags, "seed-wav", [4] + wav)
        // PCM headers: WAV, RF64 with its ds64 sizes, AIFF.
        try seed(.pcmHeader, "wav", [0] + wav)
        try seed(.pcmHeader, "rf64", [0] + rf64)
        if MusicFileEncoder.canMake("aiff"), let aiff = try? Syscalls.readFile(work + "/seed.aiff", limit: 1 << 22) {
            try seed(.pcmHeader, "aiff", [1] + aiff)
        }
        // Scan trees: a folder with a FLAC, a cover, a playlist, a link and a FIFO.
        let flacBytes = try Syscalls.readFile(flac)
        let tree: [(kind: UInt8, name: String, content: [UInt8])] = [
            (0, "Artist/Album/01 Song.flac", flacBytes), (0, "Artist/Album/cover.jpg", SyntheticLibrary.sampleJPEG),
            (0, "list.m3u8", Array("Artist/Album/01 Song.flac\nmissing.flac\n".utf8)),
            (2, "link", Array("Artist".utf8)),
            (3, "pipe.mp3", []), (0, "empty.mp3", []), (1, "Empty Folder", []),
        ]
        try seed(.scan, "tree", scanTree(tree))
        // A hostile stick: exhibit.json a FIFO, kiosk-staff a socket, folder.jpg a link out, a
        // folder behind a link, the export's name a link out, a good playlist.
        let hostile: [(kind: UInt8, name: String, content: [UInt8])] = [
            (3, "exhibit.json", []), (4, "kiosk-staff", []), (5, "folder.jpg", []),
            (1, "Album", []), (2, "Linked", Array("Album".utf8)), (0, "Album/list.m3u", Array("a.flac\n".utf8)),
            (0, "Linked/x.m3u", Array("b.flac\n".utf8)), (5, "kiosk-play-counts.csv", []),
            (2, "zero.jpg", Array("/dev/zero".utf8)),
        ]
        try seed(.stickFiles, "hostile", scanTree(hostile))
        // The phone page: what a paired phone's page sends, and what an attacker tries.
        for (i, request) in webRequests.enumerated() { try text(.web, "request-\(i)", request) }
        // ID3 (ID3Fuzz's layout): a plain v2.3 title; v2.4 compressed frames, one of them a small
        // bomb (24 bytes × (255 × 16 + 1), past the 64 KiB budget); a v2.3 tag unsynchronised whole; a v2.4 frame compressed,
        // unsynchronised and with a false data length.
        try seed(.id3, "v23-title", [0, 0, 0, 5, 0, 0] + Array("Song".utf8))
        try seed(
            .id3, "v24-compressed",
            [1, 0, 1, 6, 0, 3] + Array("Title".utf8) + [1, 1, 24, 255] + [UInt8](repeating: 0, count: 24))
        try seed(.id3, "v23-unsynchronised", [2, 4, 0, 8, 0, 0, 0xFF, 0xE0, 0xFF, 0x00, 0xFF, 0xFF, 0xD8, 0xFF])
        try seed(.id3, "v24-compressed-unsynchronised", [1, 1, 0x23, 6, 2, 3, 0xFF, 0xFB, 0xFF, 0x00, 0xFF])
        // Inputs: a press, a long press, a chord, an encoder turn.
        try seed(.inputs, "press", [0, 1, 10, 0, 0, 20])
        try seed(.inputs, "long-press", [0, 1, 10, 0, 0, 148])  // 148 = 0x80 | 20: the 50× scale
        try seed(.inputs, "chord", [0, 1, 5, 1, 1, 5, 0, 0, 158, 1, 0, 1])
        try seed(.inputs, "encoder", [3, 1, 2, 4, 1, 2, 3, 0, 2, 4, 0, 2, 3, 1, 2, 4, 1, 2])
        return counts
    }

    private static func listBoards(_ repository: String) -> [String] {
        FuzzCorpus.files(at: repository + "/boards").compactMap { path in
            path.hasSuffix(".json") ? String(path.split(separator: "/").last!) : nil
        }
    }

    static let mpdSessions = [
        "status\ncurrentsong\nstats\n",
        "add FUZZ\nplay\nnext\nprevious\nseekcur +1\npause 1\nstop\n",
        "command_list_ok_begin\nsetvol 30\nrandom 1\nrepeat 1\nsingle oneshot\nconsume 1\ncommand_list_end\n",
        "find \"(artist == 'Artist')\"\nsearch any one\nlist album group artist\nlsinfo FUZZ\nlistallinfo\n",
        "playlistinfo\nplchanges 0\nplaylistid 1\nmove 0 1\ndelete 0:1\nclear\n",
        "albumart \"FUZZ/Artist/Album/01 One.flac\" 0\nreadpicture \"FUZZ/Artist/Album/01 One.flac\" 0\n",
        "password secret\ntagtypes clear\ntagtypes enable Artist Title\ncommands\nnotcommands\noutputs\n",
        "idle player mixer\nnoidle\nping\n",
    ]

    /// Sessions that reach the `mpd-totals` budgets: adds, saves and stickers past them, and what
    /// frees them again.
    static let mpdTotalsSessions = [
        String(repeating: "add FUZZ\n", count: 12) + "status\n",
        "add FUZZ\nsave a\nsave b\nplaylistadd c FUZZ\nsearchaddpl d any one\nlistplaylists\nrm a\nclear\n",
        (0..<20).map {
            "sticker set song \"FUZZ/Artist/Album/01 One.flac\" k\($0) \(String(repeating: "v", count: 200))\n"
        }
        .joined() + "sticker delete song \"FUZZ/Artist/Album/01 One.flac\"\n",
        "findadd \"(artist == 'Artist')\"\nsearchadd any o\nload list\naddid \"FUZZ/Artist/Album/02 Two.flac\"\nlsinfo\n",
    ]

    static let childrenConfig = """
        {"volumeMin": 15, "volumeMax": 60, "volumeAtBoot": 35, "resumeAtBoot": false,
         "idlePowerOffMinutes": 20, "sleepMinutes": [10, 20, 30, 45], "shuffle": "albums",
         "audiobookGenres": ["Audiobook", "Hörbuch"], "bookmarks": "all",
         "inputs": {"keymap": {"A": {"press": "sleep"}}}, "mpd": {"socket": "default"}}
        """

    static let cardsFile = """
        {"format": "kiosk-player-cards", "version": 1, "cards": {
          "04A2B3C4": {"volumeID": "1234-ABCD", "volumeLabel": "KIDS", "category": "album",
                       "key": "artist\\u001Falbum", "name": "Album"},
          "05": {"volumeID": "1234-ABCD", "category": "playlist", "key": "p", "mode": "random-track",
                 "played": ["A/01.flac", "A/02.flac"]},
          "0004561234": {"action": "sleep-30"}, "77": {"action": "volume-limit-40"}}}
        """

    /// MISO bytes of an initialize (reset done, version 0x92, TxControl) and the start of a read.
    static let rc522Replies: [UInt8] = [0, 0, 0, 0x00, 0, 0x92] + [UInt8](repeating: 0, count: 20) + [0, 0x30]

    /// (code, value, 10 ms steps) of "0042" and Enter.
    static let usbSwipe: [UInt8] = [
        11, 1, 1, 11, 0, 1, 11, 1, 1, 11, 0, 1, 5, 1, 1, 5, 0, 1, 3, 1, 1, 3, 0, 1, 28, 1, 1,
    ]

    static let bookmarksFile = """
        {"format": "kiosk-player-bookmarks", "version": 1, "bookmarks": [
          {"volumeID": "uuid-1234", "category": "album", "key": "Corpus\\u001fFuzz",
           "relativePath": "Fuzz/Corpus/01 Seed.flac", "positionFrames": 88200, "sampleRate": 44100,
           "finished": false}]}
        """

    static let eventScripts = [
        "{\"t\": 0, \"line\": \"play\", \"value\": 1}\n{\"t\": 80.5, \"line\": \"play\", \"value\": 0}\n",
        "# a turn\n{\"t\": 0, \"line\": \"knob.a\", \"value\": 1}\n{\"t\": 2, \"line\": \"knob.b\", \"value\": 1}\n",
        "{\"t\": 10, \"key\": \"next\"}\n{\"t\": 300, \"evdev\": \"KEY_PLAYPAUSE\", \"value\": 1}\n",
    ]

    static let playlists = [
        "#EXTM3U\n#PLAYLIST:Road Trip\n#EXTINF:123,Artist - One\nArtist/Album/01 One.flac\n../x.flac\n",
        "C:\\Music\\Artist\\Song.mp3\r\n/abs/path.flac\r\nhttp://radio.example/stream\r\n",
        "\u{FEFF}Ärtist/Älbum/01 Söng.flac\n",
    ]

    /// A 44-byte WAV header and four frames.
    static let wav: [UInt8] = {
        var bytes = Array("RIFF".utf8) + le32(36 + 16) + Array("WAVEfmt ".utf8) + le32(16)
        bytes += [1, 0, 2, 0] + le32(44_100) + le32(44_100 * 4) + [4, 0, 16, 0]
        bytes += Array("data".utf8) + le32(16) + [UInt8](repeating: 0x11, count: 16)
        return bytes
    }()

    /// An RF64 header (ds64 with its 64-bit sizes, fmt, data sized 0xFFFFFFFF) and four frames.
    static let rf64: [UInt8] = {
        // Appended piece by piece: one long `+` chain is too much for Swift 6.0's type checker.
        var ds64: [UInt8] = []
        for word: UInt32 in [36 + 28 + 24 + 16, 0, 16, 0, 4, 0, 0] { ds64 += le32(word) }
        var bytes: [UInt8] = Array("RF64".utf8)
        bytes += le32(0xFFFF_FFFF)
        bytes += Array("WAVEds64".utf8)
        bytes += le32(UInt32(ds64.count))
        bytes += ds64
        bytes += Array("fmt ".utf8)
        bytes += le32(16)
        bytes += [1, 0, 2, 0]
        bytes += le32(44_100)
        bytes += le32(44_100 * 4)
        bytes += [4, 0, 16, 0]
        bytes += Array("data".utf8)
        bytes += le32(0xFFFF_FFFF)
        bytes += [UInt8](repeating: 0x22, count: 16)
        return bytes
    }()

    /// A `scan` (or `stick-files`) input: entries (kind, name, content) in the target's encoding.
    static func scanTree(_ entries: [(kind: UInt8, name: String, content: [UInt8])]) -> [UInt8] {
        var bytes: [UInt8] = []
        for entry in entries {
            let name = Array(entry.name.utf8.prefix(255))
            bytes += [entry.kind, UInt8(name.count)] + name
            if entry.kind == 0 || entry.kind == 2 {
                let content = entry.content.prefix(65_535)
                bytes += [UInt8(content.count & 0xFF), UInt8(content.count >> 8)] + content
            }
        }
        return bytes
    }

    private static func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }

    /// What a helper sends: its greeting at 22 050 Hz, 3 samples, and a refusal.
    static var speechStream: [UInt8] {
        [0, 0x22, 0x56, 0, 0] + [0, 0, 3, 0, 0, 0, 1, 0, 0xff, 0xff, 0, 0x80]
            + [1, 9, 0, 0, 0] + Array("no voice!".utf8)
    }

    /// Names as folders and cards carry them, some of the shapes that abort libespeak-ng 1.51.
    static let spokenNames = [
        "The Gruffalo", "Insert a USB stick with music", "New card. Hold Select to link it to Room on the Broom",
        "http://a.a.a.a.a.a", "x@a.a.a.a", "Wow!!! 100 % …", "日本のうた",
    ]
}
