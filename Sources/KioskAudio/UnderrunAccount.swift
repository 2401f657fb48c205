// SPDX-License-Identifier: GPL-3.0-or-later
/// What the output thread knew when the device ran dry, and the cause that points to: the
/// decoder had nothing ready (the ring was empty), the device did not take audio while the output
/// waited on it for longer than its buffer lasts (its interrupt or timer did not wake the writer
/// in time: the kernel's or the machine's doing, not the player's), or the output thread itself
/// was away from the device too long with audio ready (scheduling, or work of its own).
///
/// Thread: any (a value); the engine makes it on the loop thread for the underrun's log line.
struct UnderrunAccount: Equatable, CustomStringConvertible {
    enum Cause: String {
        case decoder, device, output
    }

    /// From the end of the output's last good write to the write that found the device dry.
    var awayMilliseconds: Int
    /// How long that last good write waited in the device for room.
    var waitMilliseconds: Int
    /// What the device held after it.
    var queuedMilliseconds: Int
    /// The device's buffer.
    var bufferMilliseconds: Int
    /// Whether the output found the ring empty and waited for the decoder since that write.
    var ringWasEmpty: Bool

    var cause: Cause {
        if ringWasEmpty { return .decoder }
        if waitMilliseconds >= bufferMilliseconds { return .device }
        return .output
    }

    var description: String {
        "\(awayMilliseconds) ms after the output's last write, which waited \(waitMilliseconds) ms for room "
            + "and left \(queuedMilliseconds) ms of a \(bufferMilliseconds) ms buffer queued; cause: \(cause.rawValue)"
    }
}
