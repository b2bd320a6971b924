// yt-gst — reading one line of JSON (RFC 8259) into a JSONValue.

/// Why a line is not JSON; the server answers it with mpv's "invalid parameter" and reads on.
public struct JSONSyntaxError: Error, Equatable {
    /// Byte offset in the line where reading stopped.
    public var offset: Int
}

extension JSONValue {
    /// Parses `text`, which must hold one JSON value and nothing else but whitespace.
    public init(parsing text: String) throws(JSONSyntaxError) {
        var parser = JSONParser(bytes: Array(text.utf8))
        self = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw JSONSyntaxError(offset: parser.index) }
    }
}

/// A recursive-descent reader over UTF-8 bytes, nesting bounded so a hostile line cannot exhaust the stack.
private struct JSONParser {
    let bytes: [UInt8]
    var index = 0
    static let maxDepth = 64

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    private var failure: JSONSyntaxError { JSONSyntaxError(offset: index) }

    mutating func value(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        skipWhitespace()
        guard index < bytes.count, depth < Self.maxDepth else { throw failure }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        default: return .number(try number())
        }
    }

    private mutating func literal(_ word: String, _ value: JSONValue) throws(JSONSyntaxError) -> JSONValue {
        let word = Array(word.utf8)
        guard bytes.count - index >= word.count, Array(bytes[index..<index + word.count]) == word else {
            throw failure
        }
        index += word.count
        return value
    }

    private mutating func expect(_ byte: Character) throws(JSONSyntaxError) {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == byte.asciiValue! else { throw failure }
        index += 1
    }

    /// True (and past it) when the next byte is `byte`.
    private mutating func take(_ byte: Character) -> Bool {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == byte.asciiValue! else { return false }
        index += 1
        return true
    }

    private mutating func array(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        try expect("[")
        var items: [JSONValue] = []
        if take("]") { return .array(items) }
        repeat { items.append(try value(depth: depth + 1)) } while take(",")
        try expect("]")
        return .array(items)
    }

    private mutating func object(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        try expect("{")
        var members: [(String, JSONValue)] = []
        if take("}") { return .object(members) }
        repeat {
            skipWhitespace()
            let key = try string()
            try expect(":")
            members.append((key, try value(depth: depth + 1)))
        } while take(",")
        try expect("}")
        return .object(members)
    }

    private mutating func number() throws(JSONSyntaxError) -> Double {
        let start = index
        let allowed = Set("+-0123456789.eE".utf8)
        while index < bytes.count, allowed.contains(bytes[index]) { index += 1 }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        // Swift's Double(String) also takes "inf", "nan" and hex; JSON's grammar starts with '-' or a digit.
        guard let first = text.first, first == "-" || first.isNumber, let value = Double(text), value.isFinite else {
            index = start
            throw failure
        }
        return value
    }

    private mutating func string() throws(JSONSyntaxError) -> String {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure }
        index += 1
        var scalars = String.UnicodeScalarView()
        var run = index
        func flush(_ end: Int) {
            scalars.append(contentsOf: String(decoding: bytes[run..<end], as: UTF8.self).unicodeScalars)
        }
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                flush(index)
                index += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                flush(index)
                index += 1
                scalars.append(try escape())
                run = index
            case 0..<0x20:
                throw failure
            default:
                index += 1
            }
        }
        throw failure
    }

    /// The character after a backslash (`index` on it); `\u` surrogate pairs are joined.
    private mutating func escape() throws(JSONSyntaxError) -> Unicode.Scalar {
        guard index < bytes.count else { throw failure }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let high = try hex4()
            if (0xD800..<0xDC00).contains(high), take("\\"), index < bytes.count, bytes[index] == UInt8(ascii: "u") {
                index += 1
                let low = try hex4()
                guard (0xDC00..<0xE000).contains(low),
                    let scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
                else { throw failure }
                return scalar
            }
            guard let scalar = Unicode.Scalar(high) else { throw failure }
            return scalar
        default:
            throw failure
        }
    }

    private mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        guard bytes.count - index >= 4,
            let value = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
        else { throw failure }
        index += 4
        return value
    }
}
