// SPDX-License-Identifier: GPL-3.0-or-later
import KioskModel

/// Seek by hold: next or previous held on the now-playing screen moves through the track
/// (`SeekHold` says how far each repeat goes), playing or paused, through the same seek as MPD's
/// `seekcur`. Back stops at the track's start (previous goes further); forward past the end is
/// next, as on a CD player, and the hold goes on seeking in the track that follows.
/// Thread: the loop thread, like `Player`.
extension Player {
    func seekByHold(_ event: ActionEvent) {
        guard status != .stopped, let track = currentTrack, !queue.isEmpty else { return }
        guard let delta = seekHold.step(for: event) else { return }
        let target = enginePositionSeconds + Double(delta)
        if delta > 0, let total = track.totalFrames, track.sampleRate > 0,
            target >= Double(total) / Double(track.sampleRate)
        {
            skip(forward: true)
            return
        }
        apply(.seek(entry: nil, seconds: max(0, target)), from: .button)
    }
}
