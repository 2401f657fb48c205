// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem
import KioskTestSupport
import Testing

/// The `kiosk-player` and `kiosk-bench` binaries' dispatch: help, unknown commands and options.
@Suite(.tags(.integration)) struct CommandLineTests {
    let binary = TestPaths.playerBinary
    let bench = TestPaths.benchBinary

    @Test func helpListsTheCommands() throws {
        let result = run(binary, ["--help"])
        #expect(result.status == 0)
        #expect(result.output.contains("Usage: kiosk-player"))
        #expect(result.output.contains("doctor"))
    }

    @Test func everyCommandHasHelp() throws {
        for program in [binary, bench] {
            let name = String(program.split(separator: "/").last ?? "")
            let list = run(program, ["--help"]).output
            let names = list.split(separator: "\n").drop(while: { !$0.hasPrefix("Commands:") }).dropFirst()
                .prefix(while: { $0.hasPrefix("  ") }).compactMap { $0.split(separator: " ").first.map(String.init) }
            #expect(!names.isEmpty, "\(name) lists its commands")
            for command in names {
                let result = run(program, [command, "--help"])
                #expect(result.status == 0, "\(name) \(command) --help")
                #expect(
                    result.output.contains("Usage: \(name) \(command)"), "\(name) \(command) --help prints its usage")
            }
        }
    }

    @Test func theBenchmarksAreNotInThePlayer() {
        let result = run(binary, ["bench", "idle"])
        #expect(result.status == 2)
        #expect(result.errors.contains("kiosk-bench"), "says where the benchmarks went: \(result.errors)")
        #expect(!run(binary, ["--help"]).output.contains("bench"))
    }

    @Test func unknownCommandExitsWithStatus2() {
        let result = run(binary, ["frobnicate"])
        #expect(result.status == 2)
        #expect(result.errors.contains("unknown command 'frobnicate'"))
    }

    @Test func unknownOptionExitsWithStatus2() {
        let result = run(binary, ["scan", "--bogus", "x"])
        #expect(result.status == 2)
        #expect(result.errors.contains("kiosk-player scan: unknown option '--bogus'"))
        let global = run(binary, ["--bogus"])
        #expect(global.status == 2)
    }

    @Test func badOptionValueExitsWithStatus2() {
        let result = run(bench, ["idle", "--seconds", "many"])
        #expect(result.status == 2)
        #expect(result.errors.contains("kiosk-bench idle: option '--seconds' must be an integer 1…600, not 'many'"))
    }

    @Test func aBenchmarkHasHelpFromItsDeclaredOptions() {
        let result = run(bench, ["idle", "--help"])
        #expect(result.status == 0)
        #expect(result.output.contains("Usage: kiosk-bench idle"))
        #expect(result.output.contains("--seconds N"))
    }

    @Test func optionValuesAreCheckedAsDeclared() {
        let screen = run(binary, ["run", "--screen", "hologram"])
        #expect(screen.status == 2)
        #expect(
            screen.errors.contains(
                "--screen must be one of auto, framebuffer, spi, none, png, terminal, not 'hologram'"))
        let flagValue = run(binary, ["scan", "--json=yes", "x"])
        #expect(flagValue.status == 2)
        #expect(flagValue.errors.contains("option '--json' takes no value"))
        let missing = run(binary, ["play", "a.flac", "--device"])
        #expect(missing.status == 2)
        #expect(missing.errors.contains("option '--device' needs a value"))
    }
}
