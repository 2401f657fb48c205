// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskApp

/// `UpdateNoticeWatch`: the notice file kiosk-update and kiosk-ab write on the SD-card image.
@Suite struct UpdateNoticeWatchTests {
    @Test func aNoticeHasItsKindTitleAndDetail() {
        #expect(
            UpdateNoticeWatch.message("info\nUpdate 1.4 installed\nIt starts at the next power-on\n")
                == MessageState(title: "Update 1.4 installed", detail: "It starts at the next power-on", kind: .info))
        #expect(
            UpdateNoticeWatch.message("error\nUpdate x.raucb refused\nsignature not valid; nothing changed\n")
                == MessageState(
                    title: "Update x.raucb refused", detail: "signature not valid; nothing changed", kind: .error))
        #expect(
            UpdateNoticeWatch.message("info\nUpdated to 1.4\n\n")
                == MessageState(title: "Updated to 1.4", detail: nil, kind: .info))
    }

    @Test func aLineWithoutItsKindIsNewsAndAnEmptyFileIsNone() {
        #expect(UpdateNoticeWatch.message("Updated to 1.4\n") == MessageState(title: "Updated to 1.4", kind: .info))
        #expect(UpdateNoticeWatch.message("") == nil)
        #expect(UpdateNoticeWatch.message("\n\n") == nil)
        #expect(UpdateNoticeWatch.message("error\n") == nil, "a kind without a title says nothing")
    }

    @Test func eachNewNoticeReachesThePlayerOnceAndANoticeAtStartShowsAtOnce() throws {
        let dir = try TemporaryDirectory("kiosk-update-notice")
        defer { dir.remove() }
        try dir.write("notice", "error\nThe update to 1.4 did not start\nstill on 1.3\n")
        let clock = VirtualClock()
        var shown: [MessageState] = []
        let watch = UpdateNoticeWatch(path: dir.file("notice"), scheduler: clock) {
            if case .news(let message) = $0 { shown.append(message) }
        }
        watch.start()
        #expect(shown.map(\.title) == ["The update to 1.4 did not start"])
        clock.advance(byMilliseconds: 3 * UpdateNoticeWatch.intervalMilliseconds)
        #expect(shown.count == 1, "the same notice is not shown again")
        try dir.write("notice", "info\nInstalling update 1.5\nThe music plays on\n")
        clock.advance(byMilliseconds: UpdateNoticeWatch.intervalMilliseconds)
        try dir.write("notice", "info\nUpdate 1.5 installed\nIt starts at the next power-on\n")
        clock.advance(byMilliseconds: UpdateNoticeWatch.intervalMilliseconds)
        #expect(
            shown.map(\.title) == ["The update to 1.4 did not start", "Installing update 1.5", "Update 1.5 installed"])
        watch.stop()
        try dir.write("notice", "info\nUpdated to 1.5\n")
        clock.advance(byMilliseconds: 2 * UpdateNoticeWatch.intervalMilliseconds)
        #expect(shown.count == 3, "stopped: no more reads")
    }

    @Test func aMissingFileOrOneTooLargeShowsNothingAndTheWatchGoesOn() throws {
        let dir = try TemporaryDirectory("kiosk-update-notice")
        defer { dir.remove() }
        let clock = VirtualClock()
        var shown: [MessageState] = []
        let watch = UpdateNoticeWatch(path: dir.file("notice"), scheduler: clock) {
            if case .news(let message) = $0 { shown.append(message) }
        }
        watch.start()
        try dir.write("notice", String(repeating: "x", count: UpdateNoticeWatch.sizeLimit * 4))
        clock.advance(byMilliseconds: UpdateNoticeWatch.intervalMilliseconds)
        #expect(shown.isEmpty)
        try dir.write("notice", "info\nUpdated to 1.5\n")
        clock.advance(byMilliseconds: UpdateNoticeWatch.intervalMilliseconds)
        #expect(shown.map(\.title) == ["Updated to 1.5"])
        watch.stop()
    }
}
