// yt-gst — the few HTTP exchanges a broadcast needs beside the stream: is the server there, what status does a
// URL answer, and a title update through Icecast's admin interface. Blocking, with short time limits.
import Glibc

/// Short blocking HTTP exchanges with a server, with their problems in words.
public enum HTTPProbe {
    /// Why a server could not be asked: "Connection refused", "timed out", "cannot resolve HOST: ...".
    public struct Problem: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Connects to `host`:`port` and closes again: whether a server listens there.
    ///
    /// - Throws: the problem, in words for a one-line message.
    public static func connect(host: String, port: Int, timeout: Duration) throws(Problem) {
        let fd = try openConnection(host: host, port: port, timeout: timeout)
        close(fd)
    }

    /// Sends `GET path` and returns the status code of the answer (reading no further).
    ///
    /// - Parameter authorization: user and password for HTTP basic authentication.
    public static func status(
        host: String, port: Int, path: String, authorization: (user: String, password: String)? = nil,
        timeout: Duration
    ) throws(Problem) -> Int {
        let fd = try openConnection(host: host, port: port, timeout: timeout)
        defer { close(fd) }
        var request = "GET \(path) HTTP/1.0\r\nHost: \(host):\(port)\r\nUser-Agent: yt-gst\r\n"
        if let authorization {
            request += "Authorization: Basic \(base64("\(authorization.user):\(authorization.password)"))\r\n"
        }
        request += "\r\n"
        let sent = request.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        guard sent == request.utf8.count else { throw Problem(description: String(cString: strerror(errno))) }
        var line: [UInt8] = []
        var byte: UInt8 = 0
        let deadline = ContinuousClock.now + timeout
        while line.count < 200 {
            guard wait(fd, for: Int16(POLLIN), until: deadline) else { throw Problem(description: "no answer") }
            guard recv(fd, &byte, 1, 0) == 1 else { break }
            if byte == UInt8(ascii: "\n") { break }
            line.append(byte)
        }
        // "HTTP/1.0 200 OK": the second field.
        let fields = String(decoding: line, as: UTF8.self).split(separator: " ")
        guard fields.count >= 2, fields[0].hasPrefix("HTTP/"), let code = Int(fields[1]) else {
            throw Problem(description: "not an HTTP answer")
        }
        return code
    }

    /// `value` percent-encoded for a query string.
    public static func queryEncoded(_ value: String) -> String {
        var out = ""
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
                UInt8(ascii: "~"):
                out.append(Character(UnicodeScalar(byte)))
            default:
                let hex = Array("0123456789ABCDEF")
                out += "%\(hex[Int(byte >> 4)])\(hex[Int(byte & 15)])"
            }
        }
        return out
    }

    public static func base64(_ text: String) -> String {
        let table = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        let bytes = Array(text.utf8)
        var out = ""
        for start in stride(from: 0, to: bytes.count, by: 3) {
            let chunk = bytes[start..<min(start + 3, bytes.count)]
            let value = chunk.enumerated().reduce(0) { $0 | Int($1.element) << (16 - 8 * $1.offset) }
            for index in 0..<4 {
                out.append(index <= chunk.count ? table[(value >> (18 - 6 * index)) & 63] : "=")
            }
        }
        return out
    }

    /// A TCP connection to `host`:`port` made within `timeout` (the first address that answers).
    private static func openConnection(host: String, port: Int, timeout: Duration) throws(Problem) -> Int32 {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>? = nil
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let list else {
            throw Problem(description: "cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        let deadline = ContinuousClock.now + timeout
        var problem = "no address"
        var node: UnsafeMutablePointer<addrinfo>? = list
        while let entry = node {
            node = entry.pointee.ai_next
            let fd = socket(entry.pointee.ai_family, entry.pointee.ai_socktype | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard fd >= 0 else { continue }
            if Glibc.connect(fd, entry.pointee.ai_addr, entry.pointee.ai_addrlen) == 0 { return blocking(fd) }
            guard errno == EINPROGRESS else {
                problem = String(cString: strerror(errno))
                close(fd)
                continue
            }
            guard wait(fd, for: Int16(POLLOUT), until: deadline) else {
                problem = "timed out"
                close(fd)
                continue
            }
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
            if error == 0 { return blocking(fd) }
            problem = String(cString: strerror(error))
            close(fd)
        }
        throw Problem(description: problem)
    }

    private static func blocking(_ fd: Int32) -> Int32 {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return fd
    }

    /// Waits until `fd` has `events` or `deadline` passes; false on timeout.
    private static func wait(_ fd: Int32, for events: Int16, until deadline: ContinuousClock.Instant) -> Bool {
        while true {
            let left = ContinuousClock.now.duration(to: deadline) / .milliseconds(1)
            guard left > 0 else { return false }
            var entry = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&entry, 1, Int32(min(left.rounded(.up), 60_000)))
            if ready > 0 { return true }
            if ready < 0 && errno == EINTR { continue }
            return false
        }
    }
}
