// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem

/// Turns the two lines of a quadrature rotary encoder into detents, with a Gray-code state table.
///
/// The state is `a << 1 | b`. Turning clockwise (A leads B) walks 00 → 10 → 11 → 01 → 00; each
/// valid transition is a quarter step ±1. A transition that changes both lines at once cannot
/// happen on a real encoder (a missed state or noise): its direction is unknown, so the table marks
/// it invalid and it counts nothing. Contact bounce goes back and forth between two neighbouring
/// states and cancels out.
///
/// Detents: the state at start is taken as the rest position (encoders rest between detents with
/// both contacts open or both closed). With `stepsPerDetent` 4 there is one rest state per cycle, with 2
/// there are two (the start state and its opposite), with 1 every state is one. Quarter steps are
/// summed between rest states; arriving at one yields the sum divided by `stepsPerDetent`, rounded
/// half away from zero, so a cycle with a missed state still counts, and wobbling around a rest
/// position counts nothing.
///
/// Thread: a value; owned by the event-loop thread in the player.
public struct QuadratureDecoder: Sendable {
    /// Quarter steps for `old << 2 | new`; 2 marks an invalid transition (both lines changed).
    static let table: [Int8] = [
        0, -1, 1, 2,  // from 00
        1, 0, 2, -1,  // from 01
        -1, 2, 0, 1,  // from 10
        2, 1, -1, 0,  // from 11
    ]
    /// Position of each state along the clockwise cycle 00 → 10 → 11 → 01.
    static let cycleIndex: [Int] = [0, 3, 1, 2]

    /// 1, 2 or 4.
    public let stepsPerDetent: Int
    /// The last state, `a << 1 | b`.
    public private(set) var state: UInt8
    /// Transitions that changed both lines at once, rejected.
    public private(set) var invalidTransitions = 0
    /// Valid quarter steps since the last rest state.
    public private(set) var pendingQuarterSteps = 0
    private let restIndex: Int

    /// A decoder whose lines are now at `a` and `b` (taken as a rest position).
    public init(stepsPerDetent: Int = 4, a: Bool, b: Bool) {
        precondition([1, 2, 4].contains(stepsPerDetent), "stepsPerDetent must be 1, 2 or 4")
        self.stepsPerDetent = stepsPerDetent
        state = (a ? 2 : 0) | (b ? 1 : 0)
        restIndex = Self.cycleIndex[Int(state)]
    }

    /// Feeds the lines' new levels. Returns the detents completed: > 0 clockwise, < 0 counter-clockwise.
    public mutating func update(a: Bool, b: Bool) -> Int {
        let new: UInt8 = (a ? 2 : 0) | (b ? 1 : 0)
        if new == state { return 0 }
        let delta = Self.table[Int(state) << 2 | Int(new)]
        if delta == 2 {
            invalidTransitions += 1
        } else {
            pendingQuarterSteps += Int(delta)
        }
        state = new
        let position = (Self.cycleIndex[Int(new)] - restIndex + 4) % 4
        guard position % stepsPerDetent == 0 else { return 0 }
        let detents = (abs(pendingQuarterSteps) + stepsPerDetent / 2) / stepsPerDetent
        let signed = pendingQuarterSteps >= 0 ? detents : -detents
        pendingQuarterSteps = 0
        return signed
    }
}

/// Encoder acceleration: faster turning gives bigger steps.
///
/// The speed is estimated from the timestamps of successive detents in the same direction
/// (smoothed: half the last estimate plus half the newest interval's speed), and starts over at
/// zero after a pause of `gapNs` or a change of direction. The curve maps speed to a multiplier.
///
/// Thread: a value; owned by the event-loop thread in the player.
public struct EncoderAcceleration: Sendable {
    /// Speed thresholds: at or above `detentsPerSecond`, each detent counts `multiplier` steps.
    public struct Curve: Sendable, Equatable {
        public struct Point: Sendable, Equatable {
            public var detentsPerSecond: Double
            public var multiplier: Int
            public init(_ detentsPerSecond: Double, _ multiplier: Int) {
                self.detentsPerSecond = detentsPerSecond
                self.multiplier = multiplier
            }
        }
        /// Ascending by speed.
        public var points: [Point]

        public init(_ points: [Point]) { self.points = points.sorted { $0.detentsPerSecond < $1.detentsPerSecond } }

        /// 1× below 10 detents/s, 2× from 10, 4× from 20, 8× from 40 (a 20-detent knob spun twice a second).
        public static let standard = Curve([Point(10, 2), Point(20, 4), Point(40, 8)])

        /// The multiplier at `speed` detents per second.
        public func multiplier(at speed: Double) -> Int {
            var result = 1
            for point in points where speed >= point.detentsPerSecond { result = point.multiplier }
            return result
        }

        var summary: String {
            points.map { "\($0.multiplier)× from \(JSONValue.number($0.detentsPerSecond).serialized())/s" }
                .joined(separator: ", ")
        }

        /// `true` (the standard curve), `false` (none: returns nil) or `[[detentsPerSecond, multiplier], …]`.
        static func parse(_ value: JSONValue, _ reader: JSONReader, _ key: String) throws(ConfigError) -> Curve? {
            if let on = value.bool { return on ? .standard : nil }
            guard let items = value.array, !items.isEmpty, items.count <= 16 else {
                throw reader.error(
                    key,
                    "expected true, false or a list of [detentsPerSecond, multiplier] pairs, got \(JSONReader.show(value))"
                )
            }
            var points: [Point] = []
            for (i, item) in items.enumerated() {
                guard let pair = item.array, pair.count == 2, let speed = pair[0].double, speed > 0, speed <= 1000,
                    let multiplier = pair[1].int, (1...100).contains(multiplier)
                else {
                    throw ConfigError(
                        file: reader.file, path: "\(reader.pathOf(key))[\(i)]",
                        message: "expected [detentsPerSecond 0…1000, multiplier 1…100], got \(item.serialized())")
                }
                if let last = points.last, speed <= last.detentsPerSecond {
                    throw ConfigError(
                        file: reader.file, path: "\(reader.pathOf(key))[\(i)]",
                        message:
                            "speeds must increase (\(JSONValue.number(speed).serialized()) after \(JSONValue.number(last.detentsPerSecond).serialized()))"
                    )
                }
                points.append(Point(speed, multiplier))
            }
            return Curve(points)
        }
    }

    /// A pause this long (or a change of direction) starts over at 1×.
    public static let gapNs: UInt64 = 250_000_000

    public let curve: Curve
    /// The current speed estimate, detents per second.
    public private(set) var speed: Double = 0
    private var lastTimestamp: UInt64?
    private var lastDirection = 0

    public init(curve: Curve = .standard) {
        self.curve = curve
    }

    /// Steps for `detents` (signed) turned at `timestampNs`: |detents| × the multiplier.
    public mutating func steps(detents: Int, at timestampNs: UInt64) -> Int {
        let direction = detents.signum()
        let count = abs(detents)
        if count == 0 { return 0 }
        if let last = lastTimestamp, direction == lastDirection, timestampNs >= last, timestampNs - last < Self.gapNs {
            let interval = Double(max(timestampNs - last, 1_000_000))
            let instant = Double(count) * 1e9 / interval
            speed = (speed + instant) / 2
        } else {
            speed = 0
        }
        lastTimestamp = timestampNs
        lastDirection = direction
        return count * curve.multiplier(at: speed)
    }
}
