// SPDX-License-Identifier: GPL-3.0-or-later
import KioskInput

/// The `inputs` target: each 3 bytes are one input change in time: which control (two buttons in
/// a chord, a third with hold-repeat, the encoder's A or B phase), its new level, and the
/// milliseconds since the previous change (0…255, scaled by the third byte's top bit to cover long
/// presses). The gestures see the edges in order and advance to each time; the quadrature decoder
/// and the acceleration see the phases. Nothing may trap; no event is dated after the time
/// processed; each button's downs and ups alternate, starting with a down. (Time order across
/// events is not a property: a debounced edge is dated at its first bounce but decided when the
/// line settles, after events of other controls or this button's own deferred press. The first
/// fuzzing runs found that, with an invariant that assumed it; `GesturesTests` has the case.)
///
/// Thread: the fuzzing thread.
enum InputFuzz {
    static func run(_ data: [UInt8]) {
        var isDown: [String: Bool] = [:]
        var disorder: String?
        var now: UInt64 = 1_000_000_000
        let gestures = Gestures(settings: InputSettings()) { event in
            if event.timestampNs > now { disorder = "\(event) dated after \(now)" }
            switch event.kind {
            case .down:
                if isDown[event.source] == true { disorder = "\(event) while already down" }
                isDown[event.source] = true
            case .up:
                if isDown[event.source] != true { disorder = "\(event) while not down" }
                isDown[event.source] = false
            default: break
            }
        }
        let play = gestures.addButton(
            source: "button play", binding: ButtonBinding(press: .playPause, longPress: .stop), debounceMs: 5)
        let next = gestures.addButton(source: "button next", binding: ButtonBinding(press: .next), debounceMs: 5)
        let up = gestures.addButton(source: "button up", binding: ButtonBinding(press: .up, hold: .up), debounceMs: 0)
        gestures.addChord([play, next], holdMs: 1000, action: .shuffle, source: "chord play+next")
        var phases = (a: false, b: false)
        var quadrature = QuadratureDecoder(stepsPerDetent: 4, a: false, b: false)
        var acceleration = EncoderAcceleration()
        var i = 0
        while i + 2 < data.count {
            let control = Int(data[i] % 5)
            let level = data[i + 1] & 1 == 1
            let step = UInt64(data[i + 2] & 0x7F) * (data[i + 2] & 0x80 != 0 ? 50 : 1)
            now += step * 1_000_000
            i += 3
            gestures.advance(to: now)
            switch control {
            case 0: gestures.edge(play, active: level, at: now)
            case 1: gestures.edge(next, active: level, at: now)
            case 2: gestures.edge(up, active: level, at: now)
            default:
                if control == 3 { phases.a = level } else { phases.b = level }
                let detents = quadrature.update(a: phases.a, b: phases.b)
                if detents != 0 { _ = acceleration.steps(detents: detents, at: now) }
            }
        }
        now += 10_000_000_000
        gestures.advance(to: now)
        if let disorder { preconditionFailure("gesture events out of order: \(disorder)") }
    }
}
