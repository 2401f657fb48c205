import KioskInput

/// The `inputs` target: each 3 bytes are one input change in time: which control (two buttons in
/// a chord, a third with hold-repeat, the encoder's A or B phase), its new level, and the
/// milliseconds since the previous change (0…255, scaled by the third byte's top bit to cover long
/// presses). The gestures see the edges in order and advance to each time; the quadrature decoder
/// and the acceleration see the phases. Nothing may trap; each control's events come in time
/// order and none is dated after the time processed. (Events of different controls may not: a
/// debounced press is dated at its first edge, which can be before another control's event that
/// was sent while this one settled. The first fuzzing run found that; `GesturesTests` has it.)
///
/// Thread: the fuzzing thread.
enum InputFuzz {
    static func run(_ data: [UInt8]) {
        var lastBySource: [String: UInt64] = [:]
        var disorder: String?
        var now: UInt64 = 1_000_000_000
        let gestures = Gestures(settings: InputSettings()) { event in
            if let last = lastBySource[event.source], event.timestampNs < last {
                disorder = "\(event.source): \(event) after \(last)"
            }
            if event.timestampNs > now { disorder = "\(event) dated after \(now)" }
            lastBySource[event.source] = event.timestampNs
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
