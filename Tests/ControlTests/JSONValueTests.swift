// yt-gst — the IPC socket's JSON reading and writing, without a player.
import Testing

@testable import Control

@Suite struct JSONValueTests {
    @Test(arguments: [
        (
            #"{"command": ["set_property", "pause", true], "request_id": 7}"#,
            JSONValue.object([("command", .array(["set_property", "pause", true])), ("request_id", 7)])
        ),
        (
            #"[1.5, -2e3, null, false, "a\"b\\c\n\u00e9\ud83d\ude00"]"#,
            JSONValue.array([1.5, -2000.0, nil, false, "a\"b\\c\né😀"])
        ),
        ("  {}  ", JSONValue.object([])),
    ])
    func parses(text: String, value: JSONValue) throws {
        #expect(try JSONValue(parsing: text) == value)
    }

    @Test(arguments: [
        "", "{", "{\"a\" 1}", "[1,]", "nul", "01x", "\"abc", "{\"a\":1} x", "inf", "nan", "\"\\x41\"", "-",
        String(repeating: "[", count: 100) + String(repeating: "]", count: 100), "\"\u{01}\"", "\"\\ud800\\u0041\"",
    ])
    func rejects(text: String) {
        #expect(throws: JSONSyntaxError.self) { try JSONValue(parsing: text) }
    }

    @Test func writesOneLine() throws {
        let value = JSONValue.object([("data", "line\nbreak"), ("n", 100.0), ("x", 0.25), ("ok", true), ("z", nil)])
        #expect(value.text == #"{"data":"line\nbreak","n":100,"x":0.25,"ok":true,"z":null}"#)
        #expect(try JSONValue(parsing: value.text) == value)
    }

    @Test func requestWords() throws {
        var id: JSONValue = 0
        #expect(
            try IPCDispatcher.command(in: #"{"command":["seek",5],"request_id":3}"#, requestID: &id) == ["seek", 5])
        #expect(id == 3)
        id = 0
        #expect(try IPCDispatcher.command(in: "cycle pause", requestID: &id) == ["cycle", "pause"])
        #expect(throws: IPCError.invalidParameter) {
            try IPCDispatcher.command(in: #"{"command":"x"}"#, requestID: &id)
        }
        #expect(throws: IPCError.invalidParameter) { try IPCDispatcher.command(in: "{nope", requestID: &id) }
    }
}
