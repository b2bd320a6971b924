// yt-gst — the control surfaces' sockets: lines both ways, bounded queues, listening errors.
import Glibc
import GstPlayer
import Testing

@testable import Control

@Suite(.serialized) struct SocketTests {
    /// A listener on a free loopback port, and what it accepted.
    final class Server {
        var accepted: [StreamSocket] = []
        var listener: TCPListener!
        init(maxQueuedBytes: Int = 1 << 20) throws {
            listener = try TCPListener(address: "127.0.0.1", port: 0, maxQueuedBytes: maxQueuedBytes) {
                [unowned self] in accepted.append($0)
            }
        }
        /// Turns the loop until `done` or 5 s passed.
        func turn(until done: () -> Bool) {
            let deadline = ContinuousClock.now + .seconds(5)
            while !done(), ContinuousClock.now < deadline {
                MainLoop.wait(for: [], until: ContinuousClock.now + .milliseconds(20))
            }
        }
    }

    /// A blocking client connected to 127.0.0.1:`port`.
    static func connect(_ port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let result = Loopback.connect(fd, port: port)
        try #require(result == 0)
        return fd
    }

    static func write(_ fd: Int32, _ text: String) {
        _ = Array(text.utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    @Test func linesGoBothWaysAndThePeerIsNamed() throws {
        let server = try Server()
        let client = try Self.connect(server.listener.port)
        defer { close(client) }
        server.turn { !server.accepted.isEmpty }
        let socket = try #require(server.accepted.first)
        #expect(socket.peerAddress == "127.0.0.1" && socket.isLoopback)
        let lines = LineSocket(socket)
        var received: [String] = []
        lines.onLine = {
            received.append($0); lines.send("got \($0)")
        }
        Self.write(client, "one\r\ntwo\nthr")
        server.turn { received.count == 2 }
        #expect(received == ["one", "two"])
        Self.write(client, "ee\n")
        server.turn { received.count == 3 }
        #expect(received == ["one", "two", "three"])
        var reply = [UInt8](repeating: 0, count: 256)
        var text = ""
        while text.split(separator: "\n").count < 3 {
            let count = read(client, &reply, reply.count)
            guard count > 0 else { break }
            text += String(decoding: reply[0..<count], as: UTF8.self)
        }
        #expect(text == "got one\ngot two\ngot three\n")
    }

    @Test func aPeerThatNeverReadsIsDroppedAtTheBound() throws {
        let server = try Server(maxQueuedBytes: 256 << 10)
        let client = try Self.connect(server.listener.port)
        defer { close(client) }
        server.turn { !server.accepted.isEmpty }
        let socket = try #require(server.accepted.first)
        var closed = false
        socket.onClose = { closed = true }
        let chunk = [UInt8](repeating: 0x41, count: 64 << 10)
        var sent = 0
        while socket.isOpen && sent < 64 << 20 {
            socket.send(chunk)
            sent += chunk.count
        }
        #expect(closed && !socket.isOpen, "dropped after \(sent) bytes")
        #expect(sent < 32 << 20, "the kernel's buffers and the bound hold far less than \(sent) bytes")
    }

    @Test func aLineWithNoEndInSightDropsThePeer() throws {
        let server = try Server()
        let client = try Self.connect(server.listener.port)
        defer { close(client) }
        server.turn { !server.accepted.isEmpty }
        let lines = LineSocket(try #require(server.accepted.first), maxLineBytes: 70_000)
        var closed = false
        lines.socket.onClose = { closed = true }
        Self.write(client, String(repeating: "x", count: 80_000))
        server.turn { closed }
        #expect(closed)
    }

    @Test func aPortInUseIsSaidWithTheAddress() throws {
        let server = try Server()
        let port = server.listener.port
        #expect(throws: ListenError(address: "127.0.0.1", port: port, reason: "Address already in use")) {
            try TCPListener(address: "127.0.0.1", port: port) { _ in }
        }
        let error = ListenError(address: "::1", port: 1705, reason: "Address already in use")
        #expect(error.description == "[::1]:1705: Address already in use")
        #expect(throws: ListenError(address: "kitchen", port: 1705, reason: "not an IP address")) {
            try TCPListener(address: "kitchen", port: 1705) { _ in }
        }
    }

    /// Out of descriptors, a waiting connection cannot be accepted and the socket stays readable: the loop rests
    /// instead of spinning on it (CPU time while waiting), and takes the connection once descriptors are free.
    @Test func outOfDescriptorsTheListenerRestsAndAcceptsLater() throws {
        let server = try Server()
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(client) }
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        let saved = limit
        defer { _ = withUnsafePointer(to: saved) { setrlimit(Int32(RLIMIT_NOFILE.rawValue), $0) } }
        var filler: [Int32] = []
        defer { filler.forEach { _ = close($0) } }
        limit.rlim_cur = rlim_t(client + 64)
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        while true {
            let fd = dup(client)
            guard fd >= 0 else { break }
            filler.append(fd)
        }
        let connected = Loopback.connect(client, port: server.listener.port)
        try #require(connected == 0)
        let before = Self.threadCPUSeconds()
        let waited = ContinuousClock.now
        server.turn { ContinuousClock.now - waited > .milliseconds(500) }
        let spent = Self.threadCPUSeconds() - before
        #expect(server.accepted.isEmpty)
        #expect(spent < 0.2, "\(spent) s of CPU in 0.5 s of waiting")
        filler.forEach { _ = close($0) }
        filler = []
        server.turn { !server.accepted.isEmpty }
        #expect(server.accepted.count == 1)
    }

    static func threadCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(1, &usage)  // RUSAGE_THREAD (not in Swift's Glibc module)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}
