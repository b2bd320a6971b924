// yt-gst — one client of the IPC socket: lines in, lines out, and the properties it observes.

/// A connected client: newline-delimited requests in, replies and events out, never blocking (a `LineSocket`:
/// a client that leaves more than a MiB unread is disconnected, so it never holds up playback).
/// - Note: Not Sendable: used on the main loop's thread only.
public final class IPCConnection {
    /// mpv's client name ("ipc-N").
    public let name: String
    /// Property observations of this client, by the client's observer id (see `IPCDispatcher`).
    var observations: [Int: Observation] = [:]
    private let line: LineSocket

    /// One observed property: its name, what was last sent for it (nil: unavailable) and when (nil: not yet).
    struct Observation {
        var name: String
        var lastSent: JSONValue? = nil
        var lastSentAt: ContinuousClock.Instant? = nil
    }

    init(
        socket: StreamSocket, name: String, onLine: @escaping (String, IPCConnection) -> Void,
        onClose: @escaping (IPCConnection) -> Void
    ) {
        self.name = name
        line = LineSocket(socket)
        line.onLine = { [unowned self] in onLine($0, self) }
        socket.onClose = { [unowned self] in onClose(self) }
    }

    public var isOpen: Bool { line.isOpen }

    /// Queues `text` (a newline is added) and writes what the socket takes now.
    public func send(_ text: String) { line.send(text) }

    /// Closes the connection (writing what fits first); the server forgets it.
    public func close() { line.close() }
}
