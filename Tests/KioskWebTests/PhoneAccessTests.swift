// SPDX-License-Identifier: GPL-3.0-or-later
import KioskWeb
import Testing

/// A generator whose numbers a test can repeat (SplitMix64).
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Pairing codes, sessions, CSRF tokens and the limits on guessing, on a virtual clock (time is a
/// number the test moves; nothing here reads the wall clock).
@Suite struct PhoneAccessTests {
    static let second: UInt64 = 1_000_000_000
    var now: UInt64 = 5 * second
    var access = PhoneAccess(random: SeededRandom(state: 42))

    mutating func advance(seconds: UInt64) { now += seconds * Self.second }

    mutating func code() throws -> String {
        guard case .new(let code) = access.requestCode(now: now) else {
            Issue.record("no new code")
            return ""
        }
        return code
    }

    func wrong(_ code: String) -> String { code == "000000" ? "000001" : "000000" }

    @Test mutating func aCodeIsSixDigitsAndTheSameOneShowsWhileItIsValid() throws {
        let code = try self.code()
        #expect(code.count == 6 && code.allSatisfy(\.isNumber))
        advance(seconds: 60)
        #expect(access.requestCode(now: now) == .showing)
    }

    @Test mutating func theRightCodePairsOnceAndOnlyOnce() throws {
        let code = try self.code()
        guard case .paired(let session) = access.attempt(code, from: "192.168.1.20", now: now) else {
            Issue.record("not paired")
            return
        }
        #expect(session.token.count == 64 && session.csrf.count == 64 && session.id.count == 8)
        #expect(session.token != session.csrf)
        #expect(session.pairedFrom == "192.168.1.20")
        #expect(access.attempt(code, from: "192.168.1.21", now: now) == .noCode)
    }

    @Test mutating func aCodeEndsAfterItsMinutes() throws {
        let code = try self.code()
        advance(seconds: access.limits.pairingSeconds)
        #expect(access.attempt(code, from: "192.168.1.20", now: now) == .noCode)
    }

    @Test mutating func newCodesComeAtMostOneAnInterval() throws {
        let code = try self.code()
        _ = access.attempt(code, from: "192.168.1.20", now: now)
        guard case .tooSoon = access.requestCode(now: now) else {
            Issue.record("a second code at once")
            return
        }
        advance(seconds: access.limits.codeIntervalSeconds)
        _ = try self.code()
    }

    @Test mutating func fiveWrongCodesEndTheCode() throws {
        let code = try self.code()
        for left in (1..<access.limits.wrongPerCode).reversed() {
            #expect(access.attempt(wrong(code), from: "192.168.1.20", now: now) == .wrong(attemptsLeft: left))
        }
        #expect(access.attempt(wrong(code), from: "192.168.1.20", now: now) == .wrong(attemptsLeft: 0))
        // The right code no longer works: a new one must be asked for, which the box says aloud.
        #expect(access.attempt(code, from: "192.168.1.20", now: now) == .noCode)
    }

    @Test mutating func anAddressThatGuessesIsLockedOutThenLetBackIn() throws {
        var wrongs = 0
        while wrongs < access.limits.wrongPerAddress {
            advance(seconds: access.limits.codeIntervalSeconds)
            let code = try self.code()
            for _ in 0..<min(access.limits.wrongPerCode, access.limits.wrongPerAddress - wrongs) {
                _ = access.attempt(wrong(code), from: "10.0.0.66", now: now)
                wrongs += 1
            }
        }
        advance(seconds: access.limits.codeIntervalSeconds)
        let code = try self.code()
        guard case .lockedOut = access.attempt(code, from: "10.0.0.66", now: now) else {
            Issue.record("not locked out")
            return
        }
        // Another phone pairs meanwhile with the same code.
        guard case .paired = access.attempt(code, from: "10.0.0.7", now: now) else {
            Issue.record("the other phone could not pair")
            return
        }
        advance(seconds: access.limits.lockoutSeconds)
        let next = try self.code()
        guard case .paired = access.attempt(next, from: "10.0.0.66", now: now) else {
            Issue.record("still locked out after the lockout")
            return
        }
    }

    mutating func pair(from address: String = "192.168.1.20") throws -> PhoneAccess.Session {
        advance(seconds: access.limits.codeIntervalSeconds)
        let code = try self.code()
        guard case .paired(let session) = access.attempt(code, from: address, now: now) else {
            throw PairingFailed()
        }
        return session
    }

    struct PairingFailed: Error {}

    @Test mutating func aSessionLastsWhileItIsVisitedAndEndsWithout() throws {
        let session = try pair()
        #expect(access.session(token: session.token, now: now)?.id == session.id)
        // Visited every 20 days, it stays (30 days without a visit end it).
        for _ in 0..<3 {
            advance(seconds: 20 * 86_400)
            #expect(access.session(token: session.token, now: now) != nil)
        }
        advance(seconds: access.limits.sessionSeconds)
        #expect(access.session(token: session.token, now: now) == nil)
        #expect(access.sessions.isEmpty)
    }

    @Test mutating func anUnknownOrMalformedTokenHasNoSession() throws {
        let session = try pair()
        #expect(access.session(token: nil, now: now) == nil)
        #expect(access.session(token: "", now: now) == nil)
        #expect(access.session(token: String(session.token.dropLast()) + "x", now: now) == nil)
        #expect(access.session(token: session.csrf, now: now) == nil)
    }

    @Test mutating func theCSRFTokenIsTheSessionsOwn() throws {
        let one = try pair()
        let two = try pair(from: "192.168.1.21")
        #expect(PhoneAccess.csrfMatches(one.csrf, one))
        #expect(!PhoneAccess.csrfMatches(two.csrf, one))
        #expect(!PhoneAccess.csrfMatches(nil, one))
        #expect(!PhoneAccess.csrfMatches("", one))
        #expect(!PhoneAccess.csrfMatches(one.token, one))
    }

    @Test mutating func theLeastRecentlyUsedSessionMakesRoomForANewOne() throws {
        let first = try pair()
        var others: [PhoneAccess.Session] = []
        for i in 1..<access.limits.maxSessions { others.append(try pair(from: "192.168.1.\(i + 20)")) }
        // The first is used again: the second is now the least recently used.
        advance(seconds: 1)
        #expect(access.session(token: first.token, now: now) != nil)
        _ = try pair(from: "192.168.1.99")
        #expect(access.sessions.count == access.limits.maxSessions)
        #expect(access.session(token: first.token, now: now) != nil)
        #expect(access.session(token: others[0].token, now: now) == nil)
    }

    @Test mutating func loggingOutEndsTheSession() throws {
        let session = try pair()
        access.end(token: session.token)
        #expect(access.session(token: session.token, now: now) == nil)
    }
}
