// yt-gst — on PulseAudio, a seek after pauses and resumes is heard: pulsesink's clock never takes libpulse's wrapped
// stream time (see PulseStreamClock.connectPlayback).
import Foundation
import Synchronization
import TestSupport
import Testing

@Suite(.serialized) struct PulseOutputSeekTests {
    static let pulse = ProcessInfo.processInfo.environment["PULSE_SERVER"]
    static let sinkName = ProcessInfo.processInfo.environment["YT_GST_PULSE_SINK"] ?? "spk"
    static let rate = 48_000

    /// Reading the clock while a stream resumes is what once caught libpulse's wrapped time (about 1 resume in 5
    /// with time-pos asked for all along); from then on the clock stood still at 10^15 s and a seek was never
    /// heard. Here 30 resumes with time-pos asked for all along, then a seek that must be heard for a second.
    @Test(.enabled(if: pulse != nil, "needs the private PulseAudio that `make test` starts"))
    func seekAfterResumesIsHeard() throws {
        let dir = try Paths.makeScratch("pulse-seek")
        defer { Paths.removeScratch(dir) }
        let input = try SyntheticWAV.positionCoded(frames: Self.rate * 40, rate: Self.rate)
            .write(to: dir.appendingPathComponent("coded.wav"))
        let socket = dir.appendingPathComponent("yt.sock").path
        let recording = dir.appendingPathComponent("rec.wav").path
        let recorder = try Run.launch(
            "/usr/bin/parec",
            [
                "-d", "\(Self.sinkName).monitor", "--rate=\(Self.rate)", "--channels=2", "--format=float32le",
                "--file-format=wav", recording,
            ])
        defer { if recorder.isRunning { recorder.signal(SIGKILL) } }
        let player = try Run.launch(Paths.binary, ["play", input, "--status", "none", "--input-ipc-server", socket])
        defer { if player.isRunning { player.signal(SIGKILL) } }
        let client = try IPCTestClient(path: socket)
        let deadline = Date().addingTimeInterval(10)
        while (client.get("time-pos") as? Double ?? 0) < 0.3 && Date() < deadline { usleep(20_000) }

        let asking = AskingForTimePos(socket: socket)
        for _ in 0..<30 {
            #expect(client.request(["set_property", "pause", true])?["error"] as? String == "success")
            usleep(150_000)
            #expect(client.request(["set_property", "pause", false])?["error"] as? String == "success")
            usleep(350_000)
        }
        asking.stop()
        #expect(asking.answers > 150, "time-pos was asked for \(asking.answers) times")
        #expect(client.request(["seek", 30, "absolute"])?["error"] as? String == "success")
        usleep(1_500_000)
        #expect(client.request(["quit"])?["error"] as? String == "success")
        let played = player.wait(timeout: 20)
        #expect(played.termination == .exited(0), "\(played.stderr)")
        usleep(300_000)
        recorder.signal(SIGINT)  // parec writes its WAV header on SIGINT
        _ = recorder.wait(timeout: 5)

        let runs = PlayedRuns(interleaved: try RecordedWAV(path: recording).floats).runs
        // From second 30 on (a flushing seek's first tens of milliseconds may be lost as the sink starts again).
        let target = 30 * Self.rate
        #expect(
            runs.contains { (target..<target + Self.rate / 10).contains($0.fileStart) && $0.frames >= Self.rate },
            "second 30 was not heard for a second after the seek: \(runs.suffix(5))")
    }
}

/// A second IPC client asking for time-pos without a pause, on a thread of its own, until stopped.
private final class AskingForTimePos: Sendable {
    private let stopped = Atomic<Bool>(false)
    private let count = Atomic<Int>(0)
    private let done = DispatchSemaphore(value: 0)

    init(socket: String) {
        Thread { [self] in
            defer { done.signal() }
            guard let client = try? IPCTestClient(path: socket) else { return }
            while !stopped.load(ordering: .relaxed) {
                if client.get("time-pos") != nil { count.add(1, ordering: .relaxed) }
            }
        }.start()
    }

    var answers: Int { count.load(ordering: .relaxed) }

    func stop() {
        stopped.store(true, ordering: .relaxed)
        done.wait()
    }
}
