// SPDX-License-Identifier: GPL-3.0-or-later
import KioskConfig
import KioskModel

/// The state the status light shows (`LightState`), worked out at each screen refresh and sent to
/// a `.light` change only when it changes: low power first, then a low battery the box runs from, then an error message, then a new card's
/// link prompt, then exhibit mode's closed or waiting station, then playback (nothing queued counts
/// as stopped; the bedtime rules' announcement made, playing blinks as `sleepSoon`). Thread: the loop thread, like `Player`.
extension Player {
    /// The light's state from one view of the player and the screen made from it (made once per
    /// refresh: a browse list maps every collection).
    /// `message`: the transient message, shown or not (an exhibit with `screen: "none"` keeps the
    /// screen dark, and its light is where an error shows).
    static func lightState(
        _ view: PlayerView, screen: ScreenState, message: MessageState? = nil, linking: Bool, lowPower: Bool = false,
        exhibit: LightState? = nil, noSound: Bool = false, sleepSoon: Bool = false, batteryLow: Bool = false
    ) -> LightState {
        // Low power first: the box's errors may well come from it.
        if lowPower { return .lowPower }
        // A low battery next: its own warning is an error message, which must not hide it.
        if batteryLow && !view.shuttingDown { return .batteryLow }
        if case .message(let shown) = screen, shown.kind == .error { return .error }
        if message?.kind == .error || noSound { return .error }
        if linking { return .linking }
        if view.shuttingDown { return .stopped }
        if let exhibit { return exhibit }
        switch view.status {
        case .playing: return sleepSoon ? .sleepSoon : .playing
        case .paused: return .paused
        case .stopped: return .stopped
        }
    }

    /// The status light's state now.
    public var currentLightState: LightState {
        let view = self.view
        return Self.lightState(
            view, screen: view.screen, message: transientMessage, linking: isLinkPromptShowing, lowPower: isLowPower,
            exhibit: exhibitLightState, noSound: noOutputWorks, sleepSoon: isBedtimeEnding,
            batteryLow: isBatteryLow)
    }

    /// Exhibit mode's part of the light: closed, or open and waiting for a visitor (nil: a clip
    /// plays, shown as playback is, or not an exhibit).
    var exhibitLightState: LightState? {
        guard let exhibit else { return nil }
        if exhibit.closed { return .closed }
        return exhibit.triggers.playing == nil ? .ready : nil
    }

    /// A new card's link prompt is on the screen.
    var isLinkPromptShowing: Bool {
        guard let prompt = cardSession.prompt else { return false }
        return transientMessage == prompt.message
    }

    func noteLightState(_ view: PlayerView, screen: ScreenState) {
        let state = Self.lightState(
            view, screen: screen, message: transientMessage, linking: isLinkPromptShowing, lowPower: isLowPower,
            exhibit: exhibitLightState, noSound: noOutputWorks, sleepSoon: isBedtimeEnding,
            batteryLow: isBatteryLow)
        guard state != lightState else { return }
        lightState = state
        send(.light(state))
    }
}
