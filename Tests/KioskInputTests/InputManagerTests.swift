// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskInput
import KioskModel
import KioskSystem
import KioskTestSupport
import Testing

/// An InputManager on a fresh loop that records its actions and raw events.
final class ManagerHarness {
    let loop: EventLoop
    var actions: [ActionEvent] = []
    var raw: [String] = []
    var manager: InputManager!

    /// `adding`: evdev entries the appliance adds to the board's (the headphones' buttons).
    init(_ json: String, settings: InputSettings = InputSettings(), adding: [EvdevConfig] = []) throws {
        loop = try EventLoop()
        var profile = try InputProfile.parse(
            try JSONReader.parse(Array(json.utf8), file: "box.json"), settings: settings)
        profile.evdev += adding
        manager = InputManager(loop: loop, profile: profile, settings: settings) { [unowned self] in
            self.actions.append($0)
        }
        manager.onRawEvent = { [unowned self] in self.raw.append($0) }
    }

    deinit { manager.stop() }

    /// Feeds recorded GPIO edges (ms, line offset, level) as the chip reader would.
    func feed(_ edges: [(Double, Int, Bool)]) {
        for (ms, line, level) in edges { manager.inject(.line(offset: line, active: level), at: Recording.ns(ms)) }
    }

    /// (action, steps, ms since the recording started) of each action.
    var summary: [(String, Int, Double)] {
        actions.map { ($0.action.rawValue, $0.steps, Recording.ms($0.timestampNs)) }
    }
}

/// The edges of an encoder (lines a and b) turned `detents` detents (4 states each; negative:
/// counter-clockwise), one quarter step every `quarterMs`, `gapMs` between detents. `bounce`
/// adds two extra transitions 0.05 ms apart to every edge; `drop` removes edges by index.
func encoderEdges(
    a: Int, b: Int, detents: Int, startMs: Double = 0, quarterMs: Double, gapMs: Double = 0, bounce: Bool = false,
    drop: Set<Int> = []
) -> [(Double, Int, Bool)] {
    let clockwise: [(Int, Bool)] = [(a, true), (b, true), (a, false), (b, false)]
    let counter: [(Int, Bool)] = [(b, true), (a, true), (b, false), (a, false)]
    var edges: [(Double, Int, Bool)] = []
    var t = startMs
    var index = 0
    for _ in 0..<abs(detents) {
        for (line, level) in detents > 0 ? clockwise : counter {
            defer { index += 1 }
            t += quarterMs
            if drop.contains(index) { continue }
            edges.append((t, line, level))
            if bounce { edges += [(t + 0.05, line, !level), (t + 0.1, line, level)] }
        }
        t += gapMs
    }
    return edges
}

let encoderProfile = """
    {"encoders": [{"name": "knob", "a": 17, "b": 27, "clockwise": "volume-up", "counterClockwise": "volume-down"}],
     "buttons": [{"name": "push", "line": 22, "press": "select", "longPress": "back"}]}
    """

@Suite struct InputManagerTests {
    @Test func recordedBouncyButtonPressesGiveOneActionEach() throws {
        let h = try ManagerHarness(
            #"{"buttons": [{"name": "A", "line": 5, "press": "play-pause", "longPress": "next-category"}, {"name": "X", "line": 16, "hold": "volume-up"}]}"#
        )
        let bouncyA = (Recording.bouncy(0, to: true) + Recording.bouncy(180, to: false)).map { ($0.0, 5, $0.1) }
        let bouncyX = (Recording.bouncy(300, to: true) + Recording.bouncy(900, to: false)).map { ($0.0, 16, $0.1) }
        let longA = (Recording.bouncy(1000, to: true) + Recording.bouncy(1800, to: false)).map { ($0.0, 5, $0.1) }
        h.feed(bouncyA + bouncyX + longA)
        h.manager.advance(to: Recording.ns(3000))
        #expect(h.summary.map(\.0) == ["play-pause", "volume-up", "volume-up", "volume-up", "next-category"])
        #expect(h.summary.map(\.2) == [180, 300, 700, 850, 1600])
        #expect(h.actions.map(\.repeatCount) == [0, 0, 1, 2, 0])
        #expect(h.actions.first?.source == "button A")
        #expect(h.raw.contains("button A up (held 180 ms)"))
    }

    @Test func recordedChordOfBouncyButtonsFiresOnceAfterItsHoldTime() throws {
        let h = try ManagerHarness(
            #"{"buttons": [{"name": "A", "line": 5, "press": "play-pause"}, {"name": "X", "line": 16, "press": "stop"}], "chords": [{"buttons": ["A", "X"], "holdMs": 3000, "action": "shutdown"}]}"#
        )
        let a = Recording.bouncy(0, to: true).map { ($0.0, 5, $0.1) }
        let x = Recording.bouncy(90, to: true).map { ($0.0, 16, $0.1) }
        let release =
            Recording.bouncy(3500, to: false).map { ($0.0, 5, $0.1) }
            + Recording.bouncy(3600, to: false).map { ($0.0, 16, $0.1) }
        h.feed(a + x + release)
        h.manager.advance(to: Recording.ns(5000))
        #expect(h.summary.map(\.0) == ["shutdown"])
        #expect(h.summary.map(\.2) == [3090])
        #expect(h.actions.first?.source == "chord A+X")
    }

    @Test func encoderTurnedSlowlyWithBounceCountsEveryDetent() throws {
        let h = try ManagerHarness(encoderProfile)
        h.feed(encoderEdges(a: 17, b: 27, detents: 5, quarterMs: 10, gapMs: 200, bounce: true))
        h.feed(encoderEdges(a: 17, b: 27, detents: -3, startMs: 2000, quarterMs: 10, gapMs: 200, bounce: true))
        #expect(
            h.summary.map(\.0) == Array(repeating: "volume-up", count: 5) + Array(repeating: "volume-down", count: 3))
        #expect(h.summary.allSatisfy { $0.1 == 1 })
        #expect(h.actions.first?.source == "encoder knob")
    }

    @Test func encoderTurnedQuicklyAccelerates() throws {
        let h = try ManagerHarness(encoderProfile)
        // 1 ms per quarter step: a detent every 4 ms (250 detents/s).
        h.feed(encoderEdges(a: 17, b: 27, detents: 12, quarterMs: 1))
        #expect(h.summary.count == 12)
        #expect(h.summary.allSatisfy { $0.0 == "volume-up" })
        #expect(h.summary.map(\.1) == [1] + Array(repeating: 8, count: 11))
    }

    @Test func encoderWithMissedEdgesLosesDetentsButNeverReverses() throws {
        let h = try ManagerHarness(encoderProfile)
        // Edge 6 is detent 1's A fall, edge 17 detent 4's B rise (see the trace in the report).
        h.feed(encoderEdges(a: 17, b: 27, detents: 8, quarterMs: 10, gapMs: 200, bounce: true, drop: [6, 17]))
        #expect(h.summary.map(\.0) == Array(repeating: "volume-up", count: 6))
    }

    @Test func reversedEncoderSwapsDirections() throws {
        let h = try ManagerHarness(
            #"{"encoders": [{"name": "k", "a": 1, "b": 2, "reverse": true, "acceleration": false, "clockwise": "next", "counterClockwise": "previous"}]}"#
        )
        h.feed(encoderEdges(a: 1, b: 2, detents: 3, quarterMs: 1))
        #expect(h.summary.map(\.0) == ["previous", "previous", "previous"])
        #expect(h.summary.map(\.1) == [1, 1, 1])
    }

    @Test func encoderPushButtonIsAnOrdinaryButton() throws {
        let h = try ManagerHarness(encoderProfile)
        h.feed([(0, 22, true), (100, 22, false), (200, 22, true), (1000, 22, false)])
        #expect(h.summary.map(\.0) == ["select", "back"])
    }

    @Test func evdevKeysAndAxesGoThroughTheKeymap() throws {
        let h = try ManagerHarness(
            #"{"evdev": [{"device": "keypad", "keys": {"KEY_PLAYPAUSE": "play-pause", "KEY_VOLUMEUP": {"press": "volume-up", "hold": "volume-up"}}, "relative": {"REL_X": {"positive": "next", "negative": "previous"}}}]}"#
        )
        let key: UInt16 = 1
        let rel: UInt16 = 2
        h.manager.inject(.evdev(device: 0, type: key, code: 164, value: 1), at: Recording.ns(0))
        h.manager.inject(.evdev(device: 0, type: key, code: 164, value: 0), at: Recording.ns(80))
        h.manager.inject(.evdev(device: 0, type: key, code: 115, value: 1), at: Recording.ns(100))
        // Value 2 is the kernel's autorepeat: ignored (the gestures repeat).
        h.manager.inject(.evdev(device: 0, type: key, code: 115, value: 2), at: Recording.ns(350))
        h.manager.inject(.evdev(device: 0, type: key, code: 115, value: 0), at: Recording.ns(600))
        h.manager.inject(.evdev(device: 0, type: rel, code: 0, value: -1), at: Recording.ns(1000))
        h.manager.inject(.evdev(device: 0, type: key, code: 30, value: 1), at: Recording.ns(1100))  // KEY_A: not mapped
        #expect(h.summary.map(\.0) == ["play-pause", "volume-up", "volume-up", "previous"])
        #expect(h.summary.map(\.2) == [0, 100, 500, 1000])
        #expect(h.actions.map(\.source) == ["key KEY_PLAYPAUSE", "key KEY_VOLUMEUP", "key KEY_VOLUMEUP", "axis REL_X"])
        #expect(h.raw.contains("key KEY_A (not mapped)"))
    }

    @Test(.tags(.integration)) func eventScriptReplaysOnTheLoopTimersWithScriptTimestamps() throws {
        let h = try ManagerHarness(
            #"{"buttons": [{"name": "A", "line": 5, "press": "play-pause", "longPress": "next-category"}, {"name": "X", "line": 16, "hold": "volume-up"}]}"#
        )
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try dir.write(
            "demo.jsonl",
            """
            # a bouncy short press of A
            {"t": 0, "line": "A", "value": 1}
            {"t": 0.3, "line": "A", "value": 0}
            {"t": 0.6, "line": "A", "value": 1}
            {"t": 250, "line": 5, "value": 0}

            {"t": 300, "line": "X", "value": 1}
            {"t": 900, "line": "X", "value": 0}
            {"t": 950, "line": "A", "value": 1}
            {"t": 1700, "line": "A", "value": 0}
            {"t": 1750, "key": "n"}
            {"t": 1760, "key": "help"}
            """)
        var finished = false
        let start = try h.manager.startScript(path: dir.file("demo.jsonl")) { finished = true }
        try h.loop.run(until: { finished }, timeoutNanoseconds: 20_000_000_000)
        try h.loop.run(forNanoseconds: 300_000_000)  // nothing more may come after the releases
        #expect(finished)
        let offsets = h.actions.map { Double($0.timestampNs - start) / 1_000_000 }
        #expect(
            h.actions.map(\.action.rawValue) == [
                "play-pause", "volume-up", "volume-up", "volume-up", "next-category", "next", "help",
            ])
        #expect(offsets == [250, 300, 700, 850, 1550, 1750, 1760])
        #expect(
            h.actions.map(\.source) == [
                "button A", "button X", "button X", "button X", "button A", "keyboard n", "script",
            ])
    }

    @Test func scriptErrorsNameTheFileAndLine() throws {
        let h = try ManagerHarness(#"{"buttons": [{"name": "A", "line": 5, "press": "next"}]}"#)
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let cases: [(String, String)] = [
            (#"{"t": 0, "line": "B", "value": 1}"#, "s.jsonl:2: line: no button or encoder line \"B\" (known: A)"),
            (#"{"t": 0, "line": "A", "value": 3}"#, "s.jsonl:2: value: expected an integer 0…1, got 3"),
            (#"{"t": 0, "key": "zz"}"#, "s.jsonl:2: key: \"zz\" is neither a key of the keyboard map"),
            (#"{"t": 0, "line": "A", "value": 1, "x": 1}"#, "s.jsonl:2: x: unknown key"),
            (#"{"line": "A", "value": 1}"#, "s.jsonl:2: t: required"),
            (#"{"t": 5, "key": "n", "line": "A"}"#, "s.jsonl:2: has both"),
            (
                #"{"t": 5, "evdev": "KEY_OK", "value": 1}"#,
                "s.jsonl:2: evdev: no evdev device of the profile maps KEY_OK"
            ),
            (#"{"t": 0, "key": "n"#, "s.jsonl:2: not valid JSON"),
        ]
        for (line, expected) in cases {
            try dir.write("s.jsonl", "{\"t\": 0, \"key\": \"n\"}\n" + line + "\n")
            do {
                try h.manager.startScript(path: dir.file("s.jsonl"))
                Issue.record("no error for \(line)")
            } catch {
                let message = String(error.description.replacing(dir.path + "/", with: ""))
                #expect(message.hasPrefix(expected), "\(line)")
            }
        }
        try dir.write("s.jsonl", "{\"t\": 10, \"key\": \"n\"}\n{\"t\": 5, \"key\": \"n\"}\n")
        #expect(
            throws: ConfigError(file: dir.file("s.jsonl:2"), path: "t", message: "5 is before the previous event's 10")
        ) {
            try h.manager.startScript(path: dir.file("s.jsonl"))
        }
        #expect(
            throws: ConfigError(
                file: dir.file("none.jsonl"), path: "", message: "cannot read: No such file or directory")
        ) {
            try h.manager.startScript(path: dir.file("none.jsonl"))
        }
    }

    @Test func missingGPIOChipIsReportedAndOtherInputsKeepWorking() throws {
        let h = try ManagerHarness(#"{"buttons": [{"name": "A", "line": 5, "press": "next"}]}"#)
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        h.manager.gpioDirectory = dir.path
        h.manager.startGPIO()
        #expect(
            h.manager.problems == [
                "GPIO: no GPIO chip found (pinctrl-rp1: no chip with this label; pinctrl-bcm2711: no chip with this label; pinctrl-bcm2835: no chip with this label); there is no \(dir.path)/gpiochip* on this machine; buttons and encoders on GPIO will not work"
            ])
        #expect(h.manager.gpioChip == nil)
        // The keyboard path (here through a script) still works, and so would the lines from a script.
        var finished = false
        try h.manager.startScript(
            EventScript.parse(Array(#"{"t": 0, "key": "space"}"#.utf8), file: "s", profile: h.manager.profile)
        ) { finished = true }
        try h.loop.run(until: { finished }, timeoutNanoseconds: 5_000_000_000)
        #expect(h.actions.map(\.action) == [.playPause])
    }

    @Test func missingEvdevDeviceIsReportedOnceAndRetried() throws {
        let h = try ManagerHarness(#"{"evdev": [{"device": "gpio-keys", "keys": {"KEY_OK": "select"}}]}"#)
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        h.manager.evdevDirectory = dir.path
        h.manager.evdevRetryMs = 20
        h.manager.startEvdev()
        try h.loop.run(forNanoseconds: 150_000_000)
        #expect(
            h.manager.problems == [
                "evdev: no input device named \"gpio-keys\" (no \(dir.path)/event* here); looking again every 20 ms, the other inputs work"
            ])
    }
}
