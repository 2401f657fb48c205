import KioskDisplay

/// The state the status light shows (`LightState`), worked out at each screen refresh and sent to
/// `onLightState` only when it changes: low power first, then an error message, then a new card's
/// link prompt, then exhibit mode's closed or waiting station, then playback (nothing queued counts
/// as stopped). Thread: the loop thread, like `Player`.
extension Player {
    /// The light's state from one view of the player and the screen made from it (made once per
    /// refresh: a browse list maps every collection).
    static func lightState(
        _ view: PlayerView, screen: ScreenState, linking: Bool, lowPower: Bool = false, exhibit: LightState? = nil
    ) -> LightState {
        // Low power first: the box's errors may well come from it.
        if lowPower { return .lowPower }
        if case .message(let message) = screen, message.kind == .error { return .error }
        if linking { return .linking }
        if view.shuttingDown { return .stopped }
        if let exhibit { return exhibit }
        switch view.status {
        case .playing: return .playing
        case .paused: return .paused
        case .stopped: return .stopped
        }
    }

    /// The status light's state now.
    public var currentLightState: LightState {
        let view = self.view
        return Self.lightState(
            view, screen: view.screen, linking: isLinkPromptShowing, lowPower: isLowPower, exhibit: exhibitLightState)
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
            view, screen: screen, linking: isLinkPromptShowing, lowPower: isLowPower, exhibit: exhibitLightState)
        guard state != lightState else { return }
        lightState = state
        onLightState?(state)
    }
}
