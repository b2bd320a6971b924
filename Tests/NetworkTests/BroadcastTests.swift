// yt-gst — broadcasts through real servers: an Icecast master and a relay of it in their own hosts, hundreds of
// listeners, HLS served by a plain web server, and the faults a broadcast must survive. Each test makes its own
// lab (network namespaces) and removes it, with its servers and processes, however it ends.
import Foundation
import TestSupport
import Testing

@Suite(
    .serialized, .enabled(if: NetworkLab.available, "needs root and iproute2 (network namespaces)"),
    .enabled(if: IcecastServer.available, "needs icecast2 (scripts/install-deps.sh test)"))
struct BroadcastTests {
    let dir: URL

    init() throws {
        NetworkLab.removeStale()
        dir = try Paths.makeScratch("broadcast")
        chmod(dir.path, 0o755)
    }

    func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    /// A lab of `hosts` with an Icecast server started on its host "m" (the master); the lab is closed here when the
    /// server does not start, by the caller otherwise.
    func labWithIcecast(_ hosts: [String]) throws -> (NetworkLab, IcecastServer) {
        let lab = try NetworkLab(hosts: hosts)
        do {
            let master = try IcecastServer(lab: lab, host: lab.host("m"))
            try master.start()
            return (lab, master)
        } catch {
            lab.close()
            throw error
        }
    }

    /// `yt-gst stream` in host "s", running in the background.
    func broadcast(_ lab: NetworkLab, _ arguments: [String]) throws -> Launched {
        try lab.launch(in: lab.host("s"), Binary.path, ["stream"] + arguments)
    }

    /// Waits until `server` has `mount` as a live source; false after `seconds`.
    func waitForMount(_ server: IcecastServer, _ mount: String, seconds: Double = 15) -> Bool {
        waitUntil(seconds) { server.source(mount) != nil }
    }

    /// Bytes a listener gets for `seconds` of a 128 kbit/s stream, less 5 % for the encoder's variation.
    func bytes(seconds: Double) -> Int { Int(seconds * 128_000 / 8 * 0.95) }

    // MARK: Master, relay, listeners

    /// The scale-out path: 100 listeners on the master and 100 on a relay of it each get more than 10 s of a 12 s
    /// broadcast, Icecast's stats count them, and the streams two of each saved decode to the source tone.
    @Test(arguments: ["opus", "vorbis"])
    func masterAndRelayServeManyListeners(codec: String) throws {
        defer { Paths.removeScratch(dir) }
        let (lab, master) = try labWithIcecast(["m", "r", "s", "l"])
        defer { lab.close() }
        let tone = path("tone.wav")
        try Broadcast.tone(tone, seconds: 12, frequency: 440)
        let sender = try broadcast(
            lab, ["-q", tone, "--to", master.sourceURL(mount: "/radio.ogg"), "--codec", codec, "--bitrate", "128"])
        try #require(waitForMount(master, "/radio.ogg"), "the mount never appeared: \(master.errorLog)")
        let relay = try IcecastServer(lab: lab, host: lab.host("r"), relayOf: master, mounts: ["/radio.ogg"])
        try relay.start()
        try #require(waitForMount(relay, "/radio.ogg"), "the relay never relayed: \(relay.errorLog)")

        let saved = dir.appendingPathComponent("saved").path
        try FileManager.default.createDirectory(atPath: saved, withIntermediateDirectories: true)
        let listeners = try lab.launch(
            in: lab.host("l"), "/usr/bin/python3",
            [
                Paths.packageRoot.appendingPathComponent("scripts/http-listeners.py").path, "14",
                "\(master.baseURL)/radio.ogg:100", "\(relay.baseURL)/radio.ogg:100", "--save", "\(saved):2",
            ])
        // While they listen, the servers count them (the relay is one more listener of the master).
        var counted = (master: 0, relay: 0)
        _ = waitUntil(8) {
            counted = (master.listeners("/radio.ogg"), relay.listeners("/radio.ogg"))
            return counted.master >= 101 && counted.relay >= 100
        }
        let result = listeners.wait(timeout: 40)
        let sent = sender.wait(timeout: 30)
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(counted.master >= 101 && counted.relay >= 100, "Icecast counted \(counted)")

        let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: [[String: Any]]]
        let received = try #require(report, "listeners: \(result.stdout) \(result.stderr)")
        // A whole 12 s stream is as long as the largest a listener got (Vorbis's size varies with the signal): 10 s
        // of it is 10/12 of that.
        let all = received.values.flatMap { $0 }.map { ($0["bytes"] as? Int) ?? 0 }
        let tenSeconds = (all.max() ?? 0) * 10 / 12
        for server in [master, relay] {
            let got = (received["\(server.baseURL)/radio.ogg"] ?? []).map { ($0["bytes"] as? Int) ?? 0 }
            #expect(got.count == 100)
            let short = got.filter { $0 < tenSeconds }
            #expect(short.isEmpty, "\(server.baseURL): \(short.count) listeners got less than 10 s: \(short.prefix(5))")
        }
        for file in try FileManager.default.contentsOfDirectory(atPath: saved).sorted() {
            let tone = Broadcast.measure(try Broadcast.decode("\(saved)/\(file)"))
            #expect(abs(tone.frequency - 440) < 1, "\(file): \(tone.frequency) Hz")
            #expect(tone.snr >= 25, "\(file): SNR \(tone.snr) dB")
            #expect(abs(tone.seconds - 12) < 0.2, "\(file): \(tone.seconds) s of a 12 s broadcast")
        }
    }

    // MARK: Now playing

    /// Each file's title (INAM/IART, else the file name) is the mount's title while that file plays.
    @Test func titleChangesAtEachFileBoundary() throws {
        defer { Paths.removeScratch(dir) }
        let (lab, master) = try labWithIcecast(["m", "s"])
        defer { lab.close() }
        try Broadcast.tone(path("a.wav"), seconds: 3, frequency: 440, title: "Alpha", artist: "Band")
        try Broadcast.tone(path("b.wav"), seconds: 3, frequency: 550)
        try Broadcast.tone(path("c.wav"), seconds: 3, frequency: 660, title: "Gamma")
        let mount = "/now.mp3"
        let hls = path("hls")
        try FileManager.default.createDirectory(atPath: hls, withIntermediateDirectories: true)
        let started = Date()
        // MP3 (the default codec), and HLS from the same broadcast (one decode, both outputs).
        let sender = try broadcast(
            lab,
            [path("a.wav"), path("b.wav"), path("c.wav"), "--to", master.sourceURL(mount: mount), "--to", "hls:\(hls)"])
        var seen: [(title: String, at: Double)] = []
        while sender.isRunning && Date().timeIntervalSince(started) < 20 {
            if let title = master.title(mount), title != seen.last?.title {
                seen.append((title, Date().timeIntervalSince(started)))
            }
            usleep(100_000)
        }
        let sent = sender.wait(timeout: 10)
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(seen.map(\.title) == ["Band - Alpha", "b.wav", "Gamma"], "\(seen)")
        // Each change comes when its file starts (3 s apart), give or take Icecast's own delay.
        if seen.count == 3 {
            #expect(abs((seen[1].at - seen[0].at) - 3) < 1.2 && abs((seen[2].at - seen[1].at) - 3) < 1.2, "\(seen)")
        }
        #expect(sent.stderr.contains("now playing: Band - Alpha") && sent.stderr.contains("now playing: Gamma"))
        let segments = try FileManager.default.contentsOfDirectory(atPath: hls).filter { $0.hasSuffix(".ts") }
        #expect(segments.count >= 4, "HLS beside Icecast wrote \(segments)")
    }

    // MARK: Faults

    /// The master restarts mid-broadcast: the sender streams again within 2 s of it being back, from where it was;
    /// the relay takes the mount up again; a `yt-gst receive` on the relay reconnects by itself and, once the list
    /// has played, finishes its recording and exits 0.
    @Test func senderRelayAndListenerRecoverFromAMasterRestart() throws {
        defer { Paths.removeScratch(dir) }
        let (lab, master) = try labWithIcecast(["m", "r", "s", "l"])
        defer { lab.close() }
        try Broadcast.tone(path("a.wav"), seconds: 6, frequency: 440, title: "First")
        try Broadcast.tone(path("b.wav"), seconds: 6, frequency: 440, title: "Second")
        let sender = try broadcast(
            lab, [path("a.wav"), path("b.wav"), "--to", master.sourceURL(mount: "/live.mp3"), "--retry-for", "30"])
        try #require(waitForMount(master, "/live.mp3"))
        let streaming = Date()
        let relay = try IcecastServer(lab: lab, host: lab.host("r"), relayOf: master, mounts: ["/live.mp3"])
        try relay.start()
        try #require(waitForMount(relay, "/live.mp3"), "the relay never relayed: \(relay.errorLog)")
        let receiver = try lab.launch(
            in: lab.host("l"), Binary.path,
            [
                "receive", "\(relay.baseURL)/live.mp3", "--timeout", "10", "--sink",
                "audio/x-raw,format=S16LE ! wavenc ! filesink location=\(path("listener.wav"))",
            ])
        try #require(waitUntilFile(path("listener.wav"), holdsMoreThan: 100_000), "the listener got nothing")

        let relayStart = relay.source("/live.mp3")?["stream_start_iso8601"] as? String
        // The master goes away 4 s into the first (6 s) file.
        usleep(useconds_t(max(0, 4 - Date().timeIntervalSince(streaming)) * 1e6))
        master.stop()
        usleep(1_500_000)
        try master.start()
        let back = Date()
        let resumed = waitForMount(master, "/live.mp3", seconds: 10)
        let resumedAfter = Date().timeIntervalSince(back)
        #expect(resumed && resumedAfter <= 2, "the sender streamed again \(resumedAfter) s after the server was back")
        // It kept its place: the first file goes on where it stopped, so the second starts about 2 s later (from
        // the first file's start it would be 6 s).
        let secondAfter = waitUntil(8) { master.title("/live.mp3") == "Second" } ? Date().timeIntervalSince(back) : 99
        #expect(
            secondAfter - resumedAfter < 3.5, "the second file started \(secondAfter - resumedAfter) s after resuming")
        // The relay notices its source ended and fetches the mount again from the master: a new stream start.
        let relayBack = waitUntil(30) {
            let start = relay.source("/live.mp3")?["stream_start_iso8601"] as? String
            return start != nil && start != relayStart
        }
        print("master restart: sender back \(resumedAfter) s, relay back \(Date().timeIntervalSince(back)) s after")
        #expect(relayBack, "the relay did not take the mount up again: \(relay.errorLog)")

        let sent = sender.wait(timeout: 40)
        let received = receiver.wait(timeout: 30)
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(sent.stderr.contains("lost the server") && sent.stderr.contains("streaming again"), "\(sent.stderr)")
        #expect(received.status == 0, "\(received.stderr)")
        #expect(
            received.stderr.contains("reconnected") && received.stderr.contains("the stream ended"),
            "\(received.stderr)")
        let samples = Broadcast.samples(ofWAV: path("listener.wav"))
        let heard = samples.count > 48_000 ? Broadcast.medianFrequency(samples) : 0
        let seconds = Double(samples.count) / 48_000
        #expect(heard == 440 && seconds > 5, "the listener heard \(seconds) s at \(heard) Hz")
    }

    /// Beside HLS, a lost Icecast server disturbs nothing else: while it is away HLS keeps writing segments, its
    /// media sequence never goes back and no segment name is used twice (RFC 8216 6.2.1), and once the server is
    /// back the mount streams again and a listener hears the tone.
    @Test func hlsGoesOnWhileIcecastReconnects() throws {
        defer { Paths.removeScratch(dir) }
        let (lab, master) = try labWithIcecast(["m", "s"])
        defer { lab.close() }
        let tone = path("tone.wav")
        try Broadcast.tone(tone, seconds: 18, frequency: 440)
        let hls = path("hls")
        try FileManager.default.createDirectory(atPath: hls, withIntermediateDirectories: true)
        let sender = try broadcast(
            lab,
            [
                tone, "--to", master.sourceURL(mount: "/both.mp3"), "--to", "hls:\(hls)", "--segment", "1",
                "--playlist-length", "3", "--retry-for", "30",
            ])
        try #require(waitForMount(master, "/both.mp3"))
        let playlist = HLSPlaylistWatch(path: hls + "/playlist.m3u8")
        let started = Date()
        while Date().timeIntervalSince(started) < 4 { playlist.poll() }
        master.stop()
        let stopped = Date()
        while Date().timeIntervalSince(stopped) < 4 { playlist.poll() }
        let listedWhileAway = playlist.firstSeen.values.filter { $0 > stopped }.count
        try master.start()
        var back = false
        let restarted = Date()
        while sender.isRunning && Date().timeIntervalSince(restarted) < 30 {
            playlist.poll()
            if !back && master.source("/both.mp3") != nil {
                back = true
                // A listener of the mount that came back hears the broadcast.
                _ = try? lab.run(
                    in: lab.host("m"), "/usr/bin/curl",
                    ["-s", "-m", "3", "-o", path("listener.mp3"), "\(master.baseURL)/both.mp3"], timeout: 10)
            }
        }
        let sent = sender.wait(timeout: 10)
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(sent.stderr.contains("lost the server") && sent.stderr.contains("streaming again"), "\(sent.stderr)")
        #expect(sent.seconds < 22, "18 s of audio took \(sent.seconds) s: the broadcast stood still")
        #expect(playlist.problems.isEmpty, "\(playlist.problems)")
        #expect(listedWhileAway >= 2, "\(listedWhileAway) segments listed in the 4 s without Icecast")
        #expect(back, "the mount did not come back: \(master.errorLog)")
        let heard = Broadcast.measure((try? Broadcast.decode(path("listener.mp3"))) ?? [])
        #expect(abs(heard.frequency - 440) < 1 && heard.seconds > 1, "the listener after the restart: \(heard)")
    }

    /// `yt-gst receive http://` plays a mount from start to end, says each title as it changes, exits 0.
    @Test func receivePlaysAMountToTheEndWithItsTitles() throws {
        defer { Paths.removeScratch(dir) }
        let (lab, master) = try labWithIcecast(["m", "s", "l"])
        defer { lab.close() }
        try Broadcast.tone(path("a.wav"), seconds: 3, frequency: 440, title: "Alpha", artist: "Band")
        try Broadcast.tone(path("b.wav"), seconds: 3, frequency: 440)
        let sender = try broadcast(
            lab, ["-q", path("a.wav"), path("b.wav"), "--to", master.sourceURL(mount: "/r.mp3")])
        try #require(waitForMount(master, "/r.mp3"))
        let received = try lab.run(
            in: lab.host("l"), Binary.path,
            [
                "receive", "\(master.baseURL)/r.mp3", "--sink",
                "audio/x-raw,format=S16LE ! wavenc ! filesink location=\(path("out.wav"))",
            ], timeout: 30)
        _ = sender.wait(timeout: 10)
        #expect(received.status == 0, "\(received.stderr)")
        let lines = received.stderr.split(separator: "\n")
        #expect(lines.first?.hasSuffix("now playing: Band - Alpha") == true, "\(received.stderr)")
        #expect(lines.contains { $0.hasSuffix("now playing: b.wav") }, "\(received.stderr)")
        #expect(lines.last?.contains("the stream ended") == true, "\(received.stderr)")
        let samples = Broadcast.samples(ofWAV: path("out.wav"))
        let heard = Broadcast.measure(samples)
        // Joined within the burst, the listener gets all 6 s (MP3 frames round it up a little); the SNR is that
        // of the first file (the second starts its tone at another phase).
        let first = Broadcast.measure(Array(samples.prefix(3 * 48_000)))
        #expect(abs(heard.frequency - 440) < 1 && abs(heard.seconds - 6) < 0.2 && first.snr >= 25, "\(heard) \(first)")

        let missing = try lab.run(
            in: lab.host("l"), Binary.path, ["receive", "\(master.baseURL)/none.mp3", "--sink", "fakesink"], timeout: 20
        )
        #expect(missing.status == 1 && missing.saysOneLine(containing: "not found (404)"), "\(missing.stderr)")
        master.stop()
        let refused = try lab.run(
            in: lab.host("l"), Binary.path, ["receive", "\(master.baseURL)/r.mp3", "--sink", "fakesink"], timeout: 20)
        #expect(refused.status == 1 && refused.saysOneLine(containing: "cannot connect"), "\(refused.stderr)")
    }

    /// Wrong password, a mount already in use, no server: one line each, exit 1.
    @Test func refusedAndUnreachableServersAreOneLineErrors() throws {
        defer { Paths.removeScratch(dir) }
        let (lab, master) = try labWithIcecast(["m", "s"])
        defer { lab.close() }
        let tone = path("tone.wav")
        try Broadcast.tone(tone, seconds: 6, frequency: 440)
        let host = "\(master.host.address):\(master.port)"

        let wrong = try lab.run(
            in: lab.host("s"), Binary.path,
            ["stream", tone, "--to", master.sourceURL(mount: "/a.mp3", password: "not-the-password")], timeout: 20)
        #expect(wrong.status == 1)
        #expect(
            wrong.stderr == "yt-gst: icecast://\(host)/a.mp3: the server refused the source password\n",
            "\(wrong.stderr)")

        let first = try broadcast(lab, ["-q", tone, "--to", master.sourceURL(mount: "/busy.mp3")])
        try #require(waitForMount(master, "/busy.mp3"))
        let busy = try lab.run(
            in: lab.host("s"), Binary.path, ["stream", tone, "--to", master.sourceURL(mount: "/busy.mp3")], timeout: 20)
        #expect(busy.status == 1)
        #expect(busy.saysOneLine(containing: "/busy.mp3 is already in use"), "\(busy.stderr)")
        first.signal(SIGINT)
        _ = first.wait(timeout: 10)

        master.stop()
        let unreachable = try lab.run(
            in: lab.host("s"), Binary.path, ["stream", tone, "--to", master.sourceURL(mount: "/a.mp3")], timeout: 20)
        #expect(unreachable.status == 1)
        #expect(unreachable.saysOneLine(containing: "cannot connect to the server"), "\(unreachable.stderr)")
        let gone = try lab.run(
            in: lab.host("s"), Binary.path, ["stream", tone, "--to", "icecast://pw@10.77.0.250:8000/a.mp3"],
            timeout: 20)
        #expect(gone.status == 1 && gone.saysOneLine(containing: "cannot connect to the server"), "\(gone.stderr)")
    }

    // MARK: HLS

    /// HLS: a valid rolling playlist (segments within 10 % of the target, media sequence increasing as it is
    /// written in real time), segments that decode to the tone, served by a plain web server and played back.
    @Test func hlsPlaylistIsValidAndDecodesToTheTone() throws {
        defer { Paths.removeScratch(dir) }
        let lab = try NetworkLab(hosts: ["s", "w"])
        defer { lab.close() }
        let tone = path("tone.wav")
        try Broadcast.tone(tone, seconds: 10, frequency: 440)
        let hls = path("hls")
        try FileManager.default.createDirectory(atPath: hls, withIntermediateDirectories: true)
        let sender = try broadcast(
            lab,
            ["-q", tone, "--to", "hls:\(hls)", "--segment", "2", "--playlist-length", "3"])
        let playlist = hls + "/playlist.m3u8"
        var sequences: [Int] = []
        while sender.isRunning {
            if let text = try? String(contentsOfFile: playlist, encoding: .utf8),
                let line = text.split(separator: "\n").first(where: { $0.hasPrefix("#EXT-X-MEDIA-SEQUENCE:") }),
                let sequence = Int(line.dropFirst("#EXT-X-MEDIA-SEQUENCE:".count)), sequence != sequences.last
            {
                sequences.append(sequence)
            }
            usleep(200_000)
        }
        let sent = sender.wait(timeout: 5)
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(sent.seconds >= 9.8, "10 s of audio broadcast in \(sent.seconds) s: not in real time")
        #expect(sequences == sequences.sorted() && sequences.count >= 2, "media sequences \(sequences)")

        let text = try String(contentsOfFile: playlist, encoding: .utf8)
        #expect(
            text.hasPrefix("#EXTM3U") && text.contains("#EXT-X-TARGETDURATION:2") && text.contains("#EXT-X-ENDLIST"))
        let lines = text.split(separator: "\n").map(String.init)
        var segments: [(duration: Double, name: String)] = []
        for (index, line) in lines.enumerated() where line.hasPrefix("#EXTINF:") && index + 1 < lines.count {
            segments.append((Double(line.dropFirst(8).split(separator: ",")[0]) ?? 0, lines[index + 1]))
        }
        #expect(segments.count == 3, "\(text)")
        for segment in segments.dropLast() {
            #expect(abs(segment.duration - 2) <= 0.2, "segment \(segment.name): \(segment.duration) s")
        }
        var joined = Data()
        for segment in segments { joined += try Data(contentsOf: URL(fileURLWithPath: hls + "/" + segment.name)) }
        try joined.write(to: URL(fileURLWithPath: path("joined.ts")))
        let decoded = Broadcast.measure(try Broadcast.decode(path("joined.ts")))
        let listed = segments.map(\.duration).reduce(0, +)
        #expect(abs(decoded.frequency - 440) < 1 && decoded.snr >= 25, "\(decoded)")
        #expect(abs(decoded.seconds - listed) < 0.15, "decoded \(decoded.seconds) s, the playlist lists \(listed) s")

        // Served by a plain HTTP server, the playlist and its segments come back as they are.
        let web = lab.host("w")
        _ = try lab.serveDirectory(hls, in: web, port: 8080)
        let fetched = try lab.run(
            in: lab.host("s"), "/usr/bin/curl", ["-sf", "http://\(web.address):8080/playlist.m3u8"], timeout: 10)
        #expect(fetched.stdout == text)
        // And `yt-gst receive` plays it from there to its end.
        let played = try lab.run(
            in: lab.host("s"), Binary.path,
            [
                "receive", "http://\(web.address):8080/playlist.m3u8", "--sink",
                "audio/x-raw,format=S16LE ! wavenc ! filesink location=\(path("hls.wav"))",
            ], timeout: 30)
        #expect(played.status == 0, "\(played.stderr)")
        let heard = Broadcast.measure(Broadcast.samples(ofWAV: path("hls.wav")))
        #expect(abs(heard.frequency - 440) < 1 && abs(heard.seconds - listed) < 0.15, "\(heard)")
    }

    /// A file that needs another decoder (an A-law WAV after a PCM one) makes the broadcast build a new pipeline:
    /// HLS numbering goes on across it (the media sequence never goes back, no segment name is used twice: RFC 8216
    /// 6.2.1), the new pipeline's first segment, and only it, follows EXT-X-DISCONTINUITY, the playlist is never seen
    /// half-written, and a `yt-gst receive` following the live playlist over HTTP plays through the break to the end.
    @Test func hlsNumbersGoOnAcrossANewPipeline() throws {
        defer { Paths.removeScratch(dir) }
        let lab = try NetworkLab(hosts: ["s", "w"])
        defer { lab.close() }
        try Broadcast.tone(path("pcm.wav"), seconds: 5, frequency: 440)
        try Broadcast.tone(path("tone.wav"), seconds: 5, frequency: 440)
        let sox = try Run.run("/usr/bin/sox", [path("tone.wav"), "-e", "a-law", path("alaw.wav")], timeout: 30)
        try #require(sox.status == 0, "sox: \(sox.stderr)")
        let hls = path("hls")
        try FileManager.default.createDirectory(atPath: hls, withIntermediateDirectories: true)
        let web = lab.host("w")
        _ = try lab.serveDirectory(hls, in: web, port: 8080)
        let sender = try broadcast(
            lab,
            ["-q", path("pcm.wav"), path("alaw.wav"), "--to", "hls:\(hls)", "--segment", "1", "--playlist-length", "3"])
        let playlist = HLSPlaylistWatch(path: hls + "/playlist.m3u8")
        var receiver: Launched?
        let started = Date()
        while sender.isRunning && Date().timeIntervalSince(started) < 30 {
            playlist.poll()
            guard receiver == nil, !playlist.names.isEmpty else { continue }
            receiver = try lab.launch(
                in: lab.host("s"), Binary.path,
                [
                    "receive", "http://\(web.address):8080/playlist.m3u8", "--sink",
                    "audio/x-raw,format=S16LE ! wavenc ! filesink location=\(path("heard.wav"))",
                ])
        }
        playlist.poll()
        let sent = sender.wait(timeout: 10)
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(playlist.problems.isEmpty, "\(playlist.problems)")
        // 10 s in 1 s segments through a window of 3: the window moved on past the new pipeline's first segment.
        let numbers = playlist.names.keys.sorted()
        #expect(numbers == Array(0..<numbers.count) && numbers.count >= 9, "segments \(playlist.names)")
        #expect(
            playlist.discontinuities.count == 1 && (4...7).contains(playlist.discontinuities.first ?? 0),
            "discontinuities before \(playlist.discontinuities.sorted()) of \(numbers.count)")
        #expect(playlist.text.split(separator: "\n").last == "#EXT-X-ENDLIST", "\(playlist.text)")
        let left = try FileManager.default.contentsOfDirectory(atPath: hls)
        #expect(!left.contains { $0.hasSuffix(".tmp") }, "\(left)")

        let received = try #require(receiver, "the playlist never appeared").wait(timeout: 20)
        #expect(received.status == 0 && !received.timedOut, "\(received.stderr)")
        let samples = Broadcast.samples(ofWAV: path("heard.wav"))
        let seconds = Double(samples.count) / 48_000
        let heard = samples.count > 48_000 ? Broadcast.medianFrequency(samples) : 0
        #expect(heard == 440 && seconds > 8, "the listener heard \(seconds) s of 10 at \(heard) Hz")
    }
}
