// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskModel
import KioskSystem

/// What a stick offers (`StickOffer`), shown, said and taken only by holding Select (the
/// `play-from-start` gesture, as a new card's link): an update kiosk-update found (the player then
/// writes the confirmation kiosk-update waits for, in its own runtime directory: it never gains a
/// privilege), a set of cards and bookmarks to import (`StickSet`: checked whole first; the state
/// before it kept for one undo), and the export of this box's set to a stick carrying
/// `kiosk-export`.
/// Thread: the loop thread, like `Player`.
extension Player {
    /// A notice from the updater's file (`UpdateNoticeWatch`): news is shown and said; an offer
    /// waits for the hold; a withdrawal takes its offer away.
    public func updateNoticeCame(_ notice: UpdateNotice) {
        scheduler.assertInLoop()
        switch notice {
        case .news(let message):
            // The player said "Installing update X" itself when it confirmed: not twice.
            guard message != transientMessage else { return }
            showUpdateNotice(message)
        case .offer(let offer):
            Log.notice("updates: offering update \(offer.version) (\(offer.sha256.prefix(12))…)")
            apply(stickOffer.handle(.offered(.update(offer), gesture: linkGesture)))
        case .withdrawn(let sha256, let title):
            apply(stickOffer.handle(.withdrawn(.update(sha256: sha256, title: title), showing: transientMessage)))
        }
    }

    /// While an offer shows, play-from-start (holding Select) takes it; true when the action was
    /// used so.
    func answerStickOffer(_ action: Action) -> Bool {
        let effects = stickOffer.handle(.answered(action, showing: transientMessage))
        apply(effects)
        return !effects.isEmpty
    }

    /// The offer made as `generation` has had its time.
    func stickOfferExpired(generation: Int) {
        apply(stickOffer.handle(.expired(generation: generation)))
    }

    // MARK: - sets on sticks

    /// A stick came: one carrying `kiosk-export` gets this box's set; one carrying a set is offered
    /// for import (or, when the set is not usable, says which file and why, changing nothing). The
    /// stick is read on `stickSetLooker`'s worker in the appliance, so the loop never waits for it
    /// (in place where none is set: tests).
    func stickSetArrived(mountPoint: String) {
        apply(stickOffer.handle(.looking(mountPoint: mountPoint)))
        if let stickSetLooker {
            stickSetLooker(mountPoint)
        } else {
            stickSetLooked(StickSet.arrival(at: mountPoint), mountPoint: mountPoint)
        }
    }

    /// What the look at the stick at `mountPoint` found, back on the loop thread. A stick removed
    /// meanwhile is not answered.
    public func stickSetLooked(_ arrival: StickSet.Arrival, mountPoint: String) {
        scheduler.assertInLoop()
        guard stickOffer.looking.contains(mountPoint) else { return }
        switch arrival {
        case .exportStick:
            apply(stickOffer.handle(.lookEnded(mountPoint: mountPoint)))
            exportStickSet(to: mountPoint)
        case .found(.none):
            apply(stickOffer.handle(.lookEnded(mountPoint: mountPoint)))
        case .found(.refused(_, let problem)):
            apply(stickOffer.handle(.lookEnded(mountPoint: mountPoint)))
            Log.warning("stick set: \(problem); nothing changed")
            showTransient(
                MessageState(title: "Cannot use \(StickSet.fileName)", detail: problem, kind: .error), seconds: 10)
        case .found(.set(let set, let file)):
            Log.notice("stick set: \(file): \(set.summary); offering it")
            apply(stickOffer.handle(.offered(.stickSet(set, file: file, mountPoint: mountPoint), gesture: linkGesture)))
        }
        refreshScreen()
    }

    /// A stick went away: its set's offer with it.
    func stickSetRemoved(mountPoint: String) {
        apply(stickOffer.handle(.withdrawn(.stick(mountPoint: mountPoint), showing: transientMessage)))
    }

    /// This box's set as it is now: its cards, their rounds, its bookmarks and the settings of its
    /// config file (less what belongs to this box's hardware).
    var currentStickSet: StickSet {
        cards.reloadIfChanged()
        // The settings in force: the config file's, with those imported over it (ImportedSettings).
        let file = config.file.isEmpty ? nil : try? ConfigError.contents(of: config.file)
        let inForce = ImportedSettings.applying(toConfig: file, stateDirectory: config.stateDirectory).bytes
        let settings = inForce.flatMap { StickSet.settings(fromConfig: $0) }
        return StickSet(links: cards.links, played: cards.played, bookmarks: memory.bookmarks, settings: settings)
    }

    /// Keeps `settings` in the state directory to apply over the config file from the next start
    /// (the config file is root's, the player writes only its state directory).
    private func importSettings(_ settings: JSONValue) {
        let file = config.file.isEmpty ? nil : try? ConfigError.contents(of: config.file)
        let basedOn = file.flatMap { try? JSONValue.parse($0) } ?? .object([])
        let imported = ImportedSettings(settings: settings, basedOn: basedOn)
        keepImportedSettings(imported)
        Log.notice(
            "stick set: settings \((settings.object ?? []).map(\.key).joined(separator: ", ")) apply from the next start"
        )
    }

    /// Writes this box's set to the stick at `mountPoint` (on `stickSetExporter`'s worker in the
    /// appliance, so the loop never waits for the stick; in place where none is set).
    func exportStickSet(to mountPoint: String) {
        let set = currentStickSet
        Log.notice("stick set: exporting \(set.summary) to \(mountPoint)")
        if let stickSetExporter {
            stickSetExporter(mountPoint, set.text, set.summary)
        } else {
            stickSetExported(StickSet.export(set.text, to: mountPoint), summary: set.summary)
        }
    }

    /// What the export did, back on the loop thread.
    public func stickSetExported(_ outcome: StickSet.ExportOutcome, summary: String) {
        scheduler.assertInLoop()
        switch outcome {
        case .written(let file):
            Log.notice("stick set: \(summary) written to \(file)")
            showTransient(
                MessageState(title: "Cards and bookmarks saved to the stick", detail: summary, kind: .info), seconds: 6)
        case .failed(let file, let error):
            Log.warning("stick set: cannot write \(file): \(error)")
            showTransient(
                MessageState(title: "Cannot save to the stick", detail: "\(file): \(error)", kind: .error), seconds: 10)
        }
        refreshScreen()
    }

    /// Replaces the box's cards and bookmarks with `set`'s, keeping what was there for one undo
    /// (in memory, and as a set in the state directory that a person can put on a stick).
    func importStickSet(_ set: StickSet, file: String) {
        let previous = currentStickSet
        recorder.writer.submitFile(config.stateDirectory + "/" + Self.beforeImportFile, text: previous.text)
        guard putInPlace(set, failure: "cannot import \(file)", title: "Cannot import the cards") else { return }
        Log.notice("stick set: imported \(set.summary) from \(file) (the state before kept for one undo)")
        var summary = set.summary
        if let settings = set.settings {
            importSettings(settings)
            summary += ", settings from the next start"
        }
        apply(stickOffer.handle(.imported(previous: previous, summary: summary, gesture: linkGesture)))
    }

    /// Puts the cards and bookmarks from before the import back.
    func undoStickSetImport(_ previous: StickSet) {
        guard putInPlace(previous, failure: "cannot undo the import", title: "Cannot undo the import") else { return }
        // The settings in force before, imported again: the same as if the import had not been.
        importSettings(previous.settings ?? .object([]))
        Log.notice("stick set: import undone (\(previous.summary) back)")
        apply(stickOffer.handle(.undone))
    }

    /// The cards and bookmarks of `set` in place of the box's, what played by a card forgotten;
    /// false, logged as `failure` and shown as `title`, when the cards could not be written.
    private func putInPlace(_ set: StickSet, failure: String, title: String) -> Bool {
        do {
            try cards.replaceAll(set.links, played: set.played)
        } catch {
            Log.error("stick set: \(failure): \(error)")
            showTransient(MessageState(title: title, detail: "\(error)", kind: .error), seconds: 10)
            return false
        }
        memory.replaceBookmarks(set.bookmarks)
        forgetCard()
        return true
    }

    /// The state before the last import, a set in the state directory.
    static let beforeImportFile = "kiosk-set.before-import.json"
}
