// yt-gst — a raw HTTP and WebSocket client for the web side's tests, on the test's thread beside the main loop.
import Glibc
import GstPlayer
import Testing

@testable import Control

/// Turns the main loop (which serves the server under test) until `done` or `seconds` passed; false on time-out.
@discardableResult
func turnLoop(seconds: Double = 5, until done: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while !done() {
        guard ContinuousClock.now < deadline else { return false }
        MainLoop.wait(for: [], until: ContinuousClock.now + .milliseconds(5))
    }
    return true
}

/// One nonblocking TCP connection to the server: bytes out, bytes collected as they arrive, with HTTP responses and
/// server WebSocket frames (unmasked, RFC 6455) read from them — written from the RFC, not from the server's code.
final class WebTestClient {
    let fd: Int32
    private(set) var input: [UInt8] = []
    private(set) var isClosedByServer = false

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let result = Loopback.connect(fd, port: port)
        guard result == 0 else {
            close(fd)
            throw WebTestError(description: "connect: errno \(errno)")
        }
        _ = fcntl(fd, F_SETFL, O_NONBLOCK)
    }

    deinit { close(fd) }

    /// Sends everything, turning the loop while the socket is full (the server must read for it to drain).
    func write(_ bytes: [UInt8]) {
        var sent = 0
        _ = turnLoop(seconds: 10) {
            let count = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count > 0 { sent += count }
            return sent == bytes.count || (count < 0 && errno != EAGAIN)
        }
    }

    func write(_ text: String) { write(Array(text.utf8)) }

    /// Reads what has arrived (nonblocking); notes the server's close.
    func drain() {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(fd, &chunk, chunk.count)
            if count > 0 {
                input += chunk[0..<count]
            } else {
                if count == 0 || (errno != EAGAIN && errno != EINTR) { isClosedByServer = true }
                return
            }
        }
    }

    /// The next whole HTTP response (status, head text, body), taken from the input; nil after `seconds`.
    func response(seconds: Double = 5) -> (status: Int, head: String, body: String)? {
        var found: (Int, String, String)?
        turnLoop(seconds: seconds) {
            drain()
            found = takeResponse()
            return found != nil || isClosedByServer
        }
        return found ?? takeResponse()
    }

    private func takeResponse() -> (Int, String, String)? {
        let marker: [UInt8] = [13, 10, 13, 10]
        guard input.count >= 4, let end = (0...input.count - 4).first(where: { Array(input[$0..<$0 + 4]) == marker })
        else { return nil }
        let head = String(decoding: input[..<end], as: UTF8.self)
        let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
        let lengthLine = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
        let length = lengthLine.flatMap { Int($0.split(separator: ":")[1].trimmingPrefix(" ")) } ?? 0
        guard input.count >= end + 4 + length else { return nil }
        let body = String(decoding: input[(end + 4)..<(end + 4 + length)], as: UTF8.self)
        input.removeFirst(end + 4 + length)
        return (status, head, body)
    }

    /// Opens a WebSocket on /jsonrpc; the 101 response's head.
    func upgrade(extra: String = "", seconds: Double = 5) -> (status: Int, head: String)? {
        write(
            "GET /jsonrpc HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\(extra)\r\n")
        return response(seconds: seconds).map { ($0.status, $0.head) }
    }

    /// Sends one masked frame.
    func sendFrame(opcode: UInt8, _ payload: [UInt8], fin: Bool = true) {
        let mask: [UInt8] = [0xA1, 0xB2, 0xC3, 0xD4]
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        if payload.count < 126 {
            bytes.append(0x80 | UInt8(payload.count))
        } else if payload.count < 65_536 {
            bytes += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            bytes += [0x80 | 127] + (0..<8).map { UInt8(truncatingIfNeeded: payload.count >> (56 - 8 * $0)) }
        }
        write(bytes + mask + payload.enumerated().map { $0.element ^ mask[$0.offset % 4] })
    }

    func sendText(_ text: String) { sendFrame(opcode: 1, Array(text.utf8)) }

    /// The next frame the server sent (opcode, payload); nil after `seconds` or at the end of the connection.
    func frame(seconds: Double = 5) -> (opcode: UInt8, payload: [UInt8])? {
        var found: (UInt8, [UInt8])?
        turnLoop(seconds: seconds) {
            drain()
            found = takeFrame()
            return found != nil || isClosedByServer
        }
        return found ?? takeFrame()
    }

    /// The next text message's text.
    func text(seconds: Double = 5) -> String? {
        guard let frame = frame(seconds: seconds), frame.opcode == 1 else { return nil }
        return String(decoding: frame.payload, as: UTF8.self)
    }

    /// The reply with `id` (notifications read before it are skipped); nil when none came within 5 s.
    func reply(to id: Int) -> JSONValue? {
        while let text = text() {
            if let message = try? JSONValue(parsing: text), message["id"] == .number(Double(id)) { return message }
        }
        return nil
    }

    private func takeFrame() -> (UInt8, [UInt8])? {
        guard input.count >= 2 else { return nil }
        #expect(input[1] & 0x80 == 0, "a server's frames are not masked")
        var length = Int(input[1] & 0x7F)
        var header = 2
        if length == 126 {
            guard input.count >= 4 else { return nil }
            (length, header) = (Int(input[2]) << 8 | Int(input[3]), 4)
        } else if length == 127 {
            guard input.count >= 10 else { return nil }
            (length, header) = (input[2..<10].reduce(0) { $0 << 8 | Int($1) }, 10)
        }
        guard input.count >= header + length else { return nil }
        let frame = (input[0] & 0x0F, Array(input[header..<header + length]))
        input.removeFirst(header + length)
        return frame
    }

    /// Waits for the server to close the connection.
    func waitForClose(seconds: Double = 5) -> Bool {
        turnLoop(seconds: seconds) {
            drain()
            return isClosedByServer
        }
    }
}

struct WebTestError: Error, CustomStringConvertible {
    var description: String
}
