// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem

/// The idle subsystems, in MPD's order (src/IdleFlags.cxx).
struct MPDIdle: OptionSet, Hashable {
    let rawValue: UInt32

    static let database = MPDIdle(rawValue: 1 << 0)
    static let storedPlaylist = MPDIdle(rawValue: 1 << 1)
    static let playlist = MPDIdle(rawValue: 1 << 2)
    static let player = MPDIdle(rawValue: 1 << 3)
    static let mixer = MPDIdle(rawValue: 1 << 4)
    static let output = MPDIdle(rawValue: 1 << 5)
    static let options = MPDIdle(rawValue: 1 << 6)
    static let sticker = MPDIdle(rawValue: 1 << 7)
    static let update = MPDIdle(rawValue: 1 << 8)
    static let subscription = MPDIdle(rawValue: 1 << 9)
    static let message = MPDIdle(rawValue: 1 << 10)
    static let neighbor = MPDIdle(rawValue: 1 << 11)
    static let mount = MPDIdle(rawValue: 1 << 12)
    static let partition = MPDIdle(rawValue: 1 << 13)
    /// A card shown or its link changed (`MPDPhoneCommands`): only for a client that names it, so
    /// that MPD clients idling on everything never see a subsystem they do not know.
    static let kioskCard = MPDIdle(rawValue: 1 << 14)

    static let names: [(String, MPDIdle)] = [
        ("database", .database), ("stored_playlist", .storedPlaylist), ("playlist", .playlist),
        ("player", .player), ("mixer", .mixer), ("output", .output), ("options", .options),
        ("sticker", .sticker), ("update", .update), ("subscription", .subscription), ("message", .message),
        ("neighbor", .neighbor), ("mount", .mount), ("partition", .partition), ("kioskcard", .kioskCard),
    ]

    static let all = MPDIdle(rawValue: (1 << 14) - 1)

    static func named(_ name: String) -> MPDIdle? {
        names.first { $0.0.lowercased() == name.lowercased() }?.1
    }
}

/// Writes a long response a piece at a time, so that a response of any size needs only a bounded
/// buffer: the connection asks for more when its output has drained.
protocol MPDProducer: AnyObject {
    /// Appends the next piece to `output`; returns true when nothing is left.
    func produce(into output: inout [UInt8]) -> Bool
}

/// One client's share of a turn of the loop: so many steps (a line taken, a command run, a piece of
/// a response produced) and so much time. Thread: a value; loop thread.
struct MPDTurn {
    private var stepsLeft: Int
    private let deadlineNs: UInt64
    private(set) var steps = 0

    init(steps: Int, microseconds: Int) {
        stepsLeft = steps
        deadlineNs = Syscalls.monotonicNanoseconds() + UInt64(microseconds) * 1000
    }

    /// Takes one step; false when the share is spent (nothing is taken then).
    mutating func step() -> Bool {
        guard stepsLeft > 0, Syscalls.monotonicNanoseconds() < deadlineNs else {
            stepsLeft = 0
            return false
        }
        stepsLeft -= 1
        steps += 1
        return true
    }

    var isSpent: Bool { stepsLeft == 0 }
}

/// How much of the loop's time the clients' backlog may take: `share` in each `window`, so that
/// however many clients have work queued, a fresh command, the buttons, the screen and the watchdog
/// wait at most about one share. Thread: a value; loop thread.
struct MPDBacklogShare {
    let windowNanoseconds: UInt64
    let shareNanoseconds: UInt64
    private var windowStartNs: UInt64 = 0
    private var spentNs: UInt64 = 0

    init(windowNanoseconds: UInt64, shareNanoseconds: UInt64) {
        self.windowNanoseconds = max(1, windowNanoseconds)
        self.shareNanoseconds = shareNanoseconds
    }

    /// Whether a turn of backlog may run now.
    mutating func allows() -> Bool {
        startWindowIfOver()
        return spentNs < shareNanoseconds
    }

    /// Counts a turn's time (any turn: fresh commands use the window's time too).
    mutating func spend(_ nanoseconds: UInt64) {
        startWindowIfOver()
        spentNs += nanoseconds
    }

    func nanosecondsToNextWindow() -> UInt64 {
        let end = windowStartNs &+ windowNanoseconds
        let now = Syscalls.monotonicNanoseconds()
        return end > now ? end - now : 0
    }

    private mutating func startWindowIfOver() {
        let now = Syscalls.monotonicNanoseconds()
        if now &- windowStartNs >= windowNanoseconds {
            windowStartNs = now
            spentNs = 0
        }
    }
}

/// One client connection: buffers, protocol state, and the commands it has sent but that have not
/// run yet. The server drives it; see `MPDServer`. Thread: loop thread.
final class MPDConnection {
    /// What the connection is doing about its current command line or list.
    struct Batch {
        enum Mode { case single, list, listOK }
        var mode: Mode
        var lines: [[UInt8]]
        var next = 0
    }

    let number: Int
    /// The client's socket; `.invalid` once closed (closing it is setting that).
    var socket: FileDescriptor
    var fd: Int32 { socket.rawValue }
    let peer: String
    var source: SourceID?

    /// Received bytes not yet taken as lines: `input[inputStart...]`.
    var input: [UInt8] = []
    var inputStart = 0
    /// Bytes to send: `output[outputStart...]`.
    var output: [UInt8] = []
    var outputStart = 0

    /// What the client may do: everything without a password, nothing (but the commands open to
    /// anyone) until `password` names it.
    var permissions: MPDPermission
    /// A command list being collected (`command_list_begin` … `command_list_end`); lines are
    /// appended in place (`collecting?.lines.append`), never through a copy of the list.
    var collecting: Batch?
    var collectingBytes = 0
    /// The batch being run, and the producer or the artwork load that holds it up.
    var running: Batch?
    var producer: (any MPDProducer)?
    var waitingForArtwork = false
    /// Subscriptions of a pending `idle`, nil when not idling.
    var idleSubscriptions: MPDIdle?
    /// Changes not yet reported by `idle`.
    var pendingIdle: MPDIdle = []

    var binaryLimit = 8192
    /// A set the phone page is giving back (`kiosksetpiece`), until its `kiosksetimport`.
    var pendingSet: [UInt8] = []
    var tagMask = Set(MPDTag.allCases)
    /// Close once the output is sent.
    var closeAfterOutput = false
    var closed = false
    /// When the client last sent a whole line or took some of its output (MPD's timeout restarts
    /// at a whole line only: bytes trickling in without a newline keep nothing alive).
    var lastActivityNs: UInt64
    /// A timer will call `process` again.
    var continuationScheduled = false
    /// Its last turn ended with work left (lines, a list, a response being produced): its next
    /// turn counts against the backlog's share of the loop; a client with a fresh command does not.
    var hasBacklog = false
    var watchedEvents: IOEvents = []

    init(number: Int, fd: consuming FileDescriptor, peer: String, permissions: MPDPermission) {
        self.number = number
        socket = fd
        self.peer = peer
        self.permissions = permissions
        lastActivityNs = Syscalls.monotonicNanoseconds()
    }

    var pendingOutput: Int { output.count - outputStart }
    var pendingInput: Int { input.count - inputStart }

    /// A whole line is waiting in the input.
    var hasCompleteLine: Bool { newlineIndex() != nil }

    /// The index of the first `\n` in the unread input (memchr: this runs for every line).
    private func newlineIndex() -> Int? {
        let start = inputStart
        return input.withUnsafeBufferPointer { buffer -> Int? in
            guard let base = buffer.baseAddress, start < buffer.count,
                let found = memchr(base + start, 0x0A, buffer.count - start)
            else { return nil }
            return UnsafeRawPointer(found).assumingMemoryBound(to: UInt8.self) - base
        }
    }

    /// Something holds the next command back.
    var busy: Bool { running != nil || producer != nil || waitingForArtwork }

    /// Waiting in `idle` with everything sent: a real idle client, which no timeout drops (a client
    /// that idles but leaves its output unread is not one).
    var isQuietlyIdle: Bool { idleSubscriptions != nil && pendingOutput == 0 }

    func write(_ text: String) {
        output.append(contentsOf: text.utf8)
    }

    func write(bytes: ArraySlice<UInt8>) {
        output.append(contentsOf: bytes)
    }

    /// Takes the next complete line (without its `\n`, and a `\r` before it) from the input.
    func nextLine() -> [UInt8]? {
        guard let newline = newlineIndex() else { return nil }
        var end = newline
        if end > inputStart && input[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        let line = Array(input[inputStart..<end])
        inputStart = newline + 1
        if inputStart == input.count {
            input.removeAll(keepingCapacity: true)
            inputStart = 0
        }
        return line
    }

    /// Drops the consumed front of the buffers once it is large.
    func compact() {
        if inputStart > 0 && inputStart >= input.count / 2 {
            input.removeFirst(inputStart)
            inputStart = 0
        }
        if outputStart > 0 && outputStart >= output.count / 2 {
            output.removeFirst(outputStart)
            outputStart = 0
        }
    }
}
