// yt-gst — the control service's JSON-RPC port (1705): newline-delimited JSON-RPC over TCP, as Snapcast serves it.

/// Listens on ADDRESS:PORT and serves each connection's lines to a `HubService` (the rooms connect here too).
///
/// A line over `maxLineBytes` (64 KiB) drops its connection, as does a peer that leaves more than `maxQueuedBytes`
/// unread; past `maxPeers` connections a new one is closed at once, so a flood of connections cannot use up the
/// process's descriptors (and the audio's with them).
/// - Note: Not Sendable: create, use and close it on the thread that runs the loop.
public final class HubServer {
    public static let maxLineBytes = 64 << 10
    public static let maxQueuedBytes = 1 << 20
    public static let maxPeers = 512
    public let service: HubService
    private var listener: TCPListener?
    private var peers: [ObjectIdentifier: LinePeer] = [:]

    /// Listens at once (`port` 0: one the system chooses, see `port`).
    public init(address: String, port: Int, service: HubService) throws(ListenError) {
        self.service = service
        listener = try TCPListener(address: address, port: port, maxQueuedBytes: Self.maxQueuedBytes) {
            [unowned self] in accept($0)
        }
    }

    /// The address and port listened on.
    public var address: String { listener?.address ?? "" }
    public var port: Int { listener?.port ?? 0 }

    /// Connections served now.
    public var peerCount: Int { peers.count }

    /// Stops listening and closes every connection.
    public func close() {
        listener?.close()
        listener = nil
        for peer in Array(peers.values) { peer.close() }
    }

    deinit { close() }

    private func accept(_ socket: StreamSocket) {
        guard peers.count < Self.maxPeers else { return socket.close() }
        let peer = LinePeer(socket)
        let key = ObjectIdentifier(peer)
        peers[key] = peer
        peer.lines.onLine = { [unowned self, unowned peer] line in
            // LineSocket bounds what waits for its newline; a whole line that came at once is bounded here.
            guard line.utf8.count <= Self.maxLineBytes else { return peer.close() }
            service.received(line, from: peer)
        }
        socket.onClose = { [unowned self, unowned peer] in
            peers[key] = nil
            service.disconnected(peer)
        }
        service.connected(peer)
    }
}

/// One TCP connection of the control port, as the service sees it.
final class LinePeer: ControlPeer {
    let lines: LineSocket

    init(_ socket: StreamSocket) { lines = LineSocket(socket, maxLineBytes: HubServer.maxLineBytes) }

    /// Ends each message with "\r\n" as snapserver does: PyPI's snapcast (Home Assistant's client) parses nothing
    /// until what it has read ends so.
    func send(_ text: String) { lines.send(text + "\r") }
    func close() { lines.close() }
    var peerAddress: String { lines.socket.peerAddress }
    var isLoopback: Bool { lines.socket.isLoopback }
}
