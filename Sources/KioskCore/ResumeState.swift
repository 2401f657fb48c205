// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import KioskSystem

/// What the player was doing, saved so that a power cut loses at most a few seconds.
///
/// Saved to `resume.state` in the state directory (`ResumeStore`: checksummed records in two
/// alternating slots, overwritten in place) on track change, pause, stop, volume change, category
/// change, output and repeat changes, every 4.5 s while playing (with the engine's live position,
/// so at most 5 s are lost) and at shutdown; read at start. Its JSON form is what resume.json
/// held before (still read once, when there is no resume.state). A damaged or foreign file is
/// ignored with a warning. A value type: build it on the loop thread.
public struct ResumeState: Equatable, Sendable {
    /// The file it is saved in.
    public static let fileName = ResumeStore.fileName
    /// The file of the format before, read when there is no `fileName` yet.
    public static let legacyFileName = ResumeStore.legacyFileName
    static let format = "kiosk-player-resume"
    static let version = 1

    /// The collection the queue was made from.
    public struct CollectionRef: Equatable, Sendable {
        public var category: String
        public var key: String
        public init(category: String, key: String) {
            self.category = category
            self.key = key
        }
    }

    /// Volume (filesystem UUID or path hash) and path inside it of the current track.
    public var volumeID: String?
    public var relativePath: String?
    public var positionFrames: Int64 = 0
    public var sampleRate: Int = 0
    public var queueIndex: Int = 0
    public var collection: CollectionRef?
    public var category: String = "album"
    public var volumePercent: Int = 70
    /// Whether it was playing (then it plays again after a restart) or paused/stopped.
    public var playing: Bool = false
    public var outputDevice: String?
    /// What the now-playing screen shows of the track, so that a restart can show it (and play it)
    /// before the stick's catalog is loaded.
    public var title: String?
    public var artist: String?
    public var album: String?
    public var durationSeconds: Double?
    public var queueCount: Int = 0
    /// The shuffle chosen (`PlayQueue.Shuffle`'s raw value); nil = off.
    public var shuffle: String?
    /// Seconds left on the sleep timer when saved; nil = off.
    public var sleepRemainingSeconds: Int?
    /// The button lock was on (`Player.locked`).
    public var locked = false
    /// The queue plays once, whatever repeat says (`PlayQueue.playsOnce`: a card's one track per tap).
    public var playsOnce = false
    /// What remote clients know the queue by (`QueueIdentity`): its version, the next song id,
    /// and its entries' ids as runs ("12-40,45"); nil in a file of an older release.
    public var queueVersion: UInt32?
    public var nextSongID: UInt32?
    public var songIDs: String?
    /// The version of the queue saved in `ClientQueueFile` (a queue a remote client built).
    public var clientQueueVersion: UInt32?
    /// That queue's entries, read with the state (not part of the record).
    var clientQueue: [ClientQueueFile.Entry]?

    public init() {}

    /// The position in seconds (0 when the rate is unknown).
    public var positionSeconds: Double { sampleRate > 0 ? Double(positionFrames) / Double(sampleRate) : 0 }

    public func json() -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("format", .string(Self.format)),
            ("version", .number(Double(Self.version))),
            ("category", .string(category)),
            ("volumePercent", .number(Double(volumePercent))),
            ("playing", .bool(playing)),
            ("queueIndex", .number(Double(queueIndex))),
            ("positionFrames", .number(Double(positionFrames))),
            ("sampleRate", .number(Double(sampleRate))),
        ]
        if let volumeID { members.append(("volumeID", .string(volumeID))) }
        if let relativePath { members.append(("relativePath", .string(relativePath))) }
        if let collection {
            members.append(
                ("collection", .object([("category", .string(collection.category)), ("key", .string(collection.key))])))
        }
        if let outputDevice { members.append(("outputDevice", .string(outputDevice))) }
        if let title { members.append(("title", .string(title))) }
        if let artist { members.append(("artist", .string(artist))) }
        if let album { members.append(("album", .string(album))) }
        if let durationSeconds { members.append(("durationSeconds", .number(durationSeconds))) }
        if queueCount > 0 { members.append(("queueCount", .number(Double(queueCount)))) }
        if let shuffle { members.append(("shuffle", .string(shuffle))) }
        if let sleepRemainingSeconds {
            members.append(("sleepRemainingSeconds", .number(Double(sleepRemainingSeconds))))
        }
        if locked { members.append(("locked", .bool(true))) }
        if playsOnce { members.append(("playsOnce", .bool(true))) }
        if let queueVersion { members.append(("queueVersion", .number(Double(queueVersion)))) }
        if let nextSongID { members.append(("nextSongID", .number(Double(nextSongID)))) }
        if let songIDs { members.append(("songIDs", .string(songIDs))) }
        if let clientQueueVersion { members.append(("clientQueueVersion", .number(Double(clientQueueVersion)))) }
        return .object(members)
    }

    /// Parses a saved state; errors name the problem (the caller logs it and starts fresh).
    public static func parse(_ bytes: [UInt8], file: String) throws(ConfigError) -> ResumeState {
        let r = try JSONReader.parse(bytes, file: file)
        guard try r.string("format") == format else {
            throw ConfigError(file: file, path: "format", message: "not a kiosk-player resume file")
        }
        guard try r.int("version", range: 0...1000) == version else {
            throw ConfigError(file: file, path: "version", message: "unsupported version (expected \(version))")
        }
        var state = ResumeState()
        state.category = try r.string("category") ?? state.category
        state.volumePercent = try r.int("volumePercent", range: 0...100) ?? state.volumePercent
        state.playing = try r.bool("playing") ?? false
        state.queueIndex = try r.int("queueIndex", range: 0...1_000_000) ?? 0
        state.positionFrames = Int64(try r.int("positionFrames", range: 0...Int(Int32.max) * 1024) ?? 0)
        state.sampleRate = try r.int("sampleRate", range: 0...1_000_000) ?? 0
        state.volumeID = try r.string("volumeID")
        state.relativePath = try r.string("relativePath")
        if let c = try r.object("collection") {
            guard let category = try c.string("category"), let key = try c.string("key", nonEmpty: false) else {
                throw ConfigError(file: file, path: "collection", message: "needs category and key")
            }
            try c.finish()
            state.collection = CollectionRef(category: category, key: key)
        }
        state.outputDevice = try r.string("outputDevice")
        state.title = try r.string("title", nonEmpty: false)
        state.artist = try r.string("artist", nonEmpty: false)
        state.album = try r.string("album", nonEmpty: false)
        state.durationSeconds = try r.double("durationSeconds", range: 0...1e7)
        state.queueCount = try r.int("queueCount", range: 0...1_000_000) ?? 0
        state.shuffle = try r.choice("shuffle", PlayQueue.Shuffle.allCases.map(\.rawValue))
        state.sleepRemainingSeconds = try r.int("sleepRemainingSeconds", range: 0...86_400)
        state.locked = try r.bool("locked") ?? false
        state.playsOnce = try r.bool("playsOnce") ?? false
        state.queueVersion = try r.int("queueVersion", range: 0...Int(Int32.max)).map(UInt32.init)
        state.nextSongID = try r.int("nextSongID", range: 0...Int(Int32.max)).map(UInt32.init)
        state.clientQueueVersion = try r.int("clientQueueVersion", range: 0...Int(UInt32.max)).map(UInt32.init)
        if let runs = try r.string("songIDs", nonEmpty: false) {
            guard QueueIdentity.ids(fromRuns: runs) != nil else {
                throw ConfigError(file: file, path: "songIDs", message: "not runs of song ids")
            }
            state.songIDs = runs
        }
        try r.finish()
        return state
    }

    /// Whether `other` is this state but for what a position record holds (the position, the
    /// playing flag, the sleep timer).
    func samePlace(as other: ResumeState) -> Bool {
        var a = self
        var b = other
        (a.positionFrames, a.playing, a.sleepRemainingSeconds) = (0, false, nil)
        (b.positionFrames, b.playing, b.sleepRemainingSeconds) = (0, false, nil)
        return a == b
    }

    /// Loads the saved state of `directory` (resume.state, else an old resume.json); nil (with a
    /// warning for a bad file) when there is none.
    public static func load(directory: String) -> ResumeState? {
        guard var state = ResumeStore.load(directory: directory) else { return nil }
        if let version = state.clientQueueVersion {
            state.clientQueue = ClientQueueFile(directory: directory).load(version: version)
        }
        return state
    }

    /// The state in the bytes of a resume.state; nil when neither slot holds a valid record.
    public static func decodeRecordFile(_ bytes: [UInt8]) -> ResumeState? {
        ResumeStore.decode(bytes, file: ResumeStore.slotFile(directory: ".")).state
    }

    /// Saves to `directory` as a new state record (the player keeps one `ResumeStore` instead).
    public func save(directory: String) throws { try ResumeStore(directory: directory).save(self) }
}

extension ResumeState {
    /// The state to save now, made from the player's parts: the current track of `queue` and where
    /// it is (`livePositionFrames`: the engine's counter while it plays); with nothing queued yet
    /// (the saved queue's stick is still scanning), what was saved, with where the restored track
    /// is now when it already plays.
    init(
        queue: PlayQueue, transport: Transport, livePositionFrames: Int64, restore: RestoreSession,
        category: KioskModel.Category, volume: Int, outputDevice: String, sleepRemainingSeconds: Int?,
        locked: Bool
    ) {
        self.init()
        self.category = category.rawValue
        if let track = queue.current {
            volumeID = track.volume.rawValue
            relativePath = track.relativePath
            positionFrames = livePositionFrames
            sampleRate = transport.sampleRate
            queueIndex = queue.index
            playing = transport.status == .playing
            if let c = queue.collection { collection = .init(category: c.category.rawValue, key: c.key) }
            title = track.title
            artist = track.artist
            album = track.album
            durationSeconds = track.durationSeconds
            queueCount = queue.count
            songIDs = QueueIdentity.runs(of: queue.identity.songIDs)
            playsOnce = queue.playsOnce
            if queue.collection == nil { clientQueueVersion = queue.identity.version }
        } else if let pending = restore.pending {
            self = pending
            if restore.playingAloneState != nil {
                playing = transport.status == .playing
                positionFrames = livePositionFrames
            }
        }
        volumePercent = volume
        self.outputDevice = outputDevice
        shuffle = queue.shuffle == .off ? nil : queue.shuffle.rawValue
        self.sleepRemainingSeconds = sleepRemainingSeconds
        self.locked = locked
        queueVersion = queue.identity.version
        nextSongID = queue.identity.nextSongID
    }
}
