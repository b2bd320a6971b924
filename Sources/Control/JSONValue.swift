// yt-gst — JSON values for the IPC socket: parsed from a client's line, written back as one line.
import AppSrcFeeder

/// A JSON value. The IPC server reads and writes JSON without Foundation (it would cost every run start-up time and
/// resident memory; see README, Performance), and mpv's protocol needs only these.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    /// Members in the order written (a reply's fields keep mpv's order: data, request_id, error).
    case object([(String, JSONValue)])

    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case (.bool(let x), .bool(let y)): x == y
        case (.number(let x), .number(let y)): x == y
        case (.string(let x), .string(let y)): x == y
        case (.array(let x), .array(let y)): x == y
        case (.object(let x), .object(let y)): x.map(\.0) == y.map(\.0) && x.map(\.1) == y.map(\.1)
        default: false
        }
    }

    /// The member `key` of an object (nil for anything else or a missing key).
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    /// A whole number (a request id, an observer id, a playlist index); nil for fractions and other types.
    public var integer: Int? {
        guard case .number(let value) = self, value.rounded() == value, abs(value) < 9e15 else { return nil }
        return Int(value)
    }

    public var double: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// A string, as mpv takes strings for every type ("yes"/"no" for flags, "50" for numbers).
    public var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The value as one line of JSON text (no newline inside: strings escape theirs).
    public var text: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .number(let value): return Self.number(value)
        case .string(let value): return JSON.string(value)
        case .array(let items): return "[" + items.map(\.text).joined(separator: ",") + "]"
        case .object(let members):
            return "{" + members.map { JSON.string($0.0) + ":" + $0.1.text }.joined(separator: ",") + "}"
        }
    }

    /// Whole numbers without a fraction, others with up to 6 decimals as mpv writes them; JSON has no NaN or
    /// infinity, so those are null.
    private static func number(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value.rounded() == value && abs(value) < 1e15 { return String(Int(value)) }
        return String(value)
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByFloatLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(nilLiteral: ()) { self = .null }
}
