// yt-gst — rooms steered through the sender's control service, end to end: `stream --control` in one network
// namespace, `receive --name` in another playing into the private PulseAudio of scripts/with-pulseaudio.sh; the
// test calls Snapcast's API as a phone would and measures the room's level in a recording.
import Foundation
import TestSupport
import Testing

@Suite(
    .serialized, .enabled(if: NetworkLab.available, "needs root and iproute2 (network namespaces)"),
    .enabled(
        if: ProcessInfo.processInfo.environment["PULSE_SERVER"] != nil, "needs scripts/with-pulseaudio.sh's server"))
struct RoomControlTests {
    init() { NetworkLab.removeStale() }

    /// A receiver registers by itself (with the token); Client.SetVolume 50 % brings its recorded level down by
    /// the cubic curve's 18 dB; a rename, a volume and a delay made at the hub survive the receiver's restart
    /// (same --name and state directory), where it comes back under the same id.
    @Test func aRoomRegistersAndIsSteered() throws {
        let dir = try Paths.makeScratch("rooms")
        defer { Paths.removeScratch(dir) }
        let lab = try NetworkLab(hosts: ["sender", "room"])
        defer { lab.close() }
        let (senderHost, roomHost) = (lab.host("sender"), lab.host("room"))
        let token = dir.appendingPathComponent("token").path
        try "kitchen-party-2026\n".write(toFile: token, atomically: true, encoding: .utf8)
        let tone = try SyntheticWAV.tone(frequency: 440, frames: 48_000 * 90, rate: 48_000)
            .write(to: dir.appendingPathComponent("tone.wav"))
        let roomState = ["XDG_STATE_HOME": dir.path + "/room-state"]
        let receive = ["receive", "rtp://@:5004", "--name", "Kitchen", "--control-token", token, "--quiet"]
        var receiver = try lab.launch(in: roomHost, Paths.binary, receive, environment: roomState)
        #expect(try lab.waitUntilListening(in: roomHost, udpPorts: [5004]))
        let sender = try lab.launch(
            in: senderHost, Paths.binary,
            [
                "stream", tone, "--to", "rtp://\(roomHost.address):5004", "--control", "--control-token", token,
                "--quiet",
            ],
            environment: ["XDG_STATE_HOME": dir.path + "/hub-state"])
        let phone = try lab.withNamespace(of: senderHost) { try JSONRPCTestClient(host: "127.0.0.1", port: 1705) }
        #expect(phone.call("Server.Authenticate", ["token": "kitchen-party-2026"])?["result"] as? String == "ok")
        let room = try #require(Self.connectedRoom(phone, within: 20), "the receiver did not register")
        let id = try #require(room["id"] as? String)
        #expect((room["host"] as? [String: Any])?["ip"] as? String == roomHost.address)
        #expect((room["config"] as? [String: Any])?["name"] as? String == "Kitchen")

        let drop = try Self.levelChange(dropping: id, through: phone)
        #expect(drop > -21 && drop < -15, "50 % is (0.5)³ of the gain, -18 dB: measured \(drop) dB")

        #expect(phone.result("Client.SetName", ["id": id, "name": "Cuisine"]) != nil)
        #expect(phone.result("Client.SetLatency", ["id": id, "latency": 30]) != nil)
        let kept = dir.path + "/room-state/yt-gst/rooms/Kitchen.json"
        #expect(waitUntil(5) { ((try? String(contentsOfFile: kept, encoding: .utf8)) ?? "").contains("Cuisine") })
        receiver.signal(SIGTERM)
        _ = receiver.wait(timeout: 10)
        #expect(
            waitUntil(5) {
                phone.collect(for: 0.1)
                return phone.notifications.contains { $0["method"] as? String == "Client.OnDisconnect" }
            })
        receiver = try lab.launch(in: roomHost, Paths.binary, receive, environment: roomState)
        defer { _ = receiver.wait(timeout: 0) }
        let back = try #require(Self.connectedRoom(phone, within: 20), "the receiver did not come back")
        #expect(back["id"] as? String == id)
        let config = back["config"] as? [String: Any]
        #expect(config?["name"] as? String == "Cuisine" && config?["latency"] as? Int == 30)
        #expect((config?["volume"] as? [String: Any])?["percent"] as? Int == 50)
        #expect(Self.groups(phone).count == 1, "no second room for the same receiver")
        #expect(sender.isRunning && receiver.isRunning)
    }

    /// The first room listed as connected within `seconds`.
    static func connectedRoom(_ phone: JSONRPCTestClient, within seconds: Double) -> [String: Any]? {
        var found: [String: Any]?
        _ = waitUntil(seconds) {
            found = groups(phone).flatMap { $0["clients"] as? [[String: Any]] ?? [] }
                .first { $0["connected"] as? Bool == true }
            if found == nil { usleep(200_000) }
            return found != nil
        }
        return found
    }

    static func groups(_ phone: JSONRPCTestClient) -> [[String: Any]] {
        ((phone.result("Server.GetStatus")?["server"] as? [String: Any])?["groups"] as? [[String: Any]]) ?? []
    }

    /// The room's recorded level after Client.SetVolume 50 % against before it, in dB.
    static func levelChange(dropping id: String, through phone: JSONRPCTestClient) throws -> Double {
        let recording = FileManager.default.temporaryDirectory.appendingPathComponent("rooms-\(getpid()).wav").path
        defer { unlink(recording) }
        let sink = ProcessInfo.processInfo.environment["YT_GST_PULSE_SINK"] ?? "spk"
        let recorder = try Run.launch(
            "/usr/bin/parec",
            ["-d", "\(sink).monitor", "--rate=48000", "--channels=2", "--format=s16le", "--file-format=wav", recording])
        defer { if recorder.isRunning { recorder.signal(SIGKILL) } }
        let started = Date()
        usleep(2_500_000)
        let changedAt = Date().timeIntervalSince(started)
        #expect(phone.result("Client.SetVolume", ["id": id, "volume": ["percent": 50]]) != nil)
        usleep(2_500_000)
        recorder.signal(SIGINT)  // parec writes its WAV header on SIGINT
        _ = recorder.wait(timeout: 5)
        let wav = try RecordedWAV(path: recording)
        let before = wav.rms(from: changedAt - 1.5, to: changedAt - 0.2)
        let after = wav.rms(from: changedAt + 0.8, to: changedAt + 2.2)
        #expect(before > 1_000, "the room plays before the change (rms \(before))")
        return 20 * log10(max(after, 1e-9) / before)
    }
}
