// yt-gst — the web side over real sockets: the page, JSON-RPC over POST and WebSocket, and every kind of bad client.
import Glibc
import GstPlayer
import Testing

@testable import Control

@Suite(.serialized) struct WebServerTests {
    private func server(_ hub: FakeHub) throws -> WebServer {
        try WebServer(address: "127.0.0.1", port: 0, endpoint: hub)
    }

    @Test func thePageIsServedAndOtherPathsAreNot() throws {
        let hub = FakeHub()
        let server = try server(hub)
        defer { server.close() }
        let client = try WebTestClient(port: server.port)
        client.write(
            "GET / HTTP/1.1\r\nHost: x\r\n\r\nGET /nope HTTP/1.1\r\nHost: x\r\n\r\nPUT / HTTP/1.1\r\nContent-Length: 0\r\n\r\n"
        )
        let page = try #require(client.response())
        #expect(page.status == 200 && page.head.contains("Content-Type: text/html; charset=utf-8"))
        #expect(page.body.contains("<title>yt-gst rooms</title>") && page.head.contains("Content-Security-Policy"))
        #expect(client.response()?.status == 404)
        #expect(client.response()?.status == 405)
        #expect(!client.isClosedByServer, "keep-alive")
    }

    @Test func theNeedForATokenIsTheServicesAndTheTokenComesFromTheQuery() throws {
        let hub = FakeHub(token: "s3cret")
        let server = try server(hub)
        defer { server.close() }
        let client = try WebTestClient(port: server.port)
        client.write("GET / HTTP/1.1\r\n\r\n")
        let refused = try #require(client.response())
        #expect(refused.status == 401 && refused.body.contains("sessionStorage"))
        client.write("GET /?token=s3cret HTTP/1.1\r\n\r\n")
        #expect(client.response()?.status == 200)
        #expect(hub.oneShots.map(\.token) == [nil, "s3cret"] && hub.oneShots.allSatisfy(\.loopback))
    }

    @Test func postsGoToTheServiceWithTheirBearerToken() throws {
        let hub = FakeHub(token: "t")
        let server = try server(hub)
        defer { server.close() }
        let client = try WebTestClient(port: server.port)
        let call = #"{"jsonrpc":"2.0","id":7,"method":"Client.SetVolume","params":{"id":"k"}}"#
        client.write(
            "POST /jsonrpc HTTP/1.1\r\nAuthorization: Bearer t\r\nContent-Length: \(call.utf8.count)\r\n\r\n\(call)")
        let reply = try #require(client.response())
        #expect(reply.status == 200 && reply.head.contains("Content-Type: application/json"))
        #expect(try JSONValue(parsing: reply.body)["result"]?["method"] == "Client.SetVolume")
        let note = #"{"jsonrpc":"2.0","method":"Server.GetStatus"}"#
        client.write("POST /jsonrpc HTTP/1.1\r\nContent-Length: \(note.utf8.count)\r\nConnection: close\r\n\r\n\(note)")
        #expect(client.response()?.status == 204)
        #expect(client.waitForClose())
        #expect(hub.oneShots.map(\.token) == ["t", nil])
    }

    @Test func aWebSocketCarriesCallsNotificationsPingsAndAClose() throws {
        let hub = FakeHub()
        let server = try server(hub)
        defer { server.close() }
        let client = try WebTestClient(port: server.port)
        let opened = try #require(client.upgrade())
        #expect(opened.status == 101 && opened.head.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo="))
        #expect(hub.peers.count == 1 && hub.peers.first?.isLoopback == true)
        client.sendText(#"{"jsonrpc":"2.0","id":1,"method":"Server.GetStatus"}"#)
        let reply = try #require(client.text())
        #expect(try JSONValue(parsing: reply)["id"] == 1)
        hub.notifyAll(#"{"jsonrpc":"2.0","method":"Client.OnVolumeChanged","params":{"id":"k"}}"#)
        #expect(client.text()?.contains("Client.OnVolumeChanged") == true)
        client.sendFrame(opcode: 9, [1, 2, 3])
        let pong = try #require(client.frame())
        #expect(pong.opcode == 10 && pong.payload == [1, 2, 3])
        // A message in two fragments with a ping between them.
        client.sendFrame(opcode: 1, Array(#"{"jsonrpc":"2.0","id":2,"#.utf8), fin: false)
        client.sendFrame(opcode: 9, [])
        client.sendFrame(opcode: 0, Array(#""method":"Group.GetStatus"}"#.utf8))
        #expect(client.frame()?.opcode == 10)
        #expect(client.text()?.contains("Group.GetStatus") == true)
        client.sendFrame(opcode: 8, [0x03, 0xE8])
        let close = try #require(client.frame())
        #expect(close.opcode == 8 && close.payload == [0x03, 0xE8])
        #expect(client.waitForClose())
        #expect(hub.disconnectedCount == 1 && hub.peers.isEmpty && server.connectionCount == 0)
    }

    @Test func framesRightAfterTheHandshakeAreNotLost() throws {
        let hub = FakeHub()
        let server = try server(hub)
        defer { server.close() }
        let client = try WebTestClient(port: server.port)
        let frame = WebSocketFrame(opcode: .text, payload: Array(#"{"jsonrpc":"2.0","id":3,"method":"A"}"#.utf8))
        client.write(
            Array(
                ("GET /jsonrpc HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8)
                + frame.encoded(mask: [9, 8, 7, 6]))
        #expect(client.response()?.status == 101)
        #expect(client.text()?.contains(#""id":3"#) == true)
    }

    @Test(arguments: [
        ("garbage\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nContent-Length: x\r\n\r\n", 400),
        ("POST /jsonrpc HTTP/1.1\r\n\r\n", 411),
        ("POST /jsonrpc HTTP/1.1\r\nContent-Length: 70000\r\n\r\n", 413),
        ("GET /jsonrpc HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n", 400),
        ("POST /jsonrpc HTTP/1.1\r\nHost: a:1780\r\nOrigin: http://evil.example\r\nContent-Length: 2\r\n\r\n{}", 403),
    ])
    func badRequestsAreAnsweredAndClosed(request: String, status: Int) throws {
        let hub = FakeHub()
        let server = try server(hub)
        defer { server.close() }
        let client = try WebTestClient(port: server.port)
        client.write(request)
        #expect(client.response()?.status == status)
        if status != 403 { #expect(client.waitForClose()) }
        #expect(hub.oneShots.isEmpty)
    }

    @Test func aHeadThatNeverEndsIsRefusedAt16KiB() throws {
        let server = try server(FakeHub())
        defer { server.close() }
        let client = try WebTestClient(port: server.port)
        client.write("GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 20_000))
        #expect(client.response()?.status == 431)
        #expect(client.waitForClose())
    }

    @Test func anOversizeOrBrokenWebSocketMessageClosesWithItsCode() throws {
        let hub = FakeHub()
        let server = try server(hub)
        defer { server.close() }
        for (payload, code) in [([UInt8](repeating: 0x61, count: 65_537), 1009 as UInt16), ([0xC3, 0x28], 1007)] {
            let client = try WebTestClient(port: server.port)
            #expect(client.upgrade()?.status == 101)
            client.sendFrame(opcode: 1, payload)
            let close = try #require(client.frame())
            #expect(close.opcode == 8 && close.payload == [UInt8(code >> 8), UInt8(code & 0xFF)])
            #expect(client.waitForClose())
        }
        #expect(hub.received.isEmpty && hub.disconnectedCount == 2)
    }

    @Test func aThousandConnectionsDoNotStallTheOthersNorPassTheBound() throws {
        let hub = FakeHub()
        let server = try server(hub)
        defer { server.close() }
        var idle: [WebTestClient] = []
        var mostHeld = 0
        for index in 0..<1000 {
            let client = try WebTestClient(port: server.port)
            // Some send nothing, some half a request, some a WebSocket handshake and then silence.
            switch index % 3 {
            case 0: break
            case 1: client.write("GET / HTTP/1.1\r\nHost: ")
            default: _ = client.upgrade(seconds: 0.2)
            }
            idle.append(client)
            if index % 50 == 49 { turnLoop(seconds: 0.02) { false } }
            mostHeld = max(mostHeld, server.connectionCount)
        }
        #expect(mostHeld == WebServer.maxConnections)
        let started = ContinuousClock.now
        let client = try WebTestClient(port: server.port)
        #expect(client.upgrade()?.status == 101)
        client.sendText(#"{"jsonrpc":"2.0","id":1,"method":"Server.GetStatus"}"#)
        #expect(client.text() != nil)
        #expect(ContinuousClock.now - started < .seconds(2), "served while 1000 others came")
        // The WebSockets (a third of them, under the bound) were never made to give way; HTTP connections were.
        #expect(hub.peers.count == 334 && hub.disconnectedCount == 0)
        idle.removeAll()
        #expect(turnLoop(seconds: 10) { server.connectionCount == 1 })
    }

    @Test func pastTheBoundANewConnectionIsClosedWhenAllAreWebSockets() throws {
        let hub = FakeHub()
        let server = try server(hub)
        defer { server.close() }
        var sockets: [WebTestClient] = []
        for _ in 0..<WebServer.maxConnections {
            let client = try WebTestClient(port: server.port)
            #expect(client.upgrade()?.status == 101)
            sockets.append(client)
        }
        let late = try WebTestClient(port: server.port)
        #expect(late.waitForClose(), "refused at once")
        hub.notifyAll(#"{"jsonrpc":"2.0","method":"Server.OnUpdate"}"#)
        #expect(sockets.allSatisfy { $0.text()?.contains("Server.OnUpdate") == true })
    }

    @Test func aPeerThatNeverReadsIsDroppedAndTheOthersKeepUp() throws {
        let hub = FakeHub()
        let server = try server(hub)
        defer { server.close() }
        let stuck = try WebTestClient(port: server.port)
        #expect(stuck.upgrade()?.status == 101)
        let reader = try WebTestClient(port: server.port)
        #expect(reader.upgrade()?.status == 101)
        let note = #"{"jsonrpc":"2.0","method":"X","params":""# + String(repeating: "x", count: 60_000) + #""}"#
        var sent = 0
        var read = 0
        // The stuck peer's socket buffers fill, then its queue passes the bound: it is dropped, the reader is not.
        while hub.peers.count == 2 && sent < 2_000 {
            hub.notifyAll(note)
            sent += 1
            turnLoop(seconds: 5) {
                reader.drain()
                while reader.text(seconds: 0) != nil { read += 1 }
                return read == sent
            }
        }
        #expect(hub.peers.count == 1 && hub.disconnectedCount == 1, "dropped after \(sent) notifications")
        #expect(sent > (1 << 20) / note.utf8.count, "not before its queue (1 MiB) passed the bound")
        print("never-reading peer dropped after \(sent) notifications of 60 KB")
        #expect(read == sent && !reader.isClosedByServer)
    }
}
