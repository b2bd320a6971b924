// yt-gst — the control service on the sender: Snapcast's JSON-RPC 2.0 API over any transport, and the rooms.
import Glibc
import Streaming

/// Snapcast's control API for the sender's rooms: every peer (a TCP line connection, a WebSocket, an HTTP POST)
/// sends JSON-RPC 2.0 messages in, gets replies and Snapcast's notifications out; rooms (`yt-gst receive` with its
/// `RoomClient`) register on the same connections and are told their config.
///
/// The service has no timer and no thread: it only acts when a peer sends or the stream changes, so while nothing
/// changes it costs no wake-up. Changes are kept in `store` at once.
/// - Note: Not Sendable: call everything on the main loop's thread.
public final class HubService {
    /// Who may do what.
    public struct Access: Sendable, Equatable {
        /// The token every change needs (nil: none needed).
        public var token: String?
        /// With a token: whether reads (Get* methods, the page's first load) need none.
        public var readOpen: Bool
        /// Without a token: whether peers from other machines are served (else loopback ones only).
        public var open: Bool

        public init(token: String? = nil, readOpen: Bool = false, open: Bool = false) {
            (self.token, self.readOpen, self.open) = (token, readOpen, open)
        }
    }

    public let access: Access
    public internal(set) var state: HubState
    /// Called with one line about a problem the service goes on after (its store cannot be written).
    public var onWarning: ((String) -> Void)?
    let stream: HubStream
    let serverHost: HubHost
    private let store: HubStore?
    private var storeFailed = false
    /// While a call is answered, a change of the stream it made is told after its reply (then it is set).
    private var holdingStreamChange = false
    private var streamChangeHeld = false
    var peers: [ObjectIdentifier: Peer] = [:]

    /// A connected peer and what it has shown: its token, and the room it is (after `yt-gst.Room.Hello`).
    struct Peer {
        let peer: any ControlPeer
        var authenticated = false
        var roomID: String?
    }

    /// What a message comes with: the connection it came on (nil for an HTTP POST) and what it may do.
    struct Caller {
        var id: ObjectIdentifier?
        var address: String
        var authenticated: Bool
    }

    /// Serves the stream `streamID` of `model`, starting from `state` (see `HubStore.load`), keeping changes in
    /// `store` when there is one.
    public init(
        streamID: String, model: StreamModel, access: Access, state: HubState = HubState(), store: HubStore? = nil,
        host: HubHost = .local
    ) {
        stream = HubStream(id: streamID, model: model)
        self.access = access
        self.state = state
        self.store = store
        serverHost = host
        let earlier = model.onChange
        model.onChange = { [weak self] in
            earlier?()
            self?.streamChanged()
        }
    }

    /// Takes a new connection; one from another machine is closed at once when the service is for loopback only.
    public func connected(_ peer: any ControlPeer) {
        guard admits(peerIsLoopback: peer.isLoopback) else { return peer.close() }
        peers[ObjectIdentifier(peer)] = Peer(peer: peer)
    }

    /// Answers one message (a request, a notification, or a batch array) from `peer`: the reply is sent to it.
    public func received(_ text: String, from peer: any ControlPeer) {
        let key = ObjectIdentifier(peer)
        guard let known = peers[key] else { return }
        var caller = Caller(id: key, address: peer.peerAddress, authenticated: known.authenticated)
        holdingStreamChange = true
        let reply = answer(text, caller: &caller)
        peers[key]?.authenticated = caller.authenticated
        if let reply { peer.send(reply) }
        releaseStreamChange()
    }

    /// Forgets a closed connection; a room's marks it disconnected (Client.OnDisconnect).
    public func disconnected(_ peer: any ControlPeer) {
        guard let gone = peers.removeValue(forKey: ObjectIdentifier(peer)), let roomID = gone.roomID else { return }
        roomLeft(roomID)
    }

    /// Answers one HTTP POST body: `bearerToken` from its Authorization header. Returns the reply, nil when there is
    /// none (notifications only).
    public func handleOneShot(_ text: String, bearerToken: String?, peerIsLoopback: Bool) -> String? {
        var caller = Caller(id: nil, address: "", authenticated: bearerToken.map(tokenMatches) ?? false)
        guard admits(peerIsLoopback: peerIsLoopback) else {
            return JSONRPC.error(.unauthorized, id: .null).text
        }
        holdingStreamChange = true
        defer { releaseStreamChange() }
        return answer(text, caller: &caller)
    }

    /// Whether `token` is the one the service needs (compared in constant time); true when none is needed.
    public func tokenMatches(_ token: String) -> Bool {
        guard let expected = access.token else { return true }
        let (a, b) = (Array(expected.utf8), Array(token.utf8))
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for index in 0..<max(a.count, b.count) {
            difference |= (index < a.count ? a[index] : 0) ^ (index < b.count ? b[index] : 0)
        }
        return difference == 0
    }

    /// Whether a peer may read without having authenticated (the web page's first load asks this).
    public var readsNeedNoToken: Bool { access.token == nil || access.readOpen }

    /// Tells every control peer the stream's now playing (Stream.OnProperties); the model's `onChange` calls it.
    public func streamChanged() {
        stream.changed()
        guard !holdingStreamChange else {
            streamChangeHeld = true
            return
        }
        notify("Stream.OnProperties", .object([("id", .string(stream.id)), ("properties", stream.properties)]))
    }

    /// Tells the stream's change a call made, after its reply (to every control peer, the caller too: Snapcast's
    /// stream properties come from the stream, not as an echo of the call).
    private func releaseStreamChange() {
        holdingStreamChange = false
        guard streamChangeHeld else { return }
        streamChangeHeld = false
        streamChanged()
    }

    /// Without a token and without `open`, only this machine's peers are served.
    private func admits(peerIsLoopback: Bool) -> Bool { access.token != nil || access.open || peerIsLoopback }

    /// The reply to one message or batch (nil: nothing to send).
    private func answer(_ text: String, caller: inout Caller) -> String? {
        let message: JSONValue
        do { message = try JSONValue(parsing: text) } catch {
            return JSONRPC.error(
                JSONRPCError(code: -32700, message: "Parse error", data: "byte \(error.offset)"), id: .null
            ).text
        }
        guard case .array(let batch) = message else { return answer(message, caller: &caller)?.text }
        guard !batch.isEmpty else { return JSONRPC.error(.invalidRequest, id: .null).text }
        let replies = batch.compactMap { answer($0, caller: &caller) }
        return replies.isEmpty ? nil : JSONValue.array(replies).text
    }

    /// The reply to one request (nil for a notification).
    private func answer(_ message: JSONValue, caller: inout Caller) -> JSONValue? {
        let call: JSONRPCCall
        do { call = try JSONRPCCall(message) } catch { return JSONRPC.error(error.error, id: error.id) }
        do {
            let result = try perform(call, caller: &caller)
            return call.id.map { JSONRPC.result(result, id: $0) }
        } catch {
            return call.id.map { JSONRPC.error(error, id: $0) }
        }
    }

    /// Runs one call if the caller may.
    private func perform(_ call: JSONRPCCall, caller: inout Caller) throws(JSONRPCError) -> JSONValue {
        guard let needs = Self.methods[call.method] else { throw .methodNotFound }
        switch needs {
        case .nothing: break
        case .read: guard caller.authenticated || readsNeedNoToken else { throw .unauthorized }
        case .token: guard caller.authenticated || access.token == nil else { throw .unauthorized }
        }
        return try run(call.method, Params(call.params), caller: &caller)
    }

    /// Sends a notification to every control peer that may read, but the one whose call caused it.
    func notify(_ method: String, _ params: JSONValue, except caller: ObjectIdentifier? = nil) {
        let text = JSONRPC.notification(method, params).text
        for (key, entry) in peers
        where key != caller && entry.roomID == nil && (entry.authenticated || readsNeedNoToken) {
            entry.peer.send(text)
        }
    }

    /// Changes the state and keeps it (a store that fails is said once).
    func change(_ body: (inout HubState) -> Void) {
        body(&state)
        guard let store else { return }
        do { try store.save(state) } catch {
            if !storeFailed { onWarning?("yt-gst: control: cannot keep the rooms: \(error)") }
            storeFailed = true
        }
    }

    /// The Snapcast release whose API this is, as `snapserver.version`: clients decide by it what they may call
    /// (PyPI's snapcast refuses Group.SetName below 0.16.0, Stream.Control and SetProperty below 0.26.0).
    /// yt-gst's own version is under the server's "yt-gst" key.
    static let snapcastVersion = "0.26.0"

    /// The whole server as Snapcast's Server.GetStatus gives it.
    var serverJSON: JSONValue {
        .object([
            (
                "server",
                .object([
                    ("groups", .array(state.groups.map { state.json(of: $0) })),
                    (
                        "server",
                        .object([
                            ("host", serverHost.json),
                            ("yt-gst", .object([("version", .string(toolVersion))])),
                            (
                                "snapserver",
                                .object([
                                    ("controlProtocolVersion", 1), ("name", "yt-gst"), ("protocolVersion", 1),
                                    ("version", .string(Self.snapcastVersion)),
                                ])
                            ),
                        ])
                    ),
                    ("streams", .array([stream.json])),
                ])
            )
        ])
    }

    /// Wall-clock seconds since 1970 (Snapcast's lastSeen).
    static var now: Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
