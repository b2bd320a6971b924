// yt-gst — a JSON-RPC 2.0 client over TCP for tests, written from Snapcast's documented control protocol (one JSON
// message per line), not from yt-gst's server.
import Foundation

/// One TCP connection to a control service: requests out, replies and notifications in, every read bounded in time.
public final class JSONRPCTestClient {
    public let fd: Int32
    private var buffer: [UInt8] = []
    /// Notifications read so far (also while waiting for replies), oldest first.
    public var notifications: [[String: Any]] = []
    private var nextID = 1

    /// Connects to `host`:`port` (IPv4), trying for up to `timeout` seconds while nothing listens yet.
    public init(host: String = "127.0.0.1", port: Int, timeout: Double = 20) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let fd = JSONRPCTestClient.connect(host: host, port: port)
            if fd >= 0 {
                self.fd = fd
                return
            }
            guard Date() < deadline else { throw HarnessError(description: "nothing listens on \(host):\(port)") }
            usleep(50_000)
        }
    }

    deinit { close(fd) }

    /// A blocking connect; the descriptor, or -1.
    public static func connect(host: String, port: Int) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        inet_pton(AF_INET, host, &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if connected == 0 { return fd }
        close(fd)
        return -1
    }

    /// Sends `text` and a newline; false when the connection is gone.
    @discardableResult
    public func sendLine(_ text: String) -> Bool {
        let bytes = Array((text + "\n").utf8)
        return bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    /// Calls `method` and waits for its reply (notifications meanwhile are kept); nil after `timeout` or at the
    /// end of the connection.
    public func call(_ method: String, _ params: [String: Any] = [:], timeout: Double = 5) -> [String: Any]? {
        let id = nextID
        nextID += 1
        let body: [String: Any] = ["jsonrpc": "2.0", "id": id, "method": method, "params": params]
        sendLine(String(decoding: try! JSONSerialization.data(withJSONObject: body), as: UTF8.self))
        let deadline = Date().addingTimeInterval(timeout)
        while let message = readMessage(timeout: deadline.timeIntervalSinceNow) {
            if message["id"] as? Int == id { return message }
        }
        return nil
    }

    /// The `result` of `method`'s reply as an object.
    public func result(_ method: String, _ params: [String: Any] = [:]) -> [String: Any]? {
        call(method, params)?["result"] as? [String: Any]
    }

    /// The next message; a notification is also kept in `notifications`. nil after `timeout` seconds or at the end
    /// of the connection.
    public func readMessage(timeout: Double = 5) -> [String: Any]? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = Data(buffer[..<newline])
                buffer.removeSubrange(...newline)
                let message = (try? JSONSerialization.jsonObject(with: line)) as? [String: Any] ?? ["unparsed": line]
                if message["method"] != nil && message["id"] == nil { notifications.append(message) }
                return message
            }
            guard readMore(until: deadline) else { return nil }
        }
    }

    /// Reads what arrives for `seconds` (notifications are kept).
    public func collect(for seconds: Double) {
        let deadline = Date().addingTimeInterval(seconds)
        while readMessage(timeout: deadline.timeIntervalSinceNow) != nil {}
    }

    /// Whether the server closed the connection within `timeout` seconds (what it sent first is read and dropped).
    public func closedByServer(within timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 50) >= 0 else { return true }
            guard poller.revents != 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            if read(fd, &chunk, chunk.count) <= 0 { return true }
        }
        return false
    }

    private func readMore(until deadline: Date) -> Bool {
        let left = deadline.timeIntervalSinceNow
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard left > 0, poll(&poller, 1, Int32(left * 1000) + 1) > 0 else { return false }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = read(fd, &chunk, chunk.count)
        guard count > 0 else { return false }
        buffer += chunk[0..<count]
        return true
    }
}
