// yt-gst — what the web side hands JSON-RPC to: the hub's service (a test double in the server's tests).

/// The JSON-RPC service behind the web side: `HubService` in the program. The web side is only a transport: every
/// decision (what a call does, who may make it, what to notify) is the service's.
public protocol ControlEndpoint: AnyObject {
    /// A WebSocket peer opened; from now on the service may `send` it notifications.
    func connected(_ peer: any ControlPeer)
    /// One WebSocket text message: a JSON-RPC message or a batch; replies go back through `peer.send`.
    func received(_ text: String, from peer: any ControlPeer)
    /// The peer closed (either side); it is not sent anything more.
    func disconnected(_ peer: any ControlPeer)
    /// One HTTP POST's body: the reply text, nil for a notification (204).
    func handleOneShot(_ text: String, bearerToken: String?, peerIsLoopback: Bool) -> String?
}

extension ControlEndpoint {
    /// Whether a caller with `token` may read (then it is served the page): the service's own answer to a read,
    /// `Server.GetRPCVersion`, so the web side keeps no rule of its own about tokens.
    func mayRead(token: String?, peerIsLoopback: Bool) -> Bool {
        let probe = #"{"jsonrpc":"2.0","id":0,"method":"Server.GetRPCVersion"}"#
        guard let reply = handleOneShot(probe, bearerToken: token, peerIsLoopback: peerIsLoopback) else { return false }
        return (try? JSONValue(parsing: reply))?["result"] != nil
    }
}
