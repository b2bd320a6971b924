// yt-gst — `stream --control` as the real binary: its options, start lines, a port in use, hostile clients, a
// token, and the rooms it keeps across a restart. (The rooms' receivers: NetworkTests' RoomControlTests.)
import Foundation
import TestSupport
import Testing

@Suite(.serialized) struct HubServerTests {
    /// A port for this test process, below the ephemeral range (32768-60999) where outgoing connections take
    /// theirs: offsets 0-7 here, 8-15 RoomClientTests'.
    static func port(_ offset: Int) -> Int { 10_000 + Int(getpid() % 1_000) * 16 + offset }

    /// A sender of a long tone to a local port nobody reads, with `--control` options; stopped by the caller.
    static func sender(
        _ dir: URL, control: [String], environment: [String: String] = [:]
    ) throws -> Launched {
        let tone = SyntheticWAV.tone(frames: 44_100 * 120)
        let file = try tone.write(to: dir.appendingPathComponent("tone.wav"))
        return try Run.launch(
            Paths.binary, ["stream", file, "--to", "rtp://127.0.0.1:\(port(5))", "--quiet"] + control,
            environment: ["XDG_STATE_HOME": dir.path + "/state"].merging(environment) { $1 })
    }

    @Test func startLinesSayWhereAndForWhom() throws {
        let dir = try Paths.makeScratch("hub")
        defer { Paths.removeScratch(dir) }
        let tone = try SyntheticWAV.tone(frames: 44_100).write(to: dir.appendingPathComponent("t.wav"))
        let run = try Run.run(
            Paths.binary, ["stream", tone, "--to", "rtp://127.0.0.1:\(Self.port(5))", "--control=\(Self.port(0))"],
            timeout: 30, environment: ["XDG_STATE_HOME": dir.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("yt-gst: control: JSON-RPC on 127.0.0.1:\(Self.port(0))"), "\(run.stderr)")
        #expect(
            run.stderr.contains(
                "yt-gst: control: no --control-token, listening on loopback only (--control-open to allow others)"))
    }

    /// Every message ends with "\r\n", as snapserver's do (PyPI's `snapcast`, Home Assistant's client, reads
    /// nothing until it sees one); a request may end with either.
    @Test func messagesEndAsSnapserversDo() throws {
        let dir = try Paths.makeScratch("hub")
        defer { Paths.removeScratch(dir) }
        let port = Self.port(6)
        let sender = try Self.sender(dir, control: ["--control=127.0.0.1:\(port)"])
        defer { _ = sender.wait(timeout: 0) }
        _ = try JSONRPCTestClient(port: port)  // listening
        let fd = JSONRPCTestClient.connect(host: "127.0.0.1", port: port)
        defer { close(fd) }
        let request = #"{"jsonrpc":"2.0","id":1,"method":"Server.GetRPCVersion"}"# + "\r\n"
        _ = request.withCString { send(fd, $0, strlen($0), 0) }
        var reply: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        let deadline = Date().addingTimeInterval(5)
        while reply.last != 0x0A && Date() < deadline {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) >= 0 else { break }
            if poller.revents != 0 {
                let count = read(fd, &chunk, chunk.count)
                guard count > 0 else { break }
                reply += chunk[0..<count]
            }
        }
        #expect(
            String(decoding: reply, as: UTF8.self)
                == #"{"id":1,"jsonrpc":"2.0","result":{"major":2,"minor":0,"patch":0}}"# + "\r\n")
        sender.signal(SIGTERM)
    }

    /// A control port in use: one line naming ADDR:PORT and the system's words, exit 1, and no audio sent.
    @Test func aPortInUseStopsBeforeSending() throws {
        let dir = try Paths.makeScratch("hub")
        defer { Paths.removeScratch(dir) }
        let port = Self.port(1)
        let taken = try TCPPortHolder(port: port)
        let rtp = try UDPCatcher(port: Self.port(5))
        let tone = try SyntheticWAV.tone(frames: 44_100 * 5).write(to: dir.appendingPathComponent("t.wav"))
        let run = try Run.run(
            Paths.binary, ["stream", tone, "--to", "rtp://127.0.0.1:\(Self.port(5))", "--control=127.0.0.1:\(port)"],
            timeout: 30, environment: ["XDG_STATE_HOME": dir.path])
        #expect(run.status == 1)
        #expect(
            run.saysOneLine(containing: "yt-gst: control: 127.0.0.1:\(port): Address already in use"), "\(run.stderr)")
        #expect(rtp.datagrams(within: 0.5) == 0, "nothing is sent")
        _ = taken
    }

    @Test(arguments: [
        (["--control=abc"], "--control must be PORT or ADDR:PORT"),
        (["--control=0"], "--control's port must be from 1 to 65460"),
        (["--control=host.example:1705"], "--control must be PORT or ADDR:PORT"),
        (["--control=10.1.2.3:1705"], "without --control-token lets anyone there steer the rooms"),
        (["--control", "--control-read-open"], "--control-read-open needs --control-token"),
        (["--control-open"], "--control-open goes with --control"),
        (["--control", "--control-token", "/nonexistent/token"], "--control-token /nonexistent/token: No such file"),
        (["--control", "--control-token", "EMPTY"], "the file's first line is empty"),
    ])
    func badSenderOptionsAreUsageErrors(options: [String], message: String) throws {
        let dir = try Paths.makeScratch("hub")
        defer { Paths.removeScratch(dir) }
        let empty = dir.appendingPathComponent("empty").path
        try "\n  \nsecond\n".write(toFile: empty, atomically: true, encoding: .utf8)
        let run = try Run.ytGst(
            ["stream", "a.wav", "--to", "rtp://127.0.0.1:5004"] + options.map { $0 == "EMPTY" ? empty : $0 })
        #expect(run.status == 64)
        #expect(run.stderr.hasPrefix("Error: ") && run.stderr.contains(message), "\(run.stderr)")
    }

    @Test(arguments: [
        (["--name", ""], "--name must be 1 to 64 characters"),
        (["--control-port", "0"], "--control-port must be a whole number from 1 to 65535"),
        (["--no-control", "--name", "a"], "--name registers with the sender's control service; --no-control"),
        (["--no-sync", "--name", "a"], "--name applies to synchronised RTP receivers"),
        (["--control-token", "/nonexistent/token"], "--control-token /nonexistent/token: No such file"),
    ])
    func badReceiverOptionsAreUsageErrors(options: [String], message: String) throws {
        let run = try Run.ytGst(["receive", "rtp://@:5004"] + options)
        #expect(run.status == 64)
        #expect(run.stderr.hasPrefix("Error: ") && run.stderr.contains(message), "\(run.stderr)")
    }

    /// A 70 KiB line drops its connection (the next client is served); 1000 connections at once leave the others
    /// served and are closed cleanly (no descriptor left behind); a client that never reads is dropped at the
    /// queue's bound while another keeps getting its replies.
    @Test func hostileClientsDoNotStallOthers() throws {
        let dir = try Paths.makeScratch("hub")
        defer { Paths.removeScratch(dir) }
        let port = Self.port(2)
        let sender = try Self.sender(dir, control: ["--control=127.0.0.1:\(port)"])
        defer { _ = sender.wait(timeout: 0) }
        let steady = try JSONRPCTestClient(port: port)
        #expect(steady.result("Server.GetRPCVersion")?["major"] as? Int == 2)
        let baseline = openDescriptors(sender.pid)

        let huge = try JSONRPCTestClient(port: port)
        huge.sendLine(
            #"{"jsonrpc":"2.0","id":1,"method":"Server.GetStatus","params":{"x":""#
                + String(repeating: "a", count: 70 << 10) + "\"}}")
        #expect(huge.closedByServer(within: 5), "a 70 KiB line drops its connection")
        #expect(try JSONRPCTestClient(port: port).result("Server.GetRPCVersion") != nil, "the next client is served")

        let crowd = (0..<1000).map { _ in JSONRPCTestClient.connect(host: "127.0.0.1", port: port) }
        #expect(crowd.filter { $0 >= 0 }.count == 1000)
        #expect(steady.result("Server.GetStatus") != nil, "served while 1000 connections are open")
        crowd.forEach { if $0 >= 0 { close($0) } }
        #expect(waitFor(10) { openDescriptors(sender.pid) <= baseline }, "every connection closed")
        #expect(steady.result("Server.GetRPCVersion") != nil)

        let mute = try JSONRPCTestClient(port: port)
        #expect(mute.result("Server.GetRPCVersion") != nil, "accepted before it stops reading")
        let request = Array((#"{"jsonrpc":"2.0","id":1,"method":"Server.GetStatus"}"# + "\n").utf8)
        var sentBytes = 0
        let started = Date()
        var slowest = 0.0
        repeat {
            for _ in 0..<200 {
                sentBytes += request.withUnsafeBytes {
                    max(0, send(mute.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)))
                }
            }
            let asked = Date()
            #expect(steady.result("Server.GetRPCVersion") != nil)
            slowest = max(slowest, Date().timeIntervalSince(asked))
        } while openDescriptors(sender.pid) > baseline && Date().timeIntervalSince(started) < 30
        #expect(
            openDescriptors(sender.pid) <= baseline, "the client that never reads is dropped (\(sentBytes) bytes sent)")
        #expect(slowest < 2, "the other client waited \(slowest) s at most")
        #expect(sender.isRunning)
        sender.signal(SIGTERM)
    }

    /// With --control-token: changes need Server.Authenticate first; reads too unless --control-read-open; the
    /// token may come from YT_GST_CONTROL_TOKEN.
    @Test func aTokenGuardsTheService() throws {
        let dir = try Paths.makeScratch("hub")
        defer { Paths.removeScratch(dir) }
        let tokenFile = dir.appendingPathComponent("token").path
        try "  s3cret-token \nignored\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let port = Self.port(3)
        let sender = try Self.sender(dir, control: ["--control=127.0.0.1:\(port)", "--control-token", tokenFile])
        defer { _ = sender.wait(timeout: 0) }
        let client = try JSONRPCTestClient(port: port)
        #expect(Self.code(client.call("Server.GetStatus")) == -32001)
        #expect(Self.code(client.call("Server.Authenticate", ["token": "wrong"])) == -32001)
        #expect(client.call("Server.Authenticate", ["token": "s3cret-token"])?["result"] as? String == "ok")
        #expect(client.result("Server.GetStatus") != nil)
        sender.signal(SIGTERM)
        _ = sender.wait(timeout: 10)

        let open = try Self.sender(
            dir, control: ["--control=127.0.0.1:\(port)", "--control-read-open"],
            environment: ["YT_GST_CONTROL_TOKEN": "from-env"])
        defer { _ = open.wait(timeout: 0) }
        let reader = try JSONRPCTestClient(port: port)
        #expect(reader.result("Server.GetStatus") != nil, "reads are open")
        let stream = "rtp://127.0.0.1:\(Self.port(5))"
        #expect(Self.code(reader.call("Stream.Control", ["id": stream, "command": "pause"])) == -32001)
        #expect(reader.call("Server.Authenticate", ["token": "from-env"])?["result"] as? String == "ok")
        #expect(reader.call("Stream.Control", ["id": stream, "command": "pause"])?["result"] as? String == "ok")
        open.signal(SIGTERM)
    }

    /// A room's name, volume and delay, and its group's name, survive the hub's restart (same port, same state
    /// directory); the room is listed as disconnected until it says Hello again, and then keeps them.
    @Test func roomsSurviveAHubRestart() throws {
        let dir = try Paths.makeScratch("hub")
        defer { Paths.removeScratch(dir) }
        let port = Self.port(4)
        var sender = try Self.sender(dir, control: ["--control=127.0.0.1:\(port)"])
        let room = try JSONRPCTestClient(port: port)
        let hello: [String: Any] = [
            "id": "room-1", "name": "Kitchen", "host": ["name": "pi"],
            "config": ["volume": ["percent": 80, "muted": false], "latency": 0],
        ]
        #expect(room.result("yt-gst.Room.Hello", hello) != nil)
        let phone = try JSONRPCTestClient(port: port)
        #expect(phone.result("Client.SetName", ["id": "room-1", "name": "Cuisine"]) != nil)
        #expect(phone.result("Client.SetVolume", ["id": "room-1", "volume": ["percent": 35]]) != nil)
        #expect(phone.result("Client.SetLatency", ["id": "room-1", "latency": 20]) != nil)
        let group = try #require(Self.groups(phone).first?["id"] as? String)
        #expect(phone.result("Group.SetName", ["id": group, "name": "Downstairs"]) != nil)
        sender.signal(SIGTERM)
        #expect(sender.wait(timeout: 10).termination != .signalled(SIGKILL))

        sender = try Self.sender(dir, control: ["--control=127.0.0.1:\(port)"])
        defer { _ = sender.wait(timeout: 0) }
        let after = try JSONRPCTestClient(port: port)
        let groups = Self.groups(after)
        let client = (groups.first?["clients"] as? [[String: Any]])?.first
        #expect(groups.first?["id"] as? String == group && groups.first?["name"] as? String == "Downstairs")
        #expect((client?["config"] as? [String: Any])?["name"] as? String == "Cuisine")
        #expect((client?["config"] as? [String: Any])?["latency"] as? Int == 20)
        #expect(client?["connected"] as? Bool == false)
        let back = try JSONRPCTestClient(port: port)
        let config = back.result("yt-gst.Room.Hello", hello)?["config"] as? [String: Any]
        #expect(
            config?["name"] as? String == "Cuisine" && (config?["volume"] as? [String: Any])?["percent"] as? Int == 35)
        sender.signal(SIGTERM)
    }

    static func groups(_ client: JSONRPCTestClient) -> [[String: Any]] {
        let server = client.result("Server.GetStatus")?["server"] as? [String: Any]
        return server?["groups"] as? [[String: Any]] ?? []
    }

    static func code(_ message: [String: Any]?) -> Int? { (message?["error"] as? [String: Any])?["code"] as? Int }
}

/// The descriptors a process has open now.
func openDescriptors(_ pid: pid_t) -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
}

/// Whether `condition` holds within `seconds` (polled every 50 ms).
func waitFor(_ seconds: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(50_000)
    }
    return condition()
}

/// A TCP port held (listening) for as long as this lives.
final class TCPPortHolder {
    let fd: Int32

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 1) == 0 else { throw HarnessError(description: "cannot hold port \(port)") }
    }

    deinit { close(fd) }
}

/// A UDP port on 127.0.0.1 that counts what arrives.
final class UDPCatcher {
    let fd: Int32

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw HarnessError(description: "cannot bind UDP port \(port)") }
    }

    deinit { close(fd) }

    /// Whether a datagram arrives within `seconds` (it is taken).
    func arrives(within seconds: Double) -> Bool {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        var chunk = [UInt8](repeating: 0, count: 65_536)
        return poll(&poller, 1, Int32(seconds * 1000)) > 0 && recv(fd, &chunk, chunk.count, 0) > 0
    }

    /// Datagrams that arrived (or arrive within `seconds`).
    func datagrams(within seconds: Double) -> Int {
        var count = 0
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let left = Int32(max(0, deadline.timeIntervalSinceNow) * 1000)
            guard poll(&poller, 1, left) > 0 else { return count }
            if recv(fd, &chunk, chunk.count, 0) > 0 { count += 1 }
        }
    }
}
