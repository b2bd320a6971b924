// yt-gst — one run of a receiver: the built pipeline from the first packet to a finalised output, in one loop.
import GstPlayer

/// Runs a receiver's pipeline until the stream ends (the sender finished, the timeout, a stop or an error), makes
/// sure the output is finalised, and says how it ended.
///
/// One loop decides everything: it reads the bus and the commands, does what is due, and sleeps in `MainLoop.wait`
/// until the next bus message or command, or until something has to be looked at: the status (at the rate the
/// caller asked), the packets lost (once a jitter buffer exists), SRT's arrivals under a timeout, and the steps of
/// ending (end of stream after a BYE, then the time allowed to finalise). Waiting for a sender wakes it for nothing.
final class ReceiveLoop: SessionLoopHandler {
    typealias Command = ReceiveSession.Command
    typealias Ending = ReceiveSession.Ending
    typealias Failure = StreamingError
    private let session: ReceiveSession
    /// The pipeline (or a test's stand-in): what the loop reads, counts and ends.
    private let output: any ReceiveOutput
    private let plan: ReceivePlan
    /// What keeps packets that are not the stream's out (RTP), and counts them.
    private let packetGuard: RTPPacketGuard?
    /// A synchronised receiver's timing, and what its clock last said.
    private let sync: ReceiverSync?
    private var clockWatch = ClockWatch()
    private var warnings = WarningFilter()
    /// The time the output has to finish once end of stream went in: SRT's latency (or 125 ms) and 2 s.
    private let finishAllowance: Duration

    private var ending: ReceiveSession.Ending.Reason? = nil
    /// When to send end of stream (after a BYE, the last packets may still be in the socket).
    private var endAt: ContinuousClock.Instant? = nil
    /// When the output must be finalised by; then end of stream is forced in after the sources, once.
    private var finishDeadline: ContinuousClock.Instant? = nil
    private var forcedEnd = false
    /// The error that ends the stream, reported once the output is finalised.
    private var failure: StreamingError? = nil
    /// SRT under a timeout: the network source's buffer count when last looked at, and when it last changed.
    private var arrivalCount = 0
    private var lastArrival = ContinuousClock.now
    private var arrivalsMoved = false
    private var reportedLost = 0
    private var lastLossReport = ContinuousClock.now
    private var nextStatus = ContinuousClock.now
    /// The counts the last turn read, for when the losses are to be looked at next.
    private var lastStats: ReceiveStats? = nil

    init(
        session: ReceiveSession, output: any ReceiveOutput, plan: ReceivePlan, packetGuard: RTPPacketGuard?,
        sync: ReceiverSync?
    ) {
        self.session = session
        self.output = output
        self.plan = plan
        self.packetGuard = packetGuard
        self.sync = sync
        finishAllowance = .milliseconds(session.configuration.latencyMilliseconds ?? 125) + .seconds(2)
    }

    private var configuration: ReceiveSession.Configuration { session.configuration }
    private var url: String { session.url }

    /// Runs until the stream ends.
    func run() throws(StreamingError) -> ReceiveSession.Ending {
        defer { output.stop() }
        let noticed: [StreamingWarning]
        do { noticed = try output.start() } catch { throw session.streamError(error, plan: plan, connected: false) }
        for warning in noticed { session.observer(.warning(warning)) }
        if configuration.realtimeThreads { RealtimeThreads.raiseAudioServerThreads() }
        return try SessionLoop.run(self, bus: output, commands: session.commands, first: session.early)
    }

    // MARK: The loop's turns

    /// The steps of ending that are due, and SRT's arrivals under a timeout.
    func doWhatIsDue() -> ReceiveSession.Ending? {
        guard endStreamWhenDue() else { return endedWithoutEndOfStream() }
        watchArrivals()
        return nil
    }

    /// The losses, the clock and the status, from the counts of this turn.
    func finishTurn() -> ReceiveSession.Ending? {
        let current = stats()
        reportLosses(current)
        reportClockLoss()
        reportStatus(current)
        lastStats = current
        return nil
    }

    func nextDue() -> ContinuousClock.Instant? {
        MainLoop.earliest(
            endAt, finishDeadline, nextArrivalCheck, lastStats.flatMap(nextLossCheck),
            configuration.statusInterval == nil ? nil : nextStatus, watchesClock ? clockWatch.nextCheck : nil)
    }

    /// Volume, mute and delay change the running pipeline; a stop begins the end of the stream.
    func perform(_ command: ReceiveSession.Command) -> ReceiveSession.Ending? {
        switch command {
        case .setVolume(let volume):
            output.setVolume(min(max(volume, 0), 10))
        case .setMute(let muted):
            output.setMute(muted)
        case .setDelay(let milliseconds):
            if let sync {
                _ = sync.setDelay(milliseconds: milliseconds)
            } else {
                session.observer(.warning(.delayNeedsSync))
            }
        case .stop(let reason):
            begin(.stopped(reason))
        }
        return nil
    }

    private func begin(_ reason: ReceiveSession.Ending.Reason, after delay: Duration = .zero) {
        guard ending == nil else { return }
        ending = reason
        endAt = .now + delay
    }

    private var audioBuffers: Int { output.audio?.buffers ?? 0 }

    /// Sends end of stream when it is due, and forces it in once when the sources could not end the stream in
    /// time; false when there is nothing to wait for any more (nothing arrived, or it could not be finalised).
    private func endStreamWhenDue() -> Bool {
        if let at = endAt, ContinuousClock.now >= at {
            endAt = nil
            if audioBuffers == 0 { return false }  // nothing arrived: nothing to finalise
            switch (plan, ending) {
            case (.srt, _), (_, .failed?):
                // srtsrc may sit in a blocking read for seconds (a dead peer), so over SRT (and after an error)
                // the end goes in right after the source side.
                output.endStream(afterSources: true)
            default:
                output.endStream(afterSources: false)  // udpsrc ends promptly and drains the jitter buffer
            }
            finishDeadline = .now + finishAllowance
        }
        if let limit = finishDeadline, ContinuousClock.now >= limit {
            guard !forcedEnd else {
                failure = failure ?? .couldNotFinalise(url: url, limit: finishAllowance)
                return false
            }
            // The sources could not end the stream (e.g. rtpbin dropped it): end it after them.
            forcedEnd = true
            output.endStream(afterSources: true)
            finishDeadline = .now + .seconds(2)
        }
        return true
    }

    /// The timeout over SRT (udpsrc has its own for RTP): ends the stream when the network source delivered nothing
    /// for that long.
    private func watchArrivals() {
        guard let timeout = arrivalTimeout else { return }
        let count = output.arrivals
        arrivalsMoved = count != arrivalCount
        if arrivalsMoved {
            arrivalCount = count
            lastArrival = .now
        } else if ContinuousClock.now - lastArrival >= timeout {
            begin(.timedOut)
        }
    }

    private var arrivalTimeout: Duration? {
        guard let timeout = configuration.timeout, case .srt = plan, ending == nil else { return nil }
        return timeout
    }

    /// While data flows, look again in 100 ms (when it stops is known to that step); once it has stopped, not
    /// before the timeout would be reached.
    private var nextArrivalCheck: ContinuousClock.Instant? {
        guard let timeout = arrivalTimeout else { return nil }
        return arrivalsMoved ? .now + .milliseconds(100) : lastArrival + timeout
    }

    /// Answers one bus message; returns how the stream ended when it did.
    func handle(_ message: Message) throws(StreamingError) -> ReceiveSession.Ending? {
        switch message.view {
        case .endOfStream:
            if ending == nil {
                // Only SRT ends by itself: the sender's end marker (then `ending` is set), or the connection closed
                // without one.
                ending = .failed
                failure = .connectionClosed(url: url)
            }
            return finish()
        case .error(let error):
            try handle(error)
        case .warning(let warning):
            if warnings.isNew(warning) { session.observer(.warning(.pipeline(warning))) }
        case .tags(let tags):
            if let title = tags.first(where: { $0.name == "title" }) { session.observer(.title(title.value)) }
        case .application(let message) where ApplicationMessage(message) == .senderFinished:
            if ending == nil { ending = .senderFinished }  // the marker has become end of stream already
        case .application(let message) where ApplicationMessage(message) == .rtpBye:
            // Anyone can send a BYE to the RTCP port: only the stream's source ends the stream.
            let ssrc = message.count("ssrc").map { UInt32(truncatingIfNeeded: $0) }
            if let ssrc, packetGuard?.isStreamSource(ssrc) == false { break }
            begin(.senderFinished, after: .milliseconds(100))  // the last packets may still be in the socket
        case .application(let message) where ApplicationMessage(message) == .srtRejected:
            if let reason = SRTRejectReason(handshakeLogLine: message.string("text") ?? ""), audioBuffers == 0 {
                throw .srtRejected(reason, url: url)
            }
        case .element(let structure) where structure.name == "GstUDPSrcTimeout":
            begin(.timedOut)
        case .element(let structure) where structure.name == ClockWatch.statisticsMessage:
            if clockWatch.observe(structure) { session.observer(.clockRegained) }
        default:
            break
        }
        return nil
    }

    /// An error: over SRT before any audio it ends the session at once, and while ending it is reported and the
    /// ending goes on; otherwise the output is finalised with what arrived and the error reported after it.
    private func handle(_ error: GstError) throws(StreamingError) {
        let problem = session.streamError(error, plan: plan, connected: output.arrivals > 0)
        if case .srt = plan, audioBuffers == 0 || ending != nil {
            guard ending != nil else { throw problem }
            session.observer(.problem(problem))
            return
        }
        if ending == nil {
            failure = problem
            begin(.failed)
        } else if failure == nil {
            failure = problem
        }
    }

    private func stats() -> ReceiveStats {
        ReceiveStats(
            jitterBuffer: output.jitterBufferStats, audio: output.audio,
            dropped: packetGuard?.drops ?? [])
    }

    private func reportLosses(_ current: ReceiveStats) {
        guard let interval = configuration.lossReportInterval, current.lost > reportedLost,
            ContinuousClock.now - lastLossReport > interval
        else { return }
        session.observer(.packetsLost(current.lost))
        reportedLost = current.lost
        lastLossReport = .now
    }

    /// When to read the jitter buffer's counts again: when a loss waits to be reported, or an interval from now.
    /// Before a jitter buffer exists nothing can be lost (rtpbin makes one for the first packet, with bus messages).
    private func nextLossCheck(_ current: ReceiveStats) -> ContinuousClock.Instant? {
        guard let interval = configuration.lossReportInterval, current.isRTP else { return nil }
        return current.lost > reportedLost ? lastLossReport + interval + .milliseconds(1) : .now + interval
    }

    /// Reports once when the sender's clock stops answering (playback goes on, on the clock's last estimate).
    private func reportClockLoss() {
        guard watchesClock, clockWatch.checkLost() else { return }
        session.observer(.clockLost)
    }

    /// Whether silence from the sender's clock means a loss: only while synchronised and playing. Once the stream
    /// ends the clock no longer matters, and a drain that outlasts the silence limit would report a loss that is none.
    private var watchesClock: Bool { sync != nil && ending == nil }

    private func reportStatus(_ current: ReceiveStats) {
        guard let interval = configuration.statusInterval, ContinuousClock.now >= nextStatus else { return }
        nextStatus = .now + interval
        let state: ReceiveSession.Status.State =
            ending == nil ? (current.audio.buffers == 0 ? .waiting : .receiving) : .finishing
        session.observer(.status(.init(state: state, stats: current, sync: syncSummary)))
    }

    /// The sync state; nil when not synchronised.
    private var syncSummary: SyncSummary? {
        guard let sync else { return nil }
        return SyncSummary(
            clock: clockWatch, output: sync.outputStatus, onGraphCycles: sync.placedByGraphCycles)
    }

    /// After the pipeline's end of stream: how it ended, with the output finalised.
    private func finish() -> ReceiveSession.Ending {
        .init(reason: ending ?? .failed, failure: failure, finalised: true, stats: stats(), sync: syncSummary)
    }

    /// When the loop ends with no end of stream to wait for: nothing arrived, or the output could not be finalised.
    private func endedWithoutEndOfStream() -> ReceiveSession.Ending {
        .init(reason: ending ?? .failed, failure: failure, finalised: false, stats: stats(), sync: syncSummary)
    }
}
