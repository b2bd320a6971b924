// yt-gst — a one-shot client of the IPC socket: connect, send a request, read its reply.
import Glibc

/// A blocking client for one request at a time (what `yt-gst ctl` needs).
public struct IPCClient {
    public let path: String

    /// A client of the socket at `socket` (see `IPCSocketPath.resolve`).
    public init(socket: String) throws(IPCSocketError) {
        guard let path = IPCSocketPath.resolve(socket) else {
            throw IPCSocketError(kind: .noRuntimeDirectory, path: socket)
        }
        self.path = path
    }

    /// Sends `line` (a JSON request with `"request_id"`) and returns the reply with the same request id, skipping
    /// events; waits at most `timeoutMilliseconds` in all.
    public func request(_ line: String, timeoutMilliseconds: Int32) throws(IPCSocketError) -> JSONValue {
        guard let address = IPCSocketPath.address(path) else { throw IPCSocketError(kind: .pathTooLong, path: path) }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw failure("socket") }
        defer { close(fd) }
        guard IPCSocketPath.withSocketAddress(address, { connect(fd, $0, $1) }) == 0 else { throw failure("connect") }
        let bytes = Array((line + "\n").utf8)
        guard bytes.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count else {
            throw failure("send")
        }
        let wanted = (try? JSONValue(parsing: line))?["request_id"]
        let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int(timeoutMilliseconds)))
        var input: [UInt8] = []
        while true {
            while let newline = input.firstIndex(of: 0x0A) {
                let text = String(decoding: input[..<newline], as: UTF8.self)
                input.removeSubrange(...newline)
                if let reply = try? JSONValue(parsing: text), reply["event"] == nil, reply["request_id"] == wanted {
                    return reply
                }
            }
            let left = ContinuousClock.now.duration(to: deadline) / .milliseconds(1)
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard left > 0, poll(&poller, 1, Int32(left.rounded(.up))) > 0 else {
                throw failure("no reply", errno: ETIMEDOUT)
            }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = read(fd, &chunk, chunk.count)
            guard count > 0 else { throw failure("read", errno: count == 0 ? ECONNRESET : errno) }
            input += chunk[0..<count]
        }
    }

    /// A request line for command words as a shell gives them: words that read as JSON scalars (numbers, true,
    /// false, null, quoted strings) are sent as such, the rest as strings; with a request id to find the reply.
    public static func request(words: [String]) -> String {
        let command = words.map { word -> JSONValue in
            switch try? JSONValue(parsing: word) {
            case nil, .array?, .object?: .string(word)
            case let value?: value
            }
        }
        return JSONValue.object([("command", .array(command)), ("request_id", 1)]).text
    }

    private func failure(_ call: String, errno code: Int32 = errno) -> IPCSocketError {
        IPCSocketError(kind: .system(call: call, errno: code), path: path)
    }
}
