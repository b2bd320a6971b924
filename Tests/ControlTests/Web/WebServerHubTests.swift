// yt-gst — the web side in front of the real HubService: a page's WebSocket and an HTTP client steering one hub.
import Testing

@testable import Control

@Suite(.serialized) struct WebServerHubTests {
    @Test func aWebSocketAuthenticatesSeesTheRoomsAndHearsAPostsChange() throws {
        let hub = try HubFixture(access: .init(token: "s3cret"))
        let room = hub.peer(address: "10.0.0.2", loopback: false)
        hub.call(room, "Server.Authenticate", ["token": "s3cret"])
        hub.call(
            room, "yt-gst.Room.Hello",
            [
                "id": "kitchen", "name": "Kitchen", "version": "0.1.0",
                "host": ["name": "k", "os": "", "arch": "", "mac": ""],
                "config": ["volume": ["percent": 40, "muted": false], "latency": 0],
            ])
        let server = try WebServer(address: "127.0.0.1", port: 0, endpoint: hub.service)
        defer { server.close() }
        let page = try WebTestClient(port: server.port)
        page.write("GET / HTTP/1.1\r\n\r\n")
        #expect(page.response()?.status == 401)
        page.write("GET /?token=s3cret HTTP/1.1\r\n\r\n")
        #expect(page.response()?.status == 200)

        let ws = try WebTestClient(port: server.port)
        #expect(ws.upgrade()?.status == 101)
        ws.sendText(#"{"jsonrpc":"2.0","id":1,"method":"Server.GetStatus"}"#)
        #expect(try JSONValue(parsing: ws.text() ?? "")["error"]?["code"] == -32001)
        ws.sendText(#"{"jsonrpc":"2.0","id":2,"method":"Server.Authenticate","params":{"token":"s3cret"}}"#)
        #expect(try JSONValue(parsing: ws.text() ?? "")["result"] == "ok")
        ws.sendText(#"{"jsonrpc":"2.0","id":3,"method":"Server.GetStatus"}"#)
        let status = try JSONValue(parsing: ws.text() ?? "")
        let client = status["result"]?["server"]?["groups"]?.arrayValue?.first?["clients"]?.arrayValue?.first
        #expect(client?["config"]?["name"] == "Kitchen" && client?["config"]?["volume"]?["percent"] == 40)

        let call =
            #"{"jsonrpc":"2.0","id":4,"method":"Client.SetVolume","params":{"id":"kitchen","volume":{"percent":70}}}"#
        let http = try WebTestClient(port: server.port)
        http.write(
            "POST /jsonrpc HTTP/1.1\r\nAuthorization: Bearer s3cret\r\nContent-Length: \(call.utf8.count)\r\n\r\n\(call)"
        )
        #expect(http.response()?.status == 200)
        let note = try JSONValue(parsing: ws.text() ?? "")
        #expect(note["method"] == "Client.OnVolumeChanged" && note["params"]?["volume"]?["percent"] == 70)

        ws.sendText(
            #"{"jsonrpc":"2.0","id":5,"method":"Stream.Control","params":{"id":"\#(HubFixture.streamID)","command":"pause"}}"#
        )
        #expect(ws.reply(to: 5)?["result"] == "ok", "after the Stream.OnProperties the pause makes")
        #expect(hub.model.paused)
    }
}

extension JSONValue {
    fileprivate var arrayValue: [JSONValue]? {
        if case .array(let items) = self { return items }
        return nil
    }
}
