// yt-gst — the web side's HTTP request reader: requests split anywhere, pipelined, and every bound and refusal.
import Testing

@testable import Control

@Suite struct HTTPRequestTests {
    private func read(_ text: String, in chunks: Int = 1) throws(HTTPRequestError) -> [HTTPRequest] {
        var reader = HTTPRequestReader()
        var requests: [HTTPRequest] = []
        let bytes = Array(text.utf8)
        let size = max(1, bytes.count / chunks)
        for start in stride(from: 0, to: bytes.count, by: size) {
            reader.append(bytes[start..<min(start + size, bytes.count)])
            while let request = try reader.next() { requests.append(request) }
        }
        return requests
    }

    private func status(of text: String) -> HTTPStatus? {
        do {
            _ = try read(text)
            return nil
        } catch { return error.status }
    }

    @Test(arguments: [1, 3, 1000])
    func aGetWithAQueryIsReadWhateverTheChunks(chunks: Int) throws {
        let requests = try read(
            "GET /?token=a%2Bb+c&x HTTP/1.1\r\nHost: h:1780\r\nX-A: 1\r\nx-a:  2 \r\n\r\n", in: chunks)
        #expect(requests.count == 1)
        let request = try #require(requests.first)
        #expect(request.method == "GET" && request.path == "/" && request.version == "HTTP/1.1")
        #expect(request.query == ["token": "a+b c", "x": ""])
        #expect(request.header("Host") == "h:1780" && request.header("x-a") == "1, 2")
        #expect(request.keepsAlive && request.body.isEmpty)
    }

    @Test func pipelinedPostsKeepTheirBodies() throws {
        let post = "POST /jsonrpc HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello"
        let requests = try read("\r\n" + post + post.replacingOccurrences(of: "hello", with: "world"), in: 7)
        #expect(requests.map { String(decoding: $0.body, as: UTF8.self) } == ["hello", "world"])
    }

    @Test func keepAliveFollowsTheVersionAndConnection() throws {
        #expect(try read("GET / HTTP/1.1\r\nConnection: close\r\n\r\n")[0].keepsAlive == false)
        #expect(try read("GET / HTTP/1.0\r\n\r\n")[0].keepsAlive == false)
        #expect(try read("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n")[0].keepsAlive == true)
    }

    @Test(arguments: [
        ("garbage\r\n\r\n", HTTPStatus.badRequest),
        ("GET / HTTP/2.0\r\n\r\n", .badRequest),
        ("GET noslash HTTP/1.1\r\n\r\n", .badRequest),
        ("GET  / HTTP/1.1\r\n\r\n", .badRequest),
        ("GET / HTTP/1.1\r\nNo colon\r\n\r\n", .badRequest),
        ("GET / HTTP/1.1\r\nBad name: x\r\n\r\n", .badRequest),
        ("GET / HTTP/1.1\r\n folded: x\r\n\r\n", .badRequest),
        ("GET / HTTP/1.1\r\nA: x\ny\r\n\r\n", .badRequest),
        ("POST /jsonrpc HTTP/1.1\r\nContent-Length: -1\r\n\r\n", .badRequest),
        ("POST /jsonrpc HTTP/1.1\r\nContent-Length: 1, 2\r\n\r\n", .badRequest),
        ("POST /jsonrpc HTTP/1.1\r\n\r\n", .lengthRequired),
        ("POST /jsonrpc HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", .lengthRequired),
        ("POST /jsonrpc HTTP/1.1\r\nContent-Length: 65537\r\n\r\n", .contentTooLarge),
        ("POST /jsonrpc HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n", .badRequest),
    ])
    func malformedOrOversizeRequestsAreRefused(text: String, expected: HTTPStatus) {
        #expect(status(of: text) == expected)
    }

    @Test func aBodyOfExactly64KiBIsTaken() throws {
        let body = String(repeating: "x", count: 65_536)
        let requests = try read("POST /jsonrpc HTTP/1.1\r\nContent-Length: 65536\r\n\r\n" + body, in: 5)
        #expect(requests.first?.body.count == 65_536)
    }

    @Test func aHeadOver16KiBIsRefusedBeforeItEnds() {
        var reader = HTTPRequestReader()
        reader.append(Array(("GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 16_400)).utf8))
        #expect(throws: HTTPRequestError.self) { try reader.next() }
        #expect(
            status(of: "GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 16_400) + "\r\n\r\n")
                == .headerFieldsTooLarge)
        #expect(status(of: "GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 16_000) + "\r\n\r\n") == nil)
    }

    @Test func expectContinueIsAskedForOnceUntilTheBodyArrives() throws {
        var reader = HTTPRequestReader()
        reader.append(Array("POST /jsonrpc HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n".utf8))
        #expect(try reader.next() == nil)
        #expect(reader.takeContinue() && !reader.takeContinue())
        reader.append(Array("{}".utf8))
        #expect(try reader.next()?.body == Array("{}".utf8))
    }

    @Test func responsesCarryTheirLength() {
        let text = String(decoding: HTTPResponse.text(.notFound, "no such page").bytes, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 404 Not Found\r\n"))
        #expect(text.contains("Content-Length: 13\r\n") && text.hasSuffix("\r\n\r\nno such page\n"))
    }
}
