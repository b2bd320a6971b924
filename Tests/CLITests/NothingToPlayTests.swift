// yt-gst — loops with nothing to play end at once with one line (no endless loop, no stack overflow); a list played
// once plays as nothing, with a warning per file, and its output is finalised; a file's own error comes before anything
// about the audio output.
import Foundation
import TestSupport
import Testing

@Suite(.serialized) final class NothingToPlayTests {
    let dir: URL
    init() throws { dir = try Paths.makeScratch("nothing") }
    deinit { Paths.removeScratch(dir) }

    func write(_ name: String, frames: Int) throws -> String {
        try SyntheticWAV.tone(frames: frames).write(to: dir.appendingPathComponent(name))
    }

    @Test(arguments: [
        (["empty.wav", "--loop"], "empty.wav: nothing to play (it holds no audio)"),
        (["empty.wav", "--loop-file"], "empty.wav: nothing to play (it holds no audio)"),
        (["empty.wav", "--loop", "3"], "empty.wav: nothing to play (it holds no audio)"),
        (
            ["song.wav", "--start", "99:00", "--loop"],
            "song.wav: nothing to play (--start/--end leave none of its audio)"
        ),
        (
            ["song.wav", "--start", "99:00", "--loop-file"],
            "song.wav: nothing to play (--start/--end leave none of its audio)"
        ),
        (
            ["empty.wav", "song.wav", "--start", "5", "--shuffle", "--loop"],
            "yt-gst: nothing to play in the list (every file is empty or cut away by --start/--end)"
        ),
    ])
    func saysSoAndExits1(arguments: [String], line: String) throws {
        _ = try write("empty.wav", frames: 0)
        _ = try write("song.wav", frames: 44_100)
        let files = arguments.map { $0.hasSuffix(".wav") ? dir.appendingPathComponent($0).path : $0 }
        let r = try Run.ytGst(["play", "--sink", "fakesink"] + files, timeout: 20)
        #expect(!r.timedOut)
        #expect(r.status == 1, "exit \(r.status), stderr: \(r.stderr)")
        #expect(r.saysOneLine(containing: line), "stderr: \(r.stderr)")
    }

    /// A WAV file's bytes: 44, with RIFF size 36 and data size 0 (an encoder that never finished leaves placeholders).
    static func isEmptyWAV(_ bytes: [UInt8]) -> Bool {
        func field(_ at: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(bytes[at + $1]) << (8 * $1) } }
        return bytes.count == 44 && bytes[0..<4].elementsEqual("RIFF".utf8) && field(4) == 36
            && bytes[36..<40].elementsEqual("data".utf8) && field(40) == 0
    }

    /// Played once, files with nothing to play play as nothing, as sox and gst-launch do: a warning each (the
    /// header's, or what the window left), exit 0, and the output finalised: a complete, empty WAV.
    @Test(arguments: [
        (["empty.wav"], ["empty.wav: warning: the data chunk holds no audio"]),
        (
            ["empty.wav", "empty2.wav"],
            ["empty.wav: warning: the data chunk holds no audio", "empty2.wav: warning: the data chunk holds no audio"]
        ),
        (
            ["song.wav", "--start", "99:00"],
            ["song.wav: warning: nothing to play (--start/--end leave none of its audio)"]
        ),
    ])
    func aListPlayedOnceWithNothingToPlayWarnsAndFinalisesItsOutput(arguments: [String], lines: [String]) throws {
        _ = try write("empty.wav", frames: 0)
        _ = try write("empty2.wav", frames: 0)
        _ = try write("song.wav", frames: 44_100)
        let files = arguments.map { $0.hasSuffix(".wav") ? dir.appendingPathComponent($0).path : $0 }
        let copy = dir.appendingPathComponent("copy.wav")
        try? FileManager.default.removeItem(at: copy)
        let r = try Run.ytGst(["play"] + files + ["--sink", "wavenc ! filesink location=\(copy.path)"], timeout: 20)
        #expect(!r.timedOut)
        #expect(r.status == 0, "exit \(r.status), stderr: \(r.stderr)")
        let said = r.stderr.split(separator: "\n").map(String.init)
        #expect(said == lines.map { "yt-gst: \(dir.path)/\($0)" }, "stderr: \(r.stderr)")
        let written = (try? Data(contentsOf: copy)).map { Array($0) } ?? []
        #expect(Self.isEmptyWAV(written), "copy.wav: \(written.count) bytes \(written.prefix(44))")
    }

    @Test func anEmptyWAVThroughAPipePlaysAsNothing() throws {
        let empty = try write("empty.wav", frames: 0)
        let copy = dir.appendingPathComponent("copy.wav").path
        let r = try Run.run(
            "/bin/sh",
            [
                "-c", "cat \"$1\" | \"$2\" play - --sink \"wavenc ! filesink location=$3\"", "sh", empty, Paths.binary,
                copy,
            ],
            timeout: 20)
        #expect(r.status == 0, "exit \(r.status), stderr: \(r.stderr)")
        #expect(r.stderr == "yt-gst: -: warning: the data chunk holds no audio\n", "stderr: \(r.stderr)")
        let written = (try? Data(contentsOf: URL(fileURLWithPath: copy))).map { Array($0) } ?? []
        #expect(Self.isEmptyWAV(written), "copy.wav: \(written.count) bytes")
    }

    @Test func anEmptyFileBeforeASongIsPassedOverWithAWarning() throws {
        let empty = try write("empty.wav", frames: 0)
        let song = try write("song.wav", frames: 4_410)
        let out = dir.appendingPathComponent("out.raw").path
        let r = try Run.ytGst(["play", empty, song, "--sink", "filesink location=\(out)"], timeout: 20)
        #expect(r.status == 0, "stderr: \(r.stderr)")
        #expect(r.stderr == "yt-gst: \(empty): warning: the data chunk holds no audio\n", "stderr: \(r.stderr)")
        let played = try [UInt8](Data(contentsOf: URL(fileURLWithPath: out)))
        let complete = played == SyntheticWAV.tone(frames: 4_410).samples
        #expect(complete, "\(played.count) bytes instead of the song's")
    }

    /// `stream` ends cleanly on an empty file too, whichever way it sends: RTP (one feeder) or HLS (the gapless chain
    /// of a broadcast); a broadcast looping over nothing is the one error.
    @Test(arguments: [(["--to", "rtp://127.0.0.1:5990"], 0), (["--to", "hls:"], 0), (["--loop", "--to", "hls:"], 1)])
    func aStreamOfAnEmptyFileEndsCleanly(options: [String], status: Int) throws {
        let empty = try write("empty.wav", frames: 0)
        let hls = dir.appendingPathComponent("hls").path
        try FileManager.default.createDirectory(atPath: hls, withIntermediateDirectories: true)
        let r = try Run.ytGst(["stream", empty] + options.map { $0 == "hls:" ? "hls:\(hls)" : $0 }, timeout: 20)
        #expect(!r.timedOut)
        #expect(Int(r.status) == status, "exit \(r.status), stderr: \(r.stderr)")
        let line =
            status == 0
            ? "yt-gst: \(empty): warning: the data chunk holds no audio"
            : "yt-gst: nothing to broadcast (every file is empty)"
        #expect(r.stderr == line + "\n", "stderr: \(r.stderr)")
    }

    @Test func emptyFilesInALoopedListArePassedOver() throws {
        let empty = try write("empty.wav", frames: 0)
        let song = try write("song.wav", frames: 4_410)
        let out = dir.appendingPathComponent("out.raw").path
        let r = try Run.ytGst(
            ["play", "-q", empty, song, empty, "--loop", "3", "--sink", "filesink location=\(out)"], timeout: 20)
        #expect(r.status == 0, "stderr: \(r.stderr)")
        let played = try [UInt8](Data(contentsOf: URL(fileURLWithPath: out)))
        let once = SyntheticWAV.tone(frames: 4_410).samples
        let threeTimes = played == once + once + once
        #expect(threeTimes, "\(played.count) bytes instead of the song's \(once.count) three times")
    }

    @Test func aMissingFileIsReportedEvenWithoutAnAudioOutput() throws {
        // No PulseAudio server reachable and no sound card: the file's own problem is what the user must hear about.
        let r = try Run.run(
            Paths.binary, ["play", dir.appendingPathComponent("nope.wav").path], timeout: 20,
            environment: ["PULSE_SERVER": "unix:/nonexistent/yt-gst-test"])
        #expect(r.status == 1)
        #expect(r.saysOneLine(containing: "nope.wav: No such file or directory"), "stderr: \(r.stderr)")
    }
}
