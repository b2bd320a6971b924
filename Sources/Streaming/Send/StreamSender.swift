// yt-gst — a stream's control loop: the built pipeline from its start to the last sample out.
import AppSrcFeeder
import GstPlayer
import WAV

/// The running part of a `StreamSession`: one loop that reads the bus and the commands, does what is due, and
/// sleeps in `MainLoop.wait` until the next message or command, or until something has to be looked at: a status
/// tick, SRT's first acknowledgement, the last RTP packet (not before the stream's duration has played), the RTCP
/// end a second after it, and the grace period after a stop.
final class StreamSender: SessionLoopHandler {
    typealias Command = StreamSession.Command
    typealias Ending = StreamSession.Ending
    typealias Failure = StreamingError
    private let session: StreamSession
    private let pipeline: Pipeline
    private let chain: GaplessChain
    private let plan: StreamPlan
    /// The duration of all the files (nil when a pipe's is unknown, or once a jump left the list's order).
    private var total: ClockTime?
    /// The appsrc: its pad's offset places the audio after a pause or a jump.
    private let source: Element?
    /// srtsink, for SRT.
    private let net: Element?
    /// The RTP udpsink: end of stream there means the last packet left.
    private let rtpSink: Element?
    /// Whether an SRT connection came up (a caller arrived, or the receiver acknowledged packets): an error after
    /// that is a broken connection, before it a failure to connect.
    private var connected = false
    /// An SRT listener waits, paused, until a receiver calls.
    private var waitingForCaller = false
    /// Since when the stream is paused (`Command.pause`), if it is.
    private var pausedSince: ContinuousClock.Instant?
    /// After a stop: why, and how long to wait for the end of stream (RTP sends its BYE).
    private var stopping: (reason: StopReason, deadline: ContinuousClock.Instant)? = nil
    /// When end of stream reached the RTP sink; the RTCP sink gets its own a second later if it is still running.
    private var rtpFinishedAt: ContinuousClock.Instant? = nil
    private var rtcpEnded = false
    private var nextStatus = ContinuousClock.now
    /// The file last announced (a repeat of it is announced again).
    private var shown: GaplessChain.Segment?
    /// What follows the file going out, as last set.
    private var loop = LoopMode.none
    private var shuffle = false
    /// The gain of what goes out (nil if the pipeline had no volume to ramp).
    private let gain: VolumeRamp?
    /// The count of reads that waited for a pipe's producer at the last look, when to look again, and whether the
    /// sender now sends as the input arrives.
    private var pacing: (waits: Int, nextCheck: ContinuousClock.Instant, byInput: Bool)

    init(
        session: StreamSession, pipeline: Pipeline, chain: GaplessChain, plan: StreamPlan, total: ClockTime?,
        shown: GaplessChain.Segment?
    ) {
        self.session = session
        self.pipeline = pipeline
        self.chain = chain
        self.plan = plan
        self.total = total
        self.shown = shown
        source = try? pipeline.element(named: "src")
        net = try? pipeline.element(named: "net")
        rtpSink = try? pipeline.element(named: "rtp")
        gain = (try? pipeline.element(named: StreamPlan.volumeName)).flatMap { try? VolumeRamp(on: $0, gain: 1) }
        pacing = (chain.producerWaits, .now + .milliseconds(500), false)
    }

    private var configuration: StreamSession.Configuration { session.configuration }
    private var piped: Bool { chain.settings.chunkMilliseconds != nil }

    /// Runs the pipeline to its end.
    func run() throws(StreamingError) -> StreamSession.Ending {
        try start()
        return try SessionLoop.run(self, bus: pipeline, commands: session.commands, first: session.takeDeferred())
    }

    // MARK: The loop's turns

    /// Says the files as they go out, and the status when due.
    func finishTurn() -> StreamSession.Ending? {
        followFiles()
        sendStatus()
        return nil
    }

    func nextDue() -> ContinuousClock.Instant? {
        MainLoop.earliest(
            nextRTPCheck, stopping?.deadline, configuration.statusInterval != nil ? nextStatus : nil,
            piped ? pacing.nextCheck : nil, waitsForAcknowledgement ? .now + .milliseconds(100) : nil)
    }

    /// Starts sending; an SRT listener only pauses until a receiver has called, so nothing is sent to no one.
    private func start() throws(StreamingError) {
        do {
            if case .srt(let endpoint, _) = plan, endpoint.mode == .listener, let net {
                net.postApplicationMessageOnCallerAdded(named: ApplicationMessage.callerAdded.rawValue)
                try pipeline.setState(.paused)
                waitingForCaller = true
            } else {
                try pipeline.setState(.playing)
            }
        } catch {
            throw .pipeline(error, connected: false)
        }
    }

    // MARK: Commands

    /// Runs one command; returns the ending when it ends the stream.
    func perform(_ command: StreamSession.Command) throws(StreamingError) -> StreamSession.Ending? {
        if case .stop(let reason) = command { return stop(reason) }
        guard stopping == nil else { return nil }
        do {
            switch command {
            case .pause: try pause()
            case .resume: try resume()
            case .next: try jump(by: 1)
            case .previous: try jump(by: -1)
            case .seek(let seconds): try seek(to: seconds, fromHere: false)
            case .seekRelative(let seconds): try seek(to: seconds, fromHere: true)
            case .setLoop(let mode): changeOrder(loop: mode, shuffle: shuffle)
            case .setShuffle(let on): changeOrder(loop: loop, shuffle: on)
            case .setVolume(let value): setVolume(value)
            case .stop: break
            }
        } catch {
            throw .pipeline(error, connected: connected)
        }
        return nil
    }

    /// Ends the stream as at its end, so RTP sends its BYE and receivers end cleanly; a listener still waiting for
    /// its caller has sent nothing, and ends at once.
    private func stop(_ reason: StopReason) -> StreamSession.Ending? {
        if waitingForCaller { return .stopped(reason) }
        guard stopping == nil else { return nil }
        if pausedSince != nil { try? resume() }  // the end of stream has to flow
        pipeline.sendEndOfStream()
        stopping = (reason, .now + .seconds(2))
        return nil
    }

    /// Holds the stream where it is (a listener still waiting for its caller stays paused once called).
    private func pause() throws(GstError) {
        guard pausedSince == nil else { return }
        pausedSince = .now
        session.observer(.pausedChanged(true))
        guard !waitingForCaller else { return }
        pipeline.keepRunningTime()
        try pipeline.setState(.paused)
    }

    /// Sends on from where the pause held, placed that much later, so the clock's receivers stay in step.
    private func resume() throws(GstError) {
        guard let since = pausedSince else { return }
        pausedSince = nil
        session.observer(.pausedChanged(false))
        guard !waitingForCaller else { return }
        if let source, let offset = source.offset(ofPad: "src") {
            source.setOffset(ofPad: "src", to: offset + (ContinuousClock.now - since))
        }
        try pipeline.setState(.playing)
    }

    /// Sends the file `step` places after (before) the one going out, from its start, placed at the present moment;
    /// past the last file the stream ends, before the first the first starts again.
    private func jump(by step: Int) throws(GstError) {
        let current = chain.segment(at: pipeline.position ?? .zero)?.position ?? 0
        let position = max(0, current + step)
        guard chain.order.index(at: position) != nil else {
            pipeline.sendEndOfStream()
            return
        }
        try move(to: position, fileTime: nil)
    }

    /// Sends the file going out from `seconds` into it (from where it is now, `fromHere`), like a jump; past its
    /// end, the next file (or the end). A pipe cannot seek: nothing happens.
    private func seek(to seconds: Double, fromHere: Bool) throws(GstError) {
        let position = pipeline.position ?? .zero
        guard let segment = chain.segment(at: position), !segment.isStream else { return }
        let target = seconds + (fromHere ? Self.fileTime(of: segment, at: position).seconds : 0)
        guard !segment.lengthIsKnown || target < segment.duration.seconds else { return try jump(by: 1) }
        let fileTime = ClockTime(seconds: target)
        try move(to: segment.position, fileTime: fileTime)
        // Where it landed: the first whole frame at or after the time asked.
        session.observer(.seeked(fileTime: chain.lastSegment?.fileStart ?? fileTime))
    }

    /// Sends file `position` from `fileTime` (nil: its start) with a flushing seek that starts the stream time
    /// again, placed at the present moment: the running time (so the RTP timestamps) goes on with the clock, only the
    /// audio jumps.
    private func move(to position: Int, fileTime: ClockTime?) throws(GstError) {
        if !waitingForCaller, let source { pipeline.continueAfterFlush(of: source, margin: StreamSender.refillMargin) }
        try chain.jump(to: position, fileTime: fileTime) { () throws(GstError) in try pipeline.seek(to: .zero) }
        if pausedSince != nil { pausedSince = .now }
        total = nil
        rtpFinishedAt = nil
    }

    /// What follows the file fed last plays with `loop` and `shuffle` (the file going out plays on, see
    /// `GaplessChain.follow`); a list with a pipe in it plays once (a pipe cannot be read again).
    private func changeOrder(loop: LoopMode, shuffle: Bool) {
        self.loop = piped ? .none : loop
        self.shuffle = shuffle
        let (order, passes) = (chain.order, self.loop == .playlist ? nil : 1)
        chain.follow(repeatEachFile: self.loop == .track) { order.changed(shuffle: shuffle, passes: passes, after: $0) }
        total = nil
        session.observer(.orderChanged(loop: self.loop, shuffle: shuffle))
    }

    /// Ramps the gain of what goes out to `value` (0 to 1: at most the files' own level).
    private func setVolume(_ value: Double) {
        let value = min(max(value, 0), 1)
        gain?.move(to: value)
        session.observer(.volumeChanged(value))
    }

    /// Where `segment`'s file is (its own time) when the stream is at `position`.
    private static func fileTime(of segment: GaplessChain.Segment, at position: ClockTime) -> ClockTime {
        let played = position.nanoseconds - min(position, segment.streamStart).nanoseconds
        return min(ClockTime(nanoseconds: segment.fileStart.nanoseconds + played), segment.duration)
    }

    /// How much later than now the audio after a jump is placed: the time the pipeline takes to fill again.
    static let refillMargin: Duration = .milliseconds(100)

    // MARK: What is due

    /// The checks that are not bus messages: RTCP's end, pacing, SRT's first acknowledgement, a stop's grace period.
    func doWhatIsDue() -> StreamSession.Ending? {
        endRTCPIfStuck()
        paceByInputWhenLive()
        if waitsForAcknowledgement, let acknowledged = net?.structure(of: "stats")?.count("packet-ack-received") {
            connected = acknowledged > 0
        }
        if let stopping, ContinuousClock.now >= stopping.deadline { return .stopped(stopping.reason) }
        return nil
    }

    /// Paces a live pipe by the input, anything else by the clock; looked at twice a second.
    ///
    /// The feeder stamps buffers from their sample counts, so a sink that syncs sends each one at its time on this
    /// machine's clock: right for a file or a pipe that is always ahead of the reader (`cat FILE |`), which would
    /// otherwise flood the receiver. A live producer (`arecord -f cd |`) is the slower side: the reader keeps waiting
    /// for it. Its sound card's clock is not this machine's, and a sink that syncs would hold back audio that
    /// arrives a little early, building a backlog that grows with the clocks' drift until the recorder overruns. So
    /// while the reader waits for the producer, the network sink sends each buffer as it arrives (sync off): the
    /// input paces the stream, and the timestamps (so RTP's) stay exact sample counts either way.
    private func paceByInputWhenLive() {
        guard piped, ContinuousClock.now >= pacing.nextCheck else { return }
        let waits = chain.producerWaits
        let live = waits > pacing.waits
        let sink: Element?
        if case .srt = plan { sink = net } else { sink = rtpSink }
        if live != pacing.byInput { try? sink?.set("sync", to: !live) }
        pacing = (waits, .now + .milliseconds(500), live)
    }

    /// Whether SRT is sending and nothing has been acknowledged yet (libsrt tells no one: its stats are polled).
    private var waitsForAcknowledgement: Bool {
        guard case .srt = plan else { return false }
        return !connected && !waitingForCaller && pausedSince == nil
    }

    /// rtpsession sends the BYE after the last packet and then ends its RTCP output; on rare runs that end never
    /// comes. The BYE is out by then, so end the RTCP sink a second after the last packet.
    private func endRTCPIfStuck() {
        guard let rtpSink, !rtcpEnded else { return }
        if rtpFinishedAt == nil, rtpSink.padHasSeenEndOfStream("sink") { rtpFinishedAt = .now }
        if let finished = rtpFinishedAt, ContinuousClock.now >= finished + .seconds(1) {
            rtcpEnded = true
            _ = try? pipeline.element(named: "rtcp").sendEndOfStream(intoPad: "sink")
        }
    }

    /// When to look at the RTP sink again: a second after its end of stream, else once the audio left to send has
    /// played (udpsink sends in real time), then every 100 ms; every 100 ms too once stopping; not while paused.
    private var nextRTPCheck: ContinuousClock.Instant? {
        guard rtpSink != nil, !rtcpEnded, pausedSince == nil else { return nil }
        if let finished = rtpFinishedAt { return finished + .seconds(1) }
        let left =
            stopping == nil
            ? total.flatMap { total in pipeline.position.map { total.nanoseconds - min($0, total).nanoseconds } } : nil
        return .now + max(.milliseconds(100), .nanoseconds(left ?? 0))
    }

    // MARK: Messages

    /// Answers one bus message; returns the ending when it ends the stream.
    func handle(_ message: Message) throws(StreamingError) -> StreamSession.Ending? {
        switch message.view {
        case .endOfStream:
            if case .srt = plan, let net { NetworkSRT.waitUntilDelivered(net) { session.stopRequested() } }
            if let handoff = chain.handoff {
                throw .needsAnotherDecoder(file: chain.order.path(at: handoff) ?? chain.displayName)
            }
            if let reason = stopping?.reason ?? session.stopReason { return .stopped(reason) }
            return .finished(someFilesFailed: session.someFilesFailed)
        case .error(let error):
            throw .pipeline(error, connected: connected)
        case .warning(let warning):
            session.observer(.warning(warning))
        case .application(let message) where ApplicationMessage(message) == .callerAdded && waitingForCaller:
            waitingForCaller = false
            connected = true
            session.observer(.callerConnected)
            guard pausedSince == nil else { break }
            do { try pipeline.setState(.playing) } catch { throw .pipeline(error, connected: connected) }
        default:
            break
        }
        return nil
    }

    // MARK: Reports

    /// Says each file as it starts going out, and the files the chain passed over or could not open.
    private func followFiles() {
        session.reportFiles(of: chain)
        guard let segment = chain.segment(at: pipeline.position ?? .zero),
            segment.position != shown?.position || segment.isRepeat && segment.streamStart != shown?.streamStart
        else { return }
        shown = segment
        session.announce(segment)
    }

    private func sendStatus() {
        guard let interval = configuration.statusInterval, ContinuousClock.now >= nextStatus else { return }
        nextStatus = .now + interval
        let state: StreamSession.Status.State =
            waitingForCaller ? .waitingForCaller : pausedSince != nil ? .paused : .sending
        let position = pipeline.position ?? .zero
        session.observer(
            .status(
                .init(
                    state: state, position: total.map { min(position, $0) } ?? position,
                    fileTime: chain.segment(at: position).map { Self.fileTime(of: $0, at: position) }, total: total)))
    }
}
