// yt-gst — `receive` as a room: quiet when no hub answers, back by itself when the hub comes back, and its identity
// kept per --name. Real binaries on loopback, output into a fakesink (the lab with sound: RoomControlTests).
import Foundation
import TestSupport
import Testing

@testable import Control

@Suite(.serialized) struct RoomClientTests {
    /// Ports 8-15 of HubServerTests' (an RTP port takes the next two too).
    static func port(_ offset: Int) -> Int { HubServerTests.port(8 + offset) }

    /// A sender of a long tone to 127.0.0.1:`rtp`, with `options`.
    static func sender(_ dir: URL, rtp: Int, _ options: [String]) throws -> Launched {
        let file = dir.appendingPathComponent("tone.wav")
        if !FileManager.default.fileExists(atPath: file.path) {
            _ = try SyntheticWAV.tone(frames: 44_100 * 120).write(to: file)
        }
        return try Run.launch(
            Paths.binary, ["stream", file.path, "--to", "rtp://127.0.0.1:\(rtp)", "--quiet"] + options,
            environment: ["XDG_STATE_HOME": dir.path + "/hub"])
    }

    static func receiver(_ dir: URL, rtp: Int, _ options: [String]) throws -> Launched {
        try Run.launch(
            Paths.binary, ["receive", "rtp://@:\(rtp)", "--sink", "fakesink sync=true", "--quiet"] + options,
            environment: ["XDG_STATE_HOME": dir.path + "/room"])
    }

    /// No hub at the sender: nothing said, and with -v one line however often it tries.
    @Test func quietWhenNoHubAnswers() throws {
        let dir = try Paths.makeScratch("room")
        defer { Paths.removeScratch(dir) }
        let rtp = Self.port(0)
        let plain = try Self.receiver(dir, rtp: rtp, ["--control-port", "\(Self.port(3))", "--timeout", "20"])
        let verbose = try Self.receiver(dir, rtp: rtp + 4, ["--control-port", "\(Self.port(3))", "-v"])
        let sender = try Self.sender(dir, rtp: rtp, ["--to", "rtp://127.0.0.1:\(rtp + 4)"])
        usleep(5_500_000)  // two retries at least
        sender.signal(SIGTERM)
        _ = sender.wait(timeout: 10)
        let (quiet, loud) = (plain.wait(timeout: 20), verbose.wait(timeout: 20))
        #expect(!quiet.stderr.contains("control"), "\(quiet.stderr)")
        let lines = loud.stderr.split(separator: "\n").filter { $0.contains("control:") }
        #expect(lines.count == 1, "\(loud.stderr)")
        #expect(lines.first?.contains("no hub at 127.0.0.1:\(Self.port(3)) (Connection refused)") == true)
    }

    /// The hub stops (killed) and comes back on the same port: the room registers again by itself, under its id.
    @Test func theRoomComesBackToARestartedHub() throws {
        let dir = try Paths.makeScratch("room")
        defer { Paths.removeScratch(dir) }
        let (rtp, control) = (Self.port(0), Self.port(3))
        let receiver = try Self.receiver(dir, rtp: rtp, ["--control-port", "\(control)", "--name", "Den"])
        defer { _ = receiver.wait(timeout: 0) }
        var sender = try Self.sender(dir, rtp: rtp, ["--control=127.0.0.1:\(control)"])
        let phone = try JSONRPCTestClient(port: control)
        let first = try #require(Self.connected(phone, within: 15), "the room did not register")
        #expect((first["config"] as? [String: Any])?["name"] as? String == "Den")
        phone.collect(for: 3.2)
        let reports = phone.notifications.filter { $0["method"] as? String == "yt-gst.Client.OnReport" }
        #expect((1...4).contains(reports.count), "at most one report a second: \(reports.count)")
        let report = (reports.last?["params"] as? [String: Any])?["yt-gst"] as? [String: Any]
        #expect(report?["state"] as? String == "receiving", "\(reports)")
        #expect(((report?["packets"] as? [String: Any])?["received"] as? Int ?? 0) > 0)
        sender.signal(SIGKILL)
        _ = sender.wait(timeout: 10)
        sender = try Self.sender(dir, rtp: rtp, ["--control=127.0.0.1:\(control)"])
        defer { _ = sender.wait(timeout: 0) }
        let again = try JSONRPCTestClient(port: control)
        let back = try #require(Self.connected(again, within: 15), "the room did not come back")
        #expect(back["id"] as? String == first["id"] as? String)
        #expect(receiver.isRunning)
        sender.signal(SIGTERM)
    }

    /// The first room listed as connected within `seconds`.
    static func connected(_ phone: JSONRPCTestClient, within seconds: Double) -> [String: Any]? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let server = phone.result("Server.GetStatus")?["server"] as? [String: Any]
            let clients = (server?["groups"] as? [[String: Any]] ?? []).flatMap {
                $0["clients"] as? [[String: Any]] ?? []
            }
            if let room = clients.first(where: { $0["connected"] as? Bool == true }) { return room }
            usleep(200_000)
        }
        return nil
    }

    /// An identity is kept per name (a file name made safe), read back as written, and a file that is not one is
    /// left alone (the room starts afresh without writing over it).
    @Test func identitiesAreKeptPerName() throws {
        #expect(RoomIdentity.fileName(nil) == "default.json")
        #expect(RoomIdentity.fileName("Living room/2") == "Living_room_2.json")
        #expect(RoomIdentity.fileName("..") == "_..json")
        #expect(RoomIdentity.fileName("Küche") == "K_che.json")
        let dir = try Paths.makeScratch("room")
        defer { Paths.removeScratch(dir) }
        setenv("XDG_STATE_HOME", dir.path, 1)
        defer { unsetenv("XDG_STATE_HOME") }
        var (identity, problem) = RoomIdentity.load(name: "Den")
        #expect(problem == nil && identity.config.name == "Den")
        identity.config = RoomConfig(name: "Study", volumePercent: 20, muted: true, latency: -15)
        try identity.save()
        #expect(RoomIdentity.load(name: "Den").0 == identity)
        #expect(RoomIdentity.load(name: "Other").0.id != identity.id)
        let path = dir.path + "/yt-gst/rooms/Den.json"
        try "garbage".write(toFile: path, atomically: true, encoding: .utf8)
        let (fresh, trouble) = RoomIdentity.load(name: "Den")
        #expect(trouble != nil && fresh.file == nil && fresh.id != identity.id)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "garbage")
    }
}
