// SPDX-License-Identifier: GPL-3.0-or-later
/// Pull resistor of a GPIO input line, as board profiles spell it ("pull-up", "as-is").
///
/// Thread: a value; any thread.
public enum GPIOBias: String, Sendable, CaseIterable {
    case pullUp = "pull-up"
    case pullDown = "pull-down"
    case disable
    case asIs = "as-is"
}
