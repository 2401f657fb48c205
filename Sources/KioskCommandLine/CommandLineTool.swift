// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem

/// One subcommand of a program (`kiosk-player run`, `kiosk-bench idle`), as data: what it is, the
/// options it takes, what runs it. Its arguments are parsed from `options` before `run` is called,
/// and its `--help` is made from the same declaration.
public struct Command {
    public let name: String
    /// One line for the command list.
    public let summary: String
    /// The usage lines, after `PROGRAM NAME` (positionals and the options that matter most);
    /// a line starting with a space continues the line before.
    public let synopsis: [String]
    /// What the command does: paragraphs for `--help`, between the usage and the options.
    public let description: String
    public let options: [CommandOption]
    /// Commands under this one, chosen by the first argument.
    public let subcommands: [Command]
    public let run: (ParsedArguments) throws -> Int32

    public init(
        name: String, summary: String, synopsis: [String] = ["[OPTIONS]"], description: String,
        options: [CommandOption] = [], subcommands: [Command] = [], run: @escaping (ParsedArguments) throws -> Int32
    ) {
        self.name = name
        self.summary = summary
        self.synopsis = synopsis
        self.description = description
        self.options = options
        self.subcommands = subcommands
        self.run = run
    }

    /// The `--help` text of this command of `program`, called `path` on the command line (`scan`).
    public func help(program: String, path: String) -> String {
        var text = ""
        for (i, line) in synopsis.enumerated() {
            // A line that starts with a space continues the one before it.
            let form = line.hasPrefix(" ") ? line : "\(program) \(path) \(line)".trimmingTrailingSpaces()
            text += (i == 0 ? "Usage: " : "       ") + form + "\n"
        }
        text += "\n" + description
        if !description.hasSuffix("\n") { text += "\n" }
        if !subcommands.isEmpty {
            let width = (subcommands.map(\.name.count).max() ?? 0) + 2
            for command in subcommands { text += "  " + command.name.padding(to: width) + command.summary + "\n" }
        }
        if !options.isEmpty {
            text += "\nOptions:\n" + CommandOption.describe(options)
        }
        return text + "\n"
    }
}

/// One option of a command: its name, the placeholder of its value, its help, how its value is
/// parsed. `--name value` and `--name=value` both work; flags take no value.
public struct CommandOption {
    public enum Value {
        /// No value: present or not.
        case flag
        /// Any text.
        case text
        /// A decimal integer in the range, or one of `words` verbatim.
        case integer(ClosedRange<Int>, words: [String])
        /// One of these words.
        case choice([String])
    }

    public let name: String
    /// What the value is called in the help (`FILE`); empty for a flag.
    public let placeholder: String
    /// One line, or several separated by newlines (shown aligned under the first).
    public let help: String
    public let value: Value

    public static func flag(_ name: String, _ help: String) -> CommandOption {
        CommandOption(name: name, placeholder: "", help: help, value: .flag)
    }

    public static func text(_ name: String, _ placeholder: String, _ help: String) -> CommandOption {
        CommandOption(name: name, placeholder: placeholder, help: help, value: .text)
    }

    public static func integer(
        _ name: String, _ placeholder: String, _ range: ClosedRange<Int>, or words: [String] = [], _ help: String
    ) -> CommandOption {
        CommandOption(name: name, placeholder: placeholder, help: help, value: .integer(range, words: words))
    }

    public static func choice(_ name: String, _ placeholder: String, _ choices: [String], _ help: String)
        -> CommandOption
    {
        CommandOption(name: name, placeholder: placeholder, help: help, value: .choice(choices))
    }

    public var takesValue: Bool {
        if case .flag = value { return false }
        return true
    }

    /// Checks a value against the declaration; the message names the option and what it expects.
    public func check(_ text: String, command: String) throws(UsageError) {
        switch value {
        case .flag, .text:
            return
        case .integer(let range, let words):
            if words.contains(text) { return }
            guard let number = Int(text), range.contains(number) else {
                let alternatives = words.isEmpty ? "" : " or " + words.joined(separator: ", ")
                throw UsageError(
                    command: command,
                    message:
                        "option '\(name)' must be an integer \(range.lowerBound)…\(range.upperBound)\(alternatives), not '\(text)'"
                )
            }
        case .choice(let choices):
            guard choices.contains(text) else {
                throw UsageError(
                    command: command,
                    message: "\(name) must be one of \(choices.joined(separator: ", ")), not '\(text)'")
            }
        }
    }

    /// The options' lines for `--help`: `  --name PLACEHOLDER  help`, the help in one column.
    public static func describe(_ options: [CommandOption]) -> String {
        func label(_ option: CommandOption) -> String {
            option.placeholder.isEmpty ? option.name : option.name + " " + option.placeholder
        }
        let width = min(24, (options.map { label($0).count }.max() ?? 0) + 2)
        let indent = String(repeating: " ", count: width + 2)
        var text = ""
        for option in options {
            let lines = option.help.split(separator: "\n", omittingEmptySubsequences: false)
            let first = label(option)
            text += "  " + first
            // A label wider than the column gets its help on the next line.
            text += first.count + 2 > width ? "\n" + indent : String(repeating: " ", count: width - first.count)
            text += (lines.first.map(String.init) ?? "") + "\n"
            for line in lines.dropFirst() { text += indent + line + "\n" }
        }
        return text
    }
}

/// A mistake on the command line: printed with a hint, exit status 2.
public struct UsageError: Error, CustomStringConvertible {
    public let command: String
    public let message: String
    public var description: String { message }

    public init(command: String, message: String) {
        self.command = command
        self.message = message
    }
}

/// An error that is the user's to fix (a file that cannot be read, a bad config): printed, exit status 1.
public struct ToolError: Error, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// A program made of subcommands (`kiosk-player`, `kiosk-bench`): its usage, the dispatch to the
/// command its first argument names, and the exit status of usage mistakes (2) and errors (1).
///
/// Thread: the main thread, once per process.
public struct CommandLineTool {
    public static let version = "0.1.0"

    /// The program's name as its usage and messages say it.
    public let program: String
    /// What the program is, one line (after "PROGRAM VERSION: ").
    public let headline: String
    public let commands: [Command]
    /// Commands that went elsewhere, and where: named in the message instead of "unknown command".
    public let moved: [String: String]

    public init(program: String, headline: String, commands: [Command], moved: [String: String] = [:]) {
        self.program = program
        self.headline = headline
        self.commands = commands
        self.moved = moved
    }

    public var usage: String {
        var text = """
            \(program) \(Self.version): \(headline)

            Usage: \(program) [--verbose] COMMAND [OPTIONS]

            Commands:

            """
        let width = (commands.map(\.name.count).max() ?? 0) + 2
        for command in commands {
            text += "  " + command.name.padding(to: width) + command.summary + "\n"
        }
        text += "\nRun '\(program) COMMAND --help' for a command's options.\n"
        return text
    }

    public func main(_ arguments: [String]) -> Int32 {
        var args = Array(arguments.dropFirst())
        while let first = args.first, first.hasPrefix("-") {
            switch first {
            case "--verbose", "-v":
                Log.verbose = true
                args.removeFirst()
            case "--help", "-h":
                Self.writeOut(usage)
                return 0
            case "--version":
                printLine("\(program) \(Self.version)")
                return 0
            default:
                Self.writeErr("\(program): unknown option '\(first)'\nRun '\(program) --help' for the commands.\n")
                return 2
            }
        }
        guard let name = args.first else {
            Self.writeErr(usage)
            return 2
        }
        if name == "help" {
            if args.count > 1, let command = commands.first(where: { $0.name == args[1] }) {
                Self.writeOut(command.help(program: program, path: command.name))
            } else {
                Self.writeOut(usage)
            }
            return 0
        }
        guard let command = commands.first(where: { $0.name == name }) else {
            if let whereTo = moved[name] {
                Self.writeErr("\(program): '\(name)' moved: \(whereTo)\n")
            } else {
                Self.writeErr("\(program): unknown command '\(name)'\nRun '\(program) --help' for the commands.\n")
            }
            return 2
        }
        do {
            return try invoke(command, path: name, Array(args.dropFirst()))
        } catch let error as UsageError {
            Self.writeErr(
                "\(program) \(error.command): \(error.message)\nRun '\(program) \(error.command) --help' for usage.\n"
            )
            return 2
        } catch {
            Self.writeErr("\(program) \(name): \(error)\n")
            return 1
        }
    }

    /// Runs `command` (or the subcommand its first argument names) on `arguments`, parsed from
    /// its declared options; `--help` anywhere prints its help instead.
    public func invoke(_ command: Command, path: String, _ arguments: [String]) throws -> Int32 {
        if let first = arguments.first, let sub = command.subcommands.first(where: { $0.name == first }) {
            return try invoke(sub, path: path + " " + sub.name, Array(arguments.dropFirst()))
        }
        if arguments.contains("--help") || arguments.contains("-h") {
            Self.writeOut(command.help(program: program, path: path))
            return 0
        }
        return try command.run(try ParsedArguments(arguments, command: path, options: command.options))
    }

    public static func writeOut(_ text: String) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { _ = try? Syscalls.write(1, UnsafeRawBufferPointer($0)) }
    }

    public static func writeErr(_ text: String) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { _ = try? Syscalls.write(2, UnsafeRawBufferPointer($0)) }
    }
}

/// A command's arguments, parsed once from its declared options (values already checked
/// against them); everything else is positional; `--` ends the options.
public struct ParsedArguments {
    /// The command as the user named it (`scan`, `idle`), for messages.
    public let command: String
    public private(set) var positionals: [String] = []
    private var values: [String: [String]] = [:]
    private var flags: Set<String> = []
    private let declared: [String: CommandOption]

    public init(_ arguments: [String], command: String, options: [CommandOption]) throws(UsageError) {
        self.command = command
        var declared: [String: CommandOption] = [:]
        for option in options { declared[option.name] = option }
        self.declared = declared
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
            guard let option = declared[name] else {
                throw UsageError(command: command, message: "unknown option '\(name)'")
            }
            guard option.takesValue else {
                if inlineValue != nil { throw UsageError(command: command, message: "option '\(name)' takes no value") }
                flags.insert(name)
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else {
                guard index < arguments.count else {
                    throw UsageError(command: command, message: "option '\(name)' needs a value")
                }
                value = arguments[index]
                index += 1
            }
            try option.check(value, command: command)
            values[name, default: []].append(value)
        }
    }

    /// The last value given for option `name`.
    public func value(_ name: String) -> String? {
        assert(declared[name] != nil, "\(name) is not declared by \(command)")
        return values[name]?.last
    }

    /// Every value given for option `name`, in order.
    public func all(_ name: String) -> [String] {
        assert(declared[name] != nil, "\(name) is not declared by \(command)")
        return values[name] ?? []
    }

    public func has(_ flag: String) -> Bool {
        assert(declared[flag] != nil, "\(flag) is not declared by \(command)")
        return flags.contains(flag)
    }

    /// The value of integer option `name` (checked against its range when parsed); nil when not
    /// given or given as one of its words.
    public func int(_ name: String) -> Int? { value(name).flatMap { Int($0) } }

    /// A mistake in these arguments, for the command's own checks.
    public func usageError(_ message: String) -> UsageError { UsageError(command: command, message: message) }
}

extension String {
    public func padding(to width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }

    public func trimmingTrailingSpaces() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
