// yt-gst — the receive loop's decisions on the embedded bus with a recording stand-in for its pipeline: every way
// a stream ends (the sender finished, the timeout, a stop, an error) and the commands, with no network and no output.
import Dispatch
import Foundation
import GstPlayer
import GstPlayerTesting
import Testing

@testable import Streaming

@Suite struct ReceiveLogicLoopTests {
    /// A receiver's pipeline as the loop sees it: counts the test sets, a bus the test posts into, and a log of what
    /// the loop did to it. End of stream sent in reaches the bus (the output is finalised) unless `finalisesAfter`
    /// says after how many sends.
    final class StandInOutput: ReceiveOutput {
        enum Operation: Equatable {
            case start, stop, setVolume(Double), setMute(Bool), endStream(afterSources: Bool)
        }

        let bus = EmbeddedBus<Message>()
        private(set) var operations: [Operation] = []
        var audio: FlowCounter.Snapshot? = nil
        var arrivals = 0
        var jitterBufferStats: Structure? = nil
        var finalisesAfter: Int? = 1
        /// What `start` says went less well.
        var startWarnings: [StreamingWarning] = []

        /// `buffers` of decoded audio (and as many arrivals) so far.
        init(buffers: Int = 10) {
            var audio = FlowCounter.Snapshot()
            audio.buffers = buffers
            self.audio = audio
            arrivals = buffers
        }

        func start() throws(GstError) -> [StreamingWarning] {
            operations.append(.start)
            return startWarnings
        }
        func stop() { operations.append(.stop) }
        func setVolume(_ volume: Double) { operations.append(.setVolume(volume)) }
        func setMute(_ muted: Bool) { operations.append(.setMute(muted)) }

        func endStream(afterSources: Bool) {
            operations.append(.endStream(afterSources: afterSources))
            let sent = operations.filter { if case .endStream = $0 { true } else { false } }.count
            if sent == finalisesAfter { bus.post(.endOfStream()) }
        }

        var eventDescriptor: Int32? { bus.eventDescriptor }
        func nextEvent(timeout: Duration) -> Message? { bus.nextEvent(timeout: timeout) }
    }

    static let rtp = ReceivePlan.rtp(address: nil, port: 5004, rtcpPort: 5005, caps: nil)
    static let srtEndpoint = SRTEndpoint(host: "127.0.0.1", port: 7001)
    static let srt = ReceivePlan.srt(srtEndpoint)

    static func configuration(_ plan: ReceivePlan) -> ReceiveSession.Configuration {
        switch plan {
        case .rtp: ReceiveSession.Configuration(source: .rtp(RTPEndpoint(host: nil, port: 5004, listen: true)))
        case .srt(let endpoint): ReceiveSession.Configuration(source: .srt(endpoint))
        }
    }

    /// Runs the loop over `output` until it ends, `react` answering each event (on the loop's thread, as a program
    /// would); a stop sent after 15 s (unless it ended) keeps a broken loop from hanging the suite.
    static func receive(
        _ plan: ReceivePlan, _ output: StandInOutput, configuration: ReceiveSession.Configuration? = nil,
        packetGuard: RTPPacketGuard? = nil, before: (ReceiveSession.Control) -> Void = { _ in },
        react: @escaping (ReceiveSession.Event, ReceiveSession.Control) -> Void = { _, _ in }
    ) -> (result: Result<ReceiveSession.Ending, StreamingError>, events: [ReceiveSession.Event]) {
        Gst.initialize()
        var events: [ReceiveSession.Event] = []
        var control: ReceiveSession.Control?
        let session = ReceiveSession(configuration ?? Self.configuration(plan)) { event in
            events.append(event)
            if let control { react(event, control) }
        }
        control = session.control
        before(session.control)
        // Cancelled once the loop is over: a command wakes the process's main loop, whichever test runs it.
        let guardStop = DispatchWorkItem { [control = session.control] in control.stop() }
        DispatchQueue.global().asyncAfter(deadline: .now() + 15, execute: guardStop)
        defer { guardStop.cancel() }
        let loop = ReceiveLoop(session: session, output: output, plan: plan, packetGuard: packetGuard, sync: nil)
        let result = Result { () throws(StreamingError) in try loop.run() }
        return (result, events)
    }

    // MARK: The sender finished

    @Test func anRTCPByeEndsTheStreamAsTheSenderFinishedOnceTheLastPacketsAreIn() throws {
        let output = StandInOutput()
        output.bus.post(.application(name: ApplicationMessage.rtpBye.rawValue, fields: [("ssrc", .int(1234))]))
        let started = ContinuousClock.now
        let (result, _) = Self.receive(Self.rtp, output)
        let ending = try result.get()
        #expect(ending.reason == .senderFinished && ending.failure == nil && ending.finalised)
        #expect(output.operations == [.start, .endStream(afterSources: false), .stop])
        #expect(ContinuousClock.now - started >= .milliseconds(100), "the end went in before the last packets")
    }

    @Test func aByeFromAnotherSourceThanTheStreamsIsIgnored() throws {
        let output = StandInOutput()
        let packetGuard = RTPPacketGuard(caps: nil)
        // The stream's first packet (L16 stereo, payload type 10) locks it on SSRC 1234.
        let packet: [UInt8] = [0x80, 10, 0, 1, 0, 0, 0, 0, 0, 0, 0x04, 0xD2] + [UInt8](repeating: 0, count: 400)
        #expect(packet.withUnsafeBytes { packetGuard.verdict(on: $0) } == .pass)
        output.bus.post(.application(name: ApplicationMessage.rtpBye.rawValue, fields: [("ssrc", .int(99))]))
        var configuration = Self.configuration(Self.rtp)
        configuration.statusInterval = .milliseconds(1)
        // A stop once the BYE was answered: a BYE taken as the stream's would have ended it first.
        let (result, _) = Self.receive(
            Self.rtp, output, configuration: configuration, packetGuard: packetGuard,
            react: { if case .status = $0 { $1.stop(.requested) } })
        #expect(try result.get().reason == .stopped(.requested))
    }

    @Test func srtsEndMarkerEndsAsTheSenderFinishedAndAClosedConnectionWithoutItFails() throws {
        let finished = StandInOutput()
        finished.bus.post(.application(name: ApplicationMessage.senderFinished.rawValue))
        finished.bus.post(.endOfStream())
        let ending = try Self.receive(Self.srt, finished).result.get()
        #expect(ending.reason == .senderFinished && ending.failure == nil && ending.finalised)
        #expect(finished.operations == [.start, .stop], "the sender's end marker is end of stream already")

        let closed = StandInOutput()
        closed.bus.post(.endOfStream())
        let lost = try Self.receive(Self.srt, closed).result.get()
        #expect(lost.reason == .failed && lost.finalised)
        guard case .connectionClosed(let url)? = lost.failure else {
            Issue.record("expected connectionClosed, got \(String(describing: lost.failure))")
            return
        }
        #expect(url == "srt://127.0.0.1:7001")
    }

    // MARK: The timeout

    @Test func udpsrcsTimeoutEndsTheStreamAsTimedOutWithTheOutputFinalised() throws {
        let output = StandInOutput()
        output.bus.post(.element(Structure(name: "GstUDPSrcTimeout", fields: [("timeout", .int(5_000_000_000))])))
        let ending = try Self.receive(Self.rtp, output).result.get()
        #expect(ending.reason == .timedOut && ending.finalised && ending.failure == nil)
        #expect(output.operations == [.start, .endStream(afterSources: false), .stop])
    }

    @Test func overSRTNothingArrivingForTheTimeoutEndsTheStream() throws {
        let output = StandInOutput()
        var configuration = Self.configuration(Self.srt)
        configuration.timeout = .milliseconds(300)
        let started = ContinuousClock.now
        let ending = try Self.receive(Self.srt, output, configuration: configuration).result.get()
        let waited = ContinuousClock.now - started
        #expect(ending.reason == .timedOut && ending.finalised)
        #expect(output.operations == [.start, .endStream(afterSources: true), .stop])
        #expect(waited >= .milliseconds(300) && waited < .seconds(5), "ended after \(waited)")
    }

    @Test func aTimeoutWithNothingReceivedEndsWithNothingToFinalise() throws {
        let output = StandInOutput(buffers: 0)
        output.bus.post(.element(Structure(name: "GstUDPSrcTimeout", fields: [])))
        let ending = try Self.receive(Self.rtp, output).result.get()
        #expect(ending.reason == .timedOut && !ending.finalised && ending.failure == nil)
        #expect(output.operations == [.start, .stop], "no end of stream for an output that got nothing")
    }

    // MARK: A stop (a signal)

    @Test func aSignalsStopEndsTheStreamAsStoppedWithTheOutputFinalised() throws {
        let output = StandInOutput()
        var statuses: [ReceiveSession.Status.State] = []
        var configuration = Self.configuration(Self.rtp)
        configuration.statusInterval = .milliseconds(1)
        let (result, _) = Self.receive(
            Self.rtp, output, configuration: configuration,
            react: { event, control in
                guard case .status(let status) = event else { return }
                statuses.append(status.state)
                if statuses.count == 1 { control.stop(.interrupted(SIGINT)) }
            })
        let ending = try result.get()
        #expect(ending.reason == .stopped(.interrupted(SIGINT)) && ending.finalised && ending.failure == nil)
        #expect(output.operations == [.start, .endStream(afterSources: false), .stop])
        #expect(statuses.first == .receiving && statuses.dropFirst().allSatisfy { $0 == .finishing })
    }

    @Test func anOutputThatDoesNotFinishIsGivenEndOfStreamAfterTheSourcesThenGivenUpOn() throws {
        var configuration = Self.configuration(Self.rtp)
        configuration.latencyMilliseconds = 0
        let forced = StandInOutput()
        forced.finalisesAfter = 2
        let ending = try Self.receive(Self.rtp, forced, configuration: configuration, before: { $0.stop() })
            .result.get()
        #expect(ending.reason == .stopped(.requested) && ending.finalised && ending.failure == nil)
        #expect(forced.operations == [.start, .endStream(afterSources: false), .endStream(afterSources: true), .stop])

        let stuck = StandInOutput()
        stuck.finalisesAfter = nil
        let givenUp = try Self.receive(Self.rtp, stuck, configuration: configuration, before: { $0.stop() })
            .result.get()
        #expect(givenUp.reason == .stopped(.requested) && !givenUp.finalised)
        guard case .couldNotFinalise(let url, let limit)? = givenUp.failure else {
            Issue.record("expected couldNotFinalise, got \(String(describing: givenUp.failure))")
            return
        }
        #expect(url == "rtp://@:5004" && limit == .seconds(2))
    }

    // MARK: An error

    @Test func anErrorFinalisesWhatArrivedAndEndsWithTheTypedError() throws {
        let output = StandInOutput()
        let problem = GstError(
            kind: .stream, message: "decoding failed", elementPath: "/GstPipeline:p/GstDecodeBin:decode")
        output.bus.post(.error(problem))
        let ending = try Self.receive(Self.rtp, output).result.get()
        #expect(ending.reason == .failed && ending.finalised)
        #expect(
            output.operations == [.start, .endStream(afterSources: true), .stop], "after an error: after the sources")
        guard case .stream(let error, let url, nil, false)? = ending.failure else {
            Issue.record("expected the stream's error, got \(String(describing: ending.failure))")
            return
        }
        #expect(error.message == "decoding failed" && error.elementName == "decode" && url == "rtp://@:5004")
    }

    @Test func overSRTAnErrorBeforeAnyAudioEndsTheSessionAtOnce() {
        let output = StandInOutput(buffers: 0)
        output.bus.post(.error(GstError(kind: .stream, message: "Connection does not exist")))
        let (result, _) = Self.receive(Self.srt, output)
        guard case .failure(.stream(let error, let url, let endpoint, let connected)) = result else {
            Issue.record("expected the stream's error thrown, got \(result)")
            return
        }
        #expect(error.message == "Connection does not exist" && url == "srt://127.0.0.1:7001")
        #expect(endpoint == Self.srtEndpoint && !connected)
        #expect(output.operations == [.start, .stop])
    }

    @Test func aRejectedSRTCallerEndsAListenerBeforeAnyAudio() {
        let output = StandInOutput(buffers: 0)
        let line = "processConnectRequest: rsp(REJECT): 1010 - Incorrect passphrase"
        output.bus.post(
            .application(name: ApplicationMessage.srtRejected.rawValue, fields: [("text", .string(line))]))
        let (result, _) = Self.receive(.srt(SRTEndpoint(host: nil, port: 7001)), output)
        guard case .failure(.srtRejected(let reason, let url)) = result else {
            Issue.record("expected srtRejected, got \(result)")
            return
        }
        #expect(reason == .badSecret && url == "srt://:7001")
    }

    // MARK: Commands and reports

    @Test func volumeAndMuteReachTheOutputWithinRangeAndADelayWithoutSyncIsAWarning() throws {
        let output = StandInOutput()
        output.bus.post(.warning(GstError(kind: .stream, message: "late packets")))
        output.bus.post(.warning(GstError(kind: .stream, message: "late packets")))
        let (result, events) = Self.receive(
            Self.rtp, output,
            before: { control in
                control.setVolume(0.5)
                control.setVolume(12)
                control.setVolume(-1)
                control.setMute(true)
                control.setDelay(milliseconds: 40)
                control.stop()
            })
        #expect(try result.get().reason == .stopped(.requested))
        #expect(
            output.operations == [
                .start, .setVolume(0.5), .setVolume(10), .setVolume(0), .setMute(true),
                .endStream(afterSources: false), .stop,
            ])
        let warnings = events.compactMap { if case .warning(let warning) = $0 { warning } else { nil } }
        #expect(warnings.count == 2, "one delayNeedsSync and the repeated pipeline warning once: \(warnings)")
        #expect(warnings.contains { if case .delayNeedsSync = $0 { true } else { false } })
    }

    /// An output the audio server placed too late (`ReceiverSync.waitForOutputPositions` reached its limit) is
    /// reported, once, as the session starts.
    @Test func anOutputNotPlacedInTimeIsAWarning() throws {
        let output = StandInOutput()
        output.startWarnings = [.outputNotPlaced(milliseconds: 60)]
        let (result, events) = Self.receive(Self.rtp, output, before: { control in control.stop() })
        #expect(try result.get().reason == .stopped(.requested))
        let warnings = events.compactMap { if case .warning(let warning) = $0 { warning } else { nil } }
        #expect(warnings.count == 1, "\(warnings)")
        #expect(warnings.contains { if case .outputNotPlaced(60) = $0 { true } else { false } })
    }
}
