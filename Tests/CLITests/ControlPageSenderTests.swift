// yt-gst — the control page of a real `yt-gst stream --control` sender, with a real `yt-gst receive` registered as
// a room, in headless Chromium (scripts/web-page-check.py --live), all on loopback. The test command (make test)
// starts the private PulseAudio the receiver plays into.
import Foundation
import TestSupport
import Testing

@Suite(.serialized) struct ControlPageSenderTests {
    static let chromium = FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium")
    static let pulse = ProcessInfo.processInfo.environment["PULSE_SERVER"]

    /// One JSON-RPC call over HTTP POST (curl, not our client), its reply parsed.
    static func call(_ port: Int, token: String, _ method: String) throws -> [String: Any] {
        let body = #"{"jsonrpc":"2.0","id":1,"method":"\#(method)"}"#
        let reply = try Run.run(
            "/usr/bin/curl",
            ["-s", "-m", "5", "-H", "Authorization: Bearer \(token)", "-d", body, "http://127.0.0.1:\(port)/jsonrpc"],
            timeout: 10)
        return (try? JSONSerialization.jsonObject(with: Data(reply.stdout.utf8))) as? [String: Any] ?? [:]
    }

    /// The first room and the stream's properties of a Server.GetStatus reply.
    static func roomAndStream(_ status: [String: Any]) -> (room: [String: Any]?, stream: [String: Any]?) {
        let server = (status["result"] as? [String: Any])?["server"] as? [String: Any]
        let groups = server?["groups"] as? [[String: Any]] ?? []
        let room = groups.flatMap { $0["clients"] as? [[String: Any]] ?? [] }.first
        let stream = (server?["streams"] as? [[String: Any]])?.first?["properties"] as? [String: Any]
        return (room, stream)
    }

    @Test(
        .enabled(if: chromium, "chromium is not installed (scripts/install-deps.sh test installs it)"),
        .enabled(if: pulse != nil, "needs the private PulseAudio that `make test` starts"))
    func aSendersPageShowsItsRoomAndSteersTheStream() throws {
        let dir = try Paths.makeScratch("web-sender")
        defer { Paths.removeScratch(dir) }
        let tone = SyntheticWAV.tone(frames: 44_100 * 60)
        let files = try ["first.wav", "second.wav"].map { try tone.write(to: dir.appendingPathComponent($0)) }
        let token = "page-token-\(UInt32.random(in: 0...UInt32.max))"
        let tokenFile = dir.appendingPathComponent("token").path
        try Data((token + "\n").utf8).write(to: URL(fileURLWithPath: tokenFile))
        // Below the ephemeral range (32768-60999), where an outgoing connection may hold a port: RTP (UDP) even, with
        // the clock's port + 2 beside it; JSON-RPC (TCP) and the web page at its port + 75.
        let rtp = 2 * Int.random(in: 5_000..<5_900)
        let control = 26_000 + 2 * Int.random(in: 0..<3_000)
        let state = ["XDG_STATE_HOME": dir.appendingPathComponent("state").path]
        let sender = try Run.launch(
            Paths.binary,
            ["stream"] + files + [
                "--to", "rtp://127.0.0.1:\(rtp)", "--control=127.0.0.1:\(control)", "--control-token", tokenFile,
            ], environment: state)
        defer { if sender.isRunning { sender.signal(SIGKILL) }; _ = sender.wait(timeout: 5) }
        let receiver = try Run.launch(
            Paths.binary,
            [
                "receive", "rtp://@:\(rtp)", "--name", "Kitchen", "--control-port", "\(control)", "--control-token",
                tokenFile,
            ],
            environment: state)
        defer { if receiver.isRunning { receiver.signal(SIGKILL) }; _ = receiver.wait(timeout: 5) }

        let web = control + 75
        var registered = false
        for _ in 0..<225 where !registered {  // 45 s: a busy machine (the receiver registers once in sync)
            registered =
                Self.roomAndStream(try Self.call(web, token: token, "Server.GetStatus")).room?["connected"] as? Bool
                == true
            if !registered { usleep(200_000) }
        }
        if !registered {
            receiver.signal(SIGINT)
            sender.signal(SIGINT)
            let (r, t) = (receiver.wait(timeout: 5), sender.wait(timeout: 5))
            Issue.record("the receiver did not register: receive said \(r.stderr); stream said \(t.stderr)")
            return
        }

        let artefacts = Paths.packageRoot.appendingPathComponent(".build/artefacts/web-page-sender")
        try FileManager.default.createDirectory(at: artefacts, withIntermediateDirectories: true)
        print("artefacts: \(artefacts.path)")
        let script = Paths.packageRoot.appendingPathComponent("scripts/web-page-check.py").path
        let browser = try Run.run(
            "/usr/bin/python3",
            [script, "http://127.0.0.1:\(web)/?token=\(token)", artefacts.path, "Kitchen", "--live"],
            timeout: 150)
        print(browser.stdout)
        #expect(browser.status == 0 && !browser.timedOut, "\(browser.stderr)")
        #expect(browser.stdout.contains(#""next": ["first.wav", "second.wav"]"#))

        // What the page and the other client did, as the sender itself now says it.
        let status = try Self.call(web, token: token, "Server.GetStatus")
        let (room, stream) = Self.roomAndStream(status)
        let server = (status["result"] as? [String: Any])?["server"] as? [String: Any]
        let group = (server?["groups"] as? [[String: Any]])?.first
        let config = room?["config"] as? [String: Any]
        let volume = config?["volume"] as? [String: Any]
        #expect(stream?["playbackStatus"] as? String == "paused")
        #expect(config?["latency"] as? Int == 35 && group?["muted"] as? Bool == true)
        #expect(
            config?["name"] as? String == "Den" && volume?["percent"] as? Int == 33 && volume?["muted"] as? Bool == true
        )
        #expect(sender.isRunning && receiver.isRunning)
    }
}
