// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import KioskSystem
import KioskTestSupport

/// One server's side of the differential run: its connection, and what normalising its answers
/// remembers (song ids and playlist versions by first appearance in the scene, ids `addid`
/// answered, marked versions). Thread: the client thread of the run.
final class DifferentialPeer {
    let name: String
    let socket: String
    let client: TestClient
    private var idLabels: [String: Int] = [:]
    private var versionLabels: [String: Int] = [:]
    private(set) var added: [String] = []
    private var marks: [String: String] = [:]
    let mpc: String?

    init(name: String, socket: String, mpc: String?) throws {
        self.name = name
        self.socket = socket
        self.mpc = mpc
        client = try TestClient(unix: socket)
    }

    /// The keys whose values are times, sizes of the audio stream or the server's own counters.
    static let timeKeys: Set<String> = [
        "Time", "duration", "elapsed", "time", "Last-Modified", "uptime", "playtime", "db_playtime", "db_update",
        "Format", "updating_db",
    ]
    static let idKeys: Set<String> = ["Id", "songid", "nextsongid"]

    /// Sends `text` (one command or a command list, lines separated by "\n") and reads the answer:
    /// lines up to OK or ACK, binary chunks summarised.
    func exchange(_ text: String) throws -> [String] {
        try client.send(text + "\n")
        var lines: [String] = []
        while true {
            let line = try client.readLine()
            if line.hasPrefix("binary: "), let size = Int(line.dropFirst(8)) {
                let bytes = try client.readBytes(size + 1)
                let sum = bytes.dropLast().reduce(UInt32(0)) { ($0 &* 31) &+ UInt32($1) }
                lines.append(line)
                lines.append("<\(size) bytes, hash \(sum)>")
                continue
            }
            lines.append(line)
            if line == "OK" || line.hasPrefix("ACK ") { return lines }
        }
    }

    /// `exchange`, its answer normalised (and `addid`'s ids remembered).
    func normalisedExchange(_ text: String) throws -> [String] {
        let raw = try exchange(text)
        if text.hasPrefix("addid ") { added += raw.compactMap { $0.hasPrefix("Id: ") ? String($0.dropFirst(4)) : nil } }
        return DifferentialPeer.sortingTags(raw.filter { !DifferentialPeer.isStreamLine($0) }.map(normalise))
    }

    /// `audio` and `bitrate` in status come once the decoder has started, a moment after `play`
    /// (on mpd too): left out, so the answer does not depend on when it was asked.
    static func isStreamLine(_ line: String) -> Bool {
        line.hasPrefix("audio: ") || line.hasPrefix("bitrate: ")
    }

    /// Gives labels to the queue's ids not seen yet, in queue order: called after every exchange,
    /// so an id's label says when its entry came into the queue, whatever answers showed it first.
    func registerQueueIDs() throws {
        for line in try exchange("playlistid") where line.hasPrefix("Id: ") { _ = normalise(line) }
    }

    /// MPD's tag names (0.23), whose lines it prints in the order the file holds them.
    static let tagNames: Set<String> = [
        "Artist", "ArtistSort", "Album", "AlbumSort", "AlbumArtist", "AlbumArtistSort", "Title", "Track", "Name",
        "Genre", "Date", "OriginalDate", "Composer", "Performer", "Conductor", "Work", "Ensemble", "Movement",
        "MovementNumber", "Location", "Grouping", "Comment", "Disc", "Label", "MUSICBRAINZ_ARTISTID",
        "MUSICBRAINZ_ALBUMID", "MUSICBRAINZ_ALBUMARTISTID", "MUSICBRAINZ_TRACKID", "MUSICBRAINZ_RELEASETRACKID",
        "MUSICBRAINZ_WORKID",
    ]

    /// Each run of tag lines sorted by tag name (stable, so several values of one tag keep their
    /// order): MPD prints a song's tags in the file's order, which says nothing about the server.
    static func sortingTags(_ lines: [String]) -> [String] {
        var result: [String] = []
        var run: [(key: String, line: String)] = []
        func flush() {
            result += run.enumerated().sorted { ($0.element.key, $0.offset) < ($1.element.key, $1.offset) }.map {
                $0.element.line
            }
            run = []
        }
        for line in lines {
            if let colon = line.firstIndex(of: ":"), tagNames.contains(String(line[..<colon])) {
                run.append((String(line[..<colon]), line))
            } else {
                flush()
                result.append(line)
            }
        }
        flush()
        return result
    }

    func normalise(_ line: String) -> String {
        guard let colon = line.firstIndex(of: ":"), line.index(after: colon) < line.endIndex,
            line[line.index(after: colon)] == " "
        else { return line }
        let key = String(line[..<colon])
        let value = String(line[line.index(colon, offsetBy: 2)...])
        if DifferentialPeer.timeKeys.contains(key) { return key + ": <\(key == "updating_db" ? "job" : "t")>" }
        if DifferentialPeer.idKeys.contains(key) { return key + ": id" + label(value, in: &idLabels) }
        if key == "playlist", Int(value) != nil { return key + ": v" + label(value, in: &versionLabels) }
        return line
    }

    private func label(_ value: String, in labels: inout [String: Int]) -> String {
        if let known = labels[value] { return "\(known)" }
        labels[value] = labels.count
        return "\(labels.count - 1)"
    }

    /// The raw value of `key` in the answer to `command` (sent out of the script: not compared).
    func value(_ key: String, of command: String) throws -> String? {
        let answer = try exchange(command)
        _ = answer.map(normalise)  // ids and versions seen here count as seen
        return answer.first { $0.hasPrefix(key + ": ") }.map { String($0.dropFirst(key.count + 2)) }
    }

    /// Replaces the script's placeholders with this server's values: `{id@N}` (the id at queue
    /// position N), `{songid}` (the current song's), `{added}`/`{added-K}` (the last ids `addid`
    /// answered), `{version}` and `{mark:NAME}` (playlist versions). Unknown values become 999999.
    func resolve(_ line: String) throws -> String {
        var result = ""
        var rest = Substring(line)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            result += rest[..<open]
            let token = String(rest[rest.index(after: open)..<close])
            let value: String?
            if token.hasPrefix("id@") {
                value = try self.value("Id", of: "playlistinfo \(token.dropFirst(3))")
            } else if token == "songid" {
                value = try self.value("songid", of: "status")
            } else if token.hasPrefix("added") {
                let back = Int(token.dropFirst(6)) ?? 0
                value = added.count > back ? added[added.count - 1 - back] : nil
            } else if token == "version" {
                value = try self.value("playlist", of: "status")
            } else if token.hasPrefix("mark:") {
                value = marks[String(token.dropFirst(5))]
            } else {
                value = nil
            }
            result += value ?? "999999"
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }

    func mark(_ name: String) throws {
        marks[name] = try value("playlist", of: "status")
    }

    func resetForScene() throws {
        for command in [
            "stop", "clear", "random 0", "repeat 0", "single 0", "consume 0", "setvol 50", "tagtypes all",
            "crossfade 0", "binarylimit 8192",
        ] {
            _ = try exchange(command)
        }
        added = []
        // Labels start again in each scene, so a difference in one scene's ids does not shift the next's.
        idLabels = [:]
        versionLabels = [:]
    }

    /// Runs mpc with `arguments` on this server; its output, errors and exit status, normalised.
    func runMPC(_ arguments: [String]) -> [String] {
        guard let mpc else { return ["mpc is not installed"] }
        let result = run(mpc, ["-h", socket] + arguments, timeoutSeconds: 20)
        var lines = result.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        lines += result.errors.split(separator: "\n").map { "stderr: " + $0 }
        lines.append("exit: \(result.status)")
        return lines.map(DifferentialPeer.normaliseMPC)
    }

    /// mpc's status line (`[playing] #2/9   0:01/0:40 (2%)`), stats and version lose their times.
    static func normaliseMPC(_ line: String) -> String {
        for key in ["Uptime:", "Play Time:", "DB Updated:", "DB Play Time:", "mpd version:"]
        where line.hasPrefix(key) {
            return key + " <t>"
        }
        guard line.hasPrefix("[") else { return line }
        return line.split(separator: " ").map { word -> String in
            let isTime = word.contains(":") && word.allSatisfy { $0.isNumber || $0 == ":" || $0 == "/" }
            let isPercent = word.hasPrefix("(") && word.hasSuffix("%)")
            return isTime ? "<t>" : isPercent ? "(<p>)" : String(word)
        }.joined(separator: " ")
    }
}

/// Splits an mpc line of the script into arguments: words, or "double-quoted phrases".
func splitArguments(_ text: String) -> [String] {
    var arguments: [String] = []
    var current = ""
    var quoted = false
    var inWord = false
    for character in text {
        if character == "\"" {
            quoted.toggle()
            inWord = true
        } else if character == " " && !quoted {
            if inWord { arguments.append(current) }
            current = ""
            inWord = false
        } else {
            current.append(character)
            inWord = true
        }
    }
    if inWord { arguments.append(current) }
    return arguments
}
