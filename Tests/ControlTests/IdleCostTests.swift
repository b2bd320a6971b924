// yt-gst — what the control surfaces cost a player that does nothing, and that they still hear of every file.
import Foundation
import TestSupport
import Testing

@Suite(.serialized) struct IdleCostTests {
    /// Paused, with an IPC client observing time-pos and MPRIS on, the loop thread does not wake at all (while
    /// playing, the observation gets its 4 updates a second).
    @Test func aPausedPlayerWithAnObserverAndMPRISDoesNotWakeUp() throws {
        let bus = try PrivateSessionBus()
        defer { bus.close() }
        let file = try MPRISFiles.tagged(bus.dir.path + "/a.wav", seconds: 30, title: "A", artist: "B", album: "C")
        let socket = bus.dir.path + "/yt.sock"
        let player = try bus.play([file], ["--input-ipc-server", socket])
        defer { _ = player.wait(timeout: 0) }
        try #require(bus.waitFor(player: "yt_gst"))
        let client = try IPCTestClient(path: socket)
        #expect(client.request(["observe_property", 1, "time-pos"])?["error"] as? String == "success")
        client.collectEvents(for: 1.5)
        let updates = client.events.filter { $0["name"] as? String == "time-pos" }.count
        #expect(updates >= 3, "time-pos is told while playing: \(client.events)")
        #expect(client.request(["set_property", "pause", true])?["error"] as? String == "success")
        #expect(bus.playerctl("yt_gst", "status") == "Paused")
        client.collectEvents(for: 0.5)
        let before = MPRISTests.voluntarySwitches(of: player.pid)
        sleep(2)
        let after = MPRISTests.voluntarySwitches(of: player.pid)
        #expect(before != nil && after == before, "\(String(describing: before)) → \(String(describing: after))")
        #expect(client.request(["quit"])?["error"] as? String == "success")
        #expect(player.wait(timeout: 20).termination == .exited(0))
    }

    /// A sender with --control, 3 registered rooms and 2 pages open on its WebSocket (each has read the status once,
    /// as the page does) does not wake its main thread, which runs the control service, while nothing changes: the
    /// service has no timer, and --control adds no status tick to the stream (it once did: 1 a second). The window
    /// starts after the sender's first RTCP report, whose latency message wakes the loop once at start.
    @Test func aSenderWithRoomsAndPagesDoesNotWakeUpWhileNothingChanges() throws {
        let dir = try Paths.makeScratch("idle-hub")
        defer { Paths.removeScratch(dir) }
        let tone = try SyntheticWAV.tone(frames: 44_100 * 60).write(to: dir.appendingPathComponent("tone.wav"))
        // Below the ephemeral range (32768-60999), where an outgoing connection may hold a port.
        let (rtp, control) = (2 * Int.random(in: 5_000..<5_900), 26_000 + 2 * Int.random(in: 0..<3_000))
        let rtcp = try UDPCatcher(port: rtp + 1)
        let sender = try Run.launch(
            Paths.binary, ["stream", tone, "--to", "rtp://127.0.0.1:\(rtp)", "--control=127.0.0.1:\(control)", "-q"],
            environment: ["XDG_STATE_HOME": dir.path])
        defer { if sender.isRunning { sender.signal(SIGKILL) }; _ = sender.wait(timeout: 5) }
        let rooms = try (1...3).map { index in
            let room = try JSONRPCTestClient(port: control)
            let hello = room.call(
                "yt-gst.Room.Hello",
                [
                    "id": "idle-room-\(index)", "name": "Room \(index)", "version": "test",
                    "host": ["name": "r\(index)", "os": "Linux", "arch": "x86_64", "mac": ""],
                    "config": ["volume": ["percent": 100, "muted": false], "latency": 0],
                ])
            #expect(hello?["result"] != nil, "Hello → \(String(describing: hello))")
            return room
        }
        let pages = try (1...2).map { _ in try WebTestClient(port: control + 75) }
        for page in pages {
            #expect(page.upgrade()?.status == 101)
            page.sendText(#"{"jsonrpc":"2.0","id":1,"method":"Server.GetStatus"}"#)
            #expect(page.reply(to: 1)?["result"] != nil)
        }
        // Past the start: the first RTCP report (sent 1-3 s in) makes the pipeline tell its latency, once.
        #expect(rtcp.arrives(within: 15), "no RTCP report from the sender")
        usleep(500_000)
        let before = MPRISTests.voluntarySwitches(of: sender.pid)
        sleep(3)
        let after = MPRISTests.voluntarySwitches(of: sender.pid)
        #expect(
            before != nil && after == before,
            "main thread: \(String(describing: before)) → \(String(describing: after))")
        #expect(sender.isRunning && rooms.count == 3)
    }

    /// With no status line and nobody observing a position, the next file is still told at once when a 1 s file
    /// ends: media-title to an IPC observer, Metadata in a PropertiesChanged on the bus.
    @Test func theTitleChangesWhenAShortFileEnds() throws {
        let bus = try PrivateSessionBus()
        defer { bus.close() }
        let short = try MPRISFiles.tagged(bus.dir.path + "/s.wav", seconds: 1, title: "Short", artist: "B", album: "C")
        let long = try MPRISFiles.tagged(bus.dir.path + "/l.wav", seconds: 30, title: "Long", artist: "B", album: "C")
        let socket = bus.dir.path + "/yt.sock"
        let (monitor, signals) = try bus.monitor(seconds: 10)
        usleep(500_000)  // dbus-monitor has subscribed
        let player = try bus.play([short, long], ["--input-ipc-server", socket])
        defer { _ = player.wait(timeout: 0) }
        let client = try IPCTestClient(path: socket)
        #expect(client.request(["observe_property", 1, "media-title"])?["error"] as? String == "success")
        var seen: [String: Date] = [:]
        let deadline = Date().addingTimeInterval(8)
        while seen["Long"] == nil, Date() < deadline,
            let change = client.waitForEvent("property-change", timeout: deadline.timeIntervalSinceNow)
        {
            if let title = change["data"] as? String, seen[title] == nil { seen[title] = Date() }
        }
        let started = try #require(seen["Short"], "\(seen)")
        let next = try #require(seen["Long"], "the title never changed: \(seen)")
        // The short file plays for 1 s; loose under load, but far from "at the next tick of something else".
        let gap = next.timeIntervalSince(started)
        #expect(gap > 0.6 && gap < 2, "media-title changed \(gap) s after the 1 s file started")
        #expect(client.request(["quit"])?["error"] as? String == "success")
        #expect(player.wait(timeout: 20).termination == .exited(0))
        _ = monitor.wait(timeout: 15)
        let text = (try? String(contentsOfFile: signals, encoding: .utf8)) ?? ""
        let metadata = MonitorSignal.all(in: text).first {
            $0.member == "PropertiesChanged" && $0.body.contains("string \"Long\"")
        }
        let signalled = metadata.map { $0.time - started.timeIntervalSince1970 }
        #expect(signalled.map { $0 > 0.6 && $0 < 2 } == true, "Metadata after \(String(describing: signalled)) s")
    }
}
