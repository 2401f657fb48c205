// SPDX-License-Identifier: GPL-3.0-or-later
import KioskCommandLine
import KioskInput
import KioskSystem

extension BenchCommand {
    /// `bench gestures`: CPU time per input edge through the gesture engine and through the whole
    /// InputManager path (decoder, acceleration, keymap, action), with recorded-style timestamps.
    static func gestures(_ parsed: ParsedArguments) throws -> Int32 {
        let edges = parsed.int("--edges") ?? 1_000_000
        let ms: UInt64 = 1_000_000
        var t: UInt64 = 1_000_000 * ms

        // Buttons: bouncy presses (4 bounces on press and release: 10 edges), 100 ms each.
        var actions = 0
        let gestures = Gestures(settings: InputSettings()) { event in if event.action != nil { actions += 1 } }
        let button = gestures.addButton(
            source: "button A", binding: ButtonBinding(press: .playPause, longPress: .stop), debounceMs: 5)
        let presses = edges / 10
        var cpu = Syscalls.processCPUNanoseconds()
        for _ in 0..<presses {
            for (i, level) in [true, false, true, false, true].enumerated() {
                gestures.edge(button, active: level, at: t + UInt64(i) * 300_000)
            }
            for (i, level) in [false, true, false, true, false].enumerated() {
                gestures.edge(button, active: level, at: t + 100 * ms + UInt64(i) * 300_000)
            }
            t += 200 * ms
        }
        gestures.advance(to: t)
        let buttonCPU = Syscalls.processCPUNanoseconds() - cpu
        printLine(
            "bench gestures: \(presses * 10) button edges (\(presses) bouncy presses, \(actions) actions): \(formatMilliseconds(buttonCPU)) CPU, \(buttonCPU / UInt64(presses * 10)) ns per edge"
        )

        // An encoder through InputManager.inject: the same path as the GPIO reader.
        let loop = try EventLoop()
        var steps = 0
        let profile = InputProfile(
            encoders: [EncoderConfig(name: "knob", a: 17, b: 27, clockwise: .volumeUp, counterClockwise: .volumeDown)])
        let manager = InputManager(loop: loop, profile: profile, settings: InputSettings()) { steps += $0.steps }
        defer { manager.stop() }
        let cycle: [(Int, Bool)] = [(17, true), (27, true), (17, false), (27, false)]
        let detents = edges / 4
        cpu = Syscalls.processCPUNanoseconds()
        for d in 0..<detents {
            for (line, level) in cycle {
                manager.inject(.line(offset: line, active: level), at: t)
                t += 2 * ms
            }
            if d % 10 == 9 { t += 300 * ms }  // bursts of 10 detents at 125 detents/s
        }
        let encoderCPU = Syscalls.processCPUNanoseconds() - cpu
        printLine(
            "bench gestures: \(detents * 4) encoder edges through InputManager (\(detents) detents, \(steps) accelerated steps): \(formatMilliseconds(encoderCPU)) CPU, \(encoderCPU / UInt64(detents * 4)) ns per edge"
        )
        return 0
    }
}
