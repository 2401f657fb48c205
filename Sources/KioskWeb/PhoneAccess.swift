// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem

/// Who may use the phone page: the pairing code the box shows and says, the sessions of the phones
/// paired with it, and their CSRF tokens. One value owns all of it and decides every question about
/// access; the HTTP server asks it and applies the answer (`PhoneAPI`). Time is given, never read
/// (monotonic nanoseconds), so tests drive it with a virtual clock; randomness is given too.
///
/// - A code is 6 digits, valid `pairingSeconds`, used once. Asking for one while one is valid gives
///   the same code (so a page reloaded does not make the box speak again) and new codes come at most
///   one per `codeIntervalSeconds`.
/// - Wrong codes: `wrongPerCode` wrong attempts end the code (a new one must be asked for, which the
///   box shows and says, so guessing is heard); an address that sent `wrongPerAddress` wrong codes
///   within `lockoutSeconds` is refused that long. With 10⁶ codes and 5 tries per code, a guess
///   succeeds once in 200 000 codes, each one announced by the box.
/// - A session: a 256-bit token in an HttpOnly, SameSite=Strict cookie, a 256-bit CSRF token the page
///   sends in a header with every change, and a short id for the log (never the token). It ends after
///   `sessionSeconds` without a visit; at most `maxSessions` are kept (the least recently used goes).
///
/// Thread: one at a time (the server holds it in a `Locked`).
public struct PhoneAccess {
    public struct Limits: Sendable, Equatable {
        public var pairingSeconds: UInt64 = 180
        public var codeIntervalSeconds: UInt64 = 10
        public var wrongPerCode = 5
        public var wrongPerAddress = 10
        public var lockoutSeconds: UInt64 = 600
        public var sessionSeconds: UInt64 = 30 * 86_400
        public var maxSessions = 16
        public var maxAddressesTracked = 256
        public init() {}
    }

    /// A paired phone.
    public struct Session: Sendable, Equatable {
        /// For the log: 8 hex digits, not derived from the token.
        public let id: String
        public let token: String
        public let csrf: String
        public let pairedFrom: String
        public fileprivate(set) var lastSeen: UInt64
    }

    public enum CodeRequest: Equatable, Sendable {
        /// A new code: the box must show and say it.
        case new(String)
        /// The code already showing (still valid).
        case showing
        /// Too soon after the last one.
        case tooSoon(retryAfterSeconds: UInt64)
    }

    public enum Attempt: Equatable, Sendable {
        case paired(Session)
        case wrong(attemptsLeft: Int)
        /// No valid code: the phone must ask the box for one.
        case noCode
        /// Too many wrong codes from this address.
        case lockedOut(retryAfterSeconds: UInt64)
    }

    public let limits: Limits
    private var random: any RandomNumberGenerator
    private var code: (digits: String, until: UInt64, wrong: Int)?
    private var lastCodeAt: UInt64?
    private var wrongByAddress: [String: (count: Int, since: UInt64)] = [:]
    public private(set) var sessions: [String: Session] = [:]

    public init(limits: Limits = Limits(), random: any RandomNumberGenerator = SystemRandomNumberGenerator()) {
        self.limits = limits
        self.random = random
    }

    private static let second: UInt64 = 1_000_000_000

    /// A phone asks the box for a code.
    public mutating func requestCode(now: UInt64) -> CodeRequest {
        if let code, now < code.until { return .showing }
        if let lastCodeAt, now < lastCodeAt + limits.codeIntervalSeconds * Self.second {
            return .tooSoon(
                retryAfterSeconds: (lastCodeAt + limits.codeIntervalSeconds * Self.second - now) / Self.second + 1)
        }
        let digits = String(random.next(upperBound: UInt32(1_000_000)) + 1_000_000).dropFirst()
        code = (String(digits), now + limits.pairingSeconds * Self.second, 0)
        lastCodeAt = now
        return .new(String(digits))
    }

    /// A phone at `address` typed `typed`.
    public mutating func attempt(_ typed: String, from address: String, now: UInt64) -> Attempt {
        if let entry = wrongByAddress[address] {
            let until = entry.since + limits.lockoutSeconds * Self.second
            if now >= until {
                wrongByAddress[address] = nil
            } else if entry.count >= limits.wrongPerAddress {
                return .lockedOut(retryAfterSeconds: (until - now) / Self.second + 1)
            }
        }
        guard let current = code, now < current.until else {
            code = nil
            return .noCode
        }
        guard Self.constantTimeEqual(typed, current.digits) else {
            noteWrong(address, now: now)
            let wrong = current.wrong + 1
            if wrong >= limits.wrongPerCode {
                code = nil
                return .wrong(attemptsLeft: 0)
            }
            code = (current.digits, current.until, wrong)
            return .wrong(attemptsLeft: limits.wrongPerCode - wrong)
        }
        code = nil
        wrongByAddress[address] = nil
        return .paired(newSession(from: address, now: now))
    }

    private mutating func noteWrong(_ address: String, now: UInt64) {
        if wrongByAddress[address] == nil && wrongByAddress.count >= limits.maxAddressesTracked {
            // Bounded: the oldest entry goes (an attacker with many addresses still meets the
            // per-code bound, which does not depend on addresses).
            if let oldest = wrongByAddress.min(by: { $0.value.since < $1.value.since })?.key {
                wrongByAddress[oldest] = nil
            }
        }
        let entry = wrongByAddress[address] ?? (0, now)
        wrongByAddress[address] = (entry.count + 1, entry.since)
    }

    private mutating func newSession(from address: String, now: UInt64) -> Session {
        expire(now: now)
        if sessions.count >= limits.maxSessions,
            let oldest = sessions.values.min(by: { $0.lastSeen < $1.lastSeen })
        {
            sessions[oldest.token] = nil
        }
        let session = Session(
            id: hex(bytes: 4), token: hex(bytes: 32), csrf: hex(bytes: 32), pairedFrom: address, lastSeen: now)
        sessions[session.token] = session
        return session
    }

    /// The session of a request's cookie value, its last visit moved to `now`; nil: none or ended.
    public mutating func session(token: String?, now: UInt64) -> Session? {
        guard let token, token.utf8.count == 64, var session = sessions[token] else { return nil }
        guard now < session.lastSeen + limits.sessionSeconds * Self.second else {
            sessions[token] = nil
            return nil
        }
        session.lastSeen = now
        sessions[token] = session
        return session
    }

    /// Whether a change request's CSRF header is this session's token.
    public static func csrfMatches(_ header: String?, _ session: Session) -> Bool {
        guard let header else { return false }
        return constantTimeEqual(header, session.csrf)
    }

    /// Ends a session (logout).
    public mutating func end(token: String) { sessions[token] = nil }

    /// Drops the sessions not seen for `sessionSeconds`.
    public mutating func expire(now: UInt64) {
        sessions = sessions.filter { now < $0.value.lastSeen + limits.sessionSeconds * Self.second }
    }

    /// Compares without stopping at the first difference, so timing tells nothing about the secret.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        var difference = x.count == y.count ? 0 : 1
        for i in 0..<x.count { difference |= Int(x[i] ^ (i < y.count ? y[i] : 0)) }
        return difference == 0
    }

    private mutating func hex(bytes: Int) -> String {
        Hex.encode((0..<bytes).map { _ in UInt8(truncatingIfNeeded: random.next()) })
    }
}
