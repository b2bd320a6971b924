// yt-gst — a stand-in for HubService in the web side's tests: the design's ControlEndpoint API, answers by echo.
@testable import Control

/// Answers every call with `{"result": {"method": ..., "params": ...}}`, refuses calls without `token` when one is
/// set (-32001), and records the peers and what they sent.
final class FakeHub: ControlEndpoint {
    var token: String?
    private(set) var peers: [any ControlPeer] = []
    private(set) var received: [String] = []
    private(set) var disconnectedCount = 0
    private(set) var oneShots: [(text: String, token: String?, loopback: Bool)] = []

    init(token: String? = nil) { self.token = token }

    func connected(_ peer: any ControlPeer) { peers.append(peer) }

    func received(_ text: String, from peer: any ControlPeer) {
        received.append(text)
        if let reply = reply(to: text, token: token) { peer.send(reply) }
    }

    func disconnected(_ peer: any ControlPeer) {
        disconnectedCount += 1
        peers.removeAll { $0 === peer }
    }

    func handleOneShot(_ text: String, bearerToken: String?, peerIsLoopback: Bool) -> String? {
        oneShots.append((text, bearerToken, peerIsLoopback))
        return reply(to: text, token: bearerToken)
    }

    /// Sends `text` to every WebSocket peer (a notification).
    func notifyAll(_ text: String) {
        for peer in peers { peer.send(text) }
    }

    private func reply(to text: String, token given: String?) -> String? {
        guard let call = try? JSONValue(parsing: text) else {
            return #"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#
        }
        guard let id = call["id"] else { return nil }
        if let token, given != token {
            return #"{"jsonrpc":"2.0","id":\#(id.text),"error":{"code":-32001,"message":"Unauthorized"}}"#
        }
        let result = JSONValue.object([("method", call["method"] ?? .null), ("params", call["params"] ?? .null)])
        return JSONValue.object([("jsonrpc", "2.0"), ("id", id), ("result", result)]).text
    }
}
