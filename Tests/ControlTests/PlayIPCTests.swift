// yt-gst — `yt-gst play --input-ipc-server` driven through mpv's protocol, its effect read from the samples played.
import Foundation
import TestSupport
import Testing

@Suite(.serialized) struct PlayIPCTests {
    /// Pause stops the data, volume scales the samples, a seek lands on the frame, in mpv's order of events.
    @Test func commandsSteerTheSamplesPlayed() throws {
        let player = try IPCPlayer()
        let client = try player.client()
        var status = stat()
        #expect(lstat(player.socket, &status) == 0 && status.st_mode & 0o777 == 0o600)
        #expect(player.waitForOutput(seconds: 0.5))
        #expect(client.request(["observe_property", 1, "pause"])?["error"] as? String == "success")
        let first = client.waitForEvent("property-change")
        #expect(first?["name"] as? String == "pause" && first?["data"] as? Bool == false)

        #expect(client.request(["set_property", "pause", true])?["error"] as? String == "success")
        #expect(client.waitForEvent("property-change")?["data"] as? Bool == true)
        usleep(200_000)  // what was in flight reaches the file
        let paused = player.outputBytes
        usleep(700_000)
        // Nothing more than the next buffer (50 ms) after the pause took hold.
        #expect(player.outputBytes - paused <= IPCPlayer.rate * 8 / 20, "\(player.outputBytes - paused) bytes")
        #expect(client.get("pause") as? Bool == true)

        #expect(client.request(["set_property", "pause", false])?["error"] as? String == "success")
        #expect(player.waitForOutput(seconds: 0.3))
        // At gain 1, where the test signal tells the exact frame.
        #expect(client.request(["seek", 20, "absolute"])?["error"] as? String == "success")
        #expect(client.waitForEvent("seek") != nil)
        #expect(client.waitForEvent("playback-restart") != nil)
        #expect(player.waitForOutput(seconds: 0.5))
        let position = client.get("time-pos") as? Double ?? -1
        #expect(position >= 20 && position < 25, "time-pos \(position)")
        #expect(client.get("pause") as? Bool == false)
        #expect(client.request(["set_property", "volume", 50])?["error"] as? String == "success")
        #expect(player.waitForOutput(seconds: 0.5))
        #expect(client.get("volume") as? Double == 50)
        #expect(client.request(["quit"])?["error"] as? String == "success")
        let result = player.process.wait(timeout: 20)
        #expect(result.termination == .exited(0), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: player.socket))

        let runs = try player.playedRuns().merged
        #expect(runs.contains { abs($0.gain - 0.5) < 0.01 }, "\(runs)")
        #expect(runs.contains { $0.fileStart == 20 * IPCPlayer.rate && $0.gain == 1 }, "\(runs)")
    }

    /// An observation starts with the current value; time-pos changes reach it at most 4 times a second.
    @Test func timePosObservationIsRateLimited() throws {
        let player = try IPCPlayer()
        let client = try player.client()
        #expect(player.waitForOutput(seconds: 0.3))
        #expect(client.request(["observe_property", 7, "time-pos"])?["error"] as? String == "success")
        let first = client.waitForEvent("property-change", timeout: 1)
        #expect(first?["id"] as? Int == 7 && first?["data"] is Double, "\(first ?? [:])")
        client.collectEvents(for: 3)
        let changes = client.events.filter { $0["event"] as? String == "property-change" && $0["id"] as? Int == 7 }
        #expect((6...13).contains(changes.count), "\(changes.count) time-pos changes in 3 s")
        let values = changes.compactMap { $0["data"] as? Double }
        #expect(values == values.sorted() && values.count == changes.count)
        #expect(client.request(["unobserve_property", 7])?["error"] as? String == "success")
        client.collectEvents(for: 0.6)
        #expect(!client.events.dropFirst(changes.count).contains { $0["id"] as? Int == 7 })
        client.sendLine(#"{"command":["quit"]}"#)
        #expect(player.process.wait(timeout: 20).termination == .exited(0))
    }

    /// Malformed lines, unknown commands and properties and wrong types get mpv's error strings; the connection
    /// stays usable.
    @Test func badRequestsGetErrorRepliesAndTheConnectionStays() throws {
        let player = try IPCPlayer()
        let client = try player.client()
        #expect(player.waitForOutput(seconds: 0.2))
        for line in ["{not json", "[1,2]", #"{"command":"pause"}"#, #"{"request_id":3}"#] {
            client.sendLine(line)
            let reply = client.readMessage()
            #expect(reply?["error"] as? String == "invalid parameter", "\(line) → \(reply ?? [:])")
        }
        #expect(client.request(["no_such_command"])?["error"] as? String == "invalid parameter")
        #expect(client.request(["get_property", "no-such-property"])?["error"] as? String == "property not found")
        #expect(
            client.request(["set_property", "volume", "loud"])?["error"] as? String
                == "unsupported format for accessing property")
        #expect(client.request(["set_property", "duration", 3])?["error"] as? String == "property unavailable")
        #expect(client.request(["loadfile", "/etc/passwd", "append"])?["error"] as? String == "loading failed")
        #expect(client.request(["loadfile", player.dir.path, "append"])?["error"] as? String == "loading failed")
        #expect(client.get("volume") as? Double == 100)
        #expect(client.get("playlist-count") as? Int == 1)
        #expect(client.get("filename") as? String == "coded.wav")
        #expect(client.get("duration") as? Double == 30)
        client.sendLine(#"{"command":["quit"]}"#)
        #expect(player.process.wait(timeout: 20).termination == .exited(0))
    }

    /// loadfile appends and replaces; playlist-next ends the file with reason "stop" and loads the next.
    @Test func loadfileAndPlaylistCommands() throws {
        let player = try IPCPlayer()
        let second = try SyntheticWAV.positionCoded(frames: IPCPlayer.rate * 10).write(
            to: player.dir.appendingPathComponent("second.wav"))
        let client = try player.client()
        #expect(player.waitForOutput(seconds: 0.2))
        let loaded = client.request(["loadfile", second, "append"])
        #expect((loaded?["data"] as? [String: Any])?["playlist_entry_id"] as? Int == 2, "\(loaded ?? [:])")
        #expect(client.get("playlist-count") as? Int == 2)
        #expect(client.request(["playlist-next"])?["error"] as? String == "success")
        let end = client.waitForEvent("end-file")
        #expect(end?["reason"] as? String == "stop" && end?["playlist_entry_id"] as? Int == 1, "\(end ?? [:])")
        #expect(client.waitForEvent("file-loaded") != nil)
        #expect(client.get("path") as? String == second)
        #expect(client.get("playlist-pos") as? Int == 1)
        #expect(client.request(["playlist-next"])?["error"] as? String == "error running command")
        client.events = []
        #expect(client.request(["loadfile", player.input])?["error"] as? String == "success")
        #expect(client.waitForEvent("playback-restart") != nil)
        // mpv's order: the old file ends (a command ended it: "stop"), then the new one starts and loads.
        let order = client.eventNames().filter { ["end-file", "start-file", "file-loaded", "seek"].contains($0) }
        #expect(order == ["end-file", "start-file", "file-loaded"], "\(client.events)")
        #expect(client.events.first { $0["event"] as? String == "end-file" }?["reason"] as? String == "stop")
        #expect(client.events.first { $0["event"] as? String == "start-file" }?["playlist_entry_id"] as? Int == 3)
        #expect(client.get("path") as? String == player.input)
        #expect(client.get("playlist-count") as? Int == 1)
        client.sendLine(#"{"command":["quit"]}"#)
        client.collectEvents(for: 0)
        let ended = client.events.count
        #expect(client.waitForEvent("shutdown") != nil)
        let last = client.events.dropFirst(ended).first { $0["event"] as? String == "end-file" }
        #expect(last?["reason"] as? String == "quit")
        #expect(player.process.wait(timeout: 20).termination == .exited(0))
    }

    /// loop-file set while a short file plays loads it again; loop-playlist and shuffle are set and read back (and
    /// observed); cycling loop-file off lets the list end.
    @Test func loopsAndShuffleAreSetWhilePlaying() throws {
        let player = try IPCPlayer(seconds: 2)
        let client = try player.client()
        #expect(client.request(["observe_property", 4, "loop-file"])?["error"] as? String == "success")
        #expect(client.waitForEvent("property-change")?["data"] as? Bool == false)
        #expect(client.request(["set_property", "loop-file", "inf"])?["error"] as? String == "success")
        #expect(client.waitForEvent("property-change")?["data"] as? String == "inf")
        client.events = []
        #expect(client.waitForEvent("file-loaded", timeout: 10) != nil)
        let end = client.events.first { $0["event"] as? String == "end-file" }
        #expect(end?["reason"] as? String == "eof", "\(client.events)")
        #expect(client.get("path") as? String == player.input)
        #expect(client.get("loop-file") as? String == "inf")

        #expect(client.request(["set_property", "loop-playlist", "inf"])?["error"] as? String == "success")
        #expect(client.get("loop-playlist") as? String == "inf")
        #expect(client.request(["set_property", "loop-playlist", "no"])?["error"] as? String == "success")
        #expect(client.get("loop-playlist") as? Bool == false)
        #expect(client.request(["cycle", "shuffle"])?["error"] as? String == "success")
        #expect(client.get("shuffle") as? Bool == true)
        #expect(
            client.request(["set_property", "loop-file", 3])?["error"] as? String
                == "unsupported format for accessing property")
        #expect(client.request(["cycle", "loop-file"])?["error"] as? String == "success")
        #expect(client.get("loop-file") as? Bool == false)
        let result = player.process.wait(timeout: 20)
        #expect(result.termination == .exited(0), "\(result.stderr)")
    }

    /// 100 clients connecting, asking and leaving; one that never reads is dropped; playback goes on throughout.
    @Test func manyClientsAndOneThatNeverReads() throws {
        let player = try IPCPlayer()
        #expect(player.waitForOutput(seconds: 0.2))
        for index in 0..<100 {
            let client = try player.client()
            #expect(client.request(["get_property", "pause"])?["error"] as? String == "success", "client \(index)")
        }
        let stuck = try player.client()
        let request = Array(#"{"command":["get_property","playlist"]}"#.utf8) + [0x0A]
        _ = fcntl(stuck.fd, F_SETFL, O_NONBLOCK)
        var dropped = false
        let deadline = Date().addingTimeInterval(20)
        while !dropped && Date() < deadline {
            let sent = request.withUnsafeBytes { send(stuck.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 && errno == EAGAIN { usleep(1_000) } else if sent < 0 { dropped = true }
        }
        #expect(dropped, "the client that never reads was not dropped")
        let client = try player.client()
        #expect(client.request(["get_property", "pause"])?["error"] as? String == "success")
        #expect(player.waitForOutput(seconds: 0.5), "playback stalled")
        client.sendLine(#"{"command":["quit"]}"#)
        #expect(player.process.wait(timeout: 20).termination == .exited(0))
    }

    /// Something other than a socket at the path is never replaced: one line, exit 1, the file as it was.
    @Test func refusesToReplaceAFile() throws {
        let dir = try Paths.makeScratch("ipc-file")
        defer { Paths.removeScratch(dir) }
        let path = dir.appendingPathComponent("precious").path
        try "keep me".write(toFile: path, atomically: true, encoding: .utf8)
        let input = try SyntheticWAV.positionCoded(frames: 4_410).write(to: dir.appendingPathComponent("a.wav"))
        let r = try Run.ytGst(["play", input, "--sink", "fakesink", "--input-ipc-server", path])
        #expect(r.status == 1 && r.saysOneLine(containing: "exists and is not a socket"), "\(r.stderr)")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "keep me")
    }

    /// `yt-gst ctl` sends one command, prints the reply, and fails with one line on an error or no socket; socat
    /// (where installed) gets the same replies.
    @Test func ctlAndSocat() throws {
        let player = try IPCPlayer()
        _ = try player.client()
        let get = try Run.ytGst(["ctl", player.socket, "get_property", "duration"])
        #expect(get.status == 0 && get.stdout.contains(#""data":30"#) && get.stdout.contains("success"), "\(get)")
        let seek = try Run.ytGst(["ctl", player.socket, "--", "seek", "-1"])
        #expect(seek.status == 0, "\(seek.stderr)")
        let bad = try Run.ytGst(["ctl", player.socket, "get_property", "nope"])
        #expect(bad.status == 1 && bad.saysOneLine(containing: "property not found") && bad.stdout.isEmpty)
        let missing = try Run.ytGst(["ctl", player.dir.appendingPathComponent("none.sock").path, "quit"])
        #expect(missing.status == 1 && missing.saysOneLine(containing: "No such file or directory"))
        if FileManager.default.fileExists(atPath: "/usr/bin/socat") {
            let r = try Run.run(
                "/bin/sh",
                [
                    "-c",
                    #"echo '{"command":["get_property","pause"],"request_id":9}' | socat -t 2 - UNIX-CONNECT:"#
                        + player.socket,
                ])
            #expect(r.stdout.contains(#""data":false,"request_id":9,"error":"success""#), "\(r.stdout) \(r.stderr)")
        }
        #expect(try Run.ytGst(["ctl", player.socket, "quit"]).status == 0)
        #expect(player.process.wait(timeout: 20).termination == .exited(0))
    }

    /// PyPI's python-mpv-jsonipc (scripts/install-deps.sh test installs it) drives yt-gst as it drives mpv.
    @Test func pythonMPVJSONIPCDrivesIt() throws {
        guard try Run.run("/usr/bin/env", ["python3", "-c", "import python_mpv_jsonipc"]).status == 0 else {
            print("skipped: python_mpv_jsonipc cannot be imported (scripts/install-deps.sh test installs it)")
            return
        }
        let player = try IPCPlayer()
        _ = try player.client()
        let script = """
            import sys, threading, time
            from python_mpv_jsonipc import MPV
            mpv = MPV(start_mpv=False, ipc_socket=sys.argv[1])
            seen = threading.Event()
            mpv.bind_property_observer("pause", lambda name, value: value and seen.set())
            mpv.pause = True
            assert seen.wait(5), "no pause change observed"
            assert mpv.pause is True
            mpv.volume = 40
            assert mpv.volume == 40, mpv.volume
            assert mpv.duration == 30, mpv.duration
            assert mpv.filename == "coded.wav", mpv.filename
            mpv.seek(12, "absolute")
            time.sleep(0.3)
            assert 12 <= mpv.time_pos < 13, mpv.time_pos
            mpv.command("quit")
            mpv.terminate()
            print("ok")
            """
        let r = try Run.run("/usr/bin/env", ["python3", "-c", script, player.socket], timeout: 40)
        #expect(r.status == 0 && r.stdout.contains("ok"), "\(r.stdout)\n\(r.stderr)")
        #expect(player.process.wait(timeout: 20).termination == .exited(0))
    }
}
