import Glibc
import KioskSystem

/// One subcommand of `kiosk-player`.
struct Command {
    let name: String
    /// One line for the command list.
    let summary: String
    /// The full `--help` text (usage line first).
    let help: String
    let run: ([String]) throws -> Int32
}

/// A mistake on the command line: printed with a hint, exit status 2.
struct UsageError: Error, CustomStringConvertible {
    let command: String
    let message: String
    var description: String { message }
}

/// An error that is the user's to fix (a file that cannot be read, a bad config): printed, exit status 1.
struct ToolError: Error, CustomStringConvertible {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}

enum CommandLineTool {
    static let version = "0.1.0"

    static var commands: [Command] { CommandRegistry.all }

    static var usage: String {
        var text = """
            kiosk-player \(version): a FLAC player appliance for single-board computers.

            Usage: kiosk-player [--verbose] COMMAND [OPTIONS]

            Commands:

            """
        let width = (commands.map(\.name.count).max() ?? 0) + 2
        for command in commands {
            text += "  " + command.name.padding(to: width) + command.summary + "\n"
        }
        text += "\nRun 'kiosk-player COMMAND --help' for a command's options.\n"
        return text
    }

    static func main(_ arguments: [String]) -> Int32 {
        var args = Array(arguments.dropFirst())
        while let first = args.first, first.hasPrefix("-") {
            switch first {
            case "--verbose", "-v":
                Log.verbose = true
                args.removeFirst()
            case "--help", "-h":
                writeOut(usage)
                return 0
            case "--version":
                printLine("kiosk-player \(version)")
                return 0
            default:
                writeErr("kiosk-player: unknown option '\(first)'\nRun 'kiosk-player --help' for the commands.\n")
                return 2
            }
        }
        guard let name = args.first else {
            writeErr(usage)
            return 2
        }
        if name == "help" {
            if args.count > 1, let command = commands.first(where: { $0.name == args[1] }) {
                writeOut(command.help)
            } else {
                writeOut(usage)
            }
            return 0
        }
        guard let command = commands.first(where: { $0.name == name }) else {
            writeErr("kiosk-player: unknown command '\(name)'\nRun 'kiosk-player --help' for the commands.\n")
            return 2
        }
        let rest = Array(args.dropFirst())
        if rest.contains("--help") || rest.contains("-h") {
            writeOut(command.help)
            return 0
        }
        do {
            return try command.run(rest)
        } catch let error as UsageError {
            writeErr(
                "kiosk-player \(error.command): \(error.message)\nRun 'kiosk-player \(error.command) --help' for usage.\n"
            )
            return 2
        } catch {
            writeErr("kiosk-player \(name): \(error)\n")
            return 1
        }
    }

    static func writeOut(_ text: String) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { _ = try? Syscalls.write(1, UnsafeRawBufferPointer($0)) }
    }

    static func writeErr(_ text: String) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { _ = try? Syscalls.write(2, UnsafeRawBufferPointer($0)) }
    }
}

/// Command-line options of one subcommand, parsed from its arguments.
///
/// `--name value` and `--name=value` both work; flags take no value; everything else is
/// positional; `--` ends the options.
struct ParsedArguments {
    var positionals: [String] = []
    var values: [String: [String]] = [:]
    var flags: Set<String> = []

    init(_ arguments: [String], command: String, options: Set<String> = [], flags allowedFlags: Set<String> = [])
        throws(UsageError)
    {
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let arg = arguments[index]
            index += 1
            if onlyPositionals || !arg.hasPrefix("-") || arg == "-" {
                positionals.append(arg)
                continue
            }
            if arg == "--" {
                onlyPositionals = true
                continue
            }
            var name = arg
            var inlineValue: String?
            if let eq = arg.firstIndex(of: "=") {
                name = String(arg[..<eq])
                inlineValue = String(arg[arg.index(after: eq)...])
            }
            if allowedFlags.contains(name) {
                if inlineValue != nil { throw UsageError(command: command, message: "option '\(name)' takes no value") }
                flags.insert(name)
            } else if options.contains(name) {
                if let v = inlineValue {
                    values[name, default: []].append(v)
                } else {
                    guard index < arguments.count else {
                        throw UsageError(command: command, message: "option '\(name)' needs a value")
                    }
                    values[name, default: []].append(arguments[index])
                    index += 1
                }
            } else {
                throw UsageError(command: command, message: "unknown option '\(name)'")
            }
        }
    }

    func value(_ name: String) -> String? { values[name]?.last }
    func has(_ flag: String) -> Bool { flags.contains(flag) }

    func int(_ name: String, command: String, range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let text = value(name) else { return nil }
        guard let v = Int(text), range.contains(v) else {
            throw UsageError(
                command: command,
                message: "option '\(name)' must be an integer \(range.lowerBound)…\(range.upperBound), not '\(text)'")
        }
        return v
    }
}

extension String {
    func padding(to width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
