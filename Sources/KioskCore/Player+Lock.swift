// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel
import KioskSystem

/// The button lock: while locked, buttons, encoders, keys, event scripts and cards do nothing but
/// the lock's own gesture or card, which unlocks; remote clients (MPD, the parent's phone) are not
/// locked. The gate is at the player's two input entries (`handle(ActionEvent)`,
/// `handle(CardEvent)`), so every input backend is covered without knowing of it.
/// Thread: the loop thread, like `Player`.
extension Player {
    /// What the screen (and later the voice) says when the lock changes or a locked input is
    /// ignored: "Locked", with how to unlock when the board says.
    var lockedMessage: MessageState {
        MessageState(title: "Locked", detail: lockGesture.map { "\($0) to unlock" }, kind: .info)
    }
    static let unlockedMessage = MessageState(title: "Unlocked", kind: .info)

    /// Whether a locked player lets `event` through (only the lock action, which unlocks); an
    /// ignored press says "Locked", its hold-repeats say nothing more.
    func lockAdmits(_ event: ActionEvent) -> Bool {
        guard locked, event.action != .lock else { return true }
        if event.repeatCount == 0 { showLockedRefusal() }
        return false
    }

    /// Whether a locked player lets a card through: only a card linked to the lock (which unlocks).
    func lockAdmits(_ event: CardEvent) -> Bool {
        guard locked else { return true }
        guard event.kind == .presented else { return false }
        cards.reloadIfChanged()
        if case .action(.lock) = cards.link(of: event.uid) { return true }
        showLockedRefusal()
        return false
    }

    /// Locks or unlocks, says so, and saves at once (a restart keeps the lock).
    func toggleLock() {
        locked.toggle()
        Log.notice(locked ? "inputs locked" : "inputs unlocked")
        showTransient(locked ? lockedMessage : Self.unlockedMessage, seconds: 3)
        apply([.save(.now)])
    }

    private func showLockedRefusal() {
        showTransient(lockedMessage, seconds: 2)
        refreshScreen()
    }
}
