// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel

/// What a part of the player asks of the world outside its own state: the engine, the resume
/// saves, another part. `Player.apply(_:)` is the one place that carries them out.
///
/// Thread: any (a value).
enum PlayerEffect: Equatable {
    /// A request to the playback engine.
    case engine(EngineRequest)
    /// A save of the resume state: at the end of this loop turn, or at once.
    case save(SaveTiming)
    /// The periodic saves (while playing) run, or not.
    case periodicSaves(Bool)
    /// The queue's current entry becomes MPD's current song (it plays or is paused).
    case chooseCurrentEntry
    /// `event` comes back to its part after `milliseconds` (the loop's timer).
    case after(milliseconds: Int, Later)
    /// The screen is drawn again.
    case redraw
    /// `PlayerTimers`: the loop timer of `alarm` rings after `milliseconds` (replacing one armed
    /// before); it comes back to the timers as `.rang`.
    case arm(PlayerTimers.Alarm, milliseconds: Int)
    /// `PlayerTimers`: the loop timer of `alarm` will not ring.
    case disarm(PlayerTimers.Alarm)
    /// Exhibit mode: the loop timer of `alarm` rings after `milliseconds` (then every
    /// `milliseconds` when `repeating`), replacing one armed before.
    case armExhibit(ExhibitSession.Alarm, milliseconds: Int, repeating: Bool)
    /// Exhibit mode: the loop timer of `alarm` will not ring.
    case disarmExhibit(ExhibitSession.Alarm)
    /// Browse, help or menu go back to now playing (when something is queued).
    case browseTimedOut
    /// The idle power-off warning shows.
    case powerOffWarning
    /// The box shuts down, as by its shutdown control.
    case shutdown
    /// Playback stops (nothing happens when it is stopped).
    case stopPlayback
    /// The playing card stayed off its reader too long: what it paused stops.
    case cardStayedAway
    /// An event for the `Transport` part.
    case transport(Transport.Event)
    /// An event for the `PlayerTimers` part.
    case timers(PlayerTimers.Event)
    /// Remote clients are told of a change of these aspects with the next refresh.
    case remoteChange(PlayerAspects)
    /// The engine stops on an empty queue; the transport is stopped at its track's start.
    case silence
    /// `RestoreSession`: the restored track the engine holds alone is the queue's entry `entry`
    /// (it keeps its engine id; its artwork shows).
    case adoptRestoredTrack(entry: Int)
    /// The queue moves on from its current entry as `PlayQueue` decides for the origin.
    case moveOn(PlayQueue.Origin)
    /// A command as the buttons give it (origin `.button`).
    case command(PlayerCommand)
    /// An event for the `Overlays` part.
    case overlays(Overlays.Event)
    /// A held next/previous on now playing seeks (`Player+Seek.swift`).
    case seekByHold(ActionEvent)
    /// Speech follows a move through a list (it says where the move ended, not each step).
    case noteMove
    /// The visible part of the browse list gets its thumbnails.
    case browseArtwork
    /// The browse list's selected collection plays: where its bookmark left it, or from its start.
    case playSelection(fromStart: Bool)
    /// The queue again from its first entry in play order, playing.
    case playFromStart
    /// The menu's output entry: the next device.
    case chooseNextOutput
    /// The next shuffle setting, said in a message.
    case cycleShuffle
    /// The next sleep timer setting, said in a message.
    case cycleSleepTimer
    /// The Cards screen unlinks the card in row `row`.
    case unlinkCard(row: Int)
    /// `BedtimeRules`: what the rules decided, shown, said or saved.
    case bedtime(BedtimeRules.Outcome)
    /// `BedtimeRules`: the rules look at the time again after `milliseconds` (replacing the timer
    /// armed before).
    case armBedtime(milliseconds: Int)
    /// `BatteryGuard`: what a reading of the battery means, shown, said or done.
    case battery(BatteryGuard.Outcome)
    /// `BluetoothLink`: what a Bluetooth action or report means, shown, said, routed or asked of
    /// BlueZ.
    case bluetooth(BluetoothLink.Outcome)
    /// `StickOffer`: the update offered was taken: the confirmation kiosk-update waits for is
    /// written (`KIOSK_UPDATE_CONFIRM`).
    case confirmUpdate(UpdateOffer)
    /// `StickOffer`: the set from `file` replaces the box's cards and bookmarks.
    case importStickSet(StickSet, file: String)
    /// `StickOffer`: the cards and bookmarks before the import come back.
    case undoStickSetImport(StickSet)

    /// What a part asked to hear of later.
    enum Later: Equatable {
        /// `Overlays`: the message shown as `generation` has had its time.
        case messageTimedOut(generation: Int)
        /// `StickOffer`: the offer made as `generation` has had its time.
        case offerExpired(generation: Int)
    }

    enum EngineRequest: Equatable {
        /// A new queue, positioned at entry `startAt`, frame `startFrame`.
        case setQueue([TrackRequest], startAt: Int, startFrame: Int64)
        case play, pause, stop
        case seek(toFrame: Int64)
        case setVolume(Int)
        /// The sound fades out over `milliseconds` (the sleep timer's end).
        case fadeOut(milliseconds: Int)
        /// A fade under way is undone: the set volume again.
        case cancelFade
        /// The output device is let go until the next play.
        case releaseDevice
        /// The next track to start fades in over `milliseconds`.
        case fadeInNextStart(milliseconds: Int)
    }

    enum SaveTiming: Equatable { case soon, now }
}
