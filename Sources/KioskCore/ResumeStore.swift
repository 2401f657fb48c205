// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskSystem

/// Where the resume state lives on the SD card: `resume.state` in the state directory, a
/// `SlotFile` of two regions, so that the save every 4.5 s of playing rewrites one sector in place
/// (instead of a new resume.json and a rename: about 40 KiB of data, metadata and journal each time).
///
/// - the state region: two slots of 16 KiB at offset 4096, each a whole `ResumeState` (the JSON
///   resume.json held, compact), written when anything but the position changes (a track change,
///   pause with a new queue, volume, category, output, shuffle…);
/// - the position region: two slots of 512 bytes at offset 0, each the sequence number of the
///   state record it belongs to, the position in frames, whether it plays and the sleep timer's
///   seconds left: what the periodic save writes while playing.
///
/// One sequence number counts the records of both regions. At load the newest valid state record
/// wins, and the newest valid position record of that state record (a larger sequence, its
/// number as the base) is applied to it; a record whose write was torn fails its checksum and the
/// other slot's is used. When neither state slot holds a valid record, or there is no
/// resume.state yet, an old resume.json (the format before this one) is read; the first state
/// record written removes it.
///
/// Thread: the loop thread (the `ResumeRecorder`'s); `read(directory:)` any.
final class ResumeStore {
    static let fileName = "resume.state"
    static let legacyFileName = "resume.json"
    static let positionRegion = 0
    static let stateRegion = 1
    private static let positionMagic: [UInt8] = Array("KPRP".utf8)
    private static let stateMagic: [UInt8] = Array("KPRS".utf8)

    static func slotFile(directory: String) -> SlotFile {
        SlotFile(
            path: "\(directory)/\(fileName)",
            regions: [
                SlotFile.Region(magic: positionMagic, offset: 0, slotBytes: 512),
                SlotFile.Region(magic: stateMagic, offset: 4096, slotBytes: 16384),
            ])
    }

    /// What was found in resume.state.
    struct Found: Equatable {
        /// nil when neither state slot holds a valid record.
        var state: ResumeState?
        var stateSequence: UInt64 = 0
        /// The position record applied, if any.
        var positionSequence: UInt64?
        /// The largest sequence number of a valid record, and the slot of each region's newest one.
        var lastSequence: UInt64
        var newestSlots: [Int?]
    }

    let directory: String
    private let file: SlotFile
    /// The sequence number of the next record; nil until the file was read.
    private var nextSequence: UInt64?
    /// The slot of each region holding its newest record (the next write goes to the other one).
    private var newestSlots: [Int?] = [nil, nil]
    /// The last state record this store wrote to the current file, which position records extend.
    private var lastStateRecord: (sequence: UInt64, state: ResumeState)?
    /// The last state saved (either kind of record): a save of the same state writes nothing.
    private var lastSaved: ResumeState?

    init(directory: String) {
        self.directory = directory
        file = Self.slotFile(directory: directory)
    }

    // MARK: - saving

    /// Saves `state`: a position record when only the position, the playing flag or the sleep
    /// timer changed since the last state record this store wrote, else a state record; nothing
    /// when it is the state saved last. Returns once the record is on the device.
    func save(_ state: ResumeState) throws {
        let ready = file.isReady
        if ready, state == lastSaved { return }
        if !ready {
            // none yet (first start with this format), or removed or truncated: made anew, all zeros
            try Syscalls.mkdirs(directory)
            try file.create()
            newestSlots = [nil, nil]
            lastStateRecord = nil
        } else if nextSequence == nil, let found = Self.read(file) {
            // past every record there, valid or not yet replaced, so none can pass for a newer one
            newestSlots = found.newestSlots
            nextSequence = found.lastSequence + 1
        }
        let sequence = nextSequence ?? 1
        if let base = lastStateRecord, base.state.samePlace(as: state) {
            try write(
                SlotFile.Record(sequence: sequence, payload: Self.positionPayload(state, base: base.sequence)),
                region: Self.positionRegion, kind: "position", state: state)
        } else {
            try write(
                SlotFile.Record(sequence: sequence, payload: try statePayload(state)), region: Self.stateRegion,
                kind: "state", state: state)
            lastStateRecord = (sequence, state)
            removeLegacyFile()
        }
        nextSequence = sequence + 1
        lastSaved = state
    }

    /// Writes `record` (which holds `state`) into the older slot of `region`. The log names what the
    /// record holds, so a test that cuts the power can tell which state the card may hold.
    private func write(_ record: SlotFile.Record, region: Int, kind: String, state: ResumeState) throws {
        let slot = newestSlots[region] == 0 ? 1 : 0
        Log.debug(
            "resume: writing record \(record.sequence) (\(kind), slot \(slot)): "
                + "\(state.relativePath ?? "-") at frame \(state.positionFrames)")
        try file.write(record, region: region, slot: slot)
        newestSlots[region] = slot
        Log.debug("resume: record \(record.sequence) written")
    }

    /// The state as compact JSON; without the now-playing screen's texts if it does not fit.
    private func statePayload(_ state: ResumeState) throws -> [UInt8] {
        let capacity = file.payloadCapacity(region: Self.stateRegion)
        let bytes = Array(state.json().serialized().utf8)
        if bytes.count <= capacity { return bytes }
        var trimmed = state
        (trimmed.title, trimmed.artist, trimmed.album) = (nil, nil, nil)
        let smaller = Array(trimmed.json().serialized().utf8)
        guard smaller.count <= capacity else {
            throw Errno(rawValue: EMSGSIZE, context: "resume state of \(smaller.count) bytes (at most \(capacity))")
        }
        return smaller
    }

    /// resume.json is read only while no state record replaces it.
    private func removeLegacyFile() {
        let legacy = "\(directory)/\(Self.legacyFileName)"
        guard Syscalls.exists(legacy) else { return }
        do {
            try Syscalls.unlink(legacy)
            Log.notice("resume: the saved state moved from \(Self.legacyFileName) to \(Self.fileName)")
        } catch {
            Log.warning("resume: cannot remove the old \(legacy): \(error)")
        }
    }

    // MARK: - the position record

    private static let positionPayloadBytes = 21

    /// base (UInt64), position in frames (Int64), flags (bit 0 playing, bit 1 a sleep timer),
    /// sleep seconds left (UInt32), little-endian.
    static func positionPayload(_ state: ResumeState, base: UInt64) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(positionPayloadBytes)
        withUnsafeBytes(of: base.littleEndian) { bytes += $0 }
        withUnsafeBytes(of: state.positionFrames.littleEndian) { bytes += $0 }
        bytes.append((state.playing ? 1 : 0) | (state.sleepRemainingSeconds != nil ? 2 : 0))
        withUnsafeBytes(of: UInt32(clamping: state.sleepRemainingSeconds ?? 0).littleEndian) { bytes += $0 }
        return bytes
    }

    /// Applies a position record to the state record it names; nil when it names another one or
    /// is not a position record of this format.
    static func apply(positionPayload p: [UInt8], to state: ResumeState, stateSequence: UInt64) -> ResumeState? {
        guard p.count == positionPayloadBytes, integer(UInt64.self, p, 0) == stateSequence else { return nil }
        let frames = Int64(bitPattern: integer(UInt64.self, p, 8))
        let sleep = Int(integer(UInt32.self, p, 17))
        guard frames >= 0, p[16] & ~3 == 0, sleep <= 86_400 else { return nil }
        var result = state
        result.positionFrames = frames
        result.playing = p[16] & 1 != 0
        result.sleepRemainingSeconds = p[16] & 2 != 0 ? sleep : nil
        return result
    }

    private static func integer<T: FixedWidthInteger>(_: T.Type, _ bytes: [UInt8], _ at: Int) -> T {
        (0..<MemoryLayout<T>.size).reduce(T(0)) { $0 | T(bytes[at + $1]) << (8 * $1) }
    }

    // MARK: - loading

    /// What `file` holds; nil when it cannot be read.
    static func read(_ file: SlotFile) -> Found? {
        guard let contents = try? file.read() else { return nil }
        return decode(contents, file: file)
    }

    /// The state in the bytes of a resume.state (`file` gives the layout and the name for errors).
    static func decode(_ contents: [UInt8], file: SlotFile) -> Found {
        let states = file.records(in: contents, region: stateRegion)
        let positions = file.records(in: contents, region: positionRegion)
        let lastSequence = (states + positions).map(\.record.sequence).max() ?? 0
        let newestSlots = [positions.first?.slot, states.first?.slot]
        let none = Found(state: nil, lastSequence: lastSequence, newestSlots: newestSlots)
        for candidate in states {
            // a state record that passes its checksum but does not parse is not ours: try the other
            guard let state = try? ResumeState.parse(candidate.record.payload, file: file.path) else { continue }
            var found = Found(
                state: state, stateSequence: candidate.record.sequence, positionSequence: nil,
                lastSequence: lastSequence, newestSlots: newestSlots)
            for position in positions where position.record.sequence > candidate.record.sequence {
                if let moved = apply(
                    positionPayload: position.record.payload, to: state, stateSequence: candidate.record.sequence)
                {
                    found.state = moved
                    found.positionSequence = position.record.sequence
                    break
                }
            }
            return found
        }
        return none
    }

    /// The saved state of `directory`: resume.state's, else (none there, or no valid record in it)
    /// the old resume.json's; nil, with a warning saying why, when neither holds one.
    static func load(directory: String) -> ResumeState? {
        let file = slotFile(directory: directory)
        let legacy = "\(directory)/\(legacyFileName)"
        if Syscalls.exists(file.path) {
            if let found = read(file), let state = found.state {
                let position = found.positionSequence.map { ", position record \($0)" } ?? ""
                Log.info("resume: \(fileName): state record \(found.stateSequence)\(position)")
                return state
            }
            let fallback = Syscalls.exists(legacy) ? "reading the old \(legacyFileName)" : "starting without it"
            Log.warning(
                "ignoring saved state: \(file.path): no valid record in either slot (damaged or never written); \(fallback)"
            )
        }
        guard Syscalls.exists(legacy) else { return nil }
        do {
            let bytes = try Syscalls.readFile(legacy, limit: 1 << 20)
            let state = try ResumeState.parse(bytes, file: legacy)
            Log.info("resume: \(legacyFileName) read (the next save writes \(fileName))")
            return state
        } catch {
            Log.warning("ignoring saved state: \(error)")
            return nil
        }
    }
}
