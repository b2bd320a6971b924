// yt-gst — newline-delimited text over a stream socket: what the IPC socket and JSON-RPC over TCP speak.

/// Lines in, lines out, over a `StreamSocket`.
///
/// A line longer than `maxLineBytes` with no end in sight drops the peer (no request is that long).
/// - Note: Not Sendable: used on the main loop's thread only.
public final class LineSocket {
    public let socket: StreamSocket
    public let maxLineBytes: Int
    /// Called with each complete line (without its newline; a trailing carriage return is removed).
    public var onLine: (String) -> Void = { _ in }
    private var input: [UInt8] = []

    public init(_ socket: StreamSocket, maxLineBytes: Int = 1 << 20) {
        self.socket = socket
        self.maxLineBytes = maxLineBytes
        socket.onBytes = { [unowned self] in take($0) }
    }

    public var isOpen: Bool { socket.isOpen }

    /// Queues `line` and a newline.
    public func send(_ line: String) {
        socket.send(Array(line.utf8) + [0x0A])
    }

    public func close() { socket.close() }

    private func take(_ bytes: ArraySlice<UInt8>) {
        input += bytes
        var start = input.startIndex
        while socket.isOpen, let newline = input[start...].firstIndex(of: 0x0A) {
            var end = newline
            if end > start && input[end - 1] == 0x0D { end -= 1 }
            let line = String(decoding: input[start..<end], as: UTF8.self)
            start = newline + 1
            onLine(line)
        }
        input.removeSubrange(..<start)
        if input.count > maxLineBytes { socket.close() }
    }
}
