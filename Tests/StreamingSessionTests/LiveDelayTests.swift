// yt-gst — a synchronised receiver's delay changed while it plays (what the control service's Client.SetLatency
// does): its output moves by the change, with no gap and no jump beyond it, heard at a private PulseAudio's sink.
import Foundation
import GstPlayer
import Streaming
import TestSupport
import Testing

@Suite(
    .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["PULSE_SERVER"] != nil, "needs scripts/with-pulseaudio.sh"))
struct LiveDelayTests {
    /// A stream of noise from `yt-gst stream` to an in-process synchronised receiver that plays into a 44.1 kHz
    /// null sink of its own (so what is recorded is the samples sent, bit for bit); the delay goes to +40 ms, then
    /// back to 0. Where each recorded millisecond is in the file shows the output's lag: it steps by +40 ms (the
    /// output plays that much silence once) and by -40 ms (it skips as much), and moves no other way.
    @Test func aDelayChangedWhilePlayingMovesTheOutputByTheChange() throws {
        let dir = try Paths.makeScratch("live-delay")
        defer { Paths.removeScratch(dir) }
        let sink = "delay\(getpid())"
        let module = try Run.run(
            "/usr/bin/pactl", ["load-module", "module-null-sink", "sink_name=\(sink)", "rate=44100", "channels=2"])
        try #require(module.status == 0, "\(module.stderr)")
        defer {
            _ = try? Run.run(
                "/usr/bin/pactl", ["unload-module", module.stdout.trimmingCharacters(in: .whitespacesAndNewlines)])
        }
        let noise = SyntheticWAV.noise(frames: 9 * 44_100, seed: 7)
        let file = try noise.write(to: dir.appendingPathComponent("noise.wav"))
        let recording = dir.appendingPathComponent("rec.wav").path
        let recorder = try Run.launch(
            "/usr/bin/parec",
            ["-d", "\(sink).monitor", "--rate=44100", "--channels=2", "--format=s16le", "--file-format=wav", recording])
        defer { if recorder.isRunning { recorder.signal(SIGKILL) } }
        let port = ReceiveSessionTests.port()
        var configuration = ReceiveSessionTests.configuration(
            port: port, output: "pulsesink device=\(sink)", synchronised: true, timeout: .seconds(5))
        configuration.statusInterval = .milliseconds(50)
        // Room for a busy machine (the default 80 ms gave a 21 ms dropout once in 7 runs at a load of 10).
        configuration.latencyMilliseconds = 200
        let sender = try Run.launch(Paths.binary, ["stream", "-q", file, "--to", "rtp://127.0.0.1:\(port)"])
        defer { _ = sender.wait(timeout: 10) }
        // At these seconds of audio received (the output starts some way into it, up to a second on a busy machine).
        var changes: [(at: Double, delay: Int)] = [(4, 40), (6.5, 0)]
        var control: ReceiveSession.Control?
        let session = ReceiveSession(configuration) { event in
            guard case .status(let status) = event, let next = changes.first,
                status.stats.audio.duration.seconds >= next.at
            else { return }
            control?.setDelay(milliseconds: next.delay)
            changes.removeFirst()
        }
        control = session.control
        let (ending, _) = try ReceiveSessionTests.run(session)
        usleep(300_000)  // the output's last samples
        recorder.signal(SIGINT)  // parec writes its WAV header on SIGINT
        _ = recorder.wait(timeout: 5)
        #expect(ending.reason == .senderFinished && changes.isEmpty, "\(ending.reason), left: \(changes)")
        let lags = Self.lags(of: try RecordedWAV(path: recording).data, in: noise)
        // From two seconds after the first sound on (the output first aligns itself, by up to ~170 ms on a busy
        // machine: issue 22), to the last; the first change comes later than that.
        let first = try #require(lags.firstIndex { $0 != nil }, "nothing of the file was heard")
        let steady = Array(lags[(first + 2_000)...(lags.lastIndex { $0 != nil } ?? first)])
        let (steps, gaps) = Self.changes(steady)
        print("live delay: lag steps (frames at ms) \(steps), gaps (ms ending at ms) \(gaps)")
        #expect(
            steps.count == 2 && abs(steps[0].frames - 1_764) <= 44 && abs(steps[1].frames + 1_764) <= 44,
            "lag steps \(steps)")
        // Silence where the lag grew, for as long as it grew. Other dropouts are not the delay's: they move no lag
        // (the steps above are the only ones), and the receiver's dropouts of tens of ms (a CI run on a quiet
        // machine: 27, 35 and 83 ms) are issue 22's, still open; here they are only bounded.
        let atTheIncrease = gaps.first { $0.end == steps.first?.at }
        #expect(atTheIncrease.map { (35...45).contains($0.milliseconds) } == true, "gaps \(gaps)")
        #expect(gaps.allSatisfy { $0.milliseconds <= 100 }, "gaps \(gaps)")
    }

    /// For each millisecond of the recording (every 44th frame), how many frames it plays behind the file's
    /// frame there (nil: not a stretch of the file, as silence).
    static func lags(of recording: [UInt8], in file: SyntheticWAV) -> [Int?] {
        var places: [UInt64: Int] = [:]
        file.samples.withUnsafeBytes { bytes in
            for frame in 0..<(file.frames - 1) {
                places[bytes.loadUnaligned(fromByteOffset: frame * 4, as: UInt64.self)] = frame
            }
        }
        return recording.withUnsafeBytes { bytes in
            stride(from: 0, to: recording.count / 4 - 1, by: 44).map { frame in
                places[bytes.loadUnaligned(fromByteOffset: frame * 4, as: UInt64.self)].map { frame - $0 }
            }
        }
    }

    /// The steps of the lag larger than a few frames (the output's own corrections move it by one), and the
    /// stretches longer than 1 ms that are not the file, each with the millisecond where it ends.
    static func changes(_ lags: [Int?]) -> (steps: [(frames: Int, at: Int)], gaps: [(milliseconds: Int, end: Int)]) {
        var steps: [(frames: Int, at: Int)] = []
        var gaps: [(milliseconds: Int, end: Int)] = []
        var last: Int?
        var missing = 0
        for (index, lag) in lags.enumerated() {
            guard let lag else {
                missing += 1
                continue
            }
            if missing > 1 { gaps.append((missing, index)) }
            if let last, abs(lag - last) > 4 { steps.append((lag - last, index)) }
            missing = 0
            last = lag
        }
        return (steps, gaps)
    }
}
