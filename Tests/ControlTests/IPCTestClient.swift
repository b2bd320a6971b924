// yt-gst — a client of the IPC socket for tests, written from mpv's documented protocol (not from our server).
import Foundation
import TestSupport

/// One connection to an IPC socket: sends JSON requests, reads replies and events, every read bounded in time.
final class IPCTestClient {
    let fd: Int32
    private var buffer: [UInt8] = []
    /// Events read so far (while waiting for replies, too), oldest first.
    var events: [[String: Any]] = []
    private var nextID = 100

    /// Connects to `path`, waiting up to `timeout` seconds for the socket to appear.
    init(path: String, timeout: Double = 20) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
            }
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            if connected == 0 {
                self.fd = fd
                return
            }
            close(fd)
            guard Date() < deadline else { throw HarnessError(description: "no socket at \(path)") }
            usleep(20_000)
        }
    }

    deinit { close(fd) }

    func sendLine(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// The next line as a JSON object; nil after `timeout` seconds or at the end of the connection.
    func readMessage(timeout: Double = 5) -> [String: Any]? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = Data(buffer[..<newline])
                buffer.removeSubrange(...newline)
                return (try? JSONSerialization.jsonObject(with: line)) as? [String: Any] ?? ["unparsed": line]
            }
            let left = deadline.timeIntervalSinceNow
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard left > 0, poll(&poller, 1, Int32(left * 1000) + 1) > 0 else { return nil }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = read(fd, &chunk, chunk.count)
            guard count > 0 else { return nil }
            buffer += chunk[0..<count]
        }
    }

    /// Sends `command` with a fresh request id and returns the reply with that id (events read meanwhile are kept).
    func request(_ command: [Any], timeout: Double = 5) -> [String: Any]? {
        nextID += 1
        let id = nextID
        let data = try! JSONSerialization.data(withJSONObject: ["command": command, "request_id": id])
        sendLine(String(decoding: data, as: UTF8.self))
        return reply(to: id, timeout: timeout)
    }

    func reply(to id: Int, timeout: Double = 5) -> [String: Any]? {
        let deadline = Date().addingTimeInterval(timeout)
        while let message = readMessage(timeout: max(0, deadline.timeIntervalSinceNow)) {
            if message["event"] != nil {
                events.append(message)
            } else if (message["request_id"] as? Int) == id {
                return message
            }
        }
        return nil
    }

    /// The value of `property` (nil when the reply is an error).
    func get(_ property: String) -> Any? {
        guard let reply = request(["get_property", property]), reply["error"] as? String == "success" else {
            return nil
        }
        return reply["data"]
    }

    /// Reads events for `seconds`, keeping them.
    func collectEvents(for seconds: Double) {
        let deadline = Date().addingTimeInterval(seconds)
        while deadline.timeIntervalSinceNow > 0, let message = readMessage(timeout: deadline.timeIntervalSinceNow) {
            if message["event"] != nil { events.append(message) }
        }
    }

    /// Waits up to `timeout` seconds for an event named `name` (looking at those kept first); removes what it saw.
    func waitForEvent(_ name: String, timeout: Double = 5) -> [String: Any]? {
        if let index = events.firstIndex(where: { $0["event"] as? String == name }) {
            return events.remove(at: index)
        }
        let deadline = Date().addingTimeInterval(timeout)
        while let message = readMessage(timeout: max(0, deadline.timeIntervalSinceNow)) {
            if message["event"] as? String == name { return message }
            if message["event"] != nil { events.append(message) }
        }
        return nil
    }

    func eventNames() -> [String] { events.compactMap { $0["event"] as? String } }
}
