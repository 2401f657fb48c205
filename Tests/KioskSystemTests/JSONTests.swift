// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem
import Testing

@Suite struct JSONTests {
    @Test func parsesEveryKindOfValueAndKeepsKeyOrder() throws {
        let value = try JSONValue.parse(
            #"{"b": [1, 2.5, -3e2], "a": {"t": true, "f": false, "n": null}, "s": "x\"\u00e9\ud83c\udfb5"}"#)
        #expect(value.object?.map(\.key) == ["b", "a", "s"])
        #expect(value["b"]?.array == [.number(1), .number(2.5), .number(-300)])
        #expect(value["a"]?["t"]?.bool == true)
        #expect(value["a"]?["n"]?.isNull == true)
        #expect(value["s"]?.string == "x\"é🎵")
        #expect(value["b"]?.array?[0].int == 1)
        #expect(value["b"]?.array?[1].int == nil)
    }

    @Test func roundTripsThroughSerialization() throws {
        let text = #"{"name":"Ümlaut \"quoted\"\n","list":[1,2,{"x":null}],"flag":true}"#
        let value = try JSONValue.parse(text)
        #expect(value.serialized() == text)
        #expect(try JSONValue.parse(value.serialized(pretty: true)) == value)
    }

    @Test(arguments: [
        ("", "line 1, column 1: empty document"),
        ("{\"a\": }", "line 1, column 7: expected a value (object, array, string, number, true, false or null)"),
        ("{\n  \"a\": 1,\n  \"b\" 2\n}", "line 3, column 7: expected ':' after key"),
        ("[1, 2", "line 1, column 6: unexpected end of input in an array"),
        ("\"abc", "line 1, column 5: unterminated string"),
        ("tru", "line 1, column 1: unknown word (expected true)"),
        ("{} x", "line 1, column 4: unexpected text after the JSON value"),
        ("\"\\ud800\"", "line 1, column 8: unpaired surrogate in \\u escape"),
    ])
    func reportsWhereAndWhyParsingFailed(text: String, message: String) {
        do {
            _ = try JSONValue.parse(text)
            Issue.record("parsed invalid JSON \(text)")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func refusesDeepNestingInsteadOfRecursingWithoutBound() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONParseError.self) { try JSONValue.parse(deep) }
    }

    @Test func refusesInvalidUTF8() {
        #expect(throws: JSONParseError.self) { try JSONValue.parse([0x22, 0xFF, 0xFE, 0x22]) }
    }
}
