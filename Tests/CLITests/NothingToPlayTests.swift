// yt-gst — lists with nothing to play end at once with one line (no endless loop, no stack overflow), and a file's own
// error comes before anything about the audio output.
import Foundation
import TestSupport
import Testing

@Suite(.serialized) struct NothingToPlayTests {
    let dir: URL
    init() throws { dir = try Paths.makeScratch("nothing") }

    func write(_ name: String, frames: Int) throws -> String {
        try SyntheticWAV.tone(frames: frames).write(to: dir.appendingPathComponent(name))
    }

    @Test(arguments: [
        (["empty.wav", "--loop"], "empty.wav: nothing to play (it holds no audio)"),
        (["empty.wav", "--loop-file"], "empty.wav: nothing to play (it holds no audio)"),
        (["empty.wav", "--loop", "3"], "empty.wav: nothing to play (it holds no audio)"),
        (["empty.wav"], "empty.wav: nothing to play (it holds no audio)"),
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
