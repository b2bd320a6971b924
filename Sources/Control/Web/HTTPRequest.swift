// yt-gst — HTTP/1.1 requests read from a connection's bytes (RFC 9112), within fixed bounds.

/// One request: what the control service's web side needs of it (method, path, query, headers, body).
public struct HTTPRequest: Sendable, Equatable {
    public var method: String
    /// The target's path, as sent (`/`, `/jsonrpc`).
    public var path: String
    /// The target's query parameters, percent-decoded (`+` is a space); a repeated name keeps its last value.
    public var query: [String: String]
    /// `HTTP/1.1` or `HTTP/1.0`.
    public var version: String
    /// Header fields by lowercased name; a repeated field's values are joined with ", " (RFC 9110, 5.3).
    public var headers: [String: String]
    public var body: [UInt8]

    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// Whether the connection stays open after the response: HTTP/1.1 unless `Connection: close`, HTTP/1.0 only
    /// with `Connection: keep-alive`.
    public var keepsAlive: Bool {
        let options = connectionOptions
        return version == "HTTP/1.1" ? !options.contains("close") : options.contains("keep-alive")
    }

    /// The lowercased options of the `Connection` field (`upgrade`, `close`, `keep-alive`).
    var connectionOptions: [String] {
        (header("connection") ?? "").split(separator: ",").map { $0.trimmed.lowercased() }
    }
}

/// A response status and its reason phrase.
public enum HTTPStatus: Int, Sendable {
    case switchingProtocols = 101, ok = 200, noContent = 204
    case badRequest = 400, unauthorized = 401, forbidden = 403, notFound = 404, methodNotAllowed = 405, lengthRequired =
        411
    case contentTooLarge = 413, headerFieldsTooLarge = 431

    public var reason: String {
        switch self {
        case .switchingProtocols: "Switching Protocols"
        case .ok: "OK"
        case .noContent: "No Content"
        case .badRequest: "Bad Request"
        case .unauthorized: "Unauthorized"
        case .forbidden: "Forbidden"
        case .notFound: "Not Found"
        case .methodNotAllowed: "Method Not Allowed"
        case .lengthRequired: "Length Required"
        case .contentTooLarge: "Content Too Large"
        case .headerFieldsTooLarge: "Request Header Fields Too Large"
        }
    }
}

/// Why bytes are not a request the service takes: answered with `status`, then the connection is closed.
public struct HTTPRequestError: Error, Equatable, Sendable {
    public var status: HTTPStatus
    /// What was wrong, for the response's body.
    public var detail: String
}

/// Reads requests from a connection's bytes as they arrive, one after another (pipelined requests too).
///
/// The request line and header fields may take at most `maxHeadBytes` (else 431), a body at most `maxBodyBytes`
/// (else 413, known from `Content-Length` before any of it is read), and a POST must say its length (411: chunked
/// bodies are not taken). Anything malformed is a 400.
struct HTTPRequestReader {
    static let maxHeadBytes = 16 * 1024
    static let maxBodyBytes = 64 * 1024
    private var buffer: [UInt8] = []
    /// A request whose head is read and whose body is still arriving, with the body's length.
    private var pending: (request: HTTPRequest, length: Int)?
    /// Set when a pending request asked for `Expect: 100-continue`; taken by `takeContinue()`.
    private var continueDue = false

    mutating func append(_ bytes: some Collection<UInt8>) { buffer += bytes }

    /// True once (then false) when the client waits for `100 Continue` before sending the body it announced.
    mutating func takeContinue() -> Bool {
        defer { continueDue = false }
        return continueDue
    }

    /// The bytes after the last request (a WebSocket's first frames after its handshake); the reader is left empty.
    mutating func takeRemainder() -> [UInt8] {
        defer { buffer = [] }
        return buffer
    }

    /// The next whole request, nil while more bytes are needed.
    mutating func next() throws(HTTPRequestError) -> HTTPRequest? {
        if pending == nil {
            guard let end = headEnd() else {
                if buffer.count > Self.maxHeadBytes { throw Self.tooLargeHead }
                return nil
            }
            guard end <= Self.maxHeadBytes else { throw Self.tooLargeHead }
            let request = try Self.head(String(decoding: buffer[..<end], as: UTF8.self))
            buffer.removeFirst(end + 4)
            pending = (request, try Self.bodyLength(of: request))
            continueDue = request.header("expect")?.lowercased() == "100-continue" && pending!.length > buffer.count
        }
        guard let (request, length) = pending, buffer.count >= length else { return nil }
        pending = nil
        continueDue = false
        var complete = request
        complete.body = Array(buffer[..<length])
        buffer.removeFirst(length)
        return complete
    }

    private static let tooLargeHead = HTTPRequestError(
        status: .headerFieldsTooLarge, detail: "request head over 16 KiB")

    /// Where the blank line that ends the head starts (empty lines before a request line are skipped first).
    private mutating func headEnd() -> Int? {
        while buffer.starts(with: [0x0D, 0x0A]) { buffer.removeFirst(2) }
        guard buffer.count >= 4 else { return nil }
        return (0...buffer.count - 4).first { buffer[$0..<$0 + 4].elementsEqual([0x0D, 0x0A, 0x0D, 0x0A]) }
    }

    /// The request line and header fields.
    private static func head(_ text: String) throws(HTTPRequestError) -> HTTPRequest {
        let lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)
        // (A bare CR or LF left in a line, or any other control character, is malformed: no smuggled lines.)
        guard !lines.contains(where: { $0.utf8.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F } }) else {
            throw HTTPRequestError(status: .badRequest, detail: "control character in the request head")
        }
        let parts = lines[0].split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, isToken(parts[0]), parts[1].hasPrefix("/"), ["HTTP/1.1", "HTTP/1.0"].contains(parts[2])
        else { throw HTTPRequestError(status: .badRequest, detail: "malformed request line") }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":"), isToken(line[..<colon]) else {
                throw HTTPRequestError(status: .badRequest, detail: "malformed header field")
            }
            let name = line[..<colon].lowercased()
            let value = String(line[line.index(after: colon)...].trimmed)
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }
        let target = parts[1].split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        return HTTPRequest(
            method: String(parts[0]), path: String(target[0]), query: target.count > 1 ? queryItems(target[1]) : [:],
            version: String(parts[2]), headers: headers, body: [])
    }

    /// The body's length from `Content-Length`, checked against the bounds and the method.
    private static func bodyLength(of request: HTTPRequest) throws(HTTPRequestError) -> Int {
        guard request.header("transfer-encoding") == nil else {
            throw HTTPRequestError(status: .lengthRequired, detail: "chunked bodies are not taken: send Content-Length")
        }
        guard let field = request.header("content-length") else {
            if request.method == "POST" {
                throw HTTPRequestError(status: .lengthRequired, detail: "a POST needs Content-Length")
            }
            return 0
        }
        guard !field.isEmpty, field.utf8.count <= 18, field.allSatisfy(\.isASCIIDigit), let length = Int(field) else {
            throw HTTPRequestError(status: .badRequest, detail: "malformed Content-Length")
        }
        guard length <= maxBodyBytes else {
            throw HTTPRequestError(status: .contentTooLarge, detail: "body over 64 KiB")
        }
        return length
    }

    /// RFC 9110's token: what a method or a field name is made of.
    private static func isToken(_ text: Substring) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy { byte in
                (0x21...0x7E).contains(byte) && !Array("\"(),/:;<=>?@[\\]{}".utf8).contains(byte)
            }
    }

    private static func queryItems(_ query: Substring) -> [String: String] {
        var items: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            items[percentDecoded(parts[0])] = parts.count > 1 ? percentDecoded(parts[1]) : ""
        }
        return items
    }

    /// `%XX` escapes and `+` decoded (a malformed escape is kept as written).
    static func percentDecoded(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var index = text.utf8.startIndex
        let utf8 = text.utf8
        while index < utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%"), utf8.distance(from: index, to: utf8.endIndex) >= 3,
                let value = UInt8(String(text[utf8.index(after: index)..<utf8.index(index, offsetBy: 3)]), radix: 16)
            {
                bytes.append(value)
                index = utf8.index(index, offsetBy: 3)
            } else {
                bytes.append(byte == UInt8(ascii: "+") ? 0x20 : byte)
                index = utf8.index(after: index)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}

extension Substring {
    /// Without the spaces and tabs around it (HTTP's optional whitespace).
    var trimmed: Substring {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !blank($0) }), let last = lastIndex(where: { !blank($0) }) else {
            return ""
        }
        return self[first...last]
    }
}
