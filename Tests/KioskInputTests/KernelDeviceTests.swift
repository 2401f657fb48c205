// SPDX-License-Identifier: GPL-3.0-or-later
import CKioskShims
import Glibc
import KioskInput
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

/// The device number of a "major:minor" text (sysfs `dev` files).
private func deviceNumber(_ text: String) -> dev_t? {
    let parts = text.split(separator: ":").compactMap { UInt64($0) }
    guard parts.count == 2 else { return nil }
    let (major, minor) = (parts[0], parts[1])
    return makeDeviceNumber(major: major, minor: minor)
}

/// Makes the evdev node of `device` in `directory` (the machine may have no udev or devtmpfs).
private func makeNode(for device: UInputDevice, in directory: String) throws -> String {
    var node: (name: String, device: String)?
    // sysfs shows the event node a moment after UI_DEV_CREATE.
    _ = waitFor(seconds: 5) {
        node = try? device.eventNode()
        return node != nil
    }
    guard let node, let number = deviceNumber(node.device) else {
        throw Errno(rawValue: ENOENT, context: "no event node for \(device.name) in sysfs")
    }
    let path = "\(directory)/\(node.name)"
    _ = unlink(path)
    guard mknod(path, S_IFCHR | 0o600, number) == 0 else { throw Errno.current.with("mknod \(path)") }
    return path
}

private let uinputMissing =
    "no writable /dev/uinput here (this kernel has no uinput, or no permission): the evdev backend reads real devices in the VM system test"

@Suite(.tags(.integration), .serialized) struct UInputEvdevTests {
    @Test(.enabled(if: UInputDevice.isAvailable(), Comment(rawValue: uinputMissing)))
    func virtualKeypadAndEncoderAreReadThroughTheEvdevBackend() throws {
        let name = "kiosk-test-keypad-\(getpid())"
        let playPause = UInt16(KEY_PLAYPAUSE)
        let volumeUp = UInt16(KEY_VOLUMEUP)
        let relX = UInt16(REL_X)
        var device = try UInputDevice(name: name, keys: [playPause, volumeUp, UInt16(KEY_A)], relativeAxes: [relX])
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        _ = try makeNode(for: device, in: dir.path)
        let h = try ManagerHarness(
            """
            {"evdev": [{"device": "\(name)",
              "keys": {"KEY_PLAYPAUSE": "play-pause", "KEY_VOLUMEUP": {"press": "volume-up", "hold": "volume-up"}},
              "relative": {"REL_X": {"positive": "next", "negative": "previous"}}}]}
            """)
        h.manager.evdevDirectory = dir.path
        h.manager.evdevRetryMs = 50
        h.manager.startEvdev()
        #expect(h.manager.problems.isEmpty)
        #expect(h.raw.contains { $0.hasPrefix("evdev \"\(name)\" connected at \(dir.path)/event") })

        let before = Syscalls.monotonicNanoseconds()
        try device.key(playPause, down: true)
        try device.key(playPause, down: false)
        try device.move(relX, by: -1)
        try device.key(UInt16(KEY_A), down: true)
        try h.loop.run(until: { h.actions.count == 2 }, timeoutNanoseconds: 10_000_000_000)
        #expect(h.actions.map(\.action) == [.playPause, .previous])
        #expect(h.actions.map(\.source) == ["key KEY_PLAYPAUSE", "axis REL_X"])
        // EVIOCSCLOCKID worked: the kernel's timestamps are on the loop's clock.
        #expect(h.actions.allSatisfy { $0.timestampNs >= before && $0.timestampNs <= Syscalls.monotonicNanoseconds() })

        // Hold: the repeats are dated from the kernel's press timestamp.
        h.actions.removeAll()
        try device.key(volumeUp, down: true)
        try h.loop.run(forNanoseconds: 700_000_000)
        try device.key(volumeUp, down: false)
        try h.loop.run(forNanoseconds: 100_000_000)
        let holds = h.actions.filter { $0.action == .volumeUp }
        #expect(holds.count >= 2)
        if let first = holds.first {
            for (i, event) in holds.enumerated().dropFirst() {
                #expect(event.timestampNs - first.timestampNs == UInt64(400 + 150 * (i - 1)) * 1_000_000)
            }
        }

        // Unplugged: reported, then found again when it comes back.
        device.destroy()
        #expect(
            try h.loop.run(
                until: { h.manager.problems.contains { $0.contains("is gone") } }, timeoutNanoseconds: 10_000_000_000))
        device = try UInputDevice(name: name, keys: [playPause, volumeUp], relativeAxes: [relX])
        _ = try makeNode(for: device, in: dir.path)
        #expect(
            try h.loop.run(
                until: { h.raw.filter { $0.contains("connected at") }.count == 2 }, timeoutNanoseconds: 10_000_000_000))
        h.actions.removeAll()
        try device.key(playPause, down: true)
        try device.key(playPause, down: false)
        try h.loop.run(until: { !h.actions.isEmpty }, timeoutNanoseconds: 10_000_000_000)
        #expect(h.actions.map(\.action) == [.playPause])
        device.destroy()
    }
}

/// The `usb-keypad-hdmi` profile's `"device": "*"`: any keypad or remote with one of the entry's
/// keys, whatever its name; a device without them is passed over (it matched nothing before: names
/// were compared exactly).
@Suite(.tags(.integration), .serialized) struct UInputAnyKeypadTests {
    @Test(.enabled(if: UInputDevice.isAvailable(), Comment(rawValue: uinputMissing)))
    func aStarEntryTakesTheFirstDeviceWithItsKeys() throws {
        let playPause = UInt16(KEY_PLAYPAUSE)
        let other = try UInputDevice(name: "kiosk-test-other-\(getpid())", keys: [UInt16(KEY_A)], relativeAxes: [])
        let keypad = try UInputDevice(name: "kiosk-test-any-\(getpid())", keys: [playPause], relativeAxes: [])
        defer {
            keypad.destroy()
            other.destroy()
        }
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        _ = try makeNode(for: other, in: dir.path)
        _ = try makeNode(for: keypad, in: dir.path)
        let h = try ManagerHarness(#"{"evdev": [{"device": "*", "keys": {"KEY_PLAYPAUSE": "play-pause"}}]}"#)
        h.manager.evdevDirectory = dir.path
        h.manager.evdevRetryMs = 50
        h.manager.startEvdev()
        #expect(h.manager.problems.isEmpty)
        #expect(h.raw.contains { $0.hasPrefix("evdev \"\(keypad.name)\" connected") }, "\(h.raw)")
        try keypad.key(playPause, down: true)
        try keypad.key(playPause, down: false)
        try h.loop.run(until: { !h.actions.isEmpty }, timeoutNanoseconds: 10_000_000_000)
        #expect(h.actions.map(\.action) == [.playPause])
    }
}

@Suite(.tags(.integration), .serialized) struct UInputCardReaderTests {
    /// A USB card reader made with uinput: a keyboard that types "0004561234" and Enter.
    @Test(.enabled(if: UInputDevice.isAvailable(), Comment(rawValue: uinputMissing)))
    func aUSBReadersCardIsReadAndItsKeysReachNoOneElse() throws {
        let name = "kiosk-test-rfid-\(getpid())"
        let digits = [KEY_0, KEY_1, KEY_2, KEY_3, KEY_4, KEY_5, KEY_6, KEY_7, KEY_8, KEY_9].map { UInt16($0) }
        let device = try UInputDevice(name: name, keys: digits + [UInt16(KEY_ENTER)])
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let node = try makeNode(for: device, in: dir.path)
        // Another reader of the same device, as a console or a second program would be.
        let other = try FileDescriptor.open(node, O_RDONLY | O_NONBLOCK)
        let h = try ManagerHarness(#"{"cardReaders": [{"type": "usb", "device": "\#(name)"}]}"#)
        var cards: [CardEvent] = []
        h.manager.onCard = { cards.append($0) }
        h.manager.evdevDirectory = dir.path
        h.manager.evdevRetryMs = 50
        h.manager.startCardReaders()
        #expect(h.manager.problems.isEmpty)
        #expect(h.raw.contains { $0.hasPrefix("card reader \"\(name)\" connected at \(dir.path)/event") })
        for c in "0004561234" {
            let code = digits[Int(c.asciiValue! - 48)]
            try device.key(code, down: true)
            try device.key(code, down: false)
        }
        try device.key(UInt16(KEY_ENTER), down: true)
        try device.key(UInt16(KEY_ENTER), down: false)
        try h.loop.run(until: { !cards.isEmpty }, timeoutNanoseconds: 10_000_000_000)
        #expect(cards.map(\.uid.rawValue) == ["0004561234"])
        #expect(h.actions.isEmpty)
        // The grab: the other reader got none of the keystrokes.
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = buffer.withUnsafeMutableBytes { Glibc.read(other.rawValue, $0.baseAddress, $0.count) }
        #expect(n < 0 && errno == EAGAIN, "another reader of the device saw \(n) bytes")

        // Unplugged: reported by name.
        device.destroy()
        #expect(
            try h.loop.run(
                until: { h.manager.problems.contains { $0.contains(name) && $0.contains("is gone") } },
                timeoutNanoseconds: 10_000_000_000))
    }
}

@Suite(.tags(.integration), .serialized) struct GPIOSimTests {
    @Test(
        .enabled(if: SimulatedChip.unavailableReason == nil, Comment(rawValue: SimulatedChip.unavailableReason ?? "")))
    func buttonsEncoderAndErrorsOnASimulatedChip() throws {
        let chip = try SimulatedChip(lines: 16)
        let profile = """
            {"gpioChip": ["no-such-label", "\(chip.label)"],
             "buttons": [{"name": "A", "line": 3, "press": "play-pause", "longPress": "stop"},
                         {"name": "far", "line": 40, "press": "next"}],
             "encoders": [{"name": "knob", "a": 5, "b": 6, "acceleration": false,
                           "clockwise": "volume-up", "counterClockwise": "volume-down"}]}
            """
        let h = try ManagerHarness(profile)
        h.manager.startGPIO()
        #expect(h.manager.gpioChip?.label == chip.label)
        // The line past the chip's end is reported; the others work.
        #expect(h.manager.problems.count == 1)
        #expect(h.manager.problems.first?.contains("line 40 (button far)") == true)
        #expect(h.manager.problems.first?.contains("does not exist: the chip has 16 lines") == true)

        // A bouncy press: the pull-up was applied by our request, pressing pulls the line down.
        for up in [false, true, false, true, false] { try chip.pull(3, up: up) }
        try h.loop.run(forNanoseconds: 100_000_000)
        for up in [true, false, true] { try chip.pull(3, up: up) }
        try h.loop.run(until: { !h.actions.isEmpty }, timeoutNanoseconds: 5_000_000_000)
        #expect(h.actions.map(\.action) == [.playPause])

        // One detent clockwise from rest (both high): A falls, B falls, A rises, B rises.
        h.actions.removeAll()
        for (line, up) in [(5, false), (6, false), (5, true), (6, true), (6, false), (5, false), (6, true), (5, true)] {
            try chip.pull(line, up: up)
            try h.loop.run(forNanoseconds: 5_000_000)
        }
        try h.loop.run(until: { h.actions.count == 2 }, timeoutNanoseconds: 5_000_000_000)
        #expect(h.actions.map(\.action) == [.volumeUp, .volumeDown])

        // A second user of line 3 is told who holds it.
        let other = try ManagerHarness(profile)
        other.manager.startGPIO()
        #expect(
            other.manager.problems.contains {
                $0.contains("line 3 (button A)") && $0.contains("busy") && $0.contains("kiosk-player")
            })
        other.manager.stop()
        h.manager.stop()
    }
}

/// Bluetooth headphones' buttons: BlueZ makes a "<name> (AVRCP)" device for every remote with
/// AVRCP, so once headphones connected only theirs is read (`retargetComingAndGoing`), not another
/// remote's that the entry's "* (AVRCP)" found first.
@Suite(.tags(.integration), .serialized) struct UInputHeadsetButtonsTests {
    @Test(.enabled(if: UInputDevice.isAvailable(), Comment(rawValue: uinputMissing)))
    func theConnectedHeadphonesButtonsAreReadAndNoOtherRemotes() throws {
        let next = UInt16(KEY_NEXTSONG)
        let other = try UInputDevice(name: "Kiosk box \(getpid()) (AVRCP)", keys: [next])
        defer { other.destroy() }
        let headphones = try UInputDevice(name: "Kid Cans \(getpid()) (AVRCP)", keys: [next])
        defer { headphones.destroy() }
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        _ = try makeNode(for: other, in: dir.path)
        _ = try makeNode(for: headphones, in: dir.path)
        let h = try ManagerHarness("{}", adding: [EvdevConfig.headsetButtons])
        h.manager.evdevDirectory = dir.path
        h.manager.evdevRetryMs = 50
        h.manager.startEvdev()
        h.manager.retargetComingAndGoing(to: headphones.name)
        #expect(
            try h.loop.run(
                until: { h.raw.contains { $0.hasPrefix("evdev \"\(headphones.name)\" connected") } },
                timeoutNanoseconds: 10_000_000_000))
        try other.key(next, down: true)
        try other.key(next, down: false)
        try headphones.key(next, down: true)
        try headphones.key(next, down: false)
        try h.loop.run(until: { !h.actions.isEmpty }, timeoutNanoseconds: 10_000_000_000)
        try h.loop.run(forNanoseconds: 200_000_000)
        #expect(h.actions.map(\.action) == [.next])
        #expect(h.manager.problems.isEmpty, "a device that comes and goes is no problem")
    }
}
