// yt-gst — `stream` and `receive` without a network: usage errors, bad URLs and one-line runtime errors.
import Foundation
import TestSupport
import Testing

@Suite struct NetworkCommandLineTests {
    @Test(arguments: [
        ["stream"], ["stream", "x.wav"], ["stream", "x.wav", "--to", "http://example.org/"],
        ["stream", "x.wav", "--to", "rtp://10.77.0.2"], ["stream", "x.wav", "--to", "rtp://10.77.0.2:0"],
        ["stream", "x.wav", "--to", "rtp://10.77.0.2:65535"], ["stream", "x.wav", "--to", "rtp://10.77.0.2:port"],
        ["stream", "x.wav", "--to", "rtp://@:5004"],
        ["stream", "x.wav", "--to", "rtp://10.77.0.2:5004", "--codec", "mp3"],
        ["stream", "x.wav", "--to", "rtp://10.77.0.2:5004", "--bitrate", "64"],
        ["stream", "x.wav", "--to", "rtp://10.77.0.2:5004", "--codec", "opus", "--bitrate", "5000"],
        ["stream", "x.wav", "--to", "rtp://10.77.0.2:5004", "--ttl", "4"],
        ["stream", "x.wav", "--to", "srt://10.77.0.2:7001?passphrase=short"],
        ["stream", "x.wav", "--to", "srt://10.77.0.2:7001?pbkeylen=16"],
        ["stream", "x.wav", "--to", "srt://10.77.0.2:7001?passphrase=0123456789&pbkeylen=20"],
        ["stream", "x.wav", "--to", "srt://10.77.0.2:7001?colour=blue"],
        ["stream", "x.wav", "--to", "srt://10.77.0.2:7001", "--sdp", "x.sdp"],
        ["stream", "x.wav", "--to", "rtp://fe80::1:5004"],
        ["receive"], ["receive", "rtp://@:5004", "rtp://@:5006"], ["receive", "rtp://10.77.0.2:5004"],
        ["receive", "rtp://@:5004", "--timeout", "0"], ["receive", "rtp://@:5004", "--timeout", "soon"],
        ["receive", "rtp://@:5004", "--latency-ms", "-1"], ["receive", "rtp://@:5004", "--iface", "eth0"],
        ["receive", "rtp://@:5004", "--sink", "fakesink", "--pipeline", "fakesink"], ["receive", "ftp://x:1"],
        ["receive", "sdp:"],
        // Multi-room: clocks, delays, several destinations.
        ["stream", "x.wav", "--to", "rtp://10.77.0.2:5004", "--clock", "chrony"],
        ["stream", "x.wav", "--to", "rtp://10.77.0.2:5004", "--clock", "ptp:300"],
        ["stream", "x.wav", "--to", "srt://10.77.0.2:7001", "--to", "srt://10.77.0.3:7001"],
        ["stream", "x.wav", "--to", "rtp://10.77.0.2:5004", "--to", "srt://10.77.0.3:7001"],
        ["stream", "x.wav", "--to", "srt://10.77.0.2:7001", "--clock", "ptp"],
        ["receive", "rtp://@:5004", "--delay-ms", "-40"], ["receive", "rtp://@:5004", "--delay-ms", "99999"],
        ["receive", "rtp://@:5004", "--delay-ms", "5", "--no-sync"],
        ["receive", "rtp://@:5004", "--clock", "ntp://"], ["receive", "srt://:7001", "--delay-ms", "5"],
        ["stream", "x.wav", "--to", "icecast://pw@host/m.mp3", "--codec", "l16"],
        ["stream", "x.wav", "--to", "hls:out", "--codec", "mp3"], ["stream", "x.wav", "--to", "icecast://host/m"],
        ["stream", "x.wav", "--to", "icecast://pw@host/m.mp3", "--to", "rtp://10.77.0.2:5004"],
        ["stream", "x.wav", "--to", "rtp://10.77.0.2:5004", "--loop"],
        ["stream", "x.wav", "--to", "icecast://pw@host/m.mp3", "--segment", "2"],
        ["stream", "x.wav", "--to", "hls:out", "--segment", "0"], ["receive", "http://", "--sink", "fakesink"],
        ["receive", "http://host/m", "--latency-ms", "50"],
    ])
    func usageErrorsExit64(arguments: [String]) throws {
        let r = try Run.ytGst(arguments)
        #expect(r.status == 64, "\(arguments): \(r.stderr)")
        #expect(r.stderr.hasPrefix("Error: "), "\(arguments): \(r.stderr)")
        #expect(r.stdout.isEmpty)
    }

    @Test func helpForBothCommands() throws {
        for command in ["stream", "receive"] {
            let r = try Run.ytGst([command, "--help"])
            #expect(r.status == 0 && r.stdout.hasPrefix("USAGE: yt-gst \(command)"))
        }
        #expect(try Run.ytGst(["--help"]).stdout.contains("receive"))
    }

    @Test func missingFileIsOneLine() throws {
        let r = try Run.ytGst(["stream", "/nonexistent/x.wav", "--to", "rtp://127.0.0.1:5004"])
        #expect(r.status == 1)
        #expect(r.saysOneLine(containing: "/nonexistent/x.wav"), "\(r.stderr)")
    }

    @Test func badSDPFilesAreOneLine() throws {
        let dir = try Paths.makeScratch("sdp")
        defer { Paths.removeScratch(dir) }
        let cases = [
            ("notsdp.sdp", "hello\n", "not \"x=value\""),
            ("novideo.sdp", "v=0\r\nc=IN IP4 10.77.0.2\r\nm=video 5004 RTP/AVP 96\r\n", "no audio stream"),
            ("nortpmap.sdp", "v=0\r\nc=IN IP4 10.77.0.2\r\nm=audio 5004 RTP/AVP 99\r\n", "no a=rtpmap"),
        ]
        for (name, text, problem) in cases {
            let path = dir.appendingPathComponent(name).path
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            let r = try Run.ytGst(["receive", path, "--sink", "fakesink"])
            #expect(r.status == 1, "\(name): \(r.stderr)")
            #expect(r.saysOneLine(containing: problem), "\(name): \(r.stderr)")
        }
        let missing = try Run.ytGst([
            "receive", "sdp:" + dir.appendingPathComponent("none.sdp").path, "--sink", "fakesink",
        ])
        #expect(missing.status == 1 && missing.stderr.contains("No such file"), "\(missing.stderr)")
    }

    @Test func unresolvableHostIsOneLine() throws {
        let dir = try Paths.makeScratch("host")
        defer { Paths.removeScratch(dir) }
        let file = try SyntheticWAV.tone(frames: 4_410).write(to: dir.appendingPathComponent("t.wav"))
        let r = try Run.ytGst(["stream", file, "--to", "rtp://no-such-host.invalid:5004"], timeout: 30)
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.saysOneLine(containing: "no-such-host.invalid"), "\(r.stderr)")
    }
}
