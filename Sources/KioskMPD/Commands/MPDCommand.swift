// SPDX-License-Identifier: GPL-3.0-or-later
/// How a command ended.
enum MPDOutcome {
    case done
    /// The response continues in a producer (long lists).
    case stream(any MPDProducer)
    /// The response comes later (a picture is being read).
    case wait
    case failed(MPDError, String)
    /// Answer, then close the connection (a client that does not speak the protocol).
    case failedAndClose(MPDError, String)
    case close
}

/// What a client may do: MPD's `PERMISSION_*` (src/client/Permission.hxx). Without a configured
/// password a client has them all; with one, none until `password` names it.
struct MPDPermission: OptionSet, Hashable, Sendable {
    let rawValue: UInt8

    static let read = MPDPermission(rawValue: 1 << 0)
    static let add = MPDPermission(rawValue: 1 << 1)
    static let control = MPDPermission(rawValue: 1 << 2)
    static let admin = MPDPermission(rawValue: 1 << 3)
    static let player = MPDPermission(rawValue: 1 << 4)

    /// Needed by nothing (MPD's `PERMISSION_NONE`): the commands a client may send before `password`.
    static let anyone: MPDPermission = []
    static let all: MPDPermission = [.read, .add, .control, .admin, .player]
}

/// One command as a handler sees it: its name, its arguments (counted already), the client.
struct MPDRequest {
    let name: String
    let arguments: [String]
    let connection: MPDConnection

    /// The argument at `index`; the table's counts guarantee the ones a handler reads unchecked.
    subscript(_ index: Int) -> String { arguments[index] }

    /// The argument at `index`, or nil when the client left it out.
    func optional(_ index: Int) -> String? { index < arguments.count ? arguments[index] : nil }
}

/// One row of the command table: MPD's `struct command` (src/command/AllCommands.cxx).
struct MPDCommand: Sendable {
    typealias Handler = @Sendable (MPDServer, MPDRequest) throws(MPDError) -> MPDOutcome

    let name: String
    let permission: MPDPermission
    /// Argument counts; `minArguments` -1: not checked at all, `maxArguments` -1: no upper bound.
    let minArguments: Int
    let maxArguments: Int
    let handler: Handler

    init(_ name: String, _ permission: MPDPermission, _ min: Int, _ max: Int, _ handler: @escaping Handler) {
        self.name = name
        self.permission = permission
        minArguments = min
        maxArguments = max
        self.handler = handler
    }

    /// Why this command may not run with `arguments` for a client holding `granted`, worded as
    /// MPD words it (`command_check_request`); nil when it may.
    func refusal(_ arguments: [String], granted: MPDPermission) -> MPDError? {
        if !granted.isSuperset(of: permission) {
            return MPDError(.permission, "you don't have permission for \"\(name)\"")
        }
        guard minArguments >= 0 else { return nil }
        let count = arguments.count
        if minArguments == maxArguments && count != maxArguments {
            return .argument("wrong number of arguments for \"\(name)\"")
        } else if count < minArguments {
            return .argument("too few arguments for \"\(name)\"")
        } else if maxArguments >= 0 && count > maxArguments {
            return .argument("too many arguments for \"\(name)\"")
        }
        return nil
    }
}

extension MPDServer {
    /// Runs one command line: tokenize, look the name up in `MPDCommands.table`, check permission
    /// and argument count from its row, run its handler.
    func execute(_ connection: MPDConnection, _ line: [UInt8]) -> MPDOutcome {
        let name: String
        let arguments: [String]
        do throws(MPDTokenizer.Failure) {
            (name, arguments) = try MPDTokenizer.split(line)
        } catch {
            switch error {
            case .badCommand(let message): return .failedAndClose(MPDError(.unknown, message), "")
            case .badArgument(let message): return .failed(MPDError(.unknown, message), "")
            case .tooManyArguments: return .failed(MPDError(.argument, "Too many arguments"), "")
            }
        }
        guard let command = MPDCommands.lookup(name) else {
            return .failed(MPDError(.unknown, "unknown command \"\(name)\""), "")
        }
        if let refusal = command.refusal(arguments, granted: connection.permissions) {
            return .failed(refusal, name)
        }
        do throws(MPDError) {
            return try command.handler(self, MPDRequest(name: name, arguments: arguments, connection: connection))
        } catch {
            return .failed(error, name)
        }
    }

    /// After a command that changed the player: note the change now (idle clients wake at once).
    func changed() -> MPDOutcome {
        noteChanges()
        return .done
    }
}
