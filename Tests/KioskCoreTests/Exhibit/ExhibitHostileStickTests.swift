// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskDisplay
import KioskLibrary
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskCore

/// A hostile stick at an exhibit station (issue 44): its `exhibit.json` and staff marker are
/// FIFOs, sockets, links to /dev/zero or out of the volume, folders; its export target a link to
/// the state directory. Nothing blocks the loop, nothing is read through a link, nothing is
/// written outside the stick.
@Suite struct ExhibitHostileStickTests {
    /// A "state directory" beside the stick, with a station a link on the stick could lend.
    struct StateDirectory {
        let dir: TemporaryDirectory
        static let stolenStation = #"{"clips": [{"name": "stolen", "input": {"button": "B"}, "play": "a.flac"}]}"#
        static let cards = #"{"cards": "the links a child made"}"#

        init() throws {
            dir = try TemporaryDirectory("kiosk-state")
            try dir.write("station.json", Self.stolenStation)
            try dir.write("cards.json", Self.cards)
        }

        func text(_ name: String) throws -> String {
            String(decoding: try Syscalls.readFile(dir.file(name)), as: UTF8.self)
        }
    }

    /// The station's screen message after the stick came in, or nil.
    static func message(_ rig: PlayerRig) -> MessageState? {
        guard case .message(let message) = rig.player.screenState() else { return nil }
        return message
    }

    @Test(arguments: HostileEntry.allCases)
    func aHostileExhibitJSONIsRefusedNamingWhatItIsAndTheConfigsClipsStay(entry: HostileEntry) throws {
        let state = try StateDirectory()
        defer { state.dir.remove() }
        let stick = try ExhibitStationTests.stick(["a.flac"])
        defer { stick.remove() }
        try entry.make(at: stick.file("exhibit.json"), outside: state.dir.file("station.json"))
        let rig = try ExhibitStationTests.rig(clips: [ExhibitStationTests.configClip])
        // The FIFO is opened on the loop thread, before READY: were it opened plainly, the rescue
        // would have to let the open go.
        let rescue = FIFORescue(fifos: [stick.file("exhibit.json")])
        try ExhibitStationTests.insert(stick, into: rig)
        #expect(!rescue.finish(), "the loop waited for exhibit.json's writer")
        #expect(rig.player.exhibitClips.map(\.name) == ["config"])
        let message = try #require(Self.message(rig))
        #expect(message.title == "exhibit.json not used")
        #expect((message.detail ?? "").contains(entry.expectedWords), "\(message.detail ?? "")")
    }

    @Test func aStaffExportThroughLinksToTheStateDirectoryLeavesTheirTargetsUnchanged() throws {
        let state = try StateDirectory()
        defer { state.dir.remove() }
        let staff = try TemporaryDirectory("kiosk-staff-stick")
        defer { staff.remove() }
        try staff.write(StaffExport.marker, "")
        // The old export's temporary name and the export itself, both links to state files.
        #expect(symlink(state.dir.file("cards.json"), staff.file(".kiosk-play-counts.csv.tmp")) == 0)
        #expect(symlink(state.dir.file("station.json"), staff.file(StaffExport.fileName)) == 0)
        let wall = TestWallClock()
        let rig = try ExhibitHoursTests.rig(wall, hours: [])
        rig.player.exhibitClock = wall.clock
        try ExhibitHoursTests.scan(rig)
        rig.player.handle(
            .volumeAdded(VolumeID(rawValue: "staff"), mountPoint: staff.path), catalog: rig.player.catalog!)
        #expect(try state.text("cards.json") == StateDirectory.cards)
        #expect(try state.text("station.json") == StateDirectory.stolenStation)
        #expect(try Syscalls.linkStatus(staff.file(StaffExport.fileName)).st_mode & S_IFMT == S_IFREG)
        #expect(
            String(decoding: try Syscalls.readFile(staff.file(StaffExport.fileName)), as: UTF8.self).hasPrefix(
                "date,clip,plays\n"))
    }

    @Test(arguments: HostileEntry.allCases)
    func aStaffMarkerThatIsNoRegularFileMakesNoStaffStick(entry: HostileEntry) throws {
        let state = try StateDirectory()
        defer { state.dir.remove() }
        let staff = try TemporaryDirectory("kiosk-staff-stick")
        defer { staff.remove() }
        try entry.make(at: staff.file(StaffExport.marker), outside: state.dir.file("cards.json"))
        let wall = TestWallClock()
        let rig = try ExhibitHoursTests.rig(wall, hours: [])
        rig.player.exhibitClock = wall.clock
        try ExhibitHoursTests.scan(rig)
        let rescue = FIFORescue(fifos: [staff.file(StaffExport.marker)])
        rig.player.handle(
            .volumeAdded(VolumeID(rawValue: "staff"), mountPoint: staff.path), catalog: rig.player.catalog!)
        #expect(!rescue.finish(), "the marker's open waited for a writer")
        #expect(!Syscalls.exists(staff.file(StaffExport.fileName)))
    }

    /// What the appliance gets on a stick as the automounter mounts any but a staff stick: the
    /// export fails, and says why, naming the file.
    @Test func aStaffExportThatCannotBeWrittenIsReportedNamingTheFile() throws {
        let staff = try TemporaryDirectory("kiosk-staff-stick")
        defer { staff.remove() }
        try staff.write(StaffExport.marker, "")
        // A folder where the export goes: renameat over it fails (EISDIR), as EROFS would.
        try Syscalls.mkdir(staff.file(StaffExport.fileName))
        let outcome = StaffExport.run(mountPoint: staff.path, csv: Array("date,clip,plays\n".utf8))
        guard case .failed(let file, let error) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(file == staff.file(StaffExport.fileName))
        #expect("\(error)".contains(staff.file(StaffExport.fileName)), "\(error)")
        #expect(listDirectory(staff.path) == [StaffExport.fileName, StaffExport.marker], "no temporary file left")
    }
}
