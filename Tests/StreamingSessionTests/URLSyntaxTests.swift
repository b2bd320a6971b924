// yt-gst — the syntax of stream URLs, broadcast destinations and clocks, parsed by the library with no command line.
import Streaming
import Testing

@Suite struct URLSyntaxTests {
    /// A program on the library gets the same values the command line does.
    @Test func urlsParseToEndpoints() throws {
        #expect(try StreamURL("rtp://@:5004") == .rtp(RTPEndpoint(host: nil, port: 5004, listen: true)))
        guard case .srt(let endpoint) = try StreamURL("srt://:7001?passphrase=correct-horse&latency=200") else {
            Issue.record("not an SRT URL")
            return
        }
        #expect(endpoint.port == 7001 && endpoint.passphrase == "correct-horse" && endpoint.latency == 200)
        #expect(try StreamURL("song.sdp") == .sdp(path: "song.sdp"))
        #expect(
            try BroadcastTarget("icecast://dj:p%40ss@[fd77::2]:9000/m")
                == .icecast(IcecastEndpoint(user: "dj", password: "p@ss", host: "fd77::2", port: 9000, mount: "/m")))
        #expect(try ReferenceClock("ptp:3") == .ptp(domain: 3))
    }

    /// A mistyped one throws a typed error whose words name the URL and the problem (the command line prints them
    /// as they are).
    @Test(arguments: [
        ("rtp://host:0", "rtp://host:0: port must be a number from 1 to 65534, not \"0\""),
        ("srt://:7001?pbkeylen=16", "srt://:7001?pbkeylen=16: pbkeylen needs a passphrase"),
        ("ftp://x:1", "ftp://x:1: unknown scheme \"ftp\" (use rtp://, srt:// or an .sdp file)"),
    ])
    func mistypedURLsSayWhy(text: String, words: String) {
        #expect { _ = try StreamURL(text) } throws: { ($0 as? URLSyntaxError)?.description == words }
    }

    @Test func mistypedDestinationsAndClocksSayWhy() {
        #expect { _ = try BroadcastTarget("hls:") } throws: {
            ($0 as? URLSyntaxError)?.description == "hls:: hls: needs a directory, e.g. hls:/var/www/radio"
        }
        #expect { _ = try ReferenceClock("chrony") } throws: {
            ($0 as? URLSyntaxError)?.description
                == "--clock must be sender, ntp://HOST[:PORT] or ptp[:DOMAIN], not \"chrony\""
        }
    }
}
