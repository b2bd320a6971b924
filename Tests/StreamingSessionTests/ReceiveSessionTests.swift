// yt-gst — the receive session as a library user runs it: every way it ends, and its commands on the running
// pipeline, with tiny real pipelines on loopback (no namespace, no PulseAudio).
import Foundation
import GstPlayer
import Streaming
import TestSupport
import Testing

@Suite(.serialized) struct ReceiveSessionTests {
    /// A port pair (RTP, RTCP) and the clock port above them, on loopback, that no other test uses.
    static func port() -> Int { 20_000 + 4 * Int.random(in: 0..<9_000) }

    /// A receiver of rtp://@:`port` into `output`, unsynchronised unless `synchronised`, ending after `timeout`
    /// without data.
    static func configuration(
        port: Int, output: String = "fakesink", synchronised: Bool = false, timeout: Duration? = .seconds(5)
    ) -> ReceiveSession.Configuration {
        var configuration = ReceiveSession.Configuration(source: .rtp(RTPEndpoint(host: nil, port: port, listen: true)))
        configuration.output = output
        configuration.synchronised = synchronised
        configuration.timeout = timeout
        return configuration
    }

    /// Sends `seconds` of a 0.5 sine as L16 stereo 44.1 kHz to 127.0.0.1:`port` in real time, with RTCP; at its end
    /// rtpbin sends a BYE. Stopped when released.
    final class Sender {
        let pipeline: Pipeline

        init(port: Int, seconds: Int) throws {
            Gst.initialize()
            pipeline = try Pipeline(
                launch: "audiotestsrc is-live=true wave=sine volume=0.5 samplesperbuffer=441 "
                    + "num-buffers=\(seconds * 100) ! audio/x-raw,format=S16BE,rate=44100,channels=2 ! rtpL16pay pt=10 ! "
                    + "rb.send_rtp_sink_0 "
                    + "rtpbin name=rb rb.send_rtp_src_0 ! udpsink host=127.0.0.1 port=\(port) "
                    + "rb.send_rtcp_src_0 ! udpsink host=127.0.0.1 port=\(port + 1) sync=false async=false")
            try pipeline.setState(.playing)
        }

        deinit { _ = try? pipeline.setState(.null) }
    }

    /// Runs `session` on this thread, with a limit: a stop is sent after `limit` so that no test can hang.
    static func run(
        _ session: ReceiveSession, limit: Duration = .seconds(30)
    ) throws(StreamingError)
        -> (ending: ReceiveSession.Ending, took: Duration)
    {
        let control = session.control
        let watchdog = DispatchWorkItem { control.stop(.requested) }
        DispatchQueue.global().asyncAfter(deadline: .now() + limit / .seconds(1), execute: watchdog)
        defer { watchdog.cancel() }
        let start = ContinuousClock.now
        let ending = try session.run()
        return (ending, ContinuousClock.now - start)
    }

    @Test func theSenderFinishingEndsItWithTheOutputFinalised() throws {
        let port = Self.port()
        let sender = try Sender(port: port, seconds: 1)
        let session = ReceiveSession(Self.configuration(port: port)) { _ in }
        let (ending, _) = try Self.run(session)
        #expect(ending.reason == .senderFinished && ending.finalised)
        let stats = try #require(ending.stats)
        #expect(stats.isRTP && stats.received > 50 && stats.audio.duration.seconds > 0.5, "\(stats)")
        _ = sender
    }

    @Test(arguments: [false, true])
    func noDataEndsItAtTheTimeout(synchronised: Bool) throws {
        // Synchronised, the session waits for the sender's first packet before its pipeline plays.
        let configuration = Self.configuration(
            port: Self.port(), output: "fakesink sync=true", synchronised: synchronised, timeout: .milliseconds(500))
        let (ending, took) = try Self.run(ReceiveSession(configuration) { _ in })
        #expect(ending.reason == .timedOut && !ending.finalised)
        #expect((ending.stats == nil) == synchronised, "no pipeline ran while waiting for the first packet")
        #expect(took < .seconds(5), "\(took)")
    }

    @Test(arguments: [false, true])
    func aStopFromAnotherThreadEndsItPromptly(synchronised: Bool) throws {
        let configuration = Self.configuration(
            port: Self.port(), output: "fakesink sync=true", synchronised: synchronised, timeout: nil)
        let session = ReceiveSession(configuration) { _ in }
        let control = session.control
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { control.stop(.interrupted(SIGINT)) }
        let (ending, took) = try Self.run(session)
        #expect(ending.reason == .stopped(.interrupted(SIGINT)))
        #expect(took < .seconds(3), "\(took)")
    }

    /// An output that fails as the audio comes (a file on a full device): the error ends the stream, naming the URL.
    @Test func anErrorInTheStreamEndsItAsFailed() throws {
        let port = Self.port()
        let sender = try Sender(port: port, seconds: 3)
        let configuration = Self.configuration(port: port, output: "filesink location=/dev/full")
        let (ending, _) = try Self.run(ReceiveSession(configuration) { _ in })
        #expect(ending.reason == .failed)
        guard case .stream(_, let url, _, _)? = ending.failure else {
            Issue.record("failure: \(String(describing: ending.failure))")
            return
        }
        #expect(url == "rtp://@:\(port)")
        _ = sender
    }

    /// An error before the pipeline plays is thrown, with the URL and the element's error.
    @Test func anOutputThatCannotOpenIsThrown() throws {
        let configuration = Self.configuration(
            port: Self.port(), output: "wavenc ! filesink location=/nonexistent/x.wav")
        let error = #expect(throws: StreamingError.self) { try Self.run(ReceiveSession(configuration) { _ in }) }
        guard case .stream(let cause, _, _, _)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(cause.elementName?.hasPrefix("filesink") == true, "\(cause)")
    }

    /// Volume and mute sent while the audio plays change what reaches the output: full level, a quarter, then
    /// silence, in that order. A delay asked of an unsynchronised receiver is refused with a warning.
    @Test func volumeAndMuteChangeTheReceivedLevel() throws {
        let directory = try Paths.makeScratch("receive-volume")
        defer { Paths.removeScratch(directory) }
        let path = directory.appendingPathComponent("out.wav").path
        let port = Self.port()
        var configuration = Self.configuration(port: port, output: "audioconvert ! wavenc ! filesink location=\(path)")
        configuration.statusInterval = .milliseconds(20)
        let sender = try Sender(port: port, seconds: 2)
        var stepsTaken = 0
        var refusedDelay = false
        var control: ReceiveSession.Control?
        let session = ReceiveSession(configuration) { event in
            switch event {
            case .status(let status):
                let seconds = status.stats.audio.duration.seconds
                if stepsTaken == 0 && seconds >= 0.5 {
                    control?.setVolume(0.25)
                    control?.setDelay(milliseconds: 20)
                    stepsTaken = 1
                } else if stepsTaken == 1 && seconds >= 1.2 {
                    control?.setMute(true)
                    stepsTaken = 2
                }
            case .warning(.delayNeedsSync):
                refusedDelay = true
            default:
                break
            }
        }
        control = session.control
        let (ending, _) = try Self.run(session)
        _ = sender
        #expect(ending.reason == .senderFinished && ending.finalised && stepsTaken == 2)
        #expect(refusedDelay)
        let peaks = try Self.peaks(ofWAV: path, window: 4_410)  // 0.1 s windows
        let full = peaks.firstIndex { abs($0 - 16_383) < 200 }
        let quarter = peaks.firstIndex { abs($0 - 4_096) < 100 }
        let silent = peaks.lastIndex { $0 == 0 }
        #expect(full != nil && quarter != nil && silent != nil, "\(peaks)")
        if let full, let quarter, let silent { #expect(full < quarter && quarter < silent, "\(peaks)") }
    }

    /// Volume and mute reach the output within 100 ms of the call (at the session's end: the output's own latency
    /// comes on top) along a short ramp: around each change no sample steps further from the last than the sine
    /// itself does (a step in gain would: a click).
    @Test func volumeAndMuteRampWithoutAClick() throws {
        let directory = try Paths.makeScratch("receive-ramp")
        defer { Paths.removeScratch(directory) }
        let path = directory.appendingPathComponent("out.wav").path
        let port = Self.port()
        var configuration = Self.configuration(port: port, output: "audioconvert ! wavenc ! filesink location=\(path)")
        configuration.statusInterval = .milliseconds(20)
        let sender = try Sender(port: port, seconds: 3)
        // At these seconds of audio received: the volume to a quarter, mute, unmute; the frame where each was asked.
        let script: [(at: Double, level: Int, command: (ReceiveSession.Control) -> Void)] = [
            (0.6, 4_096, { $0.setVolume(0.25) }), (1.2, 0, { $0.setMute(true) }), (1.8, 4_096, { $0.setMute(false) }),
        ]
        var asked: [Int] = []
        var control: ReceiveSession.Control?
        let session = ReceiveSession(configuration) { event in
            guard case .status(let status) = event, asked.count < script.count, let control else { return }
            let received = status.stats.audio.duration
            guard received.seconds >= script[asked.count].at else { return }
            asked.append(Int(received.frames(rate: 44_100)))
            script[asked.count - 1].command(control)
        }
        control = session.control
        let (ending, _) = try Self.run(session)
        _ = sender
        #expect(ending.reason == .senderFinished && ending.finalised && asked.count == script.count)
        let left = try RecordedWAV(path: path).int16s.enumerated().filter { $0.offset % 2 == 0 }.map { Int($0.element) }
        func peak(_ range: Range<Int>) -> Int { left[range.clamped(to: left.indices)].map(abs).max() ?? -1 }
        func steepest(_ range: Range<Int>) -> Int {
            let range = range.clamped(to: 1..<left.count)
            return range.map { abs(left[$0] - left[$0 - 1]) }.max() ?? 0
        }
        // The sine's own steepest step at full level (2π·440/44100 of 16383, about 1027).
        let sine = steepest(4_410..<22_050)
        #expect(abs(peak(4_410..<22_050) - 16_383) < 200 && sine > 900 && sine < 1_100, "sine \(sine)")
        for (frame, step) in zip(asked, script) {
            let after = peak(frame + 4_410..<frame + 8_820)  // 100 to 200 ms after the call
            #expect(abs(after - step.level) < 100, "\(after) after the call at frame \(frame), not \(step.level)")
            let click = steepest(frame - 2_205..<frame + 8_820)
            #expect(click <= sine + sine / 10, "a step of \(click) near frame \(frame) (the sine's: \(sine))")
        }
    }

    /// The largest absolute sample of each window of `window` frames of a 16-bit stereo WAV written by wavenc.
    static func peaks(ofWAV path: String, window: Int) throws -> [Int] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        guard bytes.count > 44 else { return [] }
        let samples = stride(from: 44, to: bytes.count - 1, by: 2).map {
            Int(Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8))
        }
        return stride(from: 0, to: samples.count, by: 2 * window).map { start in
            samples[start..<min(start + 2 * window, samples.count)].map { abs($0) }.max() ?? 0
        }
    }
}
