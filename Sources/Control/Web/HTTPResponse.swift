// yt-gst — HTTP/1.1 responses as bytes for the connection.

/// A response: status, header fields, body. `Content-Length` is added (except for 101 and 204, which have no body).
struct HTTPResponse {
    var status: HTTPStatus
    var headers: [(String, String)] = []
    var body: [UInt8] = []

    /// A short plain-text response (errors, refusals).
    static func text(_ status: HTTPStatus, _ text: String) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Array((text + "\n").utf8))
    }

    /// The same response saying `Connection: close` (the connection is closed once it is written).
    var closing: HTTPResponse {
        var response = self
        if !closes { response.headers.append(("Connection", "close")) }
        return response
    }

    var closes: Bool { headers.contains { $0.0 == "Connection" && $0.1 == "close" } }

    /// The status line, the fields and the body.
    var bytes: [UInt8] {
        var head = "HTTP/1.1 \(status.rawValue) \(status.reason)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if status != .switchingProtocols && status != .noContent { head += "Content-Length: \(body.count)\r\n" }
        return Array((head + "\r\n").utf8) + body
    }
}
