// yt-gst — JSON-RPC 2.0's messages as the control service reads and writes them (Snapcast's layout).

/// A JSON-RPC error: its code, message and, where it helps, what was wrong (`data`).
public struct JSONRPCError: Error, Equatable {
    public var code: Int
    public var message: String
    public var data: String?

    public static let parse = JSONRPCError(code: -32700, message: "Parse error")
    public static let invalidRequest = JSONRPCError(code: -32600, message: "Invalid request")
    public static let methodNotFound = JSONRPCError(code: -32601, message: "Method not found")
    public static let unauthorized = JSONRPCError(code: -32001, message: "Unauthorized")

    /// -32602, with what was wrong ("Client not found", "volume.percent must be 0-100").
    public static func invalidParams(_ detail: String) -> JSONRPCError {
        JSONRPCError(code: -32602, message: "Invalid params", data: detail)
    }

    var json: JSONValue {
        .object(
            [("code", .number(Double(code)))] + (data.map { [("data", .string($0))] } ?? []) + [
                ("message", .string(message))
            ])
    }
}

/// Writing JSON-RPC 2.0 messages, members in Snapcast's (alphabetical) order.
enum JSONRPC {
    static func result(_ result: JSONValue, id: JSONValue) -> JSONValue {
        .object([("id", id), ("jsonrpc", "2.0"), ("result", result)])
    }

    static func error(_ error: JSONRPCError, id: JSONValue) -> JSONValue {
        .object([("error", error.json), ("id", id), ("jsonrpc", "2.0")])
    }

    static func notification(_ method: String, _ params: JSONValue) -> JSONValue {
        .object([("jsonrpc", "2.0"), ("method", .string(method)), ("params", params)])
    }

    static func request(_ method: String, id: Int, _ params: JSONValue) -> JSONValue {
        .object([("id", .number(Double(id))), ("jsonrpc", "2.0"), ("method", .string(method)), ("params", params)])
    }
}

/// One request or notification taken from a message: its method, params and id (nil: a notification).
struct JSONRPCCall {
    var method: String
    var params: JSONValue
    var id: JSONValue?

    /// Reads one member of a message; throws invalid request (with the id when there is a usable one).
    init(_ message: JSONValue) throws(JSONRPCFailure) {
        let id = message["id"]
        let usableID: JSONValue? =
            switch id {
            case .string?, .number?, .null?: id
            default: nil
            }
        guard case .object = message, message["jsonrpc"] == "2.0", let method = message["method"]?.string,
            id == nil || usableID != nil
        else { throw JSONRPCFailure(error: .invalidRequest, id: usableID ?? .null) }
        self.method = method
        self.params = message["params"] ?? .object([])
        self.id = usableID
    }
}

/// An error to answer with, and the id to answer it to.
struct JSONRPCFailure: Error {
    var error: JSONRPCError
    var id: JSONValue
}

extension JSONValue {
    /// Members of an object (empty for anything else).
    var members: [(String, JSONValue)] {
        if case .object(let members) = self { return members }
        return []
    }

    var bool: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    var array: [JSONValue]? {
        if case .array(let items) = self { return items }
        return nil
    }
}
