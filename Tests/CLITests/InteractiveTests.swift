// yt-gst — the interactive player in a real terminal (tmux): keys act, the status line tells, and the terminal
// is put back exactly as it was, after q and after Ctrl-C.
import Foundation
import TestSupport
import Testing

/// A tmux session running one shell command in a pane of known size; killed on `close()`.
final class TmuxPane {
    let name = "yt-gst-\(UUID().uuidString.prefix(8))"
    let dir: URL

    init(_ command: String, dir: URL) throws {
        self.dir = dir
        let script = dir.appendingPathComponent("pane.sh")
        // stty -a before and after, so the test can compare the terminal's settings; EXIT= shows once after.txt is
        // complete, so a test that saw it never reads a file being written.
        let text = "stty -a > before.txt\n\(command)\ncode=$?\nstty -a > after.txt\necho EXIT=$code\nsleep 60\n"
        try Data(text.utf8).write(to: script)
        let r = try Run.run(
            "/usr/bin/tmux",
            [
                "new-session", "-d", "-s", name, "-x", "160", "-y", "20", "-c", dir.path, "bash \(script.path)",
            ])
        guard r.status == 0 else { throw HarnessError(description: "tmux: \(r.stderr)") }
    }

    func send(_ keys: String...) throws { _ = try Run.run("/usr/bin/tmux", ["send-keys", "-t", name] + keys) }

    var screen: String { (try? Run.run("/usr/bin/tmux", ["capture-pane", "-p", "-t", name]).stdout) ?? "" }

    /// Waits up to `timeout` seconds for the screen to contain `text`.
    @discardableResult
    func waitFor(_ text: String, timeout: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if screen.contains(text) { return true }
            usleep(100_000)
        }
        return false
    }

    /// The position shown on the status line, in seconds.
    var position: Int? {
        for line in screen.split(separator: "\n").reversed() {
            let fields = line.split(separator: " ")
            guard let first = fields.first, first == ">" || first == "||", fields.count > 1 else { continue }
            let parts = fields[1].split(separator: ":").compactMap { Int($0) }
            guard parts.count == 2 else { continue }
            return parts[0] * 60 + parts[1]
        }
        return nil
    }

    /// Waits up to `timeout` seconds for the status line's position to satisfy `condition`; returns that position.
    func waitForPosition(timeout: Double = 20, _ condition: (Int) -> Bool) -> Int? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let position, condition(position) { return position }
            usleep(50_000)
        }
        return nil
    }

    /// The A-B loop points on the status line ("A=0:02 B=0:04"), in whole seconds.
    var loopPoints: (a: Int, b: Int)? {
        guard let match = screen.firstMatch(of: /A=(\d+):(\d\d) B=(\d+):(\d\d)/),
            let am = Int(match.1), let asec = Int(match.2), let bm = Int(match.3), let bsec = Int(match.4)
        else { return nil }
        return (am * 60 + asec, bm * 60 + bsec)
    }

    /// Every line of the pane's history that parses as a JSON object (`--status json`), oldest first.
    var jsonLines: [[String: Any]] {
        let text = (try? Run.run("/usr/bin/tmux", ["capture-pane", "-p", "-J", "-S", "-", "-t", name]).stdout) ?? ""
        return text.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("{") else { return nil }
            return (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
    }

    /// Waits up to `timeout` seconds for the JSON status lines to satisfy `condition`; returns them.
    func waitForJSON(timeout: Double = 20, _ condition: ([[String: Any]]) -> Bool) -> [[String: Any]]? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let lines = jsonLines
            if condition(lines) { return lines }
            usleep(100_000)
        }
        return nil
    }

    func sttyUnchanged() throws -> Bool {
        let before = try String(contentsOf: dir.appendingPathComponent("before.txt"), encoding: .utf8)
        let after = try String(contentsOf: dir.appendingPathComponent("after.txt"), encoding: .utf8)
        return !before.isEmpty && before == after
    }

    func close() { _ = try? Run.run("/usr/bin/tmux", ["kill-session", "-t", name]) }
}

@Suite(
    .serialized,
    .enabled(if: FileManager.default.fileExists(atPath: "/usr/bin/tmux"), "needs tmux (make test installs it)"))
struct InteractiveTests {
    static let rate = 44_100

    func longTone() throws -> (URL, String) {
        let dir = try Paths.makeScratch("tty")
        let file = try SyntheticWAV.tone(frequency: 440, frames: 44_100 * 120, rate: 44_100, channels: 2)
            .write(to: dir.appendingPathComponent("long.wav"))
        return (dir, file)
    }

    /// Plays a position-coded file in a terminal, in real time, into a file of float samples, so the test can read back
    /// which file frames were heard, in what order and how loud.
    ///
    /// `identity sync=true` paces the stream by the clock, so keys land mid-stream as they would on a sound card;
    /// float output keeps every sample as the player made it; 50 ms chunks keep the stream close to the clock.
    final class CodedPlayback {
        let dir: URL
        let output: String
        let pane: TmuxPane

        init(seconds: Int, extra: String = "") throws {
            dir = try Paths.makeScratch("tty-coded")
            let input = try SyntheticWAV.positionCoded(
                frames: InteractiveTests.rate * seconds, rate: InteractiveTests.rate
            )
            .write(to: dir.appendingPathComponent("coded.wav"))
            // Raw samples into a descriptor the shell opened: wavenc and filesink answer a flushing seek by writing
            // again from the file's start; fdsink just goes on.
            output = dir.appendingPathComponent("out.f32").path
            let pipeline =
                "appsrc name=src ! identity sync=true ! audioconvert ! audio/x-raw,format=F32LE ! fdsink fd=3"
            pane = try TmuxPane(
                "\(Paths.binary) play '\(input)' --chunk-ms 50 --pipeline '\(pipeline)' \(extra) 3>'\(output)'",
                dir: dir)
        }

        deinit {
            pane.close()
            Paths.removeScratch(dir)
        }

        /// Seconds of output written so far.
        var outputSeconds: Double {
            let size = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0
            return Double(size) / Double(InteractiveTests.rate * 8)
        }

        /// Quits with q and reads the output back; the terminal must be as it was.
        func quitAndRead(sourceLocation: SourceLocation = #_sourceLocation) throws -> PlayedRuns {
            try pane.send("q")
            #expect(pane.waitFor("EXIT=0"), "\(pane.screen)", sourceLocation: sourceLocation)
            #expect(try pane.sttyUnchanged(), sourceLocation: sourceLocation)
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: output)))
            return PlayedRuns(interleaved: RecordedWAV.floats(bytes))
        }
    }

    @Test func seekKeysPlayTheFileFromTheRightFrameAndVolumeKeysScaleIt() throws {
        let playback = try CodedPlayback(seconds: 60)
        let pane = playback.pane
        #expect(pane.waitFor("vol 100%"))
        try #require(pane.waitForPosition { $0 >= 1 } != nil, "\(pane.screen)")
        try pane.send("Right")
        let afterRight = try #require(pane.waitForPosition { $0 >= 6 })
        try #require(pane.waitForPosition { $0 >= afterRight + 1 } != nil)
        try pane.send("g", "0", ":", "3", "0", "Enter")
        try #require(pane.waitForPosition { $0 >= 31 } != nil)
        try pane.send("Left")
        let afterLeft = try #require(pane.waitForPosition { (25...28).contains($0) })
        try #require(pane.waitForPosition { $0 >= afterLeft + 1 } != nil)
        for (key, shown) in [("Up", "vol 105%"), ("Down", "vol 100%"), ("Down", "vol 95%"), ("m", "muted")] {
            let before = try #require(pane.position)
            try pane.send(key)
            #expect(pane.waitFor(shown))
            try #require(pane.waitForPosition { $0 >= before + 2 } != nil)
        }
        let played = try playback.quitAndRead()

        let rate = Self.rate
        let runs = played.merged
        #expect(played.unexplained == 0, "\(played.unexplained) output frames are no file frame")
        try #require(runs.count == 8, "runs: \(runs)")
        #expect(runs.allSatisfy { $0.frames > rate / 2 }, "runs: \(runs)")
        #expect(zip(runs, runs.dropFirst()).allSatisfy { $0.outputEnd == $1.outputStart }, "a gap: \(runs)")
        #expect(runs[..<4].allSatisfy { $0.gain == 1 }, "runs: \(runs)")
        #expect(runs[0].fileStart == 0)
        // Right / Left: 5 s from the position when the key was read, which lags the last frame written by < 0.3 s.
        let forward = runs[1].fileStart - runs[0].fileEnd
        #expect((rate * 47 / 10...rate * 5).contains(forward), "+5 s moved \(Double(forward) / Double(rate)) s")
        // g 0:30: exactly the file's frame at 30 s.
        #expect(runs[2].fileStart == 30 * rate, "0:30 landed at frame \(runs[2].fileStart)")
        let backward = runs[3].fileStart - runs[2].fileEnd
        #expect((-rate * 53 / 10...(-rate * 5)).contains(backward), "-5 s moved \(Double(backward) / Double(rate)) s")
        // Volume and mute act on the samples that follow, without a jump: x1.05, x1, x0.95, silence.
        for (run, gain) in zip(runs[4...], [1.05, 1, 0.95, 0]) {
            #expect(abs(run.gain - gain) < 2e-3, "expected x\(gain): \(run)")
        }
        #expect(zip(runs[3...], runs[4...]).allSatisfy { $0.fileEnd == $1.fileStart }, "volume moved: \(runs)")
    }

    @Test func rateKeysPlayTheFileFasterWithTheSamplesKept() throws {
        let playback = try CodedPlayback(seconds: 60)
        let pane = playback.pane
        try #require(pane.waitForPosition { $0 >= 1 } != nil, "\(pane.screen)")
        try pane.send("+", "+", "+", "+")
        #expect(pane.waitFor("x2 "))
        let fast = try #require(pane.position)
        try #require(pane.waitForPosition { $0 >= fast + 6 } != nil)
        let played = try playback.quitAndRead()

        // scaletempo keeps the pitch by playing ~24 ms pieces of the file as they are and overlapping the rest:
        // the pieces are file frames; how far the file moves per output frame is the rate.
        let rate = Self.rate
        let runs = played.merged
        try #require(runs.first.map { $0.fileStart == 0 && $0.gain == 1 && $0.frames > rate / 2 } == true, "\(runs)")
        let end = try #require(runs.last).outputEnd
        let pieces = runs.filter { $0.frames >= 256 && $0.outputStart >= end - rate * 2 && $0.outputEnd < end }
        try #require(pieces.count >= 20, "pieces of the last 2 s: \(pieces)")
        let first = pieces[0]
        let last = pieces[pieces.count - 1]
        let speed = Double(last.fileStart - first.fileStart) / Double(last.outputStart - first.outputStart)
        #expect(abs(speed - 2) < 0.06, "the file moved \(speed) frames per output frame at x2")
        #expect(pieces.allSatisfy { abs($0.gain - 1) < 2e-3 })
    }

    @Test func abLoopRepeatsExactlyTheSamplesBetweenTheTwoPoints() throws {
        let playback = try CodedPlayback(seconds: 60)
        let pane = playback.pane
        let start = try #require(pane.waitForPosition { $0 >= 2 }, "\(pane.screen)")
        try pane.send("l")
        #expect(pane.waitFor("A=0:0"))
        try #require(pane.waitForPosition { $0 >= start + 2 } != nil)
        try pane.send("l")
        #expect(pane.waitFor(" B=0:"))
        let shown = try #require(pane.loopPoints, "\(pane.screen)")
        let looping = playback.outputSeconds
        let deadline = Date().addingTimeInterval(30)
        while playback.outputSeconds < looping + 7 && Date() < deadline { usleep(100_000) }
        let played = try playback.quitAndRead()

        let rate = Self.rate
        let runs = played.merged
        #expect(played.unexplained == 0, "\(played.unexplained) output frames are no file frame")
        try #require(runs.count >= 4, "runs: \(runs)")
        #expect(runs.allSatisfy { $0.gain == 1 })
        #expect(runs[0].fileStart == 0)
        let loops = runs.dropFirst()
        let loop = loops.first!
        #expect((rate..<rate * 4).contains(loop.frames), "the loop is \(Double(loop.frames) / Double(rate)) s")
        // It starts at A and ends at B (whole seconds on the status line; the last 50 ms chunk may pass B).
        #expect(loop.fileStart / rate == shown.a, "the loop starts at frame \(loop.fileStart), A=\(shown.a) s")
        #expect((shown.b * rate...(shown.b + 1) * rate + rate / 20).contains(loop.fileEnd), "ends at \(loop.fileEnd)")
        #expect(loops.allSatisfy { $0.fileStart == loop.fileStart }, "runs: \(runs)")
        #expect(loops.dropLast().allSatisfy { $0.frames == loop.frames }, "runs: \(runs)")
        #expect(loops.last!.frames <= loop.frames)
        #expect(zip(runs, runs.dropFirst()).allSatisfy { $0.outputEnd == $1.outputStart }, "a gap: \(runs)")
    }

    @Test func jsonStatusInATerminalFollowsPauseAndResume() throws {
        let (dir, file) = try longTone()
        defer { Paths.removeScratch(dir) }
        let pane = try TmuxPane("\(Paths.binary) play '\(file)' --sink null --status json", dir: dir)
        defer { pane.close() }
        func position(_ line: [String: Any]) -> Double { line["position"] as? Double ?? -1 }
        let playing = try #require(pane.waitForJSON { position($0.last ?? [:]) >= 1 }, "\(pane.screen)")
        #expect(playing.allSatisfy { $0["state"] as? String == "playing" })
        try pane.send("Space")
        // Ten status lines while paused (a second): all paused, all at one position.
        let paused = try #require(
            pane.waitForJSON { lines in lines.filter { $0["state"] as? String == "paused" }.count >= 10 }
        )
        .filter { $0["state"] as? String == "paused" }
        let held = position(paused[0])
        #expect(held >= position(playing.last!))
        #expect(paused.allSatisfy { position($0) == held }, "positions while paused: \(paused.map(position))")
        try pane.send("Space")
        let resumed = try #require(
            pane.waitForJSON { lines in
                lines.last.map { $0["state"] as? String == "playing" && position($0) >= held + 0.5 } == true
            })
        let positions = resumed.map(position)
        #expect(zip(positions, positions.dropFirst()).allSatisfy { $0 <= $1 }, "not monotonic: \(positions)")
        try pane.send("q")
        #expect(pane.waitFor("EXIT=0"))
        #expect(try pane.sttyUnchanged())
    }

    @Test func ctrlCExits130AndRestoresTheTerminal() throws {
        let (dir, file) = try longTone()
        defer { Paths.removeScratch(dir) }
        let pane = try TmuxPane("\(Paths.binary) play '\(file)' --sink null", dir: dir)
        defer { pane.close() }
        #expect(pane.waitFor("0:01 / 2:00"))
        try pane.send("C-c")
        #expect(pane.waitFor("EXIT=130"))
        #expect(try pane.sttyUnchanged())
    }

    @Test func nextAndPreviousMoveThroughTheList() throws {
        let (dir, file) = try longTone()
        defer { Paths.removeScratch(dir) }
        let second = try SyntheticWAV.tone(frames: 44_100 * 60, rate: 44_100).write(
            to: dir.appendingPathComponent("second.wav"))
        let pane = try TmuxPane("\(Paths.binary) play '\(file)' '\(second)' --sink null", dir: dir)
        defer { pane.close() }
        #expect(pane.waitFor("long.wav (1/2)"))
        try pane.send("n")
        #expect(pane.waitFor("second.wav (2/2)"))
        try pane.send("p")
        #expect(pane.waitFor("long.wav (1/2)"))
        try pane.send("Escape")
        #expect(pane.waitFor("EXIT=0"))
        #expect(try pane.sttyUnchanged())
    }
}
