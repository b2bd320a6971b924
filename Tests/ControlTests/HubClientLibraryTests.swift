// yt-gst — what Snapcast's client libraries need from the hub beyond the shapes of its replies: each was found by
// Tests/interop/snapcast_client_check.py (PyPI's snapcast, as Home Assistant drives it) against the real service.
import Glibc
import GstPlayer
import Testing

@testable import Control

@Suite(.serialized) struct HubClientLibraryTests {
    /// Every message over TCP ends in "\r\n", as snapserver's do: PyPI's snapcast parses nothing until what it read
    /// ends so (with a bare "\n" it waited forever for the reply to its first Server.GetStatus).
    @Test func tcpMessagesEndInCarriageReturnNewline() throws {
        let hub = try HubFixture()
        let server = try HubServer(address: "127.0.0.1", port: 0, service: hub.service)
        defer { server.close() }
        let client = try SocketTests.connect(server.port)
        defer { close(client) }
        SocketTests.write(client, #"{"id":1,"jsonrpc":"2.0","method":"Server.GetRPCVersion"}"# + "\r\n")
        var bytes: [UInt8] = []
        let deadline = ContinuousClock.now + .seconds(5)
        while !bytes.contains(0x0A), ContinuousClock.now < deadline {
            MainLoop.wait(for: [], until: ContinuousClock.now + .milliseconds(20))
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = recv(client, &chunk, chunk.count, Int32(MSG_DONTWAIT))
            if count > 0 { bytes += chunk[0..<count] }
        }
        #expect(bytes.last == 0x0A && bytes.dropLast().last == 0x0D, "\(String(decoding: bytes, as: UTF8.self))")
        #expect(bytes.filter { $0 == 0x0A }.count == 1)
    }

    /// The server says the Snapcast version whose API it speaks (clients gate calls on it: PyPI's snapcast refuses
    /// Group.SetName below 0.16.0 and Stream.Control below 0.26.0), yt-gst's own under "yt-gst"; the stream has a
    /// name in its URI's query (the library's stream name, by which Home Assistant lists sources).
    @Test func theStatusCarriesWhatTheLibraryReads() throws {
        let hub = try HubFixture()
        let reply = try #require(hub.call(hub.peer(), "Server.GetStatus"))
        let server = try #require((reply["result"] as? [String: Any])?["server"] as? [String: Any])
        let about = server["server"] as? [String: Any]
        #expect((about?["snapserver"] as? [String: Any])?["version"] as? String == "0.26.0")
        #expect(((about?["yt-gst"] as? [String: Any])?["version"] as? String)?.isEmpty == false)
        let stream = try #require((server["streams"] as? [[String: Any]])?.first)
        let query = (stream["uri"] as? [String: Any])?["query"] as? [String: Any]
        #expect(query?["name"] as? String == HubFixture.streamID)
    }
}
