// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskConfig
import KioskModel
import KioskSystem

/// Exhibit mode (`Config.exhibit`): inputs play clips by the trigger rules (`ClipTriggers`), the
/// attract loop plays when nobody is there and comes back after a clip's silence, visitors change
/// the volume only within the staff's range and it goes back to the staff's default (and the
/// language to the first) once the visitor has left. Thread: the loop thread, like `Player`.
extension Player {
    /// Whether the player runs an exhibit.
    public var isExhibit: Bool { exhibit != nil }

    /// The clip playing now, for the screen and MPD (nil: the attract loop or silence).
    public var exhibitClip: String? { exhibit?.triggers.playing }

    /// The board's buttons in profile order: a stick's folders go to them when nothing names clips.
    public var exhibitButtons: [String] {
        get { exhibit?.buttons ?? [] }
        set { exhibit?.buttons = newValue }
    }

    /// The clips in use (config.json's, or the stick's station), for the screen and tests.
    public var exhibitClips: [ExhibitConfig.Clip] { exhibit?.config.clips ?? [] }

    /// The wall clock of the opening hours and the day of the play counts (tests give their own).
    public var exhibitClock: ExhibitClock? {
        get { exhibit?.clock }
        set { if let newValue { exhibit?.clock = newValue } }
    }

    /// Starts exhibit mode once a catalog is there: the attract loop (inside opening hours), and
    /// the minute timer of the hours and the heartbeat.
    func startExhibit() {
        guard let exhibit else { return }
        if exhibit.startTicking() {
            apply([.armExhibit(.minute, milliseconds: 60_000, repeating: true)])
        }
        guard exhibit.isOpenNow() else {
            if !exhibit.closed { closeExhibit() }
            return
        }
        guard exhibit.triggers.state == .attract else { return }
        apply(.setVolume(exhibit.config.volume.initial), from: .exhibit)
        playAttract()
    }

    /// A button or key of the board went down or up (its gesture source, "button A" / "key KEY_1").
    public func exhibitEdge(source: String, down: Bool) {
        scheduler.assertInLoop()
        guard let exhibit, !shuttingDown else { return }
        guard !exhibit.closed else {
            if down { Log.debug("exhibit: closed: \(source) ignored") }
            return
        }
        let input: ExhibitConfig.Input
        if source.hasPrefix("button ") {
            input = .button(String(source.dropFirst(7)))
        } else if source.hasPrefix("key ") {
            input = .key(String(source.dropFirst(4)))
        } else {
            return
        }
        if input == exhibit.config.languageInput {
            if down { cycleLanguage() }
            return
        }
        guard let clip = exhibit.clip(for: input) else { return }
        visitorCame()
        let (effect, before) = exhibit.trigger(clip.name, down: down, at: scheduler.nowNanoseconds)
        apply(effect, before: before)
    }

    /// The next clip set, said on the screen (and aloud with speech on).
    private func cycleLanguage() {
        guard let exhibit, let name = exhibit.cycleLanguage() else { return }
        visitorCame()
        Log.info("exhibit: language \(name)")
        showTransient(MessageState(title: name, detail: nil, kind: .info), seconds: 2)
        refreshScreen()
    }

    /// A card shown in exhibit mode: its clip, if one is bound to it. True when it was one.
    func exhibitCard(_ uid: String, presented: Bool) -> Bool {
        guard let exhibit else { return false }
        if exhibit.closed { return true }
        if .card(uid) == exhibit.config.languageInput {
            if presented { cycleLanguage() }
            return true
        }
        guard let clip = exhibit.clip(for: .card(uid)) else { return false }
        visitorCame()
        let (effect, before) = exhibit.trigger(clip.name, down: presented, at: scheduler.nowNanoseconds)
        apply(effect, before: before)
        return true
    }

    /// The engine played its queue out: a clip ended (the attract loop repeats, it never ends).
    /// True when exhibit mode took the event.
    func exhibitQueueFinished() -> Bool {
        guard let exhibit else { return false }
        apply(exhibit.clipEnded(at: scheduler.nowNanoseconds))
        if exhibit.restartDue { followDailyRestart() }
        return true
    }

    /// Carries out what the trigger rules decided; `before` is their state before the input (a
    /// clip that cannot play leaves everything as it was, the attract loop going on).
    private func apply(_ effect: ClipTriggers.Effect, before: ClipTriggers? = nil) {
        guard let exhibit else { return }
        switch effect {
        case .play(let name):
            guard let clip = exhibit.config.clip(named: name) else { return }
            let tracks = exhibitTracks(clip.play)
            guard !tracks.isEmpty else {
                Log.warning("exhibit: clip \"\(name)\": \(describe(clip.play)) is not on the stick")
                exhibit.noteError("clip \(name): \(describe(clip.play)) is not on the stick")
                showTransient(
                    MessageState(title: "Clip missing", detail: "\(name): \(describe(clip.play))", kind: .error),
                    seconds: 4)
                if let before { exhibit.undo(to: before) }
                return
            }
            cancelAttractReturn()
            Log.info("exhibit: clip \"\(name)\" (\(clip.mode.rawValue))")
            exhibit.counts.played(name, day: exhibit.clock.now().date)
            apply(.playTracks(tracks, loop: false), from: .exhibit)
        case .stop:
            apply(.silence, from: .exhibit)
            scheduleAttractReturn()
        case .attract:
            playAttract(fadingIn: true)
        case .ignored(let why):
            Log.debug("exhibit: \(why)")
        }
        refreshScreen()
    }

    /// A scan ended while the attract loop played: it began with the tracks found by then (a
    /// big stick's scan is long, and the station should not wait for it in silence); with the
    /// whole collection known, it starts again when it has more.
    func attractScanned() {
        guard let exhibit, exhibit.triggers.state == .attract, let attract = exhibit.config.attract else { return }
        let tracks = exhibitTracks(attract.play)
        guard tracks.map(\.relativePath) != queue.map(\.relativePath), !tracks.isEmpty else { return }
        Log.info("exhibit: the scan found more of the attract loop (\(tracks.count) tracks): from its start")
        playAttract()
    }

    /// The attract loop, from its start; after a clip it rises over `attract.fadeMs`.
    private func playAttract(fadingIn: Bool = false) {
        guard let exhibit, let attract = exhibit.config.attract else {
            apply(.silence, from: .exhibit)
            return
        }
        let tracks = exhibitTracks(attract.play)
        guard !tracks.isEmpty else {
            // While a scan runs the collection may just not be found yet: its end tries again.
            if isScanning {
                Log.debug("exhibit: the attract loop's \(describe(attract.play)) is not found yet (scanning)")
            } else {
                Log.warning("exhibit: the attract loop's \(describe(attract.play)) is not on the stick")
            }
            apply(.silence, from: .exhibit)
            return
        }
        apply(.playTracks(tracks, loop: true, fadeInMilliseconds: fadingIn ? attract.fadeMs : 0), from: .exhibit)
    }

    private func scheduleAttractReturn() {
        guard let exhibit else { return }
        cancelAttractReturn()
        guard let due = exhibit.triggers.nextDeadline else { return }
        let now = scheduler.nowNanoseconds
        let delay = due > now ? Int((due - now + 999_999) / 1_000_000) : 0
        apply([.armExhibit(.attractReturn, milliseconds: delay, repeating: false)])
    }

    private func cancelAttractReturn() { apply([.disarmExhibit(.attractReturn)]) }

    /// A timer of exhibit mode rang (`ExhibitSession.Alarm`).
    func exhibitAlarmRang(_ alarm: ExhibitSession.Alarm) {
        guard let exhibit else { return }
        switch alarm {
        case .minute:
            followOpeningHours()
            followDailyRestart()
            sendExhibitStatus(always: true)
        case .attractReturn:
            apply(exhibit.advance(to: scheduler.nowNanoseconds))
        case .visitorLeft:
            exhibit.visitorLeft()
            let initial = exhibit.config.volume.initial
            if volume != initial {
                Log.info("exhibit: the visitor left: volume back to \(initial) %")
                apply(.setVolume(initial), from: .exhibit)
                refreshScreen()
            }
        }
    }

    /// The visitor touched something: the staff's volume and the first language come back once they
    /// have left (`volume.visitorIdleSeconds` later).
    func visitorCame() {
        guard let exhibit else { return }
        exhibit.visitorCame(at: scheduler.nowNanoseconds)
        apply([
            .armExhibit(.visitorLeft, milliseconds: exhibit.config.volume.visitorIdleSeconds * 1000, repeating: false)
        ])
    }

    /// An error the engine reported, for the heartbeat.
    func noteExhibitError(_ text: String) { exhibit?.noteError(text) }

    /// The tracks a clip's source names: a file (in the language's folder first) or a collection.
    func exhibitTracks(_ source: ExhibitConfig.Source) -> [Track] {
        guard let catalog, let exhibit else { return [] }
        switch source {
        case .file(let path):
            let candidates = (exhibit.languageFolder.map { ["\($0)/\(path)"] } ?? []) + [path]
            for candidate in candidates {
                for volume in catalog.volumes {
                    if let track = catalog.track(volume: volume, relativePath: candidate) { return [track] }
                }
            }
            return []
        case .folder(let path):
            return catalog.allTracks.filter { $0.relativePath.hasPrefix(path + "/") }.sorted {
                $0.relativePath < $1.relativePath
            }
        case .collection(let name):
            for category in [KioskModel.Category.album, .playlist, .folder] {
                let matches = catalog.collections(in: category).filter { $0.name == name }
                if let folder = exhibit.languageFolder,
                    let inLanguage = matches.first(where: {
                        catalog.tracks(of: $0).first?.relativePath.hasPrefix(folder + "/") == true
                    })
                {
                    return catalog.tracks(of: inLanguage)
                }
                if let first = matches.first { return catalog.tracks(of: first) }
            }
            return []
        }
    }

    // MARK: - the stick's station

    /// The stick's own station when it has `exhibit.json` at its top (checked as config.json is;
    /// a bad one is reported, naming the file and key, and config.json's clips stay).
    func loadStickStation(volume: String, mountPoint: String) {
        guard let exhibit else { return }
        let file = mountPoint + "/exhibit.json"
        let bytes: [UInt8]
        // On the loop thread before READY: the one stick-file seam, so a FIFO, a socket or a link
        // there is refused at once (it blocked start-up forever when opened plainly); a regular
        // file of at most 256 KiB is read.
        do {
            bytes = try StickFile.read("exhibit.json", beneath: mountPoint, limit: 256 << 10)
        } catch {
            if error.rawValue != ENOENT {
                Log.warning("exhibit: \(error); config.json's clips stay")
                exhibit.noteError("\(error)")
                showTransient(
                    MessageState(title: "exhibit.json not used", detail: error.message, kind: .error), seconds: 8)
            }
            return
        }
        do throws(ConfigError) {
            let station = try ExhibitConfig.stickStation(JSONReader.parse(bytes, file: file), over: exhibit.base)
            Log.info("exhibit: the stick's station: \(station.clips.count) clips (\(file))")
            exhibit.use(station, from: volume)
            cancelAttractReturn()
        } catch {
            Log.warning("exhibit: \(error); config.json's clips stay")
            exhibit.noteError("\(error)")
            showTransient(
                MessageState(title: "exhibit.json not used", detail: "\(error.path): \(error.message)", kind: .error),
                seconds: 8)
        }
    }

    /// The stick whose station was in use went: config.json's clips again.
    func stickStationRemoved(volume: String) {
        guard let exhibit, exhibit.stationVolume == volume else { return }
        Log.info("exhibit: the stick's station went: config.json's clips again")
        exhibit.use(nil, from: nil)
    }

    /// With no clips named anywhere, the stick's top-level folders go on the board's buttons, in
    /// name order (first folder: first button).
    func followFolderStation() {
        guard let exhibit, let catalog, exhibit.base.clips.isEmpty,
            exhibit.stationVolume == nil || exhibit.stationVolume == ""
        else {
            return
        }
        var folders = Set<String>()
        for track in catalog.allTracks {
            guard let slash = track.relativePath.firstIndex(of: "/") else { continue }
            folders.insert(String(track.relativePath[..<slash]))
        }
        // The language button stays the language button.
        let buttons = exhibit.buttons.filter { .button($0) != exhibit.base.languageInput }
        let station = ExhibitConfig.folderStation(folders: folders.sorted(), buttons: buttons, over: exhibit.base)
        guard station.clips != exhibit.config.clips else { return }
        Log.info(
            "exhibit: the stick's folders on the buttons: \(station.clips.map { "\($0.input): \($0.name)" }.joined(separator: ", "))"
        )
        exhibit.use(station, from: "")
    }

    // MARK: - opening hours

    /// Closes or opens the exhibit when the opening hours say so (checked once a minute, so a DST
    /// change or a clock set by NTP takes effect within a minute).
    func followOpeningHours() {
        guard let exhibit else { return }
        let open = exhibit.isOpenNow()
        if open && exhibit.closed {
            Log.info("exhibit: open")
            exhibit.reopen()
            clearTransient()
            startExhibit()
            refreshScreen()
        } else if !open && !exhibit.closed {
            closeExhibit()
        }
    }

    /// In the minute of `restartAt` (local time, a synchronized clock) the appliance is asked to
    /// restart, once no clip plays (a clip defers it, for an hour at most). A player started less
    /// than two minutes ago does not: that is the restart itself.
    func followDailyRestart() {
        guard let exhibit, let at = exhibit.config.restartAt, outbox.listeners.hears(.dailyRestart) else { return }
        guard exhibit.clock.unsynchronized() == nil,
            scheduler.nowNanoseconds - exhibit.startedAt >= 120 * 1_000_000_000
        else { return }
        let late = (exhibit.clock.now().minute - at + 1440) % 1440
        guard exhibit.dailyRestartDue(minutesLate: late) else { return }
        Log.notice("exhibit: the daily restart (exhibit.restartAt)")
        send(.dailyRestart)
    }

    private func closeExhibit() {
        guard let exhibit else { return }
        Log.info("exhibit: closed (outside opening hours)")
        exhibit.close()
        cancelAttractReturn()
        apply(.clear, from: .exhibit)
        showTransient(MessageState(title: "Closed", detail: nil, kind: .info), seconds: 10)
        refreshScreen()
    }

    // MARK: - heartbeat and counts

    /// The heartbeat (`.exhibitStatus`, a JSON object's text): sent when something in it changed (`always`: also when only the uptime did).
    func sendExhibitStatus(always: Bool) {
        guard let exhibit, outbox.listeners.hears(.exhibitStatus) else { return }
        let state: String
        if exhibit.closed {
            state = "closed"
        } else {
            switch exhibit.triggers.state {
            case .attract: state = exhibit.config.attract == nil ? "idle" : "attract"
            case .clip: state = "clip"
            case .heldAfterEnd, .returning: state = "silence"
            }
        }
        let language =
            exhibit.config.languages.indices.contains(exhibit.language)
            ? JSONValue.string(exhibit.config.languages[exhibit.language].name) : .null
        let today = exhibit.counts.days[exhibit.clock.now().date]?.values.reduce(0, +) ?? 0
        let members: [(String, JSONValue)] = [
            ("state", .string(state)),
            ("clip", exhibit.triggers.playing.map { .string($0) } ?? .null),
            ("language", language),
            ("volume", .number(Double(volume))),
            ("playsToday", .number(Double(today))),
            ("lastError", exhibit.lastError.map { .string($0) } ?? .null),
            ("hours", .string(exhibit.config.hours.isEmpty ? "always open" : exhibit.hoursNotApplied ?? "applied")),
        ]
        let key = JSONValue.object(members).serialized()
        guard exhibit.statusChanged(to: key) || always else { return }
        let uptime = (scheduler.nowNanoseconds - exhibit.startedAt) / 1_000_000_000
        send(
            .exhibitStatus(JSONValue.object(members + [("uptimeSeconds", .number(Double(uptime)))]).serialized() + "\n")
        )
    }

    /// A stick with a `kiosk-staff` file at its top gets the play counts as `kiosk-play-counts.csv`
    /// (`StaffExport`): on `stickExporter`'s worker in the appliance, so the loop never waits for
    /// the stick; in place where none is set (tests).
    func exportPlayCounts(to mountPoint: String) {
        guard let exhibit else { return }
        let csv = Array(exhibit.counts.csv.utf8)
        if let stickExporter {
            stickExporter(mountPoint, csv)
        } else {
            playCountsExported(StaffExport.run(mountPoint: mountPoint, csv: csv))
        }
    }

    /// What the staff export did, back on the loop thread.
    public func playCountsExported(_ outcome: StaffExport.Outcome) {
        scheduler.assertInLoop()
        guard let exhibit else { return }
        switch outcome {
        case .notStaffStick:
            break
        case .markerRefused(let error):
            Log.warning("exhibit: \(error); not taken for a staff stick")
        case .written(let file):
            Log.notice("exhibit: play counts written to \(file)")
            showTransient(
                MessageState(title: "Play counts saved", detail: StaffExport.fileName, kind: .info), seconds: 4)
        case .failed(let file, let error):
            Log.warning("exhibit: cannot write the play counts to \(file): \(error)")
            exhibit.noteError("cannot write the play counts to the staff stick: \(error)")
        }
    }

    private func describe(_ source: ExhibitConfig.Source) -> String {
        switch source {
        case .file(let path): path
        case .collection(let name): "the collection \"\(name)\""
        case .folder(let path): "the folder \(path)"
        }
    }
}
