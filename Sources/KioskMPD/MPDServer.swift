// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskCore
import KioskLibrary
import KioskSystem

/// A server of the MPD protocol on the player's event loop, so that MPD clients (mpc, phone and
/// desktop apps) control the same `Player` the buttons do.
///
/// Listens on a Unix socket and/or TCP; no threads of its own (except a short-lived one that reads
/// cover art). Sockets are non-blocking; each connection has a bounded input line, output that is
/// produced only as fast as the client reads it, a command-list limit and an idle timeout; each
/// client gets a bounded share of each turn of the loop; at most `maxClients` connections are kept,
/// a newcomer taking the place of the longest inactive one (never of a real `idle` client) or being
/// closed at once. A slow, silent or malicious client can therefore neither stall the loop, nor
/// make memory grow without bound, nor keep the others out.
///
/// Changes reach `idle` clients through the player's `.remote` changes (heard from `start()`),
/// whatever caused them: a button, another client, the engine or the library. Thread: loop thread only.
public final class MPDServer {
    /// Counters for logs and tests.
    public struct Statistics: Sendable, Equatable {
        public var accepted = 0
        /// Connections closed at once because `maxClients` were connected.
        public var refused = 0
        public var closedLineTooLong = 0
        public var closedMalformed = 0
        public var closedTimeout = 0
        public var closedListTooLong = 0
        /// Clients closed to make room for a new one, and for leaving too much output unread.
        public var evicted = 0
        public var closedOutputFull = 0
        /// Commands ended with an ACK because one piece of their answer passed `maxOutputBytes`.
        public var refusedLongAnswers = 0
        /// Most steps one client took in one turn of the loop (bounded by `maxStepsPerTurn`).
        public var mostStepsInOneTurn = 0
        /// Turns put off to the next window because the clients' backlog had used its share.
        public var deferredTurns = 0
        public var commands = 0
        /// Most bytes waiting for one client, and most received bytes held for one client.
        public var peakOutputBytes = 0
        public var peakInputBytes = 0
    }

    public let settings: MPDSettings
    let loop: EventLoop
    let player: Player
    let library: Library?
    public private(set) var statistics = Statistics()

    private var listeners: [Listener] = []

    /// A listening socket and its source; the socket closes with it.
    private final class Listener {
        let socket: FileDescriptor
        let source: SourceID
        let name: String
        init(socket: consuming FileDescriptor, source: SourceID, name: String) {
            self.socket = socket
            self.source = source
            self.name = name
        }
    }
    private var connections: [Int: MPDConnection] = [:]
    private var nextNumber = 1
    private var sweepTimer: TimerID?
    private var readBuffer = [UInt8](repeating: 0, count: 16 << 10)
    private var lastRefusalLog: UInt64 = 0
    private var started = false
    /// The id of the listener this server added to the player while started.
    private var listening: Int?
    let startedAtNs = Syscalls.monotonicNanoseconds()
    /// The TCP port actually bound (useful with port 0 in tests).
    public private(set) var tcpPort: UInt16?

    var state: MPDStateTracker
    /// The time the clients' backlog may take (see `MPDBacklogShare`).
    private var backlogShare: MPDBacklogShare
    var databaseView: MPDDatabase?
    private var summaryOfCatalog: MPDCatalogSummary?
    let artwork: MPDArtworkLoader
    /// The clients' saved playlists and stickers, in the state directory; nil without one.
    lazy var storedPlaylists: MPDStoredPlaylists? = settings.stateDirectory.map {
        MPDStoredPlaylists(
            directory: $0 + "/mpd-playlists", maxPlaylists: settings.maxStoredPlaylists,
            maxLength: settings.maxStoredPlaylistLength, maxTotalBytes: settings.maxStoredPlaylistBytes,
            maxFileBytes: settings.maxStoredPlaylistFileBytes)
    }
    lazy var stickers: MPDStickers? = settings.stateDirectory.map {
        MPDStickers(
            path: $0 + "/mpd-stickers.sqlite", maxStickers: settings.maxStickers,
            maxValueBytes: settings.maxStickerBytes, maxTotalBytes: settings.maxStickerTotalBytes)
    }

    public init(loop: EventLoop, player: Player, library: Library?, settings: MPDSettings) {
        self.loop = loop
        self.player = player
        self.library = library
        self.settings = settings
        state = MPDStateTracker()
        backlogShare = MPDBacklogShare(
            windowNanoseconds: UInt64(settings.backlogWindowMilliseconds) * 1_000_000,
            shareNanoseconds: UInt64(settings.backlogMillisecondsPerWindow) * 1_000_000)
        artwork = MPDArtworkLoader(
            loop: loop, maxBytes: settings.maxPictureBytes, cacheBytes: settings.pictureCacheBytes)
    }

    /// Refuses an add of `count` songs that would make the queue longer than `maxQueueLength`.
    /// Nothing is added then (MPD adds a directory song by song up to the limit; a client cannot
    /// tell which songs made it, so here the add is whole or not at all).
    func checkQueueRoom(for count: Int) throws(MPDError) {
        let limit = settings.maxQueueLength
        guard count <= limit - min(limit, player.queue.count) else {
            throw MPDError(.playlistMax, "Playlist is too large (at most \(limit) songs)")
        }
    }

    /// Number of open client connections.
    public var connectionCount: Int { connections.count }

    /// Number of clients waiting in `idle`.
    public var idleClientCount: Int { connections.values.filter { $0.idleSubscriptions != nil }.count }

    /// Opens the listeners and starts following the player. Throws when no listener could be
    /// opened (one of two failing is logged).
    public func start() throws(Errno) {
        loop.assertInLoop()
        guard !started else { return }
        var failures: [Errno] = []
        if let path = settings.socketPath {
            do throws(Errno) {
                let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")).map { String(path[..<$0]) } ?? ""
                if !slash.isEmpty { try Syscalls.mkdirs(slash) }
                let fd = FileDescriptor(owning: try Syscalls.listenUnix(path: path, backlog: 64, mode: 0o660))
                try addListener(fd, name: path)
            } catch {
                failures.append(error)
            }
        }
        if let host = settings.tcpHost, let port = settings.tcpPort {
            let addresses = host == "*" ? ["0.0.0.0", "::"] : [host]
            for address in addresses {
                do throws(Errno) {
                    let fd = FileDescriptor(owning: try Syscalls.listenTCP(address: address, port: port, backlog: 64))
                    let bound = (try? Syscalls.localPort(fd.rawValue)) ?? port
                    tcpPort = bound
                    try addListener(fd, name: address.contains(":") ? "[\(address)]:\(bound)" : "\(address):\(bound)")
                } catch {
                    failures.append(error)
                    if error.rawValue == EAFNOSUPPORT || error.rawValue == EPERM || error.rawValue == EACCES {
                        Log.error(
                            "mpd: TCP is not allowed here; under systemd, deploy/install.sh adds the drop-in 50-mpd-tcp.conf that allows it when config.json sets mpd.listen"
                        )
                    }
                }
            }
        }
        for failure in failures { Log.error("mpd: \(failure)") }
        guard !listeners.isEmpty else {
            throw failures.first ?? Errno(rawValue: EINVAL, context: "mpd: nothing to listen on")
        }
        started = true
        state.start(status: player.status, scanning: !(library?.isIdle ?? true))
        listening = player.listen(to: .remote) { [weak self] change in
            if case .remote(let aspects) = change { self?.playerChanged(aspects) }
        }
        Log.info(
            "mpd: listening on \(listeners.map(\.name).joined(separator: ", "))\(settings.password == nil ? "" : " (password required)")"
        )
    }

    /// Closes every connection and listener; removes the Unix socket file.
    public func stop() {
        loop.assertInLoop()
        guard started else { return }
        started = false
        if let listening { player.stopListening(listening) }
        listening = nil
        for connection in Array(connections.values) { close(connection, reason: nil) }
        for listener in listeners { loop.removeSource(listener.source) }
        listeners.removeAll()
        if let path = settings.socketPath { try? Syscalls.unlink(path) }
        if let timer = sweepTimer { loop.cancel(timer) }
        sweepTimer = nil
        artwork.stop()
    }

    /// Watches the listening socket `fd` (closed if that fails).
    private func addListener(_ fd: consuming FileDescriptor, name: String) throws(Errno) {
        let raw = fd.rawValue
        let source = try loop.addSource(fd: raw, events: .readable) { [unowned self] _ in self.acceptAll(raw) }
        listeners.append(Listener(socket: fd, source: source, name: name))
    }

    // MARK: - connections

    private func acceptAll(_ listener: Int32) {
        // A bounded number per wake-up, so a flood of connections cannot monopolise the loop.
        for _ in 0..<64 {
            let accepted: Int32?
            do throws(Errno) {
                accepted = try Syscalls.accept(listener)
            } catch {
                // EMFILE and the like: log, and try again on the next wake-up.
                Log.warning("mpd: \(error)")
                return
            }
            guard let raw = accepted else { return }
            let fd = FileDescriptor(owning: raw)
            if connections.count >= settings.maxClients && !evictLongestInactive() {
                statistics.refused += 1
                let now = Syscalls.monotonicNanoseconds()
                if now - lastRefusalLog > 10_000_000_000 {
                    lastRefusalLog = now
                    Log.notice("mpd: \(settings.maxClients) clients connected; refusing more")
                }
                continue
            }
            // The kernel's buffer for a client that does not read is output made for nothing (about
            // 200 KB by default): 32 KB there, and the rest is produced as the client reads.
            try? Syscalls.setSocketBufferSize(raw, send: true, bytes: Int32(settings.socketSendBufferBytes))
            let connection = MPDConnection(
                number: nextNumber, fd: fd, peer: Syscalls.peerName(raw),
                permissions: settings.password == nil ? .all : .anyone)
            nextNumber += 1
            do throws(Errno) {
                connection.source = try loop.addSource(fd: raw, events: .readable) { [unowned self] events in
                    self.ready(connection, events)
                }
            } catch {
                Log.warning("mpd: cannot watch a client: \(error)")
                connection.socket = .invalid
                continue
            }
            connection.watchedEvents = .readable
            connections[connection.number] = connection
            statistics.accepted += 1
            Log.debug("mpd: client \(connection.number) connected from \(connection.peer)")
            connection.write("OK MPD \(mpdProtocolVersion)\n")
            flush(connection)
            updateInterest(connection)
            armSweep()
        }
    }

    private func ready(_ connection: MPDConnection, _ events: IOEvents) {
        guard !connection.closed else { return }
        if events.contains(.readable) {
            receive(connection)
        } else if !events.intersection([.hangup, .error]).isEmpty {
            close(connection, reason: "connection lost")
            return
        }
        guard !connection.closed else { return }
        if events.contains(.writable) { flush(connection) }
        guard !connection.closed else { return }
        process(connection)
    }

    private func receive(_ connection: MPDConnection) {
        let received: Int?
        let result = readBuffer.withUnsafeMutableBytes { buffer in
            Result { () throws(Errno) in try Syscalls.receive(connection.fd, buffer) }
        }
        switch result {
        case .success(let count): received = count
        case .failure(let error):
            close(connection, reason: "\(error)")
            return
        }
        guard let count = received else { return }
        if count == 0 {
            close(connection, reason: "closed by the client")
            return
        }
        connection.input.append(contentsOf: readBuffer[0..<count])
        statistics.peakInputBytes = max(statistics.peakInputBytes, connection.pendingInput)
    }

    /// Runs what the connection has asked for, as far as its output allows: rounds of "run until
    /// the output reaches the high-water mark, then send". A fast reader of a long response gets
    /// a few rounds per wake-up, and the rest on the next turn of the loop, so the other clients
    /// and the buttons are served in between. Each call is one turn, bounded by `maxStepsPerTurn`
    /// and `maxMicrosecondsPerTurn`, so that no client (63 of them sending command lists) can
    /// starve the loop.
    func process(_ connection: MPDConnection) {
        let shareLeft = backlogShare.allows()
        if connection.hasBacklog && !shareLeft {
            // Work left from its earlier turns waits for the next window; output still goes out.
            statistics.deferredTurns += 1
            flush(connection)
            guard !connection.closed else { return }
            scheduleContinuation(connection, afterNanoseconds: backlogShare.nanosecondsToNextWindow())
            updateInterest(connection)
            return
        }
        let startedNs = Syscalls.monotonicNanoseconds()
        // A fresh command runs even when the share is spent, but only the one (its line, its run
        // and its end are three steps).
        var turn = MPDTurn(
            steps: shareLeft ? settings.maxStepsPerTurn : 3, microseconds: settings.maxMicrosecondsPerTurn)
        defer {
            statistics.mostStepsInOneTurn = max(statistics.mostStepsInOneTurn, turn.steps)
            backlogShare.spend(Syscalls.monotonicNanoseconds() - startedNs)
            // Work left, whatever holds it (its turn, its output, a picture).
            connection.hasBacklog =
                !connection.closed
                && (connection.producer != nil || connection.running != nil || connection.hasCompleteLine)
        }
        for _ in 0..<8 {
            runUntilBlocked(connection, &turn)
            guard !connection.closed else { return }
            statistics.peakOutputBytes = max(statistics.peakOutputBytes, connection.pendingOutput)
            if connection.pendingOutput > settings.maxOutputBytes {
                statistics.closedOutputFull += 1
                close(connection, reason: "output buffer is full (\(connection.pendingOutput) bytes unread)")
                return
            }
            flush(connection)
            guard !connection.closed else { return }
            if turn.isSpent || !canContinue(connection) { break }
        }
        connection.compact()
        if canContinue(connection) && connection.pendingOutput == 0 {
            // Nothing to wait for (the socket took everything): go on after the other events.
            scheduleContinuation(connection, afterNanoseconds: 0)
        }
        updateInterest(connection)
    }

    /// Calls `process` again after `delay` (0: after the events already waiting), once.
    private func scheduleContinuation(_ connection: MPDConnection, afterNanoseconds delay: UInt64) {
        guard !connection.continuationScheduled else { return }
        connection.continuationScheduled = true
        loop.schedule(afterNanoseconds: delay) { [weak self, weak connection] in
            guard let self, let connection, !connection.closed else { return }
            connection.continuationScheduled = false
            self.process(connection)
        }
    }

    /// Whether the connection has work that only waits for its turn (not for the client or a picture).
    private func canContinue(_ connection: MPDConnection) -> Bool {
        guard !connection.closed, !connection.closeAfterOutput, !connection.waitingForArtwork,
            connection.idleSubscriptions == nil, connection.pendingOutput < settings.outputHighWater
        else { return false }
        return connection.producer != nil || connection.running != nil || connection.hasCompleteLine
    }

    private func runUntilBlocked(_ connection: MPDConnection, _ turn: inout MPDTurn) {
        while !connection.closed {
            if connection.pendingOutput >= settings.outputHighWater { return }
            guard turn.step() else { return }
            if let producer = connection.producer {
                let step = OutputStep(connection)
                if producer.produce(into: &connection.output) {
                    connection.producer = nil
                    commandFinished(connection)
                }
                refuseIfOversized(connection, step)
                continue
            }
            if connection.waitingForArtwork || connection.closeAfterOutput { return }
            if connection.running != nil {
                let step = OutputStep(connection)
                runNext(connection)
                refuseIfOversized(connection, step)
                continue
            }
            guard let line = connection.nextLine() else {
                if connection.pendingInput > settings.maxLineBytes {
                    statistics.closedLineTooLong += 1
                    close(connection, reason: "line longer than \(settings.maxLineBytes) bytes")
                }
                return
            }
            connection.lastActivityNs = Syscalls.monotonicNanoseconds()
            handleLine(connection, line)
        }
    }

    /// Where the output stood before one step of a command (its line and place in the batch), so
    /// that what the step wrote can be taken back. Thread: a value; made and used on the loop thread.
    private struct OutputStep {
        let outputCount: Int
        let index: Int
        let line: [UInt8]

        init(_ connection: MPDConnection) {
            outputCount = connection.output.count
            let batch = connection.running
            index = batch.map { $0.mode == .single ? 0 : $0.next } ?? 0
            line = batch.map { $0.next < $0.lines.count ? $0.lines[$0.next] : [] } ?? []
        }
    }

    /// A step that left more than `maxOutputBytes` unsent (one piece that large: a step starts
    /// below `outputHighWater`) is taken back and its command ends with an ACK naming the limit;
    /// the client stays connected. Closing it without a word, as MPD does when its output buffer
    /// is full, left a client listing a stick with a 1 MB playlist name nothing to go on (issue 44).
    private func refuseIfOversized(_ connection: MPDConnection, _ step: OutputStep) {
        guard connection.pendingOutput > settings.maxOutputBytes,
            step.outputCount >= connection.outputStart, step.outputCount <= connection.output.count
        else { return }
        let piece = connection.output.count - step.outputCount
        connection.output.removeLast(piece)
        let command = String(decoding: step.line.prefix { $0 != 0x20 && $0 != 0x09 }, as: UTF8.self)
        statistics.refusedLongAnswers += 1
        Log.notice(
            "mpd: client \(connection.number): the answer to \(command) has a piece of \(piece) bytes; refused")
        let error = MPDError(.system, "Answer too long (more than \(settings.maxOutputBytes) bytes at once)")
        connection.write(error.ackLine(index: step.index, command: command))
        connection.producer = nil
        connection.running = nil
    }

    /// The words `handleLine` looks for, made once (not per line).
    private enum Words {
        static let idle = Array("idle".utf8)
        static let noidle = Array("noidle".utf8)
        static let listBegin = Array("command_list_begin".utf8)
        static let listOKBegin = Array("command_list_ok_begin".utf8)
        static let listEnd = Array("command_list_end".utf8)
    }

    /// One line from the client, as MPD's `Client::ProcessLine`.
    private func handleLine(_ connection: MPDConnection, _ line: [UInt8]) {
        guard let first = line.first, first >= UInt8(ascii: "a"), first <= UInt8(ascii: "z") else {
            // Not a command (binary data, an HTTP request…): MPD closes without a word.
            statistics.closedMalformed += 1
            close(connection, reason: "malformed command")
            return
        }
        let isIdle = line.starts(with: Words.idle) && (line.count == 4 || line[4] == 0x20 || line[4] == 0x09)
        let isNoIdle = line == Words.noidle
        if connection.collecting != nil && (isIdle || isNoIdle) {
            statistics.closedMalformed += 1
            close(connection, reason: "idle inside a command list")
            return
        }
        if isNoIdle {
            if connection.idleSubscriptions != nil {
                connection.idleSubscriptions = nil
                connection.write("OK\n")
            }
            return
        }
        if connection.idleSubscriptions != nil {
            statistics.closedMalformed += 1
            close(connection, reason: "a command other than noidle during idle")
            return
        }
        if let collected = connection.collecting?.lines.count {
            if line == Words.listEnd {
                connection.running = connection.collecting
                connection.collecting = nil
                connection.collectingBytes = 0
                return
            }
            // Counted as MPD's CommandListBuilder counts: the line and its terminator.
            connection.collectingBytes += line.count + 1
            guard collected < settings.maxCommandListCommands,
                connection.collectingBytes <= settings.maxCommandListBytes
            else {
                statistics.closedListTooLong += 1
                close(connection, reason: "command list too long")
                return
            }
            // In place: a copy of the list per line made collecting a list quadratic (issue 31).
            connection.collecting?.lines.append(line)
            return
        }
        if line == Words.listBegin {
            connection.collecting = MPDConnection.Batch(mode: .list, lines: [])
        } else if line == Words.listOKBegin {
            connection.collecting = MPDConnection.Batch(mode: .listOK, lines: [])
        } else if isIdle {
            idle(connection, line)
        } else {
            connection.running = MPDConnection.Batch(mode: .single, lines: [line])
        }
    }

    private func runNext(_ connection: MPDConnection) {
        guard let batch = connection.running else { return }
        guard batch.next < batch.lines.count else {
            connection.running = nil
            connection.write("OK\n")
            return
        }
        let index = batch.mode == .single ? 0 : batch.next
        statistics.commands += 1
        switch execute(connection, batch.lines[batch.next]) {
        case .done:
            commandFinished(connection)
        case .stream(let producer):
            connection.producer = producer
        case .wait:
            connection.waitingForArtwork = true
        case .failed(let error, let command):
            connection.write(error.ackLine(index: index, command: command))
            connection.running = nil
        case .failedAndClose(let error, let command):
            connection.write(error.ackLine(index: index, command: command))
            connection.running = nil
            connection.closeAfterOutput = true
        case .close:
            close(connection, reason: nil)
        }
    }

    /// The current command is complete: `list_OK` in that mode, then the next one.
    func commandFinished(_ connection: MPDConnection) {
        guard var batch = connection.running else { return }
        batch.next += 1
        if batch.mode == .listOK { connection.write("list_OK\n") }
        connection.running = batch
    }

    /// The current command failed after it was held up (artwork).
    func commandFailed(_ connection: MPDConnection, _ error: MPDError, command: String) {
        guard let batch = connection.running else { return }
        connection.write(error.ackLine(index: batch.mode == .single ? 0 : batch.next, command: command))
        connection.running = nil
    }

    func flush(_ connection: MPDConnection) {
        while connection.pendingOutput > 0 {
            let sent: Int
            let start = connection.outputStart
            let result = connection.output.withUnsafeBytes { raw in
                Result { () throws(Errno) in
                    try Syscalls.send(connection.fd, UnsafeRawBufferPointer(rebasing: raw[start...]))
                }
            }
            switch result {
            case .success(let count): sent = count
            case .failure(let error):
                close(connection, reason: "\(error)")
                return
            }
            if sent == 0 { break }
            connection.outputStart += sent
            connection.lastActivityNs = Syscalls.monotonicNanoseconds()
        }
        if connection.pendingOutput == 0 {
            // Give back the memory of a large response.
            connection.output.removeAll(keepingCapacity: connection.output.capacity <= 16 << 10)
            connection.outputStart = 0
            if connection.closeAfterOutput {
                close(connection, reason: nil)
                return
            }
        }
    }

    func updateInterest(_ connection: MPDConnection) {
        guard !connection.closed, let source = connection.source else { return }
        var events: IOEvents = []
        let idle = connection.idleSubscriptions != nil
        // Read only when the input can be used: not while a command waits or output piles up (in
        // `idle` too: a client that does not read its output cannot have its input pile up).
        if (idle || (!connection.busy && !connection.closeAfterOutput))
            && connection.pendingOutput < settings.outputHighWater
            && connection.pendingInput <= settings.maxLineBytes
        {
            events.insert(.readable)
        }
        if connection.pendingOutput > 0 { events.insert(.writable) }
        guard events != connection.watchedEvents else { return }
        do throws(Errno) {
            try loop.modifySource(source, events: events)
            connection.watchedEvents = events
        } catch {
            close(connection, reason: "\(error)")
        }
    }

    func close(_ connection: MPDConnection, reason: String?) {
        guard !connection.closed else { return }
        connection.closed = true
        if let source = connection.source { loop.removeSource(source) }
        connection.source = nil
        connection.socket = .invalid
        connections[connection.number] = nil
        connection.producer = nil
        connection.input = []
        connection.output = []
        if let reason { Log.debug("mpd: client \(connection.number) (\(connection.peer)): \(reason)") }
        if connections.isEmpty, let timer = sweepTimer {
            loop.cancel(timer)
            sweepTimer = nil
        }
    }

    // MARK: - timeouts

    private func armSweep() {
        guard sweepTimer == nil else { return }
        let period = max(1, min(5, settings.idleTimeoutSeconds)) * 1000
        sweepTimer = loop.schedule(afterMilliseconds: period, repeatingMilliseconds: period) { [unowned self] in
            self.sweep()
        }
    }

    /// Closes the clients inactive for longer than the timeout (see `MPDSettings.idleTimeoutSeconds`).
    private func sweep() {
        let limit = UInt64(settings.idleTimeoutSeconds) * 1_000_000_000
        for connection in Array(connections.values) {
            if let inactive = inactiveNanoseconds(connection), inactive > limit {
                statistics.closedTimeout += 1
                close(connection, reason: "timed out")
            }
        }
    }

    /// How long `connection` has neither sent a whole line nor taken output; nil for a real `idle`
    /// client and one waiting for a picture, which are never dropped for it.
    private func inactiveNanoseconds(_ connection: MPDConnection) -> UInt64? {
        if connection.isQuietlyIdle || connection.waitingForArtwork { return nil }
        let now = Syscalls.monotonicNanoseconds()
        return now > connection.lastActivityNs ? now - connection.lastActivityNs : 0
    }

    /// Makes room for a new client by closing the one inactive longest, when that one has been
    /// inactive for `evictInactiveAfterMilliseconds`; false when every client is active or idle.
    private func evictLongestInactive() -> Bool {
        let grace = UInt64(settings.evictInactiveAfterMilliseconds) * 1_000_000
        var victim: (connection: MPDConnection, inactive: UInt64)?
        for connection in connections.values {
            guard let inactive = inactiveNanoseconds(connection), inactive >= grace else { continue }
            if victim == nil || inactive > victim!.inactive { victim = (connection, inactive) }
        }
        guard let victim else { return false }
        statistics.evicted += 1
        close(
            victim.connection, reason: "inactive for \(victim.inactive / 1_000_000) ms; its place goes to a new client")
        return true
    }

    // MARK: - idle

    private func idle(_ connection: MPDConnection, _ line: [UInt8]) {
        let arguments: [String]
        do throws(MPDTokenizer.Failure) {
            arguments = try MPDTokenizer.split(line).arguments
        } catch {
            connection.running = MPDConnection.Batch(mode: .single, lines: [line])
            return
        }
        // Permission and counts from the table's row, as for any command.
        if let refusal = MPDCommands.lookup("idle")?.refusal(arguments, granted: connection.permissions) {
            connection.write(refusal.ackLine(index: 0, command: "idle"))
            return
        }
        var subscriptions: MPDIdle = []
        for name in arguments {
            guard let flag = MPDIdle.named(name) else {
                connection.write(
                    MPDError(.argument, "Unrecognized idle event: \(name)").ackLine(index: 0, command: "idle"))
                return
            }
            subscriptions.insert(flag)
        }
        if subscriptions.isEmpty { subscriptions = .all }
        connection.idleSubscriptions = subscriptions
        notifyIfWanted(connection)
    }

    /// Answers a waiting `idle` when something it subscribed to has changed.
    private func notifyIfWanted(_ connection: MPDConnection) {
        guard let subscriptions = connection.idleSubscriptions else { return }
        let changed = connection.pendingIdle.intersection(subscriptions)
        guard !changed.isEmpty else { return }
        connection.pendingIdle = []
        connection.idleSubscriptions = nil
        // Its timeout starts again (as MPD's IdleNotify does): it had no reason to speak.
        connection.lastActivityNs = Syscalls.monotonicNanoseconds()
        for (name, flag) in MPDIdle.names where changed.contains(flag) { connection.write("changed: \(name)\n") }
        connection.write("OK\n")
    }

    /// Records `changes` for every client and wakes those waiting in `idle` for them.
    func broadcast(_ changes: MPDIdle) {
        guard !changes.isEmpty else { return }
        for connection in Array(connections.values) where !connection.closed {
            connection.pendingIdle.formUnion(changes)
            guard connection.idleSubscriptions != nil else { continue }
            notifyIfWanted(connection)
            if connection.idleSubscriptions == nil {
                // Lines that came while it was idle run now.
                if !connection.busy { process(connection) } else { flush(connection) }
                updateInterest(connection)
            }
        }
    }

    /// The player's `.remote` change: tell the clients the subsystems it names.
    private func playerChanged(_ aspects: PlayerAspects) {
        var changes = state.apply(aspects, status: player.status)
        if aspects.contains(.library) { changes.formUnion(state.followLibrary(scanning: !(library?.isIdle ?? true))) }
        if changes.contains(.database) { databaseView = nil }
        broadcast(changes)
    }

    /// After a command changed the player or the library: the change is told now, not at the
    /// next screen refresh.
    func noteChanges() {
        player.publishChanges()
        broadcast(state.followLibrary(scanning: !(library?.isIdle ?? true)))
    }

    // MARK: - the database view

    /// What `stats` says of the catalog (made again after the catalog changes).
    var catalogSummary: MPDCatalogSummary {
        let catalog = player.catalog ?? Catalog.empty
        if let summary = summaryOfCatalog, summary.catalog === catalog { return summary }
        let summary = MPDCatalogSummary(catalog: catalog)
        summaryOfCatalog = summary
        return summary
    }

    /// The catalog as MPD's database (rebuilt after the catalog changes).
    var database: MPDDatabase {
        let catalog = player.catalog ?? Catalog.empty
        if let view = databaseView, view.catalog === catalog { return view }
        let view = MPDDatabase(catalog: catalog)
        databaseView = view
        return view
    }
}
