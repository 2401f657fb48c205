// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskCore
import KioskLibrary
import KioskMPD
import KioskSystem
import KioskTestSupport
import Testing

/// Clients that misbehave: the loop keeps serving the buttons and the other clients, the
/// server's buffers stay within their bounds, and nothing outside the volumes is read.
@Suite(.tags(.integration), .serialized, Emulation.cpuBoundStress) struct MPDAbuseTests {
    @Test func aTenMegabyteLineClosesThatClientOnly() throws {
        let h = try Harness()
        let path = h.socketPath
        let (sent, bystander) = try h.client {
            let bystander = try TestClient(unix: path)
            let abuser = try TestClient(unix: path)
            var line = Array("status ".utf8)
            line += [UInt8](repeating: UInt8(ascii: "a"), count: 10 << 20)
            line.append(0x0A)
            let sent = try sendAll(abuser.fd, line, timeoutMs: 5000)
            return (sent, try bystander.command("ping"))
        }
        #expect(sent < 10 << 20, "the server stopped taking the line")
        #expect(bystander == ["OK"])
        #expect(h.server.statistics.closedLineTooLong == 1)
        // The bystander's close reaches the server on the next turns of the loop.
        _ = try h.loop.run(
            until: { [server = h.server] in server.connectionCount == 0 }, timeoutNanoseconds: 5_000_000_000)
        #expect(h.server.statistics.peakInputBytes <= h.server.settings.maxLineBytes + (16 << 10))
        #expect(h.server.connectionCount == 0)
        print("mpd abuse: a 10 MB line: \(sent) bytes taken, at most \(h.server.statistics.peakInputBytes) held")
        // The button still works.
        h.pressButton(line: 6)
        #expect(h.player.volume == 75)
    }

    @Test func aThousandConnectionsAtOnceAreCappedWhileOthersAndButtonsWork() throws {
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        guard limit.rlim_max >= 1500 else {
            try skipTest("the open-file limit (\(limit.rlim_max)) is too low for 1000 connections")
            return
        }
        if limit.rlim_cur < 1500 {
            limit.rlim_cur = min(limit.rlim_max, 4096)
            setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        }
        let h = try Harness()
        let path = h.socketPath
        var mostConnections = 0
        var pressedDuringFlood = false
        let volumeBefore = h.player.volume
        let watch = h.loop.schedule(afterMilliseconds: 1, repeatingMilliseconds: 1) { [unowned h] in
            mostConnections = max(mostConnections, h.server.connectionCount)
            if !pressedDuringFlood && h.server.statistics.refused > 300 {
                pressedDuringFlood = true
                h.pressButton(line: 6)
            }
        }
        defer { h.loop.cancel(watch) }
        let (during, after) = try h.client {
            let keeper = try TestClient(unix: path)
            var flood: [Int32] = []
            defer { for fd in flood { Syscalls.closeIgnoringErrors(fd) } }
            for _ in 0..<1000 { flood.append(try Syscalls.connectUnix(path: path)) }
            let during = try keeper.command("status")
            for fd in flood { Syscalls.closeIgnoringErrors(fd) }
            flood.removeAll()
            // Once the flood is gone, new clients get in again.
            var after: [String] = []
            for _ in 0..<100 {
                if let c = try? TestClient(unix: path), c.greeting.hasPrefix("OK MPD") {
                    after = try c.command("ping")
                    break
                }
                Syscalls.sleep(nanoseconds: 20_000_000)
            }
            return (during, after)
        }
        #expect(during.last == "OK")
        #expect(after == ["OK"])
        #expect(mostConnections <= h.server.settings.maxClients)
        #expect(h.server.statistics.refused >= 1000 - h.server.settings.maxClients)
        #expect(pressedDuringFlood)
        print("mpd abuse: 1000 connections: at most \(mostConnections) open, \(h.server.statistics.refused) refused")
        #expect(h.player.volume == volumeBefore + 5)
    }

    @Test func aClientThatNeverReadsIsBoundedThenDisconnected() throws {
        let h = try Harness { $0.idleTimeoutSeconds = 1 }
        let path = h.socketPath
        let (queued, bystander, hogFD) = try h.client {
            let bystander = try TestClient(unix: path)
            let hog = try TestClient(unix: path)
            try Syscalls.setSocketBufferSize(hog.fd, send: false, bytes: 4096)
            // Ask for far more than the socket buffers hold (about 2.5 KB per listallinfo), never read.
            let request = Array(String(repeating: "listallinfo\n", count: 5000).utf8)
            let queued = try sendAll(hog.fd, request, timeoutMs: 1000)
            let answer = try bystander.command("ping")
            // The hog stays connected (a copy of its socket outlives this closure).
            return (queued, answer, dup(hog.fd))
        }
        defer { Syscalls.closeIgnoringErrors(hogFD) }
        #expect(bystander == ["OK"])
        #expect(queued > 0)
        // Output waiting for the hog never passed the high-water mark by more than one piece.
        let bound = h.server.settings.outputHighWater + (32 << 10)
        #expect(h.server.statistics.peakOutputBytes <= bound)
        print(
            "mpd abuse: a client that never reads: \(queued) request bytes taken, at most \(h.server.statistics.peakOutputBytes) response bytes held"
        )
        let dropped = try h.loop.run(
            until: { [server = h.server] in server.statistics.closedTimeout >= 1 }, timeoutNanoseconds: 20_000_000_000)
        #expect(dropped)
        h.pressButton(line: 6)
        #expect(h.player.volume == 75)
    }

    @Test func binaryGarbageClosesTheSenderAndFuzzedLinesGetAnswers() throws {
        let h = try Harness()
        let path = h.socketPath
        let (closed, answered, reconnects, last) = try h.client {
            var random = SystemRandomNumberGenerator()
            // Raw bytes (not starting with a command letter): closed without a word, as MPD does.
            let garbage = try TestClient(unix: path)
            garbage.timeoutMs = 3000
            // (The server may close before it has taken everything.)
            let noise = (0..<4000).map { _ in UInt8.random(in: 0...255, using: &random) }
            try sendAll(garbage.fd, [0xFF, 0x00, 0x13] + noise + [0x0A], timeoutMs: 3000)
            let closed = garbage.isClosedByServer()
            // Lines that start like commands but carry random bytes: each gets OK or ACK (or a
            // close for the malformed ones); the server goes on.
            var client = try TestClient(unix: path)
            var answered = 0
            var reconnects = 0
            let words = ["status", "find", "list", "lsinfo", "add", "play", "setvol", "idle", "albumart", "search"]
            for _ in 0..<300 {
                var line = Array(words.randomElement(using: &random)!.utf8)
                for _ in 0..<Int.random(in: 0...40, using: &random) {
                    var byte = UInt8.random(in: 1...255, using: &random)
                    if byte == 0x0A { byte = 0x20 }
                    line.append(byte)
                }
                if line.starts(with: Array("idle".utf8)) { continue }
                do {
                    try client.send(bytes: line + [0x0A])
                    let response = try client.response()
                    if response.last == "OK" || response.last?.hasPrefix("ACK") == true { answered += 1 }
                } catch {
                    client = try TestClient(unix: path)
                    reconnects += 1
                }
            }
            // (The last fuzzed line may have closed its connection: ask on a new one.)
            return (closed, answered, reconnects, try TestClient(unix: path).command("ping"))
        }
        #expect(closed)
        #expect(answered + reconnects >= 250)
        #expect(last == ["OK"])
        #expect(h.server.statistics.closedMalformed >= 1)
    }

    @Test func pathsThatTryToLeaveTheVolumeNameNothing() throws {
        let h = try Harness()
        let secret = "TOPSECRET-\(getpid())"
        try h.directory.write("secret.txt", secret)
        // A link planted in the volume after the scan (a stick's content is fixed; a folder's is not).
        let cover = h.music + "/The Field Recorders/Coastline/cover.jpg"
        try Syscalls.unlink(cover)
        #expect(symlink(h.directory.file("secret.txt"), cover) == 0)
        #expect(symlink(h.directory.file("secret.txt"), h.music + "/Loose/evil.flac") == 0)
        let path = h.socketPath
        let evil = [
            "../secret.txt", "USBSTICK/../secret.txt", "USBSTICK/../../secret.txt", "/etc/passwd",
            "file:///etc/passwd", "USBSTICK/./Loose", "USBSTICK//Loose", "USBSTICK/Loose/..",
            "USBSTICK/Loose/evil.flac",
            "..", "/", "USBSTICK/The Field Recorders/Coastline/../../../secret.txt",
        ]
        let responses = try h.client {
            let c = try TestClient(unix: path)
            var all: [(String, [String])] = []
            for uri in evil {
                for command in ["lsinfo", "add", "listall", "listallinfo"] where uri != "/" {
                    all.append(("\(command) \(uri)", try c.command("\(command) \"\(uri)\"")))
                }
                for command in ["albumart", "readpicture"] {
                    try c.send("\(command) \"\(uri)\" 0\n")
                    all.append(("\(command) \(uri)", try c.response()))
                }
            }
            // The cover that became a link is not served either.
            try c.send("albumart \"USBSTICK/The Field Recorders/Coastline/01 Low Tide.flac\" 0\n")
            all.append(("albumart linked cover", try c.response()))
            return all
        }
        for (what, response) in responses {
            #expect(!response.joined().contains(secret), "\(what)")
            #expect(response.last?.hasPrefix("ACK") == true || response == ["OK"], "\(what): \(response)")
        }
        #expect(responses.last?.1 == ["ACK [50@0] {albumart} No file exists"])
        #expect(h.player.queue.isEmpty)
    }
}
