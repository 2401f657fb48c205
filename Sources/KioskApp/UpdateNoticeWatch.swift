// SPDX-License-Identifier: GPL-3.0-or-later
import KioskCore
import KioskModel
import KioskSystem

/// The update's news, for the people at the box: on the SD-card image, `kiosk-update` (a bundle
/// found on a stick, installed or refused, the new version's health check) and `kiosk-ab` (an update
/// that did not start) write their newest notice to the file `KIOSK_UPDATE_NOTICE` names (the player
/// unit's drop-in sets /run/kiosk-update/notice; docs/updates.md). This reads it as often as
/// `intervalMilliseconds` and hands each new notice to the player, which shows it and, with speech
/// on, says it. The file is on a RAM file system and a few lines long: a read costs less than a
/// watch on its directory would (and kiosk-update replaces it by rename, which a watch of the file
/// itself would lose).
///
/// The file's format (`UpdateNotice`): the first line the kind — `info` or `error` (news: the title,
/// "Update 1.4 installed", and an optional detail), `offer` (a bundle waiting for "hold Select to
/// install": its version and SHA-256) or `withdrawn` (that offer is gone). The player answers an
/// offer by writing the file `KIOSK_UPDATE_CONFIRM` names, in its own runtime directory
/// (`Player.updateConfirmPath`), which kiosk-update checks.
///
/// Thread: the loop thread (the scheduler's) only.
public final class UpdateNoticeWatch: ApplianceService {
    /// The environment variable that names the notice file.
    public static let environmentVariable = "KIOSK_UPDATE_NOTICE"
    /// How often the file is read: a notice shows within two seconds of being written.
    public static let intervalMilliseconds = 2000
    /// How much of the file is read: a notice is a few short lines.
    static let sizeLimit = 4 << 10

    private let path: String
    private let scheduler: any Scheduler
    private let onNotice: (UpdateNotice) -> Void
    private var timer: TimerID?
    /// The file's bytes at the last read: a notice is handed over once, when they change.
    private var last: [UInt8]?

    public init(path: String, scheduler: any Scheduler, onNotice: @escaping (UpdateNotice) -> Void) {
        self.path = path
        self.scheduler = scheduler
        self.onNotice = onNotice
    }

    /// The news in the notice file's `text`; nil when it holds none (or an offer).
    public static func message(_ text: String) -> MessageState? {
        if case .news(let message)? = UpdateNotice.parse(text) { message } else { nil }
    }

    /// Reads the file now (a notice written before the player started shows at once) and then every
    /// `intervalMilliseconds`.
    public func start() {
        scheduler.assertInLoop()
        check()
        timer = scheduler.schedule(
            afterMilliseconds: Self.intervalMilliseconds, repeatingMilliseconds: Self.intervalMilliseconds
        ) { [unowned self] in self.check() }
    }

    /// Reads the file; new contents that make a notice go to `onNotice`. A file that is missing or
    /// cannot be read holds no notice (kiosk-update makes it when it has one).
    public func check() {
        scheduler.assertInLoop()
        let bytes = (try? Syscalls.readFile(path, limit: Self.sizeLimit)) ?? []
        guard bytes != last else { return }
        last = bytes
        if let notice = UpdateNotice.parse(String(decoding: bytes, as: UTF8.self)) { onNotice(notice) }
    }

    public func stop() {
        if let timer { scheduler.cancel(timer) }
        timer = nil
    }

    /// The environment variable that names the file the player confirms an offer in.
    public static let confirmVariable = "KIOSK_UPDATE_CONFIRM"

    /// Follows the update's notices when the environment names their file (the SD-card image).
    @Sendable public static func make(_ context: ApplianceContext) throws -> (any ApplianceService)? {
        guard let path = Syscalls.environment(environmentVariable), !path.isEmpty else { return nil }
        let player = context.player
        player.updateConfirmPath = Syscalls.environment(confirmVariable).flatMap { $0.isEmpty ? nil : $0 }
        if player.updateConfirmPath == nil {
            Log.warning("updates: \(confirmVariable) is not set: an update offer cannot be taken")
        }
        let watch = UpdateNoticeWatch(path: path, scheduler: context.loop) { player.updateNoticeCame($0) }
        Log.info("updates: watching \(path) for the update's notices")
        watch.start()
        return watch
    }
}
