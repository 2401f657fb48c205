// SPDX-License-Identifier: GPL-3.0-or-later
import KioskInput
import KioskSystem
import KioskTestSupport
import Testing

@Suite(.tags(.integration)) struct InputsCommandTests {
    @Test func listsTheInputsOfAProfile() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try dir.write("box.json", pirateAudio)
        let result = run(TestPaths.playerBinary, ["inputs", "--profile", dir.file("box.json"), "--list"])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("Inputs of \(dir.file("box.json")):"))
        #expect(
            result.output.contains(
                "  button A: line 5, pull-up, active-low, debounce 5 ms: press play-pause, long press next-category"))
        #expect(result.output.contains("  chord A+X: held 3000 ms: shutdown"))
        #expect(result.output.contains("libgpiod 1.6") || result.output.contains("libgpiod 2."))
        #expect(!result.output.contains("Listening"))
    }

    @Test func printsGesturesAndActionsOfAScriptAndReportsMissingHardware() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        // Names no machine has, so the test never touches real hardware.
        let profile = pirateAudio.replacing(
            #""pinctrl-rp1", "pinctrl-bcm2711", "pinctrl-bcm2835""#, with: #""kiosk-test-absent""#
        )
        .replacing(#""device": "gpio-keys""#, with: #""device": "kiosk-test-absent-keys""#)
        try dir.write("box.json", profile)
        try dir.write(
            "s.jsonl",
            """
            {"t": 0, "line": "B", "value": 1}
            {"t": 0.2, "line": "B", "value": 0}
            {"t": 0.4, "line": "B", "value": 1}
            {"t": 100, "line": "B", "value": 0}
            {"t": 120, "line": "knob.a", "value": 1}
            {"t": 130, "line": "knob.b", "value": 1}
            {"t": 150, "line": "knob.a", "value": 0}
            {"t": 160, "line": "knob.b", "value": 0}
            {"t": 200, "evdev": "KEY_PLAYPAUSE", "value": 1}
            {"t": 210, "evdev": "KEY_PLAYPAUSE", "value": 0}
            {"t": 220, "key": "q"}
            """)
        let result = run(
            TestPaths.playerBinary, ["inputs", "--profile", dir.file("box.json"), "--script", dir.file("s.jsonl")],
            timeoutSeconds: 60)
        #expect(result.status == 0, "\(result.errors)")
        let lines = result.output.split(separator: "\n").map {
            String($0.drop { $0 == " " || $0 == "." || $0.isNumber })
        }
        #expect(lines.contains("button B down"))
        #expect(lines.contains("button B press → next"))
        #expect(lines.contains("button B up (held 100 ms)"))
        // The knob is reversed and has 2 steps per detent in this profile: a full clockwise cycle
        // is two detents "up", the second one 30 ms after the first (accelerated 2×).
        #expect(lines.contains("encoder knob: 1 detent counter-clockwise → up ×1"))
        #expect(lines.contains("encoder knob: 1 detent counter-clockwise → up ×2"))
        #expect(lines.contains("key KEY_PLAYPAUSE press → play-pause"))
        #expect(lines.contains("keyboard q → shutdown"))
        #expect(lines.filter { $0.contains("→") }.count == 5)
        // No GPIO chip and no evdev device here: both reported, the script still ran.
        #expect(result.output.contains("problem: GPIO: no GPIO chip found (kiosk-test-absent: no chip with this label"))
        #expect(result.output.contains("problem: evdev: no input device named \"kiosk-test-absent-keys\""))
    }

    @Test func badProfileOrScriptIsAnErrorNamingTheFile() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try dir.write("bad.json", #"{"buttons": [{"name": "A", "line": 5, "press": "paly"}]}"#)
        let bad = run(TestPaths.playerBinary, ["inputs", "--profile", dir.file("bad.json"), "--list"])
        #expect(bad.status == 1)
        #expect(bad.errors.contains("\(dir.file("bad.json")): buttons[0].press: unknown action \"paly\""))

        try dir.write("box.json", pirateAudio)
        try dir.write("s.jsonl", #"{"t": 0, "line": "Q", "value": 1}"#)
        let script = run(
            TestPaths.playerBinary,
            ["inputs", "--profile", dir.file("box.json"), "--script", dir.file("s.jsonl"), "--no-gpio", "--no-evdev"])
        #expect(script.status == 1)
        #expect(script.errors.contains("\(dir.file("s.jsonl")):1: line: no button or encoder line \"Q\""))

        let usage = run(TestPaths.playerBinary, ["inputs", "--bogus"])
        #expect(usage.status == 2)
        #expect(usage.errors.contains("unknown option '--bogus'"))
        let missing = run(TestPaths.playerBinary, ["inputs", "--board", "no-such-board", "--list"])
        #expect(missing.status == 1)
        #expect(missing.errors.contains("no board profile 'no-such-board'"))
    }
}
