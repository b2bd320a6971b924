// yt-gst — the control service's web side (Snapcast's port 1780): the page, JSON-RPC over HTTP POST and WebSocket.

/// Serves, on one TCP port and the main loop (no threads):
/// - `GET /` (with `?token=T` when the service wants one to read): the control page (`ControlPage`);
/// - `POST /jsonrpc`: one JSON-RPC message or batch → `ControlEndpoint.handleOneShot`, the bearer token from
///   `Authorization: Bearer`; 200 with the reply, 204 for a notification;
/// - `GET /jsonrpc` with `Upgrade: websocket`: a `WebSocketPeer` of the service.
///
/// Anything else is 404; a malformed request gets its 4xx and the connection is closed. A browser's request from
/// another site's page (its `Origin` is not this host) is refused (403), so a page elsewhere cannot steer the rooms
/// through a visitor's browser. Each connection is served as its bytes arrive, so no client holds up another; at
/// most `maxConnections` are held (a flood cannot use up the process's descriptors, and the audio's with them): past
/// it a new connection takes the place of the oldest one still speaking HTTP (an idle keep-alive, a request that
/// never ends), or is closed at once when all are WebSockets.
/// - Note: Not Sendable: create, use and close it on the thread that runs the loop.
public final class WebServer {
    public static let maxConnections = 512
    private var listener: TCPListener?
    private let endpoint: any ControlEndpoint
    private var connections: [ObjectIdentifier: HTTPConnection] = [:]
    private var peers: [ObjectIdentifier: WebSocketPeer] = [:]
    /// Accepted connections so far: the order that picks the oldest HTTP connection to give way.
    private var accepted = 0

    /// The port listened on (the system's choice when asked for 0).
    public let port: Int

    /// Listens on `address`:`port` ("" = every IPv4 address).
    public init(address: String, port: Int, endpoint: any ControlEndpoint) throws(ListenError) {
        self.endpoint = endpoint
        var accept: (StreamSocket) -> Void = { _ in }
        let listener = try TCPListener(address: address, port: port) { accept($0) }
        self.listener = listener
        self.port = listener.port
        accept = { [unowned self] in serve($0) }
    }

    /// Connections open now (HTTP and WebSocket).
    public var connectionCount: Int { connections.count + peers.count }

    /// Stops listening and closes every connection (WebSockets with a normal close).
    public func close() {
        listener?.close()
        listener = nil
        for connection in Array(connections.values) { connection.socket.close() }
        for peer in Array(peers.values) { peer.close() }
    }

    deinit { close() }

    private func serve(_ socket: StreamSocket) {
        if connectionCount >= Self.maxConnections {
            guard let oldest = connections.values.min(by: { $0.number < $1.number }) else { return socket.close() }
            oldest.socket.close()
        }
        accepted += 1
        let connection = HTTPConnection(socket: socket, number: accepted) { [unowned self] in respond(to: $0, on: $1) }
        let id = ObjectIdentifier(connection)
        connections[id] = connection
        socket.onClose = { [unowned self] in connections[id] = nil }
    }

    /// Routes one request; the connection writes the response (nil: the socket was handed to a WebSocket peer).
    private func respond(to request: HTTPRequest, on connection: HTTPConnection) -> HTTPResponse? {
        guard Self.isSameOrigin(request) else { return .text(.forbidden, "cross-origin request refused") }
        switch (request.path, request.method) {
        case ("/", "GET"):
            let token = request.query["token"] ?? Self.bearerToken(request)
            guard endpoint.mayRead(token: token, peerIsLoopback: connection.socket.isLoopback) else {
                return ControlPage.unauthorized
            }
            return ControlPage.response
        case ("/jsonrpc", "POST"):
            let text = String(decoding: request.body, as: UTF8.self)
            guard
                let reply = endpoint.handleOneShot(
                    text, bearerToken: Self.bearerToken(request), peerIsLoopback: connection.socket.isLoopback)
            else { return HTTPResponse(status: .noContent) }
            return HTTPResponse(
                status: .ok, headers: [("Content-Type", "application/json")], body: Array(reply.utf8))
        case ("/jsonrpc", "GET") where WebSocketHandshake.isUpgrade(request):
            return upgrade(request, on: connection)
        case ("/jsonrpc", _), ("/", _):
            return HTTPResponse(
                status: .methodNotAllowed, headers: [("Allow", request.path == "/" ? "GET" : "GET, POST")])
        default:
            return .text(.notFound, "no such page: \(request.path)")
        }
    }

    /// Answers the handshake and hands the socket to a new WebSocket peer (or refuses a malformed handshake).
    private func upgrade(_ request: HTTPRequest, on connection: HTTPConnection) -> HTTPResponse? {
        switch WebSocketHandshake.response(to: request) {
        case .failure(let error): return .text(error.status, error.detail).closing
        case .success(let response):
            let socket = connection.socket
            connections[ObjectIdentifier(connection)] = nil
            socket.send(response.bytes)
            var id: ObjectIdentifier?
            let peer = WebSocketPeer(socket: socket, leftover: connection.handOver(), endpoint: endpoint) {
                [unowned self] in if let id { peers[id] = nil }
            }
            id = ObjectIdentifier(peer)
            if socket.isOpen { peers[id!] = peer }
            return nil
        }
    }

    /// The token of `Authorization: Bearer TOKEN`.
    private static func bearerToken(_ request: HTTPRequest) -> String? {
        guard let field = request.header("authorization"), field.lowercased().hasPrefix("bearer ") else { return nil }
        return String(field.dropFirst(7).trimmed)
    }

    /// True without an `Origin` (not a browser, or a same-origin GET) or when the origin's host is this `Host`.
    private static func isSameOrigin(_ request: HTTPRequest) -> Bool {
        guard let origin = request.header("origin") else { return true }
        guard let host = request.header("host"), let separator = origin.firstRange(of: "://") else { return false }
        return origin[separator.upperBound...].lowercased() == host.lowercased()
    }
}

/// One HTTP connection: reads requests as they arrive and writes each response, until an error, a close or an
/// upgrade to a WebSocket.
final class HTTPConnection {
    let socket: StreamSocket
    /// Its place in the order of accepted connections.
    let number: Int
    private var reader = HTTPRequestReader()
    private var handedOver = false
    private let respond: (HTTPRequest, HTTPConnection) -> HTTPResponse?

    init(socket: StreamSocket, number: Int, respond: @escaping (HTTPRequest, HTTPConnection) -> HTTPResponse?) {
        self.socket = socket
        self.number = number
        self.respond = respond
        socket.onBytes = { [unowned self] in take($0) }
    }

    /// Stops reading HTTP (the socket now speaks WebSocket) and gives what arrived after the request.
    func handOver() -> [UInt8] {
        handedOver = true
        return reader.takeRemainder()
    }

    private func take(_ bytes: ArraySlice<UInt8>) {
        reader.append(bytes)
        do {
            while !handedOver, socket.isOpen, let request = try reader.next() {
                guard var response = respond(request, self) else { return }
                if !request.keepsAlive { response = response.closing }
                socket.send(response.bytes)
                if response.closes { socket.close() }
            }
            if reader.takeContinue() { socket.send(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) }
        } catch {
            socket.send(HTTPResponse.text(error.status, error.detail).closing.bytes)
            socket.close()
        }
    }
}
