// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskModel

@testable import KioskCore

/// What a rig's player says and how it lights its status light, recorded from its listeners (speech
/// set to prompts), for tests of a message that must be shown, said and lit.
/// Thread: the rig's (the test's) thread.
final class HeardFromPlayer {
    private(set) var said: [String] = []
    private(set) var lights: [LightState] = []

    init(_ rig: PlayerRig) {
        rig.player.speechMode = .prompts
        rig.player.listen(to: .speech) { if case .speak(let words) = $0 { self.said.append(words) } }
        rig.player.listen(to: .light) { if case .light(let state) = $0 { self.lights.append(state) } }
    }
}
