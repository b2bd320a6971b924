// yt-gst — a hub driven in the test's process: peers that only record, calls and the shapes of replies.
import Foundation
import TestSupport

@testable import Control

/// A control peer that keeps what the service sends it (each message parsed) and whether it was closed.
final class RecordingPeer: ControlPeer {
    var sent: [Any] = []
    var closed = false
    let peerAddress: String
    let isLoopback: Bool

    init(address: String = "127.0.0.1", loopback: Bool = true) {
        (peerAddress, isLoopback) = (address, loopback)
    }

    func send(_ text: String) { sent.append(try! JSONSerialization.jsonObject(with: Data(text.utf8))) }
    func close() { closed = true }

    /// Messages sent since the last call (and forgets them).
    func take() -> [Any] {
        defer { sent = [] }
        return sent
    }

    /// The notifications sent since the last `take()`, by method.
    func methods() -> [String] { take().compactMap { ($0 as? [String: Any])?["method"] as? String } }
}

/// A hub with a stream model and peers, for one test.
struct HubFixture {
    let model = StreamModel()
    let service: HubService
    static let streamID = "rtp://239.255.78.1:5004"

    init(access: HubService.Access = .init(open: true), store: HubStore? = nil) throws {
        let state = try store?.load(streamID: Self.streamID) ?? HubState()
        service = HubService(
            streamID: Self.streamID, model: model, access: access, state: state, store: store,
            host: HubHost(name: "hub", os: "Debian", arch: "x86_64"))
    }

    /// A connected peer.
    func peer(address: String = "127.0.0.1", loopback: Bool = true) -> RecordingPeer {
        let peer = RecordingPeer(address: address, loopback: loopback)
        service.connected(peer)
        return peer
    }

    /// Sends one request and gives its reply (nil: none).
    @discardableResult
    func call(_ peer: RecordingPeer, _ method: String, _ params: [String: Any] = [:], id: Int = 1) -> [String: Any]? {
        _ = peer.take()
        let body: [String: Any] = ["jsonrpc": "2.0", "id": id, "method": method, "params": params]
        service.received(String(decoding: try! JSONSerialization.data(withJSONObject: body), as: UTF8.self), from: peer)
        return peer.take().first as? [String: Any]
    }

    /// A room that registered on its own connection as `id` with `config`; returns its peer.
    func room(
        _ id: String, name: String = "", percent: Int = 100, muted: Bool = false, latency: Int = 0,
        address: String = "10.0.0.2"
    ) -> RecordingPeer {
        let peer = self.peer(address: address, loopback: address.hasPrefix("127."))
        call(
            peer, "yt-gst.Room.Hello",
            [
                "id": id, "name": name, "version": "0.1.0",
                "host": ["name": "\(id)-host", "os": "Debian", "arch": "x86_64", "mac": ""],
                "config": ["volume": ["percent": percent, "muted": muted], "latency": latency],
            ])
        return peer
    }

    func groupID(of client: String) -> String { service.state.group(of: client)!.id }
}

/// Every key path in a JSON value ("result.server.groups[].clients[].config.volume.percent"): the shape of a reply,
/// without its values. A stream URI's query is a map of the source's own parameters, not fields: left out.
func keyPaths(_ value: Any, prefix: String = "") -> Set<String> {
    switch value {
    case let object as [String: Any] where !prefix.hasSuffix("uri.query"):
        return object.reduce(into: Set<String>()) { paths, member in
            let path = prefix.isEmpty ? member.key : prefix + "." + member.key
            paths.insert(path)
            paths.formUnion(keyPaths(member.value, prefix: path))
        }
    case let array as [Any]:
        return array.reduce(into: Set<String>()) { $0.formUnion(keyPaths($1, prefix: prefix + "[]")) }
    default:
        return []
    }
}

/// What Debian's snapserver 0.26 answered (Tests/Fixtures/snapserver-0.26.jsonl, made by
/// scripts/snapserver-capture.py): each call with its reply and what another control connection got.
enum SnapserverFixture {
    static var entries: [[String: Any]] {
        let url = Paths.packageRoot.appendingPathComponent("Tests/Fixtures/snapserver-0.26.jsonl")
        let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// Each call made, as sent (the text) with its entry.
    static var calls: [(text: String, entry: [String: Any])] {
        entries.compactMap { entry in (entry["call"] as? String).map { ($0, entry) } }
    }

    static func event(_ name: String) -> [Any] {
        entries.first { $0["event"] as? String == name }?["messages"] as? [Any] ?? []
    }
}
