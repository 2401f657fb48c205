// SPDX-License-Identifier: GPL-3.0-or-later
import Testing

/// Expects `body` to throw an error whose description is `message` (the full text a user would
/// read: file, key path and problem). Thread: the test's own.
public func expectError<T>(
    describedAs message: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> T
) {
    do {
        _ = try body()
        Issue.record("no error; expected \"\(message)\"", sourceLocation: sourceLocation)
    } catch {
        #expect(String(describing: error) == message, sourceLocation: sourceLocation)
    }
}
