// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem
import KioskTestSupport
import Testing

/// The rule of docs/architecture.md, "Stick files": nothing outside `StickFile` opens a file a
/// stick names. This reads the sources and fails on a direct open (`Syscalls.readFile`,
/// `FileDescriptor.open`, `Syscalls.open`, ...) in a file not on the allow-list below, whose every
/// entry says why what it opens is not a stick's.
@Suite struct StickFileSeamTests {
    /// The calls that open a file by name, bypassing `StickFile`.
    static let directOpens = [
        "Syscalls.readFile(", "FileDescriptor.open(", "Syscalls.open(", "Syscalls.openat(", "kiosk_open(",
        "kiosk_openat(", "Glibc.open(", "fopen(", "DiskName.openable(",
    ]

    /// Files (under Sources/) allowed to open by name, and why; `lines`: only lines holding one of
    /// these texts (nil: any line of the file).
    struct Allowed {
        let file: String
        let lines: [String]?
        let why: String
    }

    static let allowed: [Allowed] = [
        // The seam itself and the syscall layer under it.
        .init(file: "KioskSystem/StickFile.swift", lines: nil, why: "the seam"),
        .init(file: "KioskSystem/Syscalls.swift", lines: nil, why: "the syscall layer (readFile of /proc)"),
        .init(file: "KioskSystem/FileDescriptor.swift", lines: nil, why: "the syscall layer"),
        // The state directory, the config, the runtime directory, logs.
        .init(file: "KioskSystem/AtomicFile.swift", lines: nil, why: "state files (the state directory)"),
        .init(file: "KioskSystem/SlotFile.swift", lines: nil, why: "state files (the state directory)"),
        .init(file: "KioskSystem/JSONReader.swift", lines: nil, why: "config.json and board profiles"),
        .init(file: "KioskSystem/Log.swift", lines: nil, why: "the log file"),
        .init(file: "KioskConfig/BoardProfile.swift", lines: nil, why: "/proc/device-tree and board profiles"),
        .init(file: "KioskConfig/DeviceTree.swift", lines: nil, why: "/proc/device-tree"),
        .init(file: "KioskCore/ClientQueueFile.swift", lines: nil, why: "the state directory"),
        .init(file: "KioskCore/ResumeStore.swift", lines: nil, why: "the state directory"),
        .init(file: "KioskCore/Exhibit/PlayCounts.swift", lines: nil, why: "the state directory"),
        .init(file: "KioskConfig/ExhibitClock.swift", lines: nil, why: "/sys (the RTC)"),
        .init(file: "KioskLibrary/ScanReadJournal.swift", lines: nil, why: "the state directory"),
        .init(file: "KioskLibrary/MountWatcher.swift", lines: nil, why: "/proc/self/mountinfo"),
        .init(file: "KioskLibrary/SyntheticLibrary.swift", lines: nil, why: "writes the generated demo library"),
        .init(file: "KioskMPD/MPDStoredPlaylists.swift", lines: nil, why: "the state directory"),
        .init(file: "KioskApp/DemoLibrary.swift", lines: nil, why: "the generated demo library's marker"),
        .init(file: "KioskApp/SettingsErrorNotice.swift", lines: nil, why: "the image's settings error in /run"),
        .init(file: "KioskApp/UpdateNoticeWatch.swift", lines: nil, why: "the image's update notice in /run"),
        // Devices and kernel files.
        .init(file: "KioskDisplay/FramebufferSurface.swift", lines: nil, why: "/dev/fb*, /dev/tty*, /sys"),
        .init(file: "KioskHardware/SpidevDevice.swift", lines: nil, why: "/dev/spidev*, /sys"),
        .init(file: "KioskHardware/BatteryGauge.swift", lines: nil, why: "/sys (power_supply, hwmon, IIO)"),
        .init(file: "KioskInput/Evdev.swift", lines: nil, why: "/dev/input"),
        .init(file: "KioskInput/UInputDevice.swift", lines: nil, why: "/sys"),
        .init(file: "KioskInput/EventScript.swift", lines: nil, why: "an event script the config names"),
        .init(file: "KioskDoctor/SystemRoot.swift", lines: nil, why: "the system's files under a root"),
        .init(file: "KioskDoctor/PowerCheck.swift", lines: nil, why: "/sys"),
        .init(file: "KioskDoctor/StateCheck.swift", lines: nil, why: "a probe in the state directory"),
        // Music files by name, after `StickFile.openMusic` or SourceFile (O_NONBLOCK, fstat regular)
        // checked the same path: libraries that take a name (TagLib, libFLAC's iterator, FFmpeg).
        .init(file: "KioskLibrary/MusicFileReader.swift", lines: ["DiskName.openable(path)"], why: "TagLib by name"),
        .init(file: "KioskLibrary/FLACFileReader.swift", lines: ["DiskName.openable(path)"], why: "libFLAC by name"),
        .init(file: "KioskAudio/MP4Decoder.swift", lines: ["DiskName.openable(path)"], why: "FFmpeg by name"),
        .init(file: "KioskAudio/SourceFile.swift", lines: ["O_NONBLOCK"], why: "O_NONBLOCK and fstat regular"),
        // Tools run by a person on paths they give, not the appliance.
        .init(file: "kiosk-bench/", lines: nil, why: "benchmarks"),
        .init(file: "kiosk-player/Commands/", lines: nil, why: "command-line paths a person gives"),
        .init(file: "kiosk-fuzz/", lines: nil, why: "the fuzzer's corpus"),
        .init(file: "KioskFuzzTargets/FuzzSeeds.swift", lines: nil, why: "the repository's seeds"),
        // The box's own folder, not a stick.
        .init(
            file: "KioskWeb/MusicFolder.swift",
            lines: ["Syscalls.open(part", "Syscalls.open(path, O_RDONLY | O_DIRECTORY"],
            why:
                "the phone page's upload part and a folder to sync, in the box's music folder: names sanitised, folders lstat'ed, O_NOFOLLOW"
        ),
        .init(
            file: "KioskFuzzTargets/StickFilesFuzz.swift", lines: ["Syscalls.readFile(secretFile)"],
            why: "the fuzz target's own state-directory file, checked unchanged"),
    ]

    /// The direct opens of `text` (the source of `file`, relative to Sources/) the allow-list does
    /// not cover, as "file:line: text".
    static func violations(in text: String, file: String) -> [String] {
        let entries = allowed.filter { file.hasPrefix($0.file) }
        var found: [String] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let code = line.drop { $0 == " " }
            if code.hasPrefix("//") { continue }
            guard directOpens.contains(where: { code.contains($0) }) else { continue }
            let covered = entries.contains { entry in
                entry.lines.map { texts in texts.contains { code.contains($0) } } ?? true
            }
            if !covered { found.append("\(file):\(number + 1): \(code)") }
        }
        return found
    }

    @Test func nothingOutsideTheSeamOpensAFileByNameUnlessAllowed() throws {
        let (files, found) = try SourceFiles.findings(under: TestPaths.repository + "/Sources", Self.violations)
        #expect(files > 100, "the sources were found")
        #expect(
            found.isEmpty,
            "open it through StickFile, or add it to the allow-list saying why:\n\(found.joined(separator: "\n"))")
    }

    @Test func aDirectReadOfAStickFileIsFound() {
        let source = """
            /// Reads the stick's exhibit.json.
            let bytes = try Syscalls.readFile(mountPoint + "/exhibit.json", limit: 256 << 10)
            """
        #expect(Self.violations(in: source, file: "KioskCore/Player+Exhibit.swift").count == 1)
        #expect(Self.violations(in: source, file: "KioskCore/ResumeStore.swift").isEmpty)
    }

    @Test func aLineTheAllowListDoesNotNameInAnAllowedFileIsFound() {
        let source = "guard let fd = try? FileDescriptor.open(path, O_RDONLY) else { return nil }"
        #expect(Self.violations(in: source, file: "KioskLibrary/MusicFileReader.swift").count == 1)
    }
}
