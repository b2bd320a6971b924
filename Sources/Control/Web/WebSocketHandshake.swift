// yt-gst — the WebSocket opening handshake (RFC 6455, section 4.2): an HTTP GET upgraded, or refused.

enum WebSocketHandshake {
    /// The GUID RFC 6455 appends to a client's key.
    private static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// `Sec-WebSocket-Accept` for a client's `Sec-WebSocket-Key`: base64(SHA-1(key + GUID)).
    static func accept(key: String) -> String {
        Base64.encode(SHA1.digest(Array((key + guid).utf8)))
    }

    /// Whether `request` asks for a WebSocket (then it must be a valid handshake or be refused).
    static func isUpgrade(_ request: HTTPRequest) -> Bool {
        request.header("upgrade")?.lowercased() == "websocket"
    }

    /// The 101 response that opens the WebSocket, or the error that refuses a malformed handshake.
    static func response(to request: HTTPRequest) -> Result<HTTPResponse, HTTPRequestError> {
        guard request.method == "GET", request.version == "HTTP/1.1", request.connectionOptions.contains("upgrade")
        else { return .failure(HTTPRequestError(status: .badRequest, detail: "malformed WebSocket handshake")) }
        guard request.header("sec-websocket-version") == "13" else {
            return .failure(HTTPRequestError(status: .badRequest, detail: "only WebSocket version 13 is spoken"))
        }
        guard let key = request.header("sec-websocket-key"), key.utf8.count == 24, key.hasSuffix("==") else {
            return .failure(HTTPRequestError(status: .badRequest, detail: "malformed Sec-WebSocket-Key"))
        }
        return .success(
            HTTPResponse(
                status: .switchingProtocols,
                headers: [
                    ("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", accept(key: key)),
                ]))
    }
}
