// yt-gst — WebSocket framing and handshake against RFC 6455's own examples, and every way a client can break them.
import Testing

@testable import Control

@Suite struct WebSocketFrameTests {
    private let mask: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]

    private func events(_ bytes: [UInt8], chunk: Int = 1) throws(WebSocketError) -> [WebSocketReader.Event] {
        var reader = WebSocketReader()
        var events: [WebSocketReader.Event] = []
        for start in stride(from: 0, to: bytes.count, by: chunk) {
            reader.append(bytes[start..<min(start + chunk, bytes.count)])
            while let event = try reader.next() { events.append(event) }
        }
        return events
    }

    private func code(_ bytes: [UInt8]) -> UInt16? {
        do {
            _ = try events(bytes, chunk: 4096)
            return nil
        } catch { return error.code }
    }

    /// RFC 6455, 1.3 (the value is checked against Python's hashlib too).
    @Test func theRFCsHandshakeExample() {
        #expect(WebSocketHandshake.accept(key: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test(arguments: [
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1"
        ),
    ])
    func sha1MatchesFIPSVectors(message: String, hex: String) {
        let digest = SHA1.digest(Array(message.utf8))
        #expect(
            digest.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
                .joined() == hex)
    }

    @Test(arguments: [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foobar", "Zm9vYmFy")])
    func base64MatchesRFC4648(text: String, encoded: String) {
        #expect(Base64.encode(Array(text.utf8)) == encoded)
    }

    @Test func theRFCsMaskedHelloIsRead() throws {
        // RFC 6455, 5.7: a single-frame masked text message containing "Hello".
        let bytes: [UInt8] = [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]
        #expect(try events(bytes) == [.text("Hello")])
        #expect(WebSocketFrame(opcode: .text, payload: Array("Hello".utf8)).encoded(mask: mask) == bytes)
        #expect(
            WebSocketFrame(opcode: .text, payload: Array("Hello".utf8)).encoded() == [0x81, 0x05] + Array("Hello".utf8))
    }

    @Test(arguments: [0, 125, 126, 65_535, 65_536])
    func lengthsRoundTripThroughEachForm(count: Int) throws {
        let payload = (0..<count).map { UInt8(truncatingIfNeeded: $0 % 26 + 97) }
        let bytes = WebSocketFrame(opcode: .text, payload: payload).encoded(mask: mask)
        #expect(try events(bytes, chunk: 1000) == [.text(String(decoding: payload, as: UTF8.self))])
        let header = WebSocketFrame(opcode: .text, payload: payload).encoded().count - count
        #expect(header == (count < 126 ? 2 : count < 65_536 ? 4 : 10))
    }

    @Test func fragmentsAreJoinedAndControlFramesMayComeBetween() throws {
        let bytes =
            WebSocketFrame(fin: false, opcode: .text, payload: Array("Hel".utf8)).encoded(mask: mask)
            + WebSocketFrame(opcode: .ping, payload: [1, 2]).encoded(mask: mask)
            + WebSocketFrame(fin: true, opcode: .continuation, payload: Array("lo".utf8)).encoded(mask: mask)
            + WebSocketFrame(opcode: .pong, payload: []).encoded(mask: mask)
            + WebSocketFrame.close(1000).encoded(mask: mask)
        #expect(try events(bytes) == [.ping([1, 2]), .text("Hello"), .pong, .close(1000)])
    }

    @Test func aMessageOver64KiBIsRefusedFromItsHeader() {
        // Only the header of a 1 GiB frame: refused before any payload arrives.
        #expect(code([0x81, 0xFF, 0, 0, 0, 0, 0x40, 0, 0, 0]) == 1009)
        let half = [UInt8](repeating: 0x61, count: 40_000)
        let fragments =
            WebSocketFrame(fin: false, opcode: .text, payload: half).encoded(mask: mask)
            + WebSocketFrame(opcode: .continuation, payload: half).encoded(mask: mask)
        #expect(code(fragments) == 1009)
    }

    /// Frames a client may not send, and the close code each gets.
    static let brokenFrames: [([UInt8], UInt16)] = [
        ([0x81, 0x02, 0x68, 0x69], 1002),  // unmasked
        ([0xC1, 0x80, 0, 0, 0, 0], 1002),  // reserved bit
        ([0x83, 0x80, 0, 0, 0, 0], 1002),  // unknown opcode
        ([0x09, 0x80, 0, 0, 0, 0], 1002),  // fragmented ping
        ([0x89, 0xFE, 0, 126] + [UInt8](repeating: 0, count: 130), 1002),  // ping over 125 bytes
        ([0x80, 0x80, 0, 0, 0, 0], 1002),  // continuation of nothing
        ([0x88, 0x81, 0, 0, 0, 0, 3], 1002),  // close with a 1-byte code
        ([0x81, 0x82, 0, 0, 0, 0, 0xC3, 0x28], 1007),  // invalid UTF-8
        ([0x82, 0x81, 0, 0, 0, 0, 1], 1003),  // binary
    ]

    @Test(arguments: brokenFrames)
    func brokenFramesFailTheConnectionWithTheirCode(bytes: [UInt8], expected: UInt16) {
        #expect(code(bytes) == expected)
    }

    @Test func handshakesAreCheckedAndAnswered() throws {
        func request(_ fields: String) throws -> HTTPRequest {
            var reader = HTTPRequestReader()
            reader.append(Array("GET /jsonrpc HTTP/1.1\r\nHost: x\r\n\(fields)\r\n".utf8))
            return try #require(try reader.next())
        }
        let good = "Upgrade: websocket\r\nConnection: keep-alive, Upgrade\r\nSec-WebSocket-Version: 13\r\n"
        let response = try WebSocketHandshake.response(
            to: request(good + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n")
        ).get()
        let text = String(decoding: response.bytes, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 101 Switching Protocols\r\n"))
        #expect(
            text.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n") && !text.contains("Content-Length"))
        for broken in [
            good, good.replacingOccurrences(of: "13", with: "8") + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n",
        ] {
            #expect(throws: HTTPRequestError.self) { try WebSocketHandshake.response(to: request(broken)).get() }
        }
    }
}
