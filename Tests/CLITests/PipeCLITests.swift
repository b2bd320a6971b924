// yt-gst — WAVs read from pipes by the real binary: stdin, a FIFO, a trickle, a cut-off stream; `info -`; the
// options and keys a pipe cannot honour; Ctrl-C while the producer is silent.
import AppSrcFeeder
import Foundation
import TestSupport
import Testing
import WAV

@Suite(.serialized) struct PipeCLITests {
    let dir: URL

    init() throws { dir = try Paths.makeScratch("pipe") }

    func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    /// Runs a shell command line (with $Y the binary and $D the scratch directory).
    func shell(_ script: String, timeout: Double = 30) throws -> RunResult {
        try Run.run("/bin/sh", ["-c", script], timeout: timeout, environment: ["Y": Paths.binary, "D": dir.path])
    }

    /// The audio of a WAV file that is not a stream (wavenc's output, a written input): its data chunk.
    func audio(_ file: String) throws -> [UInt8] {
        let (wav, reader) = try WAVFile.open(path: file)
        return try reader.bytes(at: wav.dataOffset, count: Int(wav.dataByteCount))
    }

    /// A stereo 16-bit tone written to `in.wav`, with a known header (the sizes true).
    func input(seconds: Double = 2) throws -> String {
        try SyntheticWAV.tone(frequency: 440, frames: Int(44_100 * seconds), rate: 44_100, channels: 2)
            .write(to: dir.appendingPathComponent("in.wav"))
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/usr/bin/sox"), "needs sox"))
    func soxStreamingHeaderIntoPlayDashIsBitExact() throws {
        defer { Paths.removeScratch(dir) }
        // sox cannot come back to fix its header on a pipe: it writes 0x7FFFF000 as the data size.
        let r = try shell(
            "sox -D -n -r 48000 -c 2 -b 16 -t wav - synth 1.5 sine 997 2>/dev/null | tee $D/sent.wav"
                + " | $Y play - -q --sink \"wavenc ! filesink location=$D/out.wav\"")
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        let sent = try Data(contentsOf: URL(fileURLWithPath: path("sent.wav")))
        #expect(sent[40..<44] == Data([0x00, 0xF0, 0xFF, 0x7F]), "sox wrote a streaming header")
        let played = try audio(path("out.wav"))
        #expect(played.count == 72_000 * 4 && played == Array(sent[44...]))
    }

    @Test func fifoPathPlaysBitExactAfterWaitingForItsWriter() throws {
        defer { Paths.removeScratch(dir) }
        let file = try input()
        #expect(mkfifo(path("fifo"), 0o600) == 0)
        // The writer comes 0.5 s late: the player waits for it (without hanging in open).
        let writer = try Run.launch("/bin/sh", ["-c", "sleep 0.5; cat '\(file)' > '\(path("fifo"))'"])
        let r = try Run.ytGst(["play", path("fifo"), "-q", "--sink", "wavenc ! filesink location=\(path("out.wav"))"])
        _ = writer.wait(timeout: 5)
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        #expect(try audio(path("out.wav")) == audio(file))
    }

    /// A pipe whose header gives no length, then a file: the file follows where the pipe really ended, gaplessly
    /// (opened ahead at "never", it is moved to the pipe's end), and in real time (a sink that syncs) it takes the
    /// two durations, not forever.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/usr/bin/sox"), "needs sox"))
    func aFileAfterAStreamingHeaderPipeFollowsWhereThePipeEnded() throws {
        defer { Paths.removeScratch(dir) }
        let file = try input(seconds: 0.5)
        let pipe = "sox -D -n -r 44100 -c 2 -b 16 -t wav - synth 0.5 sine 997 2>/dev/null | tee $D/sent.wav"
        let r = try shell(
            "\(pipe) | $Y play - '\(file)' -q --sink \"identity sync=true ! wavenc ! filesink location=$D/out.wav\"",
            timeout: 10)
        #expect(r.status == 0 && r.stderr.isEmpty && r.seconds < 5, "\(r.seconds) s: \(r.stderr)")
        let sent = Array(try Data(contentsOf: URL(fileURLWithPath: path("sent.wav"))))
        #expect(try audio(path("out.wav")) == Array(sent[44...]) + audio(file))
    }

    /// A producer that trickles: pieces of 997 bytes with pauses, the header itself split; no error, every byte.
    @Test func slowProducerPlaysWithoutError() throws {
        defer { Paths.removeScratch(dir) }
        let file = try input(seconds: 1)
        let trickle =
            "import sys,time\nd=open(sys.argv[1],'rb').read()\nfor i in range(0,len(d),997):\n"
            + " sys.stdout.buffer.write(d[i:i+997]); sys.stdout.flush(); time.sleep(0.003 if i % 40 else 0.2)\n"
        try Data(trickle.utf8).write(to: dir.appendingPathComponent("trickle.py"))
        let r = try shell(
            "python3 $D/trickle.py '\(file)' | $Y play - -q --chunk-ms 50 --sink \"wavenc ! filesink location=$D/out.wav\""
        )
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        #expect(try audio(path("out.wav")) == audio(file))
    }

    /// --start and --end on a pipe: the feeder reads up to the start and drops it, and stops at the end.
    @Test func startAndEndOnAPipeReadForwardToThem() throws {
        defer { Paths.removeScratch(dir) }
        let file = try input()
        let r = try shell(
            "cat '\(file)' | $Y play - -q --start 1 --end 1.5 --sink \"wavenc ! filesink location=$D/out.wav\"")
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        #expect(try audio(path("out.wav")) == Array(audio(file)[(44_100 * 4)..<(66_150 * 4)]))
    }

    /// A stream cut off mid-frame (the producer died): the whole frames that came play, then a clean end.
    @Test func truncatedPipeEndsCleanly() throws {
        defer { Paths.removeScratch(dir) }
        let file = try input()
        let r = try shell("head -c 100003 '\(file)' | $Y play - -q --sink \"wavenc ! filesink location=$D/out.wav\"")
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        #expect(try audio(path("out.wav")) == Array(audio(file).prefix((100_003 - 44) / 4 * 4)))
    }

    /// Standard input redirected from a file is a file: read by offset, so it may seek (--start here).
    @Test func dashRedirectedFromAFileIsReadAsAFile() throws {
        defer { Paths.removeScratch(dir) }
        let file = try input()
        let r = try shell("$Y play - -q --start 1 --sink \"wavenc ! filesink location=$D/out.wav\" < '\(file)'")
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        #expect(try audio(path("out.wav")) == Array(audio(file).suffix(44_100 * 4)))
        let info = try shell("$Y info --json - < '\(file)'")
        #expect(info.stdout.contains("\"stream\": false"), "\(info.stdout)")
    }

    @Test func infoDashDescribesTheStream() throws {
        defer { Paths.removeScratch(dir) }
        let file = try input()
        let known = try shell("cat '\(file)' | $Y info --json -")
        #expect(known.status == 0, "\(known.stderr)")
        let object = try #require(
            (try JSONSerialization.jsonObject(with: Data(known.stdout.utf8)) as? [[String: Any]])?.first)
        #expect(object["frames"] as? Int == 88_200 && object["stream"] as? Bool == true)
        // A streaming header: the length is unknown, which the text says.
        let streaming = try shell(
            "printf 'RIFF\\377\\377\\377\\377WAVEfmt \\020\\0\\0\\0\\001\\0\\001\\0\\100\\037\\0\\0\\200\\076\\0\\0"
                + "\\002\\0\\020\\0data\\377\\377\\377\\377' | cat - /dev/zero | head -c 16044 | $Y info -")
        #expect(streaming.status == 0, "\(streaming.stderr)")
        #expect(streaming.stdout.contains("8000 Hz") && streaming.stdout.contains("to the end of the stream"))
        #expect(!streaming.stdout.contains("warning"), "\(streaming.stdout)")
    }

    @Test(arguments: [
        (["play", "-", "--loop"], "plays once"), (["play", "-", "--loop-file"], "plays once"),
        (["play", "-", "--rate", "1.5"], "unavailable on a pipe"), (["play", "-", "-"], "can be given once"),
        (["stream", "-", "-", "--to", "rtp://127.0.0.1:5004"], "can be given once"),
        (["info", "-", "-"], "given once"),
    ])
    func optionsAPipeCannotHonourAreUsageErrors(arguments: [String], message: String) throws {
        defer { Paths.removeScratch(dir) }
        let file = try input(seconds: 0.1)
        let quoted = (arguments + (arguments[0] == "play" ? ["--sink", "null"] : [])).map { "'\($0)'" }
        let r = try shell("cat '\(file)' | $Y \(quoted.joined(separator: " ")) 2>&1 >/dev/null; echo \"exit=$?\"")
        #expect(r.stdout.contains(message) && r.stdout.contains("exit=64"), "\(r.stdout)")
    }

    /// Ctrl-C ends a play whose producer has gone quiet (mid-audio, then before any header): exit 130, quickly.
    @Test func interruptWhileTheProducerIsSilentExits130() throws {
        defer { Paths.removeScratch(dir) }
        let file = try input()
        for (index, prefix) in [50_000, 0].enumerated() {
            let fifo = path("fifo\(index)")
            #expect(mkfifo(fifo, 0o600) == 0)
            let player = try Run.launch(Paths.binary, ["play", fifo, "-q", "--sink", "fakesink sync=true"])
            // The writer sends `prefix` bytes, then keeps the FIFO open and says nothing more.
            let writer = try Run.launch(
                "/bin/sh", ["-c", "exec 3>'\(fifo)'; head -c \(prefix) '\(file)' >&3; sleep 30"])
            usleep(1_500_000)
            player.signal(SIGINT)
            let r = player.wait(timeout: 5)
            writer.signal(SIGKILL)
            _ = writer.wait(timeout: 5)
            #expect(r.termination == .exited(130) && !r.timedOut, "prefix \(prefix): \(r.termination) \(r.stderr)")
        }
    }

    /// A play whose output is a FIFO no one reads is held up opening it, where the first signal only asks it to
    /// stop: the second ends it at once (130 for SIGINT, 143 for SIGTERM) with one line saying so, and the FIFO is
    /// left as it was. Broken on purpose (the second signal only sets the flag again) it never exited.
    @Test(arguments: [(SIGINT, 130), (SIGTERM, 143)] as [(Int32, Int32)])
    func aSecondSignalEndsAPlayThatCannotStop(signal: Int32, status: Int32) throws {
        defer { Paths.removeScratch(dir) }
        let file = try input(seconds: 0.5)
        let fifo = path("unread")
        #expect(mkfifo(fifo, 0o600) == 0)
        let player = try Run.launch(Paths.binary, ["play", file, "-q", "--sink", "filesink location=\(fifo)"])
        #expect(player.waitUntilCatching(signal))
        usleep(1_000_000)  // into the open that waits for a reader
        player.signal(signal)
        usleep(500_000)
        player.signal(signal)
        let r = player.wait(timeout: 5)
        #expect(r.termination == .exited(status) && !r.timedOut, "\(r.termination) \(r.stderr)")
        #expect(r.stderr.contains("a second signal: exiting without waiting"), "\(r.stderr)")
        var info = stat()
        #expect(stat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
    }

    /// `cat FILE | yt-gst play -` in a terminal: keys come from /dev/tty (stdin is the audio); a seeking key says in
    /// one line that it is unavailable and playback goes on; q quits cleanly and the terminal is as it was.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/usr/bin/tmux"), "needs tmux"))
    func seekingKeysOnAPipeSayTheyAreUnavailable() throws {
        defer { Paths.removeScratch(dir) }
        let file = try input(seconds: 30)
        let pane = try TmuxPane("cat '\(file)' | \(Paths.binary) play - --sink 'fakesink sync=true'", dir: dir)
        defer { pane.close() }
        #expect(pane.waitForPosition { $0 >= 1 } != nil, "\(pane.screen)")
        try pane.send("Right")
        #expect(pane.waitFor("seeking is unavailable on a pipe"), "\(pane.screen)")
        try pane.send("0")
        #expect(pane.waitForPosition { $0 >= 2 } != nil, "playback went on: \(pane.screen)")
        try pane.send("q")
        #expect(pane.waitFor("EXIT=0"), "\(pane.screen)")
        #expect(try pane.sttyUnchanged())
    }
}
