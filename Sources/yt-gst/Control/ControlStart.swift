// yt-gst — starting the control service of `stream --control` and the room of `receive`, with what they say.
import Control
import Streaming

/// The control service's two ports, one service behind both: JSON-RPC over TCP (the rooms and Snapcast's clients)
/// and the web side (the page, JSON-RPC over HTTP POST and WebSocket).
struct ControlServers {
    let hub: HubServer
    let web: WebServer

    func close() {
        web.close()
        hub.close()
    }
}

extension HubOptions {
    /// The hub for the stream `model` follows, listening before the session starts: nil when a port cannot be
    /// listened on (once it has said which and why; the command then fails and sends nothing).
    func start(model: StreamModel, streamID: String, quiet: Bool) -> ControlServers? {
        var store = HubStore(port: port)
        var state = HubState()
        do { state = try store?.load(streamID: streamID) ?? HubState() } catch {
            // A store that could not be read is not written over: the rooms are then kept nowhere this run.
            Terminal.error("yt-gst: control: \(error); starting with no rooms (the file is left as it is)")
            store = nil
        }
        let service = HubService(streamID: streamID, model: model, access: access, state: state, store: store)
        service.onWarning = { Terminal.error($0) }
        do {
            let server = try HubServer(address: address, port: port, service: service)
            let web = try WebServer(address: address, port: webPort, endpoint: service)
            if !quiet { announce() }
            return ControlServers(hub: server, web: web)
        } catch {
            Terminal.error("yt-gst: control: \(error)")
            return nil
        }
    }

    /// The start lines: where it listens, and that it is for this machine only when it has no token.
    private func announce() {
        let host = address.contains(":") ? "[\(address)]" : address
        Terminal.error("yt-gst: control: JSON-RPC on \(host):\(port), web page on http://\(host):\(webPort)/")
        if access.token == nil && !access.open {
            Terminal.error(
                "yt-gst: control: no --control-token, listening on loopback only (--control-open to allow others)")
        }
    }
}

extension RoomOptions {
    /// The room's identity (kept per --name), said in one line when its file could not be read.
    func identity() -> RoomIdentity {
        let (identity, problem) = RoomIdentity.load(name: name)
        if let problem {
            Terminal.error("yt-gst: control: \(problem); this room starts afresh (the file is left as it is)")
        }
        return identity
    }
}
