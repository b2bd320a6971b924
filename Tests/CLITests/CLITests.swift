// yt-gst — the real binary: help, usage errors, one-line runtime errors, exit codes, signals, bit-exact output.
import Foundation
import TestSupport
import Testing

@Suite(.serialized) struct CLITests {
    let dir: URL
    init() throws { dir = try Paths.makeScratch("cli") }

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
        let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: output)))
        #expect(written.count >= wav.samples.count + 44)
        #expect(Array(written.suffix(wav.samples.count)) == wav.samples)
    }

    @Test func severalFilesPlayOneAfterAnother() throws {
        let a = try tone("a.wav", frames: 22_050)
        let b = try tone("b.wav", frames: 22_050)
        let r = try Run.ytGst(["play", a, b, "--sink", "fakesink sync=true"], timeout: 20)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.seconds >= 1.0, "two 0.5 s files in real time took \(r.seconds) s")
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
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: output))) == wav.samples)
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
