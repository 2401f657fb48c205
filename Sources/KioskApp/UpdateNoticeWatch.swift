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
/// The file's format: the first line `info` or `error`, the second the title ("Update 1.4
/// installed"), the third, optional, the detail ("it starts at the next power-on").
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
    private let onNotice: (MessageState) -> Void
    private var timer: TimerID?
    /// The file's bytes at the last read: a notice is handed over once, when they change.
    private var last: [UInt8]?

    public init(path: String, scheduler: any Scheduler, onNotice: @escaping (MessageState) -> Void) {
        self.path = path
        self.scheduler = scheduler
        self.onNotice = onNotice
    }

    /// The message for the notice file's `text`; nil when it holds none.
    public static func message(_ text: String) -> MessageState? {
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingWhitespace() }
        guard let first = lines.first else { return nil }
        switch first {
        case "info", "error":
            guard lines.count > 1, !lines[1].isEmpty else { return nil }
            let detail = lines.count > 2 && !lines[2].isEmpty ? lines[2] : nil
            return MessageState(title: lines[1], detail: detail, kind: first == "error" ? .error : .info)
        default:
            // A line without its kind (an older kiosk-update): the whole line, as news.
            return first.isEmpty ? nil : MessageState(title: first, detail: nil, kind: .info)
        }
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
        if let message = Self.message(String(decoding: bytes, as: UTF8.self)) { onNotice(message) }
    }

    public func stop() {
        if let timer { scheduler.cancel(timer) }
        timer = nil
    }

    /// Follows the update's notices when the environment names their file (the SD-card image).
    @Sendable public static func make(_ context: ApplianceContext) throws -> (any ApplianceService)? {
        guard let path = Syscalls.environment(environmentVariable), !path.isEmpty else { return nil }
        let player = context.player
        let watch = UpdateNoticeWatch(path: path, scheduler: context.loop) { player.showUpdateNotice($0) }
        Log.info("updates: watching \(path) for the update's notices")
        watch.start()
        return watch
    }
}
