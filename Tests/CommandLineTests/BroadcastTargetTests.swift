// yt-gst — the broadcast destinations of `stream --to`, as users type them.
import Testing

@testable import Streaming
@testable import yt_gst

@Suite struct BroadcastTargetTests {
    @Test(arguments: [
        ("icecast://hackme@radio.example.org/live.mp3", "source", "hackme", "radio.example.org", 8000, "/live.mp3"),
        ("icecast://dj:p%40ss@10.0.0.2:8010/a/b.ogg", "dj", "p@ss", "10.0.0.2", 8010, "/a/b.ogg"),
        ("ICECAST://pw@[fd77::2]:9000/m", "source", "pw", "fd77::2", 9000, "/m"),
    ])
    func icecastURLs(text: String, user: String, password: String, host: String, port: Int, mount: String) throws {
        guard case .icecast(let endpoint) = try BroadcastTarget(parsing: text) else {
            Issue.record("\(text) is not an Icecast destination")
            return
        }
        #expect(endpoint.user == user && endpoint.password == password)
        #expect(endpoint.host == host && endpoint.port == port && endpoint.mount == mount)
        // Messages never show the password.
        #expect(!endpoint.description.contains(password))
    }

    @Test func hlsDestinations() throws {
        #expect(
            try BroadcastTarget(parsing: "hls:/var/www/live/")
                == .hls(directory: "/var/www/live", playlist: "playlist.m3u8"))
        #expect(
            try BroadcastTarget(parsing: "file:///srv/radio.m3u8") == .hls(directory: "/srv", playlist: "radio.m3u8"))
        #expect(BroadcastTarget.isBroadcast("hls:out") && !BroadcastTarget.isBroadcast("rtp://10.0.0.1:5004"))
    }

    @Test(arguments: [
        "icecast://radio.example.org/live.mp3", "icecast://pw@radio.example.org", "icecast://pw@radio.example.org/",
        "icecast://pw@:8000/m", "icecast://pw@host:0/m", "icecast://pw@host/m?x=1", "hls:", "file://relative/a.m3u8",
    ])
    func badDestinationsAreUsageErrors(text: String) {
        #expect(throws: UsageError.self) { try BroadcastTarget(parsing: text) }
    }
}
