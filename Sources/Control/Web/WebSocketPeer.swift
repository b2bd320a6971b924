// yt-gst — one WebSocket of the control service: JSON-RPC text messages both ways over RFC 6455 frames.

/// A page's (or any client's) WebSocket, a `ControlPeer` of the service: each text message it sends goes to
/// `ControlEndpoint.received`, and what the service sends it goes out as one text frame.
///
/// Pings are answered, a close is answered and the connection closed; a protocol error or a message over 64 KiB
/// closes it with its code (1002, 1009...). The socket's bounded queue drops a peer that never reads.
/// - Note: Not Sendable: used on the main loop's thread only.
final class WebSocketPeer: ControlPeer {
    private let socket: StreamSocket
    private var reader = WebSocketReader()
    private unowned let endpoint: any ControlEndpoint

    /// Takes over `socket` after the 101 response; `leftover` is what the client sent after its handshake.
    init(socket: StreamSocket, leftover: [UInt8], endpoint: any ControlEndpoint, onClose: @escaping () -> Void) {
        self.socket = socket
        self.endpoint = endpoint
        socket.onBytes = { [unowned self] in take($0) }
        socket.onClose = { [unowned self] in
            endpoint.disconnected(self)
            onClose()
        }
        endpoint.connected(self)
        if !leftover.isEmpty { take(leftover[...]) }
    }

    var peerAddress: String { socket.peerAddress }
    var isLoopback: Bool { socket.isLoopback }

    func send(_ text: String) { socket.send(WebSocketFrame(opcode: .text, payload: Array(text.utf8)).encoded()) }

    /// Closes normally (1000).
    func close() { close(code: 1000) }

    private func close(code: UInt16) {
        socket.send(WebSocketFrame.close(code).encoded())
        socket.close()
    }

    private func take(_ bytes: ArraySlice<UInt8>) {
        reader.append(bytes)
        do {
            while socket.isOpen, let event = try reader.next() {
                switch event {
                case .text(let text): endpoint.received(text, from: self)
                case .ping(let payload): socket.send(WebSocketFrame(opcode: .pong, payload: payload).encoded())
                case .pong: break
                case .close(let code): close(code: code ?? 1000)
                }
            }
        } catch {
            close(code: error.code)
        }
    }
}
