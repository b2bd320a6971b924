// yt-gst — `record`, `stream` and `receive` on the IPC socket (and `receive` on MPRIS), each the real binary.
import Foundation
import TestSupport
import Testing

@Suite(.serialized) struct SessionIPCTests {
    /// record: path, split-index, time-pos that grows (and stops while paused), peak per channel, a marker, stop.
    @Test func recordOnTheSocket() throws {
        let bus = try PrivateSessionBus()
        defer { bus.close() }
        let out = bus.dir.path + "/rec.wav"
        let socket = bus.dir.path + "/rec.sock"
        let recorder = try Run.launch(
            Paths.binary,
            ["record", out, "--source", "tone", "--channels", "2", "--input-ipc-server", socket, "--quiet"])
        defer { _ = recorder.wait(timeout: 0) }
        let client = try IPCTestClient(path: socket)
        #expect(client.request(["observe_property", 1, "time-pos"])?["error"] as? String == "success")
        client.collectEvents(for: 1.5)
        #expect(client.get("path") as? String == out)
        #expect(client.get("split-index") as? Int == 1)
        let peaks = client.get("peak") as? [Double] ?? []
        #expect(peaks.count == 2 && peaks.allSatisfy { $0 < 0 && $0 > -20 }, "\(peaks)")
        let times = client.events.compactMap { $0["data"] as? Double }
        #expect(times.count >= 3 && times.last! > times.first!, "\(client.events)")
        #expect(client.request(["set_property", "pause", true])?["error"] as? String == "success")
        usleep(500_000)
        let pausedAt = client.get("time-pos") as? Double ?? -1
        usleep(700_000)
        #expect(client.get("time-pos") as? Double == pausedAt, "no audio is written while paused")
        #expect(client.get("pause") as? Bool == true)
        #expect(client.request(["cycle", "pause"])?["error"] as? String == "success")
        #expect(client.request(["marker"])?["error"] as? String == "success")
        #expect(client.waitForEvent("marker")?["number"] as? Int == 1)
        #expect(client.request(["stop"])?["error"] as? String == "success")
        #expect(recorder.wait(timeout: 20).termination == .exited(0))
        #expect(FileManager.default.fileExists(atPath: out))
    }

    /// stream: media-title (the title tag), next/previous, time-pos, pause, duration, seek, loop-file, volume; quit
    /// ends it as its end does.
    @Test func streamOnTheSocket() throws {
        let bus = try PrivateSessionBus()
        defer { bus.close() }
        let first = try MPRISFiles.tagged(bus.dir.path + "/a.wav", seconds: 30, title: "One", artist: "B", album: "C")
        let second = try MPRISFiles.tagged(bus.dir.path + "/b.wav", seconds: 30, title: "Two", artist: "B", album: "C")
        let socket = bus.dir.path + "/stream.sock"
        let sender = try Run.launch(
            Paths.binary,
            [
                "stream", first, second, "--to", "rtp://127.0.0.1:\(Self.port(0))", "--input-ipc-server", socket,
                "--quiet",
            ])
        defer { _ = sender.wait(timeout: 0) }
        let client = try IPCTestClient(path: socket)
        #expect(Self.wait { client.get("media-title") as? String == "One" })
        #expect(Self.wait { (client.get("time-pos") as? Double ?? 0) > 0.3 })
        #expect(client.request(["playlist-next"])?["error"] as? String == "success")
        #expect(Self.wait { client.get("media-title") as? String == "Two" })
        #expect(client.get("playlist-pos") as? Int == 1)
        #expect(client.request(["set_property", "pause", true])?["error"] as? String == "success")
        #expect(Self.wait { client.get("pause") as? Bool == true })
        #expect(client.request(["playlist-prev"])?["error"] as? String == "success")
        #expect(Self.wait { client.get("media-title") as? String == "One" })
        #expect(client.get("duration") as? Double == 30)
        #expect(client.request(["seek", 20, "absolute"])?["error"] as? String == "success")
        #expect(Self.wait { (client.get("time-pos") as? Double ?? 0) >= 20 })
        #expect(client.request(["set_property", "loop-file", "inf"])?["error"] as? String == "success")
        #expect(client.get("loop-file") as? String == "inf")
        #expect(client.request(["set_property", "volume", 50])?["error"] as? String == "success")
        #expect(client.get("volume") as? Int == 50)
        #expect(client.request(["quit"])?["error"] as? String == "success")
        #expect(sender.wait(timeout: 20).termination == .exited(0))
    }

    /// receive: volume, mute, delay (live), sync state and media-title on the socket; volume and mute (as Pause)
    /// from the desktop through MPRIS, seen on the socket too.
    @Test func receiveOnTheSocketAndMPRIS() throws {
        let bus = try PrivateSessionBus()
        defer { bus.close() }
        let file = try MPRISFiles.tagged(bus.dir.path + "/a.wav", seconds: 30, title: "One", artist: "B", album: "C")
        let socket = bus.dir.path + "/receive.sock"
        let port = Self.port(10)
        let receiver = try Run.launch(
            Paths.binary,
            [
                "receive", "rtp://@:\(port)", "--sink", "fakesink sync=true", "--input-ipc-server", socket,
                "--quiet",
            ], environment: bus.environment)
        defer { _ = receiver.wait(timeout: 0) }
        let sender = try Run.launch(Paths.binary, ["stream", file, "--to", "rtp://127.0.0.1:\(port)", "--quiet"])
        defer { _ = sender.wait(timeout: 0) }
        let client = try IPCTestClient(path: socket)
        let title = client.get("media-title") as? String ?? ""
        #expect(title.hasPrefix("rtp://") && title.hasSuffix(":\(port)"), "\(title)")
        #expect(
            Self.wait { (client.get("sync") as? [String: Any])?["offset"] is Double },
            "\(String(describing: client.get("sync")))")
        #expect(client.request(["set_property", "volume", 50])?["error"] as? String == "success")
        #expect(client.get("volume") as? Double == 50)
        #expect(client.request(["set_property", "delay", 20])?["error"] as? String == "success")
        #expect(client.get("delay") as? Double == 20)
        #expect(client.request(["set_property", "speed", 2])?["error"] as? String == "property not found")
        try #require(bus.waitFor(player: "yt_gst"))
        #expect(bus.playerctl("yt_gst", "volume") == "0.500000")
        #expect(bus.playerctl("yt_gst", "volume", "0.8") != nil)
        #expect(Self.wait { client.get("volume") as? Double == 80 })
        #expect(bus.playerctl("yt_gst", "metadata", "xesam:title") == title)
        #expect(bus.playerctl("yt_gst", "pause") != nil)
        #expect(Self.wait { client.get("mute") as? Bool == true })
        #expect(bus.playerctl("yt_gst", "status") == "Paused")
        #expect(client.request(["cycle", "mute"])?["error"] as? String == "success")
        #expect(bus.playerctl("yt_gst", "status") == "Playing")
        #expect(bus.playerctl("yt_gst", "stop") != nil)
        #expect(receiver.wait(timeout: 20).termination == .exited(0))
        sender.signal(SIGINT)
    }

    /// A UDP port for this run's streams (away from other tests' fixed ones).
    static func port(_ offset: Int) -> Int { 24_000 + Int(getpid() % 2_000) * 4 + offset }

    /// Whether `condition` holds within 10 s.
    static func wait(_ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if condition() { return true }
            usleep(50_000)
        }
        return false
    }
}
