// SPDX-License-Identifier: GPL-3.0-or-later
/// MPD's single mode, set by MPD clients (`single 0|1|oneshot`), as MPD 0.23 plays it: on, the
/// queue stops after the current track; with repeat on the current track plays again instead.
/// Without repeat, playback pauses at the start of the next entry (MPD's "border pause"); at the
/// end of the queue it stops. `oneshot` is on until that pause, then off.
///
/// Thread: any (a value).
public enum SingleMode: String, Equatable, Sendable {
    case off = "0"
    case on = "1"
    case oneshot
}
