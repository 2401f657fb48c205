// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel

/// What buttons, cards and remote clients ask of the player: one vocabulary, applied by
/// `Player.perform(_:from:)`. A button's meaning on each screen is the navigation's (an `Action`
/// becomes a command there, or a move on the screen); where a remote client's meaning differs —
/// MPD's next always plays, its play never starts the browse selection — the command's origin goes
/// into the rule (`PlayQueue.Origin`), not into a second implementation.
///
/// Thread: any (a value).
public enum PlayerCommand: Equatable, Sendable {
    /// Plays: resumes a pause, starts a stopped queue; with nothing queued a button plays the
    /// selected collection.
    case play
    /// Pauses while playing.
    case pause
    /// Resumes while paused (MPD's `pause 0`).
    case resume
    /// Pauses or resumes; a button's play-pause also starts a stopped queue.
    case togglePause
    /// Stops and rewinds to the start of the current entry.
    case stop
    case next
    case previous
    /// Queue entry `entry` from its start, playing.
    case playEntry(Int)
    /// `seconds` into entry `entry` (nil: the current one, which must be playing or paused).
    case seek(entry: Int?, seconds: Double)
    /// The volume, in percent (within the limits).
    case setVolume(Int)
    case changeVolume(by: Int)
    case setRepeat(Bool)
    case setSingle(SingleMode)
    case setConsume(Bool)
    /// The shuffle; from a remote client (MPD's `random 1`) `tracks` keeps an album shuffle chosen
    /// on the box.
    case setShuffle(PlayQueue.Shuffle)
    /// The ReplayGain mode (MPD's `replay_gain_mode`); the config's `replayGain` at every start.
    case setReplayGain(ReplayGainMode)
    /// The sleep timer, `seconds` from now (nil: off).
    case setSleepTimer(seconds: Int?)
    /// The audio output (one of the devices, or `Player.silentOutput`).
    case chooseOutput(String)
    /// `tracks` before entry `at` (nil or past the end: appended); what plays goes on.
    case insert([Track], at: Int?)
    /// The entries in the range leave the queue (removing the current one goes on with the next).
    case delete(Range<Int>)
    /// The entries in the range move so that the first is at `to`.
    case move(Range<Int>, to: Int)
    /// Entries `a` and `b` change places.
    case swap(Int, Int)
    /// The entries in the range in a random order (MPD's `shuffle`: positions, not the play order).
    case shuffleEntries(Range<Int>)
    /// The entries in the range get MPD's priority (played first in random mode, higher first).
    case setPriority(UInt8, Range<Int>)
    /// Entry `entry` plays only `range` of its song (MPD's `rangeid`); refused for the current entry
    /// while playing or paused.
    case setRange(Int, SongRange)
    /// The queue is emptied and playback stops.
    case clear
    /// `tracks` become the queue, playing from the first, with no collection (exhibit mode's clips
    /// and attract loop): `loop` repeats them, otherwise they play once; a positive
    /// `fadeInMilliseconds` fades their start in.
    case playTracks([Track], loop: Bool, fadeInMilliseconds: Int = 0)
    /// The engine stops on an empty queue, the queue left as it is (exhibit mode's silence after a
    /// clip, or where its attract loop is missing).
    case silence
    /// The appliance is asked to shut down.
    case shutdown
}

/// Where a command comes from.
public enum CommandOrigin: Equatable, Sendable {
    case button, card, remote
    /// Exhibit mode's director (`Player+Exhibit.swift`).
    case exhibit
}
