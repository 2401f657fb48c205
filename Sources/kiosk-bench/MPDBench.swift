// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskAudio
import KioskCommandLine
import KioskConfig
import KioskCore
import KioskLibrary
import KioskMPD
import KioskSystem

extension BenchCommand {
    /// `bench mpd`: the MPD server on a synthetic library (generated once under /var/tmp): the
    /// round trip of common commands from a client on the Unix socket (each one is also the time
    /// the loop was busy with it), the bytes and time of a full `listallinfo`, the memory of 8
    /// connected clients, and the CPU used while they wait in `idle`.
    static func mpd(_ parsed: ParsedArguments) throws -> Int32 {
        let name = "bench mpd"
        let trackCount = parsed.int("--tracks") ?? 10_000
        var layout = SyntheticLibrary.Layout()
        layout.albums = max(1, trackCount / layout.tracksPerAlbum)
        layout.compressionLevel = 0
        let library = parsed.value("--library") ?? "/var/tmp/kiosk-player-bench-mpd-\(layout.trackCount)"
        let marker = library + "/.kiosk-synthetic-library"
        let description = "v1 \(layout)"
        if (try? Syscalls.readFile(marker, limit: 4096)).map({ String(decoding: $0, as: UTF8.self) }) != description {
            guard !Syscalls.exists(library) || Syscalls.exists(marker) else {
                throw ToolError("\(library) exists and is not a generated library; remove it or pass --library")
            }
            removeTree(library)
            printLine("\(name): generating \(layout.trackCount) tracks in \(library) (once)…")
            try SyntheticLibrary.generate(at: library, layout: layout)
            try SyntheticLibrary.writeFile(path: marker, bytes: Array(description.utf8))
        }

        var template = Array("/tmp/kiosk-bench-mpd-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw Errno.current.with("mkdtemp") }
        let state = String(cString: made)
        defer { removeTree(state) }
        let served = try BenchServedPlayer(state: state, music: library)
        let rssBefore = Syscalls.residentBytes()
        try served.startServer()
        defer { served.stop() }
        let loop = served.loop
        let server = served.server!
        let lib = served.library

        let volume = library.split(separator: "/").last.map(String.init) ?? ""
        let commands: [(String, Int)] = [
            ("ping", 2000), ("status", 2000), ("currentsong", 1000), ("lsinfo", 200),
            ("lsinfo \"\(volume)/Artist 001\"", 200), ("find artist \"Artist 001\"", 20),
            ("search any \"title 0001\"", 20), ("search \"(album contains '0042')\"", 20), ("list album", 20),
            ("list album group albumartist", 10), ("add \"\(volume)/Artist 001\"", 1), ("playlistinfo", 50),
            ("listallinfo", 2),
        ]
        struct Figures: Sendable {
            var lines: [String] = []
            var clientsRSS = 0
        }
        let result = Locked<Figures?>(nil)
        let handle = loop.handle
        let path = served.socketPath
        let clientThread = try KioskThread(name: "bench-mpd-client") {
            var figures = Figures()
            defer {
                result.withLock { $0 = figures }
                handle.wake()
            }
            guard let client = BenchMPDClient(path: path) else { return }
            for (command, repeats) in commands {
                var bytes = 0
                let start = Syscalls.monotonicNanoseconds()
                for _ in 0..<repeats { bytes = client.command(command) }
                let each = (Syscalls.monotonicNanoseconds() - start) / UInt64(repeats)
                figures.lines.append("\(command): \(formatMilliseconds(each)) per command, \(bytes) bytes")
            }
        }
        _ = try loop.run(until: { result.withLock { $0 != nil } }, timeoutNanoseconds: 600_000_000_000)
        clientThread.join()
        let figures = result.withLock { $0 } ?? Figures()

        // Eight clients waiting in idle: memory and CPU.
        var idlers: [Int32] = []
        for _ in 0..<8 {
            let fd = try Syscalls.connectUnix(path: path)
            try Syscalls.writeAll(fd, Array("idle\n".utf8))
            idlers.append(fd)
        }
        _ = try loop.run(until: { server.idleClientCount == 8 }, timeoutNanoseconds: 10_000_000_000)
        let cpuBefore = Syscalls.processCPUNanoseconds()
        try loop.run(forNanoseconds: 3_000_000_000)
        let idleCPU = Syscalls.processCPUNanoseconds() - cpuBefore
        let rssClients = Syscalls.residentBytes()
        for fd in idlers { Syscalls.closeIgnoringErrors(fd) }

        printLine("\(name): \(lib.catalog.trackCount) tracks in \(library)")
        for line in figures.lines { printLine("\(name): \(line)") }
        printLine(
            "\(name): RSS \(rssBefore >> 10) kB before the server, \(rssClients >> 10) kB with 8 clients in idle (after the commands above); peak output held for one client \(server.statistics.peakOutputBytes) bytes"
        )
        printLine("\(name): CPU with 8 clients in idle for 3 s: \(formatMilliseconds(idleCPU))")
        return 0
    }
}
