// yt-gst — the control page in a real browser (headless Chromium driven by scripts/web-page-check.py) in front of
// the real HubService and WebServer, served by this test's main loop.
import Foundation
import TestSupport
import Testing

@testable import Control

@Suite(.serialized) struct ControlPageBrowserTests {
    static let chromium = FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium")

    /// Where the screenshots are kept (printed by the test): .build/artefacts/web-page.
    static func artefacts(_ name: String) throws -> URL {
        let url = Paths.packageRoot.appendingPathComponent(".build/artefacts/\(name)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        print("artefacts: \(url.path)")
        return url
    }

    /// A PNG's width and height (its IHDR chunk).
    static func pngSize(_ url: URL) -> (Int, Int)? {
        guard let data = try? Data(contentsOf: url), data.count > 24 else { return nil }
        let bytes = [UInt8](data)
        func word(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (word(16), word(20))
    }

    /// Runs the browser script on `url` while the loop serves the page; its result.
    static func runBrowser(url: String, artefacts: URL, room: String) throws -> RunResult {
        let script = Paths.packageRoot.appendingPathComponent("scripts/web-page-check.py").path
        let browser = try Run.launch("/usr/bin/python3", [script, url, artefacts.path, room])
        turnLoop(seconds: 150) { !browser.isRunning }
        return browser.wait(timeout: 1)
    }

    @Test(.enabled(if: chromium, "chromium is not installed (scripts/install-deps.sh test installs it)"))
    func thePageShowsAndSteersTheRoomsAndTheStream() throws {
        let hub = try HubFixture(access: .init(token: "s3cret"))
        let room = hub.peer(address: "10.0.0.2", loopback: false)
        hub.call(room, "Server.Authenticate", ["token": "s3cret"])
        hub.call(
            room, "yt-gst.Room.Hello",
            [
                "id": "kitchen", "name": "Kitchen", "version": "0.1.0",
                "host": ["name": "k", "os": "Debian", "arch": "x86_64", "mac": ""],
                "config": ["volume": ["percent": 60, "muted": false], "latency": 0],
            ])
        hub.call(
            room, "yt-gst.Room.Report",
            [
                "state": "playing", "sync": ["offsetUs": 12, "rttUs": 300, "ppm": 1.5, "inSync": true],
                "packets": ["received": 1000, "lost": 0, "late": 0],
            ])
        hub.model.update(.fileChanged(path: "/music/Blue in Green.wav", position: 0))
        let server = try WebServer(address: "127.0.0.1", port: 0, endpoint: hub.service)
        defer { server.close() }
        let artefacts = try Self.artefacts("web-page")

        let result = try Self.runBrowser(
            url: "http://127.0.0.1:\(server.port)/?token=s3cret", artefacts: artefacts, room: "Kitchen")
        #expect(result.status == 0 && !result.timedOut, "\(result.stderr)")
        print(result.stdout)
        let report = try JSONValue(parsing: result.stdout.isEmpty ? "{}" : result.stdout)
        #expect(
            report["phone"]?["viewport"] == .array([390, 844]) && report["desktop"]?["viewport"] == .array([1280, 800]))
        #expect(report["phone"]?["title"] == "Blue in Green.wav")
        #expect(report["phone"]?["rooms"]?.text.contains("in sync +12 µs") == true)
        #expect(
            Self.pngSize(artefacts.appendingPathComponent("page-phone-390x844.png")).map { [$0.0, $0.1] } == [390, 844])
        #expect(
            Self.pngSize(artefacts.appendingPathComponent("page-desktop-1280x800.png")).map { [$0.0, $0.1] } == [
                1280, 800,
            ])
        // What the page did reached the service: pause, the name typed, mute; then the POSTs' volume and name.
        let kitchen = try #require(hub.service.state.clients["kitchen"])
        #expect(hub.model.paused)
        #expect(kitchen.config.latency == 35 && hub.service.state.group(of: "kitchen")?.muted == true)
        #expect(kitchen.config.muted && kitchen.config.volumePercent == 33 && kitchen.config.name == "Den")
    }
}
