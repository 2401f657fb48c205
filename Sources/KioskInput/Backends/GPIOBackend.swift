// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import KioskHardware
import KioskModel
import KioskSystem

/// The GPIO backend of the input router: buttons and rotary encoders on the lines of one chip
/// (libgpiod). Button edges go to the router's `Gestures`, encoder edges through a
/// `QuadratureDecoder` to actions. A line that cannot be requested is a problem named after its
/// chip and line; the others are used.
///
/// Thread: the event-loop thread only (owned by `InputManager`).
final class GPIOBackend {
    private enum LineRoute {
        case button(Int)
        case encoderA(Int)
        case encoderB(Int)
    }

    private struct EncoderState {
        let config: EncoderConfig
        var decoder: QuadratureDecoder
        var a = false
        var b = false
        var acceleration: EncoderAcceleration?
        var invalidReported = 0
    }

    private struct Request {
        let line: GPIOInputLine
        var source: SourceID?
    }

    private unowned let router: InputManager
    /// Its own reference: `stop` runs from the router's deinit, when `router` can no longer be read.
    private let loop: EventLoop
    private var profile: InputProfile { router.profile }
    /// The gesture engine's id of each button of the profile, in order.
    private(set) var buttonIDs: [Gestures.ButtonID] = []
    private var lineRoutes: [Int: LineRoute] = [:]
    private var encoders: [EncoderState] = []
    private var requests: [Request] = []
    /// The chip in use, once `start` found one.
    private(set) var chip: GPIOChip?

    init(router: InputManager) {
        self.router = router
        loop = router.loop
        let profile = router.profile
        for (i, button) in profile.buttons.enumerated() {
            let id = router.gestures.addButton(
                source: "button \(button.name)", binding: button.binding,
                debounceMs: button.debounceMs ?? router.settings.debounceMs)
            buttonIDs.append(id)
            lineRoutes[button.line] = .button(i)
        }
        for (i, encoder) in profile.encoders.enumerated() {
            // Until the chip is read, the lines are taken as inactive (scripts and tests start there).
            encoders.append(
                EncoderState(
                    config: encoder,
                    decoder: QuadratureDecoder(stepsPerDetent: encoder.stepsPerDetent, a: false, b: false),
                    acceleration: encoder.acceleration.map(EncoderAcceleration.init)))
            lineRoutes[encoder.a] = .encoderA(i)
            lineRoutes[encoder.b] = .encoderB(i)
        }
    }

    /// Finds the GPIO chip and requests every button and encoder line. Each failure is logged
    /// with its chip and line; the lines that worked are used.
    func start() {
        guard profile.usesGPIO, chip == nil else { return }
        let chip: GPIOChip
        switch GPIOChip.find(profile.gpioChips, in: router.gpioDirectory) {
        case .failure(let error):
            router.problem("GPIO: \(error.message); buttons and encoders on GPIO will not work")
            return
        case .success(let found):
            chip = found
        }
        self.chip = chip
        Log.info(
            "GPIO: using \(chip.path) \(chip.description), \(chip.lineCount) lines, \(GPIOChip.libraryDescription)")
        let now = Syscalls.monotonicNanoseconds()
        for (i, button) in profile.buttons.enumerated() {
            guard let line = request(chip, button.line, button.bias, button.activeLow, "button \(button.name)") else {
                continue
            }
            do throws(Errno) {
                router.gestures.sync(buttonIDs[i], active: try line.value(), at: now)
            } catch {
                router.problem("GPIO: \(error)")
            }
        }
        for (i, encoder) in profile.encoders.enumerated() {
            guard let a = request(chip, encoder.a, encoder.bias, false, "encoder \(encoder.name) A") else { continue }
            guard let b = request(chip, encoder.b, encoder.bias, false, "encoder \(encoder.name) B") else {
                release(a)
                continue
            }
            let levelA = (try? a.value()) ?? false
            let levelB = (try? b.value()) ?? false
            encoders[i].a = levelA
            encoders[i].b = levelB
            encoders[i].decoder = QuadratureDecoder(stepsPerDetent: encoder.stepsPerDetent, a: levelA, b: levelB)
        }
        router.eventsHandled()
    }

    private func request(_ chip: GPIOChip, _ offset: Int, _ bias: GPIOBias, _ activeLow: Bool, _ use: String)
        -> GPIOInputLine?
    {
        let line: GPIOInputLine
        do throws(HardwareError) {
            line = try GPIOInputLine(chip: chip, offset: offset, bias: bias, activeLow: activeLow, use: use)
        } catch {
            router.problem("GPIO: \(error.message)")
            return nil
        }
        do throws(Errno) {
            let source = try loop.addSource(fd: line.fd, events: .readable) { [unowned self] _ in
                self.drain()
                self.router.eventsHandled()
            }
            requests.append(Request(line: line, source: source))
        } catch {
            router.problem("GPIO: cannot watch line \(offset) (\(use)): \(error)")
            return nil
        }
        return line
    }

    private func release(_ line: GPIOInputLine) {
        guard let index = requests.firstIndex(where: { $0.line === line }) else { return }
        if let source = requests[index].source { loop.removeSource(source) }
        requests.remove(at: index)
    }

    /// Reads every line's pending edges and handles them in timestamp order (the lines of an
    /// encoder have separate fds under libgpiod v1; their edges must interleave by time).
    func drain() {
        guard !requests.isEmpty else { return }
        var edges: [GPIOInputLine.Edge] = []
        var failed: [GPIOInputLine] = []
        for request in requests {
            do throws(Errno) {
                try request.line.readEdges(into: &edges)
            } catch {
                router.problem(
                    "GPIO: line \(request.line.offset) (\(request.line.use)) on \(request.line.chip.path) stopped: \(error.message)"
                )
                failed.append(request.line)
            }
        }
        for line in failed { release(line) }
        if edges.isEmpty { return }
        let now = Syscalls.monotonicNanoseconds()
        let ordered = edges.enumerated().sorted {
            ($0.element.timestampNs, $0.offset) < ($1.element.timestampNs, $1.offset)
        }
        for (_, edge) in ordered {
            lineEdge(edge.offset, active: edge.active, at: router.checked(edge.timestampNs, now: now))
        }
    }

    /// An edge of a GPIO line (from the chip or from a script): the same path for both.
    func lineEdge(_ offset: Int, active: Bool, at t: UInt64) {
        guard let route = lineRoutes[offset] else { return }
        if router.reportEdges {
            router.raw("line \(offset) \(active ? "↑ active" : "↓ inactive") at \(InputManager.seconds(t)) s")
        }
        switch route {
        case .button(let i):
            router.gestures.edge(buttonIDs[i], active: active, at: t)
        case .encoderA(let e):
            encoders[e].a = active
            encoderMoved(e, at: t)
        case .encoderB(let e):
            encoders[e].b = active
            encoderMoved(e, at: t)
        }
    }

    private func encoderMoved(_ e: Int, at t: UInt64) {
        let config = encoders[e].config
        var detents = encoders[e].decoder.update(a: encoders[e].a, b: encoders[e].b)
        let invalid = encoders[e].decoder.invalidTransitions
        if invalid > encoders[e].invalidReported {
            encoders[e].invalidReported = invalid
            router.raw("encoder \(config.name): invalid transition ignored (\(invalid) so far)")
        }
        if detents == 0 { return }
        if config.reverse { detents = -detents }
        let steps = encoders[e].acceleration?.steps(detents: detents, at: t) ?? abs(detents)
        let action = detents > 0 ? config.clockwise : config.counterClockwise
        let event = ActionEvent(action: action, steps: steps, source: "encoder \(config.name)", timestampNs: t)
        let direction = detents > 0 ? "clockwise" : "counter-clockwise"
        router.raw(
            "encoder \(config.name): \(abs(detents)) detent\(abs(detents) == 1 ? "" : "s") \(direction) → \(action.rawValue) ×\(steps)"
        )
        router.emit(event)
    }

    /// Releases every line. Safe to call twice.
    func stop() {
        for request in requests {
            if let source = request.source { loop.removeSource(source) }
        }
        requests.removeAll()
        chip = nil
    }
}
