// yt-gst — WebSocket frames (RFC 6455, section 5): the server's encoded, a client's read into messages.

/// One frame. The server sends whole messages as single unmasked frames; clients mask theirs (the tests' client
/// too, through `encoded(mask:)`).
struct WebSocketFrame: Equatable {
    enum Opcode: UInt8 {
        case continuation = 0, text = 1, binary = 2, close = 8, ping = 9, pong = 10
        /// Close, ping and pong: never fragmented, at most 125 bytes of payload.
        var isControl: Bool { rawValue >= 8 }
    }

    var fin = true
    var opcode: Opcode
    var payload: [UInt8]

    /// A close frame with a status code (1000 normal, 1002 protocol error, 1009 too big...).
    static func close(_ code: UInt16) -> WebSocketFrame {
        WebSocketFrame(opcode: .close, payload: [UInt8(code >> 8), UInt8(code & 0xFF)])
    }

    /// The frame as sent: header, length in the shortest form, then the payload (masked when `mask` is given).
    func encoded(mask: [UInt8]? = nil) -> [UInt8] {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | opcode.rawValue]
        let maskBit: UInt8 = mask == nil ? 0 : 0x80
        switch payload.count {
        case 0..<126: bytes.append(maskBit | UInt8(payload.count))
        case 126..<65_536: bytes += [maskBit | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default: bytes += [maskBit | 127] + (0..<8).map { UInt8(truncatingIfNeeded: payload.count >> (56 - 8 * $0)) }
        }
        guard let mask else { return bytes + payload }
        return bytes + mask + payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
    }
}

/// Why a client's connection is failed: the close code sent to it before the connection is closed.
struct WebSocketError: Error, Equatable {
    var code: UInt16
    var detail: String

    static func protocolError(_ detail: String) -> WebSocketError { WebSocketError(code: 1002, detail: detail) }
}

/// Reads a client's frames from the connection's bytes into messages, fragments joined.
///
/// A message may take at most `maxMessageBytes` (else close 1009, known from a frame's header before its payload is
/// read); frames must be masked, control frames short and whole, text valid UTF-8 (else 1007); binary messages are
/// not taken (1003: the protocol is JSON text).
struct WebSocketReader {
    static let maxMessageBytes = 64 * 1024

    enum Event: Equatable {
        case text(String)
        case ping([UInt8])
        case pong
        /// The client's close, with its code when it gave one.
        case close(UInt16?)
    }

    private var buffer: [UInt8] = []
    /// A fragmented message so far (its first frame's opcode and the payload read).
    private var partial: (opcode: WebSocketFrame.Opcode, payload: [UInt8])?

    mutating func append(_ bytes: some Collection<UInt8>) { buffer += bytes }

    /// The next message or control event, nil while more bytes are needed.
    mutating func next() throws(WebSocketError) -> Event? {
        while let frame = try nextFrame() {
            if let event = try take(frame) { return event }
        }
        return nil
    }

    /// A message's frame joined to what came before; an event once something is whole.
    private mutating func take(_ frame: WebSocketFrame) throws(WebSocketError) -> Event? {
        switch frame.opcode {
        case .ping: return .ping(frame.payload)
        case .pong: return .pong
        case .close: return .close(try Self.closeCode(frame.payload))
        case .continuation:
            guard partial != nil else { throw .protocolError("continuation without a message") }
            partial!.payload += frame.payload
        case .text, .binary:
            guard partial == nil else { throw .protocolError("new message inside a fragmented one") }
            partial = (frame.opcode, frame.payload)
        }
        guard frame.fin, let (opcode, payload) = partial else { return nil }
        partial = nil
        guard opcode == .text else { throw WebSocketError(code: 1003, detail: "binary messages are not taken") }
        guard let text = String(validating: payload, as: UTF8.self) else {
            throw WebSocketError(code: 1007, detail: "text is not UTF-8")
        }
        return .text(text)
    }

    /// The next whole frame, unmasked; nil while more bytes are needed.
    private mutating func nextFrame() throws(WebSocketError) -> WebSocketFrame? {
        guard buffer.count >= 2 else { return nil }
        guard buffer[0] & 0x70 == 0 else { throw .protocolError("reserved bits set") }
        guard let opcode = WebSocketFrame.Opcode(rawValue: buffer[0] & 0x0F) else {
            throw .protocolError("unknown opcode")
        }
        let fin = buffer[0] & 0x80 != 0
        guard buffer[1] & 0x80 != 0 else { throw .protocolError("a client's frame must be masked") }
        guard let (length, headerBytes) = try payloadLength() else { return nil }
        if opcode.isControl {
            guard fin, length <= 125 else { throw .protocolError("control frame fragmented or over 125 bytes") }
        } else if length + (partial?.payload.count ?? 0) > Self.maxMessageBytes {
            throw WebSocketError(code: 1009, detail: "message over 64 KiB")
        }
        guard buffer.count >= headerBytes + 4 + length else { return nil }
        let mask = Array(buffer[headerBytes..<headerBytes + 4])
        let start = headerBytes + 4
        let payload = (0..<length).map { buffer[start + $0] ^ mask[$0 & 3] }
        buffer.removeFirst(start + length)
        return WebSocketFrame(fin: fin, opcode: opcode, payload: payload)
    }

    /// The payload's length and the header's size before the mask; nil while the extended length is incomplete.
    private func payloadLength() throws(WebSocketError) -> (Int, Int)? {
        switch buffer[1] & 0x7F {
        case 126:
            guard buffer.count >= 4 else { return nil }
            return (Int(buffer[2]) << 8 | Int(buffer[3]), 4)
        case 127:
            guard buffer.count >= 10 else { return nil }
            guard buffer[2] & 0x80 == 0 else { throw .protocolError("length's top bit set") }
            // Anything past 32 bits is over every bound: kept from overflowing Int arithmetic.
            let length = buffer[2..<10].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            return (Int(min(length, UInt64(UInt32.max))), 10)
        case let short: return (Int(short), 2)
        }
    }

    private static func closeCode(_ payload: [UInt8]) throws(WebSocketError) -> UInt16? {
        guard !payload.isEmpty else { return nil }
        guard payload.count >= 2 else { throw .protocolError("close frame with a 1-byte code") }
        return UInt16(payload[0]) << 8 | UInt16(payload[1])
    }
}
