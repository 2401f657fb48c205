// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskSystem

/// The settings a parent changes from the phone page: the volume's limits, the volume at every
/// start, the idle power-off, the spoken prompts and the bedtime rules. A change is checked by the config's own parser
/// (`Config.parse`, what `check-config` runs) over the config file with it in place, then kept as
/// the box's imported settings (`ImportedSettings`: the config file is root's and never written; an
/// edit of it later wins), so it survives a restart. The volume's limits apply at once (a volume
/// above the new ceiling comes down to it), and so do the bedtime rules (the day's counts carry
/// over); the rest from the next start, and the answer says which.
///
/// Thread: the loop thread, like `Player`. It reads the config file (at most 1 MiB, on the card the
/// player started from) and the imported settings on the loop thread, as an import from a stick does.
extension Player {
    /// The config keys the page may set.
    public static let phoneSettingKeys: Set<String> = [
        "volumeMin", "volumeMax", "volumeAtBoot", "idlePowerOffMinutes", "speech", "bedtime",
    ]
    /// Of them, those that apply at once.
    static let liveSettingKeys: Set<String> = ["volumeMin", "volumeMax", "bedtime"]

    /// The settings in force, as the page shows them.
    public var phoneSettings: [(name: String, value: String)] {
        let limits = volumeControl.configured.range
        var out: [(String, String)] = [
            ("volumemin", "\(limits.lowerBound)"), ("volumemax", "\(limits.upperBound)"),
            ("idlepoweroffminutes", "\(config.idlePowerOffMinutes)"),
            ("speechmode", config.speech.mode?.rawValue ?? "auto"),
        ]
        if let atBoot = config.volumeAtBoot { out.append(("volumeatboot", "\(atBoot)")) }
        // The rules in force, as check-config prints them (one line: JSON's strings escape breaks).
        out.append(("bedtime", bedtime?.config.json().serialized() ?? "null"))
        // The windows and the silent night wait for a synchronised clock (a Pi has no RTC).
        if let why = env.wallClock.unsynchronized() { out.append(("clockunsynchronized", why)) }
        return out
    }

    /// Changes the settings named in `changes` (an object of config keys; `speech`'s members replace
    /// only those members, a null member going back to its default); throws the parser's message, changing nothing, when the config would not
    /// parse with them. Returns the keys in force now and those from the next start.
    public func changeSettings(_ changes: JSONValue, by who: String) throws(PhoneRequestError)
        -> (now: [String], nextStart: [String])
    {
        scheduler.assertInLoop()
        guard let members = changes.object, !members.isEmpty else { throw PhoneRequestError("no settings given") }
        if let key = members.first(where: { !Self.phoneSettingKeys.contains($0.key) })?.key {
            throw PhoneRequestError("\(key) is not set from the phone")
        }
        let basedOn: JSONValue
        do {
            basedOn =
                config.file.isEmpty
                ? .object([]) : try JSONValue.parse(try ConfigError.contents(of: config.file))
        } catch {
            throw PhoneRequestError("the config file cannot be read: \(error)")
        }
        // What was imported over this very config file stays; a stale import is replaced.
        let importedFile = config.stateDirectory + "/" + ImportedSettings.fileName
        var settings: [(key: String, value: JSONValue)] = []
        let prior =
            keptSettings
            ?? (try? ConfigError.contents(of: importedFile)).flatMap {
                try? ImportedSettings.parse($0, file: importedFile)
            }
        if let prior, prior.basedOn == basedOn { settings = prior.settings.object ?? [] }
        let current = ImportedSettings(settings: .object(settings), basedOn: basedOn).merged(over: basedOn)
        for (key, value) in members {
            var value = value
            if key == "speech", let given = value.object {
                // Members of `speech` replace those members, the others stay as they are; a member
                // given as null goes (back to its default).
                let old = current.object?.first { $0.key == key }?.value.object ?? []
                value = .object(
                    old.filter { o in !given.contains { $0.key == o.key } } + given.filter { $0.value != .null })
            }
            settings.removeAll { $0.key == key }
            settings.append((key, value))
        }
        let imported = ImportedSettings(settings: .object(settings), basedOn: basedOn)
        let checked: Config
        do {
            checked = try Config.parse(
                Array(imported.merged(over: basedOn).serialized().utf8), file: "the settings from the phone")
        } catch {
            throw PhoneRequestError("\(error)")
        }
        keepImportedSettings(imported)
        let keys = members.map(\.key)
        let now = keys.filter(Self.liveSettingKeys.contains)
        let later = keys.filter { !Self.liveSettingKeys.contains($0) }
        Log.notice(
            "settings \(keys.joined(separator: ", ")) changed by \(who)"
                + (later.isEmpty ? "" : "; \(later.joined(separator: ", ")) from the next start"))
        if now.contains("volumeMin") || now.contains("volumeMax") { applyVolumeLimits(checked.volumeLimits) }
        if now.contains("bedtime") { replaceBedtime(checked.bedtime) }
        return (now, later)
    }

    /// Hands `imported` to the writer as the state directory's imported settings, and keeps it as
    /// the base of the next change (the one writer of both: a stick's import comes here too).
    func keepImportedSettings(_ imported: ImportedSettings) {
        recorder.writer.submitFile(config.stateDirectory + "/" + ImportedSettings.fileName, text: imported.text)
        keptSettings = imported
    }

    /// New configured limits: the volume moves into them (a ceiling lowered brings it down now).
    private func applyVolumeLimits(_ limits: VolumeLimits) {
        apply(transport.handle(.configuredLimits(limits)))
        let range = volumeLimits.range
        if volume > range.upperBound {
            changeVolume(by: range.upperBound - volume)
        } else if volume < range.lowerBound {
            changeVolume(by: range.lowerBound - volume)
        }
        outbox.remoteChanges.note(.volume)
        refreshScreen()
    }
}
