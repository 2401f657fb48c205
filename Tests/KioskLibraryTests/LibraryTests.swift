// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskLibrary

@Suite struct MountInfoTests {
    @Test func parsesFieldsAndEscapes() {
        let text = """
            27 1 254:0 / / rw,relatime - ext4 /dev/vda rw
            88 27 8:17 / /media/kiosk/MY\\040STICK rw,nosuid shared:5 master:1 - vfat /dev/sdb1 rw,fmask=0022
            89 27 0:50 /tmp/x /mnt/bind rw - ext4 /dev/vda rw
            90 27 0:51 / /media/auto rw - autofs systemd-1 rw

            """
        let mounts = MountInfo.parse(text)
        #expect(mounts.count == 4)
        #expect(mounts[1].mountPoint == "/media/kiosk/MY STICK")
        #expect(mounts[1].source == "/dev/sdb1")
        #expect(mounts[1].fileSystemType == "vfat")
        #expect(mounts[1].device == "8:17")
        #expect(mounts[2].root == "/tmp/x")
        #expect(MountInfo.unescape("a\\134b\\011c\\012") == "a\\b\tc\n")
    }

    @Test func mediaRootMatching() {
        let roots = ["/media", "/mnt/", "/run/media"]
        #expect(MountInfo.isUnder("/media/kiosk/STICK", roots: roots))
        #expect(MountInfo.isUnder("/mnt", roots: roots))
        #expect(!MountInfo.isUnder("/mediastuff", roots: roots))
        #expect(!MountInfo.isUnder("/", roots: roots))
    }

    @Test func volumeIdentityFromByUUID() throws {
        let dir = try TemporaryDirectory("kiosk-by-uuid")
        defer { dir.remove() }
        // A stand-in for /dev/disk/by-uuid: a link named by UUID to a device node.
        let st = try Syscalls.fileStatus("/dev/null")
        let rdev = UInt64(st.st_rdev)
        let device =
            "\(((rdev >> 8) & 0xFFF) | ((rdev >> 32) & ~UInt64(0xFFF))):\((rdev & 0xFF) | ((rdev >> 12) & ~UInt64(0xFF)))"
        #expect(symlink("/dev/null", dir.file("1234-ABCD")) == 0)
        let mount = MountedVolume(
            mountPoint: "/media/x", source: "/dev/sdz9", fileSystemType: "vfat", root: "/", device: device)
        #expect(VolumeIdentity.identify(mount, byUUIDDirectory: dir.path).rawValue == "1234-ABCD")
        let bind = MountedVolume(
            mountPoint: "/media/y", source: "/dev/sdz9", fileSystemType: "vfat", root: "/sub", device: device)
        #expect(VolumeIdentity.identify(bind, byUUIDDirectory: dir.path).rawValue.hasPrefix("1234-ABCD-"))
        let other = MountedVolume(
            mountPoint: "/media/z", source: "tmpfs", fileSystemType: "tmpfs", root: "/", device: "0:99")
        let id = VolumeIdentity.identify(other, byUUIDDirectory: dir.path)
        #expect(id.rawValue.hasPrefix("path-"))
        #expect(id == VolumeIdentity.identify(other, byUUIDDirectory: dir.path))
        #expect(VolumeIdentity.sanitize("../evil") != "../evil")
    }
}

/// Collects a library's events on the loop thread.
final class EventLog {
    var events: [LibraryEvent] = []

    /// The library's `onEvent`: keeps the event (the catalog is read from the library).
    func record(_ event: LibraryEvent, _ catalog: Catalog) { events.append(event) }

    func count(_ match: (LibraryEvent) -> Bool) -> Int { events.filter(match).count }

    var finished: Int {
        count {
            if case .scanFinished = $0 { return true }
            return false
        }
    }
}

@Suite(.serialized) struct LibraryTests {
    @Test func addedFolderIsScannedOnTheWorkerAndReported() throws {
        let music = try TestLibrary()
        defer { music.remove() }
        let state = try TemporaryDirectory("kiosk-state")
        defer { state.remove() }
        for i in 1...3 {
            try music.track("Album/\(i).flac", title: "T\(i)", artist: "Band", album: "Album", track: "\(i)")
        }
        let loop = try EventLoop()
        let log = EventLog()
        let library = try Library(loop: loop, stateDirectory: state.path, mediaRoots: [], onEvent: log.record)
        library.addVolume(path: music.root)
        #expect(try loop.run(until: { log.finished == 1 }, timeoutNanoseconds: 30_000_000_000))
        let id = VolumeIdentity.identify(directory: music.root)
        guard case .volumeAdded(id, music.root)? = log.events.first else {
            Issue.record("first event: \(String(describing: log.events.first))")
            return
        }
        #expect(
            log.events.contains(
                .scanFinished(id, tracks: 3, problems: 0, seconds: library.volumes[0].statistics!.seconds)))
        #expect(log.events.last == .catalogChanged)
        #expect(library.catalog.trackCount == 3)
        #expect(library.catalog.allTracks.allSatisfy { $0.volume == id && $0.path.hasPrefix(music.root + "/") })
        #expect(Syscalls.exists(library.indexPath(for: id)))
        #expect(library.isIdle)

        // Adding it again rescans, reading nothing.
        library.addVolume(path: music.root)
        #expect(try loop.run(until: { log.finished == 2 }, timeoutNanoseconds: 30_000_000_000))
        #expect(library.volumes.first?.statistics?.filesRead == 0)

        library.removeVolume(path: music.root)
        #expect(library.catalog.trackCount == 0)
        #expect(log.events.suffix(2) == [.volumeRemoved(id, mountPoint: music.root), .catalogChanged])
        library.stop()
    }

    /// A rescan that finds nothing changed keeps the catalog (no `catalogChanged`); a volume
    /// plugged in again finds its contents from before it left and reads nothing.
    @Test func unchangedRescanKeepsTheCatalogAndAReturningVolumeReadsNothing() throws {
        let music = try TestLibrary()
        defer { music.remove() }
        let state = try TemporaryDirectory("kiosk-state")
        defer { state.remove() }
        for i in 1...3 { try music.track("Album/\(i).flac", title: "T\(i)", album: "Album", track: "\(i)") }
        let loop = try EventLoop()
        let log = EventLog()
        let library = try Library(loop: loop, stateDirectory: state.path, mediaRoots: [], onEvent: log.record)
        library.addVolume(path: music.root)
        #expect(try loop.run(until: { log.finished == 1 }, timeoutNanoseconds: 30_000_000_000))
        let first = library.catalog
        #expect(first.trackCount == 3)

        library.rescanAll()
        #expect(try loop.run(until: { log.finished == 2 }, timeoutNanoseconds: 30_000_000_000))
        #expect(library.volumes.first?.statistics?.reusedPrevious == true)
        #expect(library.catalog === first)
        #expect(log.count { $0 == .catalogChanged } == 1)

        try music.track("Album/4.flac", title: "T4", album: "Album", track: "4")
        library.rescanAll()
        #expect(try loop.run(until: { log.finished == 3 }, timeoutNanoseconds: 30_000_000_000))
        #expect(library.volumes.first?.statistics?.reusedPrevious == false)
        #expect(library.volumes.first?.statistics?.filesRead == 1)
        #expect(library.catalog.trackCount == 4)
        #expect(log.count { $0 == .catalogChanged } == 2)

        library.removeVolume(path: music.root)
        #expect(library.catalog.trackCount == 0)
        library.addVolume(path: music.root)
        #expect(try loop.run(until: { log.finished == 4 }, timeoutNanoseconds: 30_000_000_000))
        #expect(library.volumes.first?.statistics?.reusedPrevious == true)
        #expect(library.volumes.first?.statistics?.filesRead == 0)
        #expect(library.catalog.trackCount == 4)
        #expect(log.events.last == .catalogChanged)
        library.stop()
    }

    @Test func twoVolumesMergeAndLeaveIndependently() throws {
        let a = try TestLibrary()
        defer { a.remove() }
        let b = try TestLibrary()
        defer { b.remove() }
        let state = try TemporaryDirectory("kiosk-state")
        defer { state.remove() }
        try a.track("x.flac", title: "From A", artist: "Same", album: "Shared")
        try b.track("y.flac", title: "From B", artist: "Same", album: "Shared")
        let loop = try EventLoop()
        let log = EventLog()
        let library = try Library(loop: loop, stateDirectory: state.path, mediaRoots: [], onEvent: log.record)
        library.addVolume(path: a.root)
        library.addVolume(path: b.root)
        #expect(try loop.run(until: { log.finished == 2 }, timeoutNanoseconds: 30_000_000_000))
        #expect(library.catalog.trackCount == 2)
        let shared = try #require(library.catalog.named(.album, "Shared"))
        #expect(shared.trackCount == 2)
        library.removeVolume(path: a.root)
        #expect(library.catalog.query([]).map(\.title) == ["From B"])
        library.stop()
    }

    @Test func volumeRemovedDuringItsScanLeavesNothingBehind() throws {
        let music = try TestLibrary()
        defer { music.remove() }
        let state = try TemporaryDirectory("kiosk-state")
        defer { state.remove() }
        for i in 1...40 { try music.track("\(i).flac", title: "T\(i)") }
        let loop = try EventLoop()
        let log = EventLog()
        let library = try Library(loop: loop, stateDirectory: state.path, mediaRoots: [], onEvent: log.record)
        library.addVolume(path: music.root)
        library.removeVolume(path: music.root)
        try loop.run(until: { library.isIdle }, timeoutNanoseconds: 30_000_000_000)
        try loop.run(forNanoseconds: 50_000_000)
        #expect(library.catalog.trackCount == 0)
        #expect(library.volumes.isEmpty)
        #expect(log.finished == 0)
    }

    /// Real mount events: a bind mount made under a temporary media root (needs root; skipped
    /// with the reason otherwise).
    @Test(.tags(.integration)) func mountAndUnmountUnderAMediaRootAddAndRemoveTheVolume() throws {
        guard getuid() == 0, let mount = which("mount"), let umount = which("umount") else {
            try skipTest("needs root and mount(8) to make a real mount")
            return
        }
        let media = try TemporaryDirectory("kiosk-media")
        defer { media.remove() }
        let music = try TestLibrary()
        defer { music.remove() }
        let state = try TemporaryDirectory("kiosk-state")
        defer { state.remove() }
        for i in 1...4 {
            try music.track("Album/\(i).flac", title: "T\(i)", artist: "Band", album: "Album", track: "\(i)")
        }
        let stick = media.file("STICK")
        try Syscalls.mkdirs(stick)

        let loop = try EventLoop()
        let log = EventLog()
        let library = try Library(loop: loop, stateDirectory: state.path, mediaRoots: [media.path], onEvent: log.record)
        library.start()
        try loop.run(forNanoseconds: 20_000_000)
        #expect(library.volumes.isEmpty)

        let bound = run(mount, ["--bind", music.root, stick])
        guard bound.status == 0 else {
            library.stop()
            try skipTest("mount --bind failed here (\(bound.errors)); cannot test mount events")
            return
        }
        var mounted = true
        defer { if mounted { _ = run(umount, ["-l", stick]) } }
        #expect(try loop.run(until: { log.finished == 1 }, timeoutNanoseconds: 30_000_000_000))
        let added = log.events.compactMap { event -> (VolumeID, String)? in
            if case .volumeAdded(let id, let point) = event { return (id, point) }
            return nil
        }
        #expect(added.count == 1)
        #expect(added.first?.1 == stick)
        #expect(library.catalog.trackCount == 4)
        #expect(library.catalog.allTracks.first?.path.hasPrefix(stick + "/") == true)
        let id = try #require(added.first?.0)
        // A clean unmount needs the stick's files closed: the background playability pass reads
        // them after the scan (as the scan does before it), so it is let finish first.
        #expect(try loop.run(until: { !library.isCheckingPlayability }, timeoutNanoseconds: 30_000_000_000))

        #expect(run(umount, [stick]).status == 0)
        mounted = false
        #expect(
            try loop.run(
                until: { log.events.contains(.volumeRemoved(id, mountPoint: stick)) },
                timeoutNanoseconds: 10_000_000_000))
        #expect(library.catalog.trackCount == 0)
        #expect(Syscalls.exists(library.indexPath(for: id)), "the index stays for a quick return")

        // Back again: the same identity, only changes are read (none).
        #expect(run(mount, ["--bind", music.root, stick]).status == 0)
        mounted = true
        #expect(try loop.run(until: { log.finished == 2 }, timeoutNanoseconds: 30_000_000_000))
        #expect(library.volumes.first?.id == id)
        #expect(library.volumes.first?.statistics?.filesRead == 0)
        #expect(library.catalog.trackCount == 4)
        library.stop()
    }

    @Test(.tags(.integration)) func tmpfsMountIsAVolumeToo() throws {
        guard getuid() == 0, let mount = which("mount"), let umount = which("umount") else {
            try skipTest("needs root and mount(8) to make a real mount")
            return
        }
        let media = try TemporaryDirectory("kiosk-media")
        defer { media.remove() }
        let state = try TemporaryDirectory("kiosk-state")
        defer { state.remove() }
        let stick = media.file("RAM")
        try Syscalls.mkdirs(stick)
        let made = run(mount, ["-t", "tmpfs", "-o", "size=16m", "kiosk-test", stick])
        guard made.status == 0 else {
            try skipTest("mount -t tmpfs failed here (\(made.errors))")
            return
        }
        defer { _ = run(umount, ["-l", stick]) }
        try SyntheticLibrary.writeFLAC(path: stick + "/song.flac", tags: [("TITLE", "In RAM")], seconds: 0.05)

        let loop = try EventLoop()
        let log = EventLog()
        let library = try Library(loop: loop, stateDirectory: state.path, mediaRoots: [media.path], onEvent: log.record)
        library.start()  // mounted already: scanned at start
        #expect(try loop.run(until: { log.finished == 1 }, timeoutNanoseconds: 30_000_000_000))
        #expect(library.catalog.allTracks.map(\.title) == ["In RAM"])
        #expect(library.volumes.first?.id.rawValue.hasPrefix("path-") == true)
        library.stop()
    }
}
