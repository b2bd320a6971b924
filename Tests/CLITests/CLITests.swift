// yt-gst — the real binary: help, usage errors, one-line runtime errors, exit codes, signals, bit-exact output.
import Foundation
import TestSupport
import Testing

@Suite(.serialized) final class CLITests {
    let dir: URL
    init() throws { dir = try Paths.makeScratch("cli") }
    deinit { Paths.removeScratch(dir) }

    func tone(
        _ name: String, frames: Int = 44_100, rate: Int = 44_100, channels: Int = 2, bits: Int = 16
    ) throws -> String {
        try SyntheticWAV.tone(frames: frames, rate: rate, channels: channels, bits: bits)
            .write(to: dir.appendingPathComponent(name))
    }

    func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    /// stderr must be exactly one line, mentioning `text`.
    func expectOneLine(_ r: RunResult, contains text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(r.saysOneLine(containing: text), "stderr: \(r.stderr)", sourceLocation: sourceLocation)
    }

    // MARK: Help and usage

    @Test func helpAndVersion() throws {
        let help = try Run.ytGst(["--help"])
        #expect(help.status == 0 && help.stdout.contains("USAGE: yt-gst COMMAND") && help.stdout.contains("play"))
        for command in ["play", "info"] {
            let r = try Run.ytGst([command, "--help"])
            #expect(r.status == 0 && r.stdout.hasPrefix("USAGE: yt-gst \(command)"))
        }
        let version = try Run.ytGst(["--version"])
        #expect(version.status == 0 && version.stdout.contains("GStreamer 1."))
    }

    /// Help texts are Swift string literals: a bad merge once pasted option declarations into `stream --help`
    /// (and so into the man page, which scripts/make-manpage.sh makes from every command's --help).
    @Test func helpAndManPageShowNoSwiftSource() throws {
        let top = try Run.ytGst(["--help"]).stdout
        let commands =
            top.components(separatedBy: "COMMANDS:\n").last?.components(separatedBy: "\n\n").first?
            .split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) } ?? []
        #expect(commands.count >= 7 && commands.contains("stream"), "\(top)")
        let script = Paths.packageRoot.appendingPathComponent("scripts/make-manpage.sh").path
        let man = try Run.run(script, [Paths.binary], timeout: 60)
        #expect(man.status == 0 && man.stdout.contains(".SH \"YT-GST STREAM\""), "\(man.stderr)")
        var texts = [("man page", man.stdout)]
        for command in commands { texts.append(("\(command) --help", try Run.ytGst([command, "--help"]).stdout)) }
        for (name, text) in texts {
            for swift in ["OptionSpec(", "help: \"", "+ \"", "valueName:", "\\("] {
                #expect(!text.contains(swift), "\(name) shows Swift source: \(swift)")
            }
        }
        #expect(texts.last { $0.0 == "stream --help" }?.1.contains("BROADCAST EXAMPLES:") == true)
    }

    @Test(arguments: [
        [], ["fly"], ["play"], ["play", "--bogus", "x.wav"], ["play", "--chunk-ms", "0", "x.wav"],
        ["play", "--buffers", "many", "x.wav"],
        ["play", "--sink", "fakesink", "--pipeline", "appsrc name=src ! fakesink", "x.wav"],
        ["play", "x.wav", "--sink"], ["info"],
    ])
    func usageErrorsExit64(arguments: [String]) throws {
        let r = try Run.ytGst(arguments)
        #expect(r.status == 64)
        #expect(r.stderr.hasPrefix("Error: "))
        #expect(r.stdout.isEmpty)
    }

    // MARK: One-line errors

    @Test func missingFile() throws {
        let r = try Run.ytGst(["play", "-q", "--sink", "fakesink", path("nope.wav")])
        #expect(r.status == 1)
        expectOneLine(r, contains: "nope.wav")
    }

    @Test func emptyDirectoryEmptyFileAndNotAWAV() throws {
        try Data("ID3\u{3}hello, this is an mp3".utf8).write(to: dir.appendingPathComponent("song.wav"))
        try Data().write(to: dir.appendingPathComponent("empty.wav"))
        try FileManager.default.createDirectory(
            at: dir.appendingPathComponent("nothing"), withIntermediateDirectories: true)
        for name in ["nothing", "song.wav", "empty.wav"] {
            let r = try Run.ytGst(["play", "-q", "--sink", "fakesink", path(name)])
            #expect(r.status == 1)
            expectOneLine(r, contains: "yt-gst: \(path(name))")
        }
    }

    @Test func unsupportedCodecNamesTheTag() throws {
        var odd = SyntheticWAV.tone(frames: 800, rate: 8_000, channels: 1, bits: 8)
        odd.formatTag = 0x2222
        try odd.write(to: dir.appendingPathComponent("odd.wav"))
        let r = try Run.ytGst(["play", "--sink", "fakesink", path("odd.wav")])
        #expect(r.status == 1)
        expectOneLine(r, contains: "0x2222")
    }

    /// Channel counts around every boundary (the full 1...1024 runs in-process in GStreamerLimitsTests): 64 and more
    /// crashed the player in audioconvert (exit 139); now each plays or is one line naming the limit, and `info` works.
    @Test(arguments: [1, 2, 8, 9, 62, 63, 64, 65, 127, 128, 255, 256, 511, 512, 1000, 1023, 1024])
    func everyChannelCountPlaysOrIsOneLineNeverASignal(channels: Int) throws {
        let wav = SyntheticWAV(
            sampleRate: 8_000, channels: channels, bitsPerSample: 16,
            samples: [UInt8](repeating: 0, count: 8 * channels))
        let file = try wav.write(to: dir.appendingPathComponent("c.wav"))
        for arguments in [["play", "-q", "--sink", "fakesink", file], ["play", "-q", "--sink", "fakesink", "-"]] {
            let r =
                arguments.last == "-"
                ? try Run.run(
                    "/bin/sh", ["-c", "cat '\(file)' | '\(Paths.binary)' \(arguments.joined(separator: " "))"])
                : try Run.ytGst(arguments)
            if channels <= 63 {
                #expect(r.termination == .exited(0) && r.stderr.isEmpty, "\(arguments): \(r.termination) \(r.stderr)")
            } else {
                #expect(r.termination == .exited(1), "\(arguments): \(r.termination)")
                expectOneLine(r, contains: "\(channels) channels; GStreamer's audio conversion takes at most 63")
            }
        }
        let info = try Run.ytGst(["info", "--json", file])
        #expect(info.termination == .exited(0) && info.stdout.contains("\"channels\": \(channels),"), "\(info.stderr)")
    }

    /// Headers that once played nothing or failed for the wrong reason, by path and through `play -`.
    @Test func hostileHeadersAreReadOrNamed() throws {
        let format = SyntheticWAV(
            sampleRate: 8_000, channels: 2, bitsPerSample: 16, samples: [UInt8](repeating: 1, count: 8_000))
        // A fmt chunk declaring 0x7FFFFFF0 bytes with the data chunk after it: 2 GiB, 8 KB on disk (sparse).
        var head = Array(format.bytes[0..<36])
        head.replaceSubrange(16..<20, with: [0xF0, 0xFF, 0xFF, 0x7F])
        try Data(head).write(to: dir.appendingPathComponent("sparse.wav"))
        let handle = try FileHandle(forWritingTo: dir.appendingPathComponent("sparse.wav"))
        try handle.seek(toOffset: 20 + 0x7FFF_FFF0)
        try handle.write(contentsOf: Data(format.bytes[36...]))
        try handle.close()
        // 200,000 empty chunks before the data (sox and gst-launch read it).
        var junk = format.bytes
        junk.insert(contentsOf: Array(repeating: Array("junk\0\0\0\0".utf8), count: 200_000).joined(), at: 36)
        try Data(junk).write(to: dir.appendingPathComponent("junk.wav"))
        var rate = format
        rate.sampleRate = 4_294_967_295
        try rate.write(to: dir.appendingPathComponent("rate.wav"))

        let expected: [(String, String?)] = [
            ("sparse.wav", "fmt chunk declares 2147483632 bytes; a fmt chunk holds at most 65553"), ("junk.wav", nil),
            ("rate.wav", "sample rate 4294967295 Hz; GStreamer takes at most 2147483647 Hz"),
        ]
        for (name, error) in expected {
            for script in [
                "'\(Paths.binary)' play -q --sink fakesink '\(path(name))'",
                "cat '\(path(name))' | '\(Paths.binary)' play -q --sink fakesink -",
            ] {
                let r = try Run.run("/bin/sh", ["-c", script], timeout: 60)
                if let error {
                    #expect(r.termination == .exited(1), "\(script): \(r.termination)")
                    expectOneLine(r, contains: error)
                } else {
                    #expect(r.termination == .exited(0) && r.stderr.isEmpty, "\(script): \(r.stderr)")
                }
            }
        }
        let info = try Run.ytGst(["info", path("junk.wav")])
        #expect(info.status == 0 && info.stdout.contains("data  at 1600036, 8000 bytes"), "\(info.stderr)")
        #expect(try Run.ytGst(["info", path("sparse.wav")]).saysOneLine(containing: "fmt chunk declares 2147483632"))
    }

    @Test func missingElementIsNamedWithItsPackage() throws {
        let file = try tone("t.wav")
        let r = try Run.ytGst(["play", "--sink", "nosuchsink", file])
        #expect(r.status == 1)
        expectOneLine(r, contains: "\"nosuchsink\"")
    }

    @Test func pipelineWithoutAppSource() throws {
        let file = try tone("t.wav")
        let r = try Run.ytGst(["play", "--pipeline", "audiotestsrc ! fakesink", file])
        #expect(r.status == 64)
        expectOneLine(r, contains: "appsrc name=src")
    }

    @Test func badPipelineSyntax() throws {
        let file = try tone("t.wav")
        let r = try Run.ytGst(["play", "--pipeline", "appsrc name=src ! ! fakesink", file])
        #expect(r.status == 64)
        expectOneLine(r, contains: "bad pipeline")
    }

    @Test(.enabled(if: !FileManager.default.fileExists(atPath: "/proc/asound/card0"), "this machine has a sound card"))
    func noAudioOutputAvailable() throws {
        let file = try tone("t.wav")
        let r = try Run.run(
            Paths.binary, ["play", file], timeout: 20, environment: ["PULSE_SERVER": "unix:/nonexistent/yt-gst-socket"])
        #expect(r.status == 1)
        expectOneLine(r, contains: "no audio output available")
    }

    @Test func oneBadFileDoesNotStopTheOthers() throws {
        let good = try tone("good.wav", frames: 4_410)
        let r = try Run.ytGst(["play", "--sink", "fakesink", path("missing.wav"), good])
        #expect(r.status == 1)
        expectOneLine(r, contains: "missing.wav")
    }

    // MARK: Playing

    @Test(arguments: [(16, 2, 44_100), (24, 1, 48_000), (8, 1, 8_000), (32, 2, 22_050)])
    func playIntoWavencIsBitExact(bits: Int, channels: Int, rate: Int) throws {
        // 1.234 s: the last 0.2 s chunk is partial.
        let wav = SyntheticWAV.tone(frames: rate * 1234 / 1000, rate: rate, channels: channels, bits: bits)
        let input = try wav.write(to: dir.appendingPathComponent("in.wav"))
        let output = path("out.wav")
        let r = try Run.ytGst(["play", input, "--sink", "wavenc ! filesink location=\(output)"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.isEmpty, "no status line when stdout is not a terminal")
        let written = try RecordedWAV(path: output)
        #expect(written.formatTag == 1 || written.formatTag == 0xFFFE)
        #expect(written.sampleRate == rate && written.channels == channels && written.bitsPerSample == bits)
        #expect(firstDifference(written.data, wav.samples) == nil)
    }

    @Test func severalFilesPlayOneAfterAnother() throws {
        let a = SyntheticWAV.tone(frequency: 440, frames: 22_050)
        let b = SyntheticWAV.tone(frequency: 880, frames: 22_050 + 77)
        let paths = try [a, b].enumerated().map { try $1.write(to: dir.appendingPathComponent("f\($0).wav")) }
        let output = path("both.wav")
        let r = try Run.ytGst(["play"] + paths + ["--sink", "wavenc ! filesink location=\(output)"], timeout: 20)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(
            try RecordedWAV(path: output).data == a.samples + b.samples, "each file whole, in order, nothing between")
    }

    /// `--status json` through the binary: every line is a JSON object whose fields follow the playback, file by file.
    @Test func jsonStatusFollowsPlaybackThroughTheList() throws {
        let first = SyntheticWAV.tone(frequency: 440, frames: 44_100 * 3 / 2, rate: 44_100, channels: 2)
        let second = SyntheticWAV.tone(frequency: 880, frames: 48_000, rate: 48_000, channels: 1)
        let paths = try [first, second].enumerated().map {
            try $1.write(to: dir.appendingPathComponent("s\($0).wav"))
        }
        let r = try Run.ytGst(["play"] + paths + ["--sink", "null", "--status", "json"], timeout: 30)
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n")
        let objects = try lines.map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], "not JSON: \($0)")
        }
        let fields: Set = ["state", "file", "index", "count", "position", "duration", "volume", "muted", "rate"]
        #expect(objects.allSatisfy { fields.union(["loop", "levels"]) == Set($0.keys) }, "\(r.stdout)")
        let indexes = objects.map { $0["index"] as? Int ?? 0 }
        #expect(indexes.first == 1 && indexes.last == 2 && indexes == indexes.sorted(), "indexes: \(indexes)")
        let durations = [1.5, 1.0]
        for index in [1, 2] {
            let lines = objects.filter { $0["index"] as? Int == index }
            let positions = lines.map { $0["position"] as? Double ?? -1 }
            #expect(lines.allSatisfy { $0["file"] as? String == paths[index - 1] })
            #expect(lines.allSatisfy { $0["duration"] as? Double == durations[index - 1] && $0["count"] as? Int == 2 })
            #expect(lines.allSatisfy { $0["state"] as? String == "playing" && $0["rate"] as? Double == 1 })
            #expect(lines.allSatisfy { $0["volume"] as? Double == 1 && $0["muted"] as? Bool == false })
            #expect(lines.allSatisfy { $0["loop"] is NSNull })
            #expect(zip(positions, positions.dropFirst()).allSatisfy { $0 <= $1 }, "file \(index): \(positions)")
            #expect(positions.allSatisfy { (0...durations[index - 1]).contains($0) }, "file \(index): \(positions)")
            #expect(Set(positions).count >= 3, "file \(index): the position did not move: \(positions)")
            // The level meter: one reading per channel; the tone's peak is half of full scale (-6.02 dBFS).
            let settled = lines.filter {
                ($0["position"] as? Double).map { (0.3...(durations[index - 1] - 0.4)).contains($0) } == true
            }
            for line in settled {
                let levels = line["levels"] as? [[String: Double]] ?? []
                #expect(levels.count == [first, second][index - 1].channels, "\(line)")
                #expect(levels.allSatisfy { abs(($0["peak"] ?? 0) + 6.02) < 0.05 }, "\(line)")
            }
        }
    }

    @Test func wholePipelineWithChunkOptions() throws {
        let wav = SyntheticWAV.tone(frames: 10_000, rate: 16_000, channels: 1)
        let input = try wav.write(to: dir.appendingPathComponent("in.wav"))
        let output = path("out.raw")
        let r = try Run.ytGst([
            "play", input, "--chunk-ms", "7", "--buffers", "5", "--pipeline",
            "appsrc name=src ! filesink location=\(output)",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(firstDifference(try [UInt8](Data(contentsOf: URL(fileURLWithPath: output))), wav.samples) == nil)
    }

    @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143))])
    func signalsStopPlaybackCleanly(signal: Int32, expected: Int32) throws {
        let file = try tone("long.wav", frames: 44_100 * 30)
        let process = try Run.launch(Paths.binary, ["play", file, "--sink", "fakesink sync=true"])
        // Sent before yt-gst installs its handler, the signal would kill it (and read as 128 + signal too).
        #expect(process.waitUntilCatching(signal), "yt-gst never installed a handler for signal \(signal)")
        let sent = Date()
        process.signal(signal)
        let r = process.wait(timeout: 5)
        #expect(!r.timedOut)
        // Handled: yt-gst stops and exits with 128 + the signal itself, it is not killed by the signal.
        #expect(r.termination == .exited(expected), "\(r.termination): \(r.stderr)")
        #expect(Date().timeIntervalSince(sent) < 1.0)
    }

    // MARK: info

    @Test func infoText() throws {
        let file = try tone("t.wav", frames: 44_100, channels: 2)
        let r = try Run.ytGst(["info", file])
        #expect(r.status == 0)
        for needle in ["RIFF", "0x0001 PCM", "S16LE", "44100 Hz", "frames        44100", "0:01.000", "fmt ", "data"] {
            #expect(r.stdout.contains(needle), "missing \(needle) in \(r.stdout)")
        }
    }

    @Test func infoJSONParses() throws {
        let file = try tone("t.wav", frames: 1_000, rate: 8_000, channels: 1)
        let r = try Run.ytGst(["info", "--json", file])
        #expect(r.status == 0)
        let parsed = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]]
        let object = try #require(parsed?.first)
        #expect(object["frames"] as? Int == 1_000)
        #expect(object["sampleRate"] as? Int == 8_000)
        #expect(object["sampleFormat"] as? String == "S16LE")
        #expect((object["chunks"] as? [[String: Any]])?.count == 2)
    }

    @Test func infoOnABrokenFileIsOneLine() throws {
        try Data("RIFF\u{0}\u{0}\u{0}\u{0}WAVE".utf8).write(to: dir.appendingPathComponent("broken.wav"))
        let r = try Run.ytGst(["info", path("broken.wav")])
        #expect(r.status == 1)
        expectOneLine(r, contains: "broken.wav")
    }
}
