// SPDX-License-Identifier: GPL-3.0-or-later
import KioskSystem
import Testing

@Suite struct JSONReaderTests {
    func reader(_ text: String) throws -> JSONReader { try JSONReader.parse(Array(text.utf8), file: "config.json") }

    @Test func readsTypedValuesWithDefaultsForMissingKeys() throws {
        let r = try reader(#"{"volume": 70, "name": "x", "on": true, "audio": {"device": "hw:0"}, "list": ["a"]}"#)
        #expect(try r.int("volume", range: 0...100) == 70)
        #expect(try r.string("name") == "x")
        #expect(try r.bool("on") == true)
        #expect(try r.int("missing", range: 0...1) == nil)
        let audio = try #require(try r.object("audio"))
        #expect(try audio.string("device") == "hw:0")
        try audio.finish()
        #expect(try r.strings("list") == ["a"])
        try r.finish()
    }

    @Test func errorsNameTheFileTheKeyPathAndTheExpectedValue() throws {
        let r = try reader(#"{"audio": {"bufferMs": "fast"}, "volume": 170, "theme": "pink"}"#)
        let audio = try #require(try r.object("audio"))
        #expect(
            throws: ConfigError(
                file: "config.json", path: "audio.bufferMs", message: #"expected an integer 10…500, got "fast""#)
        ) {
            try audio.int("bufferMs", range: 10...500)
        }
        #expect(throws: ConfigError(file: "config.json", path: "volume", message: "expected an integer 0…100, got 170"))
        {
            try r.int("volume", range: 0...100)
        }
        #expect(
            throws: ConfigError(
                file: "config.json", path: "theme", message: #"expected one of "dark", "light", got "pink""#)
        ) {
            try r.choice("theme", ["dark", "light"])
        }
    }

    @Test func unknownKeyIsAnError() throws {
        let r = try reader(#"{"volume": 10, "volumme": 20}"#)
        _ = try r.int("volume", range: 0...100)
        #expect(throws: ConfigError(file: "config.json", path: "volumme", message: "unknown key (known keys: volume)"))
        {
            try r.finish()
        }
    }

    @Test func duplicateKeyAndSyntaxErrorsAreReported() throws {
        #expect(throws: ConfigError(file: "config.json", path: "a", message: "duplicate key")) {
            try reader(#"{"a": 1, "a": 2}"#)
        }
        #expect(
            throws: ConfigError(
                file: "config.json", path: "",
                message:
                    "not valid JSON: line 1, column 10: expected a quoted key"
            )
        ) {
            try reader(#"{"a": 1, }"#)
        }
    }
}
