// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import Testing

@testable import KioskCore

/// Bluetooth headphones as a part of the player, as a table: each row an event (an action, a start,
/// BlueZ's report) and everything the part returns for it, in order. No loop, no engine, no bus.
struct BluetoothLinkTests {
    typealias L = BluetoothLink
    static let cans = Headphones(address: "00:AA:01:00:00:23", name: "Kid Cans")
    static let other = Headphones(address: "00:AA:01:00:00:99", name: "Dad's")
    static let pcm = "bluealsa:DEV=00:AA:01:00:00:23,PROFILE=a2dp"

    /// A part with the default config (maxVolume 60, pairSeconds 60, connectSeconds 20).
    static func part() -> BluetoothLink { BluetoothLink(config: BluetoothConfig()) }

    /// Feeds the rows in order; a row that returns something else fails with its number.
    static func run(_ part: inout BluetoothLink, _ rows: [(L.Event, [L.Outcome])]) {
        for (i, row) in rows.enumerated() {
            let got = part.handle(row.0)
            #expect(got == row.1, "row \(i + 1): \(row.0)")
        }
    }

    @Test func thePcmIsBlueAlsasA2dpPcmOfTheAddress() {
        #expect(Self.cans.pcm == Self.pcm)
    }

    @Test func pairingFromNothingSaysEachStepRemembersAndPlaysToTheHeadphones() {
        var part = Self.part()
        Self.run(
            &part,
            [
                (.started(remembered: nil), []),
                // Nothing remembered: the bluetooth action pairs.
                (.toggle, [.say(L.pairingStarted), .request(.pair(seconds: 60))]),
                (
                    .report(.paired(Self.cans)),
                    [
                        .remember(Self.cans), .say("Paired with Kid Cans"),
                        .request(.connect(address: Self.cans.address, seconds: 20)),
                    ]
                ),
                (.report(.connected(Self.cans)), [.route(Self.cans), .volumeCeiling(60), .say(L.headphonesOn)]),
            ])
        #expect(part.route == Self.cans && part.remembered == Self.cans && part.pending == .none)
    }

    @Test func pairingThatFindsNothingSaysSoAndStaysOnTheSpeaker() {
        var part = Self.part()
        Self.run(
            &part,
            [
                (.pair, [.say(L.pairingStarted), .request(.pair(seconds: 60))]),
                (.report(.pairFailed("no audio sink in pairing mode within 60 s")), [.say(L.noHeadphonesFound)]),
                // A late report of a pairing no longer asked for changes nothing.
                (.report(.paired(Self.cans)), []),
            ])
        #expect(part.route == nil && part.remembered == nil)
    }

    @Test func theSecondPairActionCancelsPairing() {
        var part = Self.part()
        Self.run(
            &part,
            [
                (.pair, [.say(L.pairingStarted), .request(.pair(seconds: 60))]),
                (.pair, [.say(L.pairingCancelled), .request(.cancelPairing)]),
            ])
        #expect(part.pending == .none)
    }

    @Test func theRememberedPairIsConnectedAtStartAndTheBoxPlaysOnTheSpeakerUntilTheLinkIsUp() {
        var part = Self.part()
        Self.run(
            &part,
            [
                (.started(remembered: Self.cans), [.request(.connect(address: Self.cans.address, seconds: 20))]),
                (.report(.connected(Self.cans)), [.route(Self.cans), .volumeCeiling(60), .say(L.headphonesOn)]),
            ])
    }

    @Test func aBootThatFindsNoHeadphonesStaysOnTheSpeakerWithoutAWord() {
        var part = Self.part()
        Self.run(
            &part,
            [
                (.started(remembered: Self.cans), [.request(.connect(address: Self.cans.address, seconds: 20))]),
                (.report(.connectFailed(address: Self.cans.address, reason: "Page Timeout")), []),
            ])
        #expect(part.route == nil && part.pending == .none)
        // Headphones switched on later connect by themselves: they take the sound then.
        Self.run(
            &part, [(.report(.connected(Self.cans)), [.route(Self.cans), .volumeCeiling(60), .say(L.headphonesOn)])])
    }

    @Test func aConnectionAskedForThatFailsIsSaid() {
        var part = Self.part()
        Self.run(
            &part,
            [
                (.started(remembered: Self.cans), [.request(.connect(address: Self.cans.address, seconds: 20))]),
                (.report(.connectFailed(address: Self.cans.address, reason: "Page Timeout")), []),
                (.toggle, [.say(L.connecting), .request(.connect(address: Self.cans.address, seconds: 20))]),
                (
                    .report(.connectFailed(address: Self.cans.address, reason: "Page Timeout")),
                    [.say(L.headphonesNotFound)]
                ),
            ])
    }

    @Test func aDisconnectPausesFirstThenTheSpeakerWithoutTheCapAndSaysSo() {
        var part = Self.part()
        _ = part.handle(.started(remembered: Self.cans))
        _ = part.handle(.report(.connected(Self.cans)))
        Self.run(
            &part,
            [
                (
                    .report(.disconnected(address: Self.cans.address)),
                    [.pause, .route(nil), .volumeCeiling(nil), .say(L.headphonesGone)]
                ),
                // Said once: a second report of the same going changes nothing.
                (.report(.disconnected(address: Self.cans.address)), []),
            ])
        #expect(part.route == nil && part.wanted)
        // They come back (switched on again, in range again): the sound goes back to them.
        Self.run(
            &part, [(.report(.connected(Self.cans)), [.route(Self.cans), .volumeCeiling(60), .say(L.headphonesOn)])])
    }

    @Test func theBluetoothActionAfterADisconnectConnectsAgain() {
        var part = Self.part()
        _ = part.handle(.started(remembered: Self.cans))
        _ = part.handle(.report(.connected(Self.cans)))
        _ = part.handle(.report(.disconnected(address: Self.cans.address)))
        Self.run(
            &part,
            [
                (.toggle, [.say(L.connecting), .request(.connect(address: Self.cans.address, seconds: 20))]),
                (.report(.connected(Self.cans)), [.route(Self.cans), .volumeCeiling(60), .say(L.headphonesOn)]),
            ])
    }

    @Test func theWayOutWorksWithTheHeadphonesThereAway() {
        // There: the speaker, the cap off, the headphones let go.
        var part = Self.part()
        _ = part.handle(.started(remembered: Self.cans))
        _ = part.handle(.report(.connected(Self.cans)))
        Self.run(
            &part,
            [
                (
                    .toggle,
                    [
                        .route(nil), .volumeCeiling(nil), .request(.disconnect(address: Self.cans.address)),
                        .say(L.speakerOn),
                    ]
                ),
                (.report(.disconnected(address: Self.cans.address)), []),
                // Not wanted any more: they connecting by themselves does not take the sound.
                (.report(.connected(Self.cans)), []),
            ])
        #expect(part.route == nil && !part.wanted)
        // Away, while the start still tries them: the attempt is dropped and the speaker stays.
        var away = Self.part()
        _ = away.handle(.started(remembered: Self.cans))
        Self.run(
            &away,
            [
                (.toggle, [.request(.disconnect(address: Self.cans.address)), .say(L.speakerOn)]),
                (.report(.connected(Self.cans)), []),
                (.report(.connectFailed(address: Self.cans.address, reason: "late")), []),
            ])
        #expect(away.route == nil && away.pending == .none)
        // While pairing: pairing stops.
        var pairing = Self.part()
        _ = pairing.handle(.started(remembered: Self.cans))
        _ = pairing.handle(.report(.connectFailed(address: Self.cans.address, reason: "Page Timeout")))
        _ = pairing.handle(.pair)
        Self.run(
            &pairing,
            [
                (
                    .toggle,
                    [.request(.cancelPairing), .request(.disconnect(address: Self.cans.address)), .say(L.speakerOn)]
                )
            ])
    }

    @Test func pairingNewHeadphonesWhileOthersPlayGoesBackToTheSpeakerFirst() {
        var part = Self.part()
        _ = part.handle(.started(remembered: Self.cans))
        _ = part.handle(.report(.connected(Self.cans)))
        Self.run(
            &part,
            [
                (
                    .pair,
                    [
                        .route(nil), .volumeCeiling(nil), .request(.disconnect(address: Self.cans.address)),
                        .say(L.speakerOn), .say(L.pairingStarted), .request(.pair(seconds: 60)),
                    ]
                ),
                (
                    .report(.paired(Self.other)),
                    [
                        .remember(Self.other), .say("Paired with Dad's"),
                        .request(.connect(address: Self.other.address, seconds: 20)),
                    ]
                ),
                // The old pair connecting meanwhile is not the remembered one any more.
                (.report(.connected(Self.cans)), []),
                (.report(.connected(Self.other)), [.route(Self.other), .volumeCeiling(60), .say(L.headphonesOn)]),
            ])
    }

    @Test func bluezUnusableIsSaidWhenAPersonAskedAndLoggedOnlyAtStart() {
        var part = Self.part()
        Self.run(
            &part,
            [
                (.started(remembered: Self.cans), [.request(.connect(address: Self.cans.address, seconds: 20))]),
                (.report(.unavailable("no adapter hci0")), []),
                (.pair, [.say(L.pairingStarted), .request(.pair(seconds: 60))]),
                (.report(.unavailable("no adapter hci0")), [.say(L.notWorking)]),
            ])
        #expect(part.route == nil && part.pending == .none)
    }

    @Test func theHeadphonesCapIsTheLowestCeilingAndGoesWithThem() {
        var volume = VolumeControl(configured: VolumeLimits(0...90), level: 80)
        volume.headphonesCeiling = 60
        #expect(volume.limits.range == 0...60)
        volume.cardCeiling = 40
        #expect(volume.limits.range == 0...40)
        volume.cardCeiling = 75
        #expect(volume.limits.range == 0...60)
        volume.headphonesCeiling = nil
        #expect(volume.limits.range == 0...75)
    }
}
