// SPDX-License-Identifier: GPL-3.0-or-later
// Keep this file tiny: top-level code is @MainActor, and closures written here would inherit that
// isolation and trap when C calls them on another thread (see ../shared/notes/swift-on-linux.md).
import Glibc
import KioskCommandLine

exit(BenchCommand.tool.main(CommandLine.arguments))
