// yt-gst — one connection to the control service, whatever carries it (TCP lines, a WebSocket).

/// A connected client of `HubService`: a TCP line connection (`HubServer`) or a WebSocket (the web page).
///
/// The service calls these on the main loop's thread only; `send` must not block (a peer that does not read is
/// dropped by its transport at its queue's bound).
public protocol ControlPeer: AnyObject {
    /// Sends one JSON-RPC message or batch (a line's text, without the newline).
    func send(_ text: String)
    /// Closes the connection; the transport then calls `HubService.disconnected(_:)`.
    func close()
    /// The peer's address as text ("192.168.1.20", "::1").
    var peerAddress: String { get }
    var isLoopback: Bool { get }
}
