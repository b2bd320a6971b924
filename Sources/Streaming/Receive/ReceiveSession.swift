// yt-gst — one run of `receive`: the built pipeline from the first packet to a finalised output, in one loop.
import GstPlayer

/// Runs a `receive` pipeline until the stream ends (the sender finished, --timeout, a signal or an error), makes
/// sure the output is finalised, and says how it ended.
///
/// One loop decides everything: it reads the bus, does what is due, and sleeps in `MainLoop.wait` until the next
/// bus message or signal, or until something has to be looked at: the status line (10 times a second, when shown),
/// the packets lost (once a second, once a jitter buffer exists), SRT's arrivals under --timeout, and the steps of
/// ending (end of stream after a BYE, then the time allowed to finalise). Waiting for a sender wakes it for nothing.
final class ReceiveSession {
    /// Why the stream is ending.
    private enum Ending: Equatable {
        /// The sender said it finished (RTCP BYE, end of the SRT stream).
        case senderFinished
        /// No data for --timeout seconds.
        case timedOut
        case interrupted(Int32)
        /// An error stopped the stream; the output is finalised with what arrived.
        case failed
    }

    private let command: ReceiveCommand
    private let pipeline: Pipeline
    private let plan: ReceivePlan
    /// What keeps packets that are not the stream's out (RTP), and counts them.
    private let packetGuard: RTPPacketGuard?
    /// A synchronised receiver's timing, and what its clock last said.
    private let sync: ReceiverSync?
    private var clockWatch = ClockWatch()
    /// The decoded audio (after the decoder), and what the network source delivered.
    private var counter: FlowCounter? = nil
    private var arrivals: FlowCounter? = nil
    /// An SRT listener's watch for rejected callers.
    private var logWatch: DebugLogWatch? = nil
    private var status: StatusLine
    private var warnings: NetworkWarnings
    /// The time the output has to finish once end of stream went in: SRT's latency (or 125 ms) and 2 s.
    private let finishAllowance: Duration

    private var ending: Ending? = nil
    /// When to send end of stream (after a BYE, the last packets may still be in the socket).
    private var endAt: ContinuousClock.Instant? = nil
    /// When the output must be finalised by; then end of stream is forced in after the sources, once.
    private var finishDeadline: ContinuousClock.Instant? = nil
    private var forcedEnd = false
    /// The error that ends the stream, said once the output is finalised.
    private var failure: String? = nil
    private var jitterBuffer: Element? = nil
    /// SRT under --timeout: the network source's buffer count when last looked at, and when it last changed.
    private var arrivalCount = 0
    private var lastArrival = ContinuousClock.now
    private var arrivalsMoved = false
    private var reportedLost = 0
    private var lastLossReport = ContinuousClock.now
    private var nextDraw = ContinuousClock.now

    init(
        command: ReceiveCommand, pipeline: Pipeline, plan: ReceivePlan, packetGuard: RTPPacketGuard?,
        sync: ReceiverSync? = nil
    ) {
        self.command = command
        self.pipeline = pipeline
        self.plan = plan
        self.packetGuard = packetGuard
        self.sync = sync
        status = StatusLine(enabled: Terminal.stdoutIsTerminal && !command.quiet)
        warnings = NetworkWarnings(quiet: command.quiet, verbose: command.verbose)
        finishAllowance = .milliseconds(command.latency ?? 125) + .seconds(2)
    }

    private var source: StreamURL { command.source }

    /// Runs until the stream ends; returns the exit code.
    func run() -> ExitCode {
        defer {
            status.clear()
            _ = try? pipeline.setState(.null)
            logWatch?.stop()
        }
        guard start() else { return .failure }
        while true {
            if let signal = Interrupts.pending { begin(.interrupted(signal)) }
            guard endStreamWhenDue() else { return endedWithoutEndOfStream() }
            watchArrivals()
            while let message = pipeline.nextMessage(timeout: .zero) {
                if let code = handle(message) { return code }
            }
            let current = stats()
            reportLosses(current)
            reportClockLoss()
            drawStatus(current)
            MainLoop.wait(
                for: [pipeline.busDescriptor],
                until: MainLoop.earliest(
                    endAt, finishDeadline, nextArrivalCheck, nextLossCheck(current), status.enabled ? nextDraw : nil,
                    sync == nil ? nil : clockWatch.nextCheck))
        }
    }

    /// Counts what flows, watches for rejected SRT callers, and starts the pipeline; false once it said why not.
    private func start() -> Bool {
        do {
            counter = try pipeline.element(named: "received").countFlow(onPad: "src")
            arrivals = try pipeline.element(named: plan.networkSourceName).countFlow(onPad: "src")
            if case .srt(let endpoint) = plan, endpoint.mode == .listener {
                // A listener is never told that a caller was rejected; libsrt only logs it.
                logWatch = DebugLogWatch(
                    category: "srtlib", level: .info, patterns: [SRTRejectReason.handshakeLogMarker],
                    pipeline: pipeline, messageName: "yt-gst/srt-rejected")
            }
            if let sync {
                try pipeline.setState(.ready)  // autoaudiosink makes its sink when it goes to READY
                try sync.alignOutputs(of: pipeline)
            }
            try pipeline.setState(.playing)
            return true
        } catch {
            Terminal.error("yt-gst: \(command.describe(error, plan: plan, connected: false))")
            return false
        }
    }

    private func begin(_ reason: Ending, after delay: Duration = .zero) {
        guard ending == nil else { return }
        ending = reason
        endAt = .now + delay
    }

    private var audioBuffers: Int { counter?.snapshot.buffers ?? 0 }

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
                _ = try? pipeline.element(named: "received").sendEndOfStream(intoPad: "sink")
            default:
                pipeline.sendEndOfStream()  // udpsrc ends promptly and drains the jitter buffer
            }
            finishDeadline = .now + finishAllowance
        }
        if let limit = finishDeadline, ContinuousClock.now >= limit {
            guard !forcedEnd else {
                failure =
                    failure ?? "\(source): could not finalise the output (no end of stream within \(finishAllowance))"
                return false
            }
            // The sources could not end the stream (e.g. rtpbin dropped it): end it after them.
            forcedEnd = true
            _ = try? pipeline.element(named: "received").sendEndOfStream(intoPad: "sink")
            finishDeadline = .now + .seconds(2)
        }
        return true
    }

    /// --timeout over SRT (udpsrc has its own for RTP): ends the stream when the network source delivered nothing
    /// for that long.
    private func watchArrivals() {
        guard let timeout = arrivalTimeout else { return }
        let count = arrivals?.snapshot.buffers ?? 0
        arrivalsMoved = count != arrivalCount
        if arrivalsMoved {
            arrivalCount = count
            lastArrival = .now
        } else if ContinuousClock.now - lastArrival >= timeout {
            begin(.timedOut)
        }
    }

    private var arrivalTimeout: Duration? {
        guard let timeout = command.timeout, case .srt = plan, ending == nil else { return nil }
        return .milliseconds(Int64(timeout * 1000))
    }

    /// While data flows, look again in 100 ms (when it stops is known to that step); once it has stopped, not
    /// before the timeout would be reached.
    private var nextArrivalCheck: ContinuousClock.Instant? {
        guard let timeout = arrivalTimeout else { return nil }
        return arrivalsMoved ? .now + .milliseconds(100) : lastArrival + timeout
    }

    /// Answers one bus message; returns the exit code when it ends the run.
    private func handle(_ message: Message) -> ExitCode? {
        switch message {
        case .endOfStream:
            if ending == nil {
                // Only SRT ends by itself: the sender's end marker (then `ending` is set), or the connection closed
                // without one.
                ending = .failed
                failure = "\(source): the connection closed before the end of the stream"
            }
            status.clear()
            return finish()
        case .error(let error):
            return handle(error)
        case .warning(let warning):
            warnings.report(warning, about: source, status: &status)
        case .application(let message) where message.name == "yt-gst/sender-finished":
            if ending == nil { ending = .senderFinished }  // the marker has become end of stream already
        case .application(let message) where message.name == "yt-gst/rtp-bye":
            // Anyone can send a BYE to the RTCP port: only the stream's source ends the stream.
            let ssrc = message.count("ssrc").map { UInt32(truncatingIfNeeded: $0) }
            if let ssrc, packetGuard?.isStreamSource(ssrc) == false { break }
            begin(.senderFinished, after: .milliseconds(100))  // the last packets may still be in the socket
        case .application(let message) where message.name == "yt-gst/srt-rejected":
            status.clear()
            if let reason = SRTRejectReason(handshakeLogLine: message.string("text") ?? ""), audioBuffers == 0 {
                Terminal.error("yt-gst: \(source): \(reason.explanation)")
                return .failure
            }
        case .element(let structure) where structure.name == "GstUDPSrcTimeout":
            begin(.timedOut)
        case .element(let structure) where structure.name == ClockWatch.statisticsMessage:
            if clockWatch.observe(structure), !command.quiet {
                status.clear()
                Terminal.error("yt-gst: \(source): the sender's clock answers again")
            }
        default:
            break
        }
        return nil
    }

    /// An error: over SRT before any audio (or while ending) it is said at once; otherwise the output is finalised
    /// with what arrived and the error said after it.
    private func handle(_ error: GstError) -> ExitCode? {
        status.clear()
        let text = command.describe(error, plan: plan, connected: (arrivals?.snapshot.buffers ?? 0) > 0)
        if case .srt = plan, audioBuffers == 0 || ending != nil {
            Terminal.error("yt-gst: \(text)")
            return ending == nil ? .failure : nil
        }
        if ending == nil {
            failure = text
            begin(.failed)
        } else if failure == nil {
            failure = text
        }
        return nil
    }

    private func stats() -> ReceiveStats {
        if jitterBuffer == nil { jitterBuffer = pipeline.elements(madeBy: "rtpjitterbuffer").first }
        return ReceiveStats(
            jitterBuffer: jitterBuffer?.structure(of: "stats"), audio: counter?.snapshot,
            dropped: packetGuard?.drops ?? [])
    }

    /// Without a status line, lost packets are said on stderr, at most once a second.
    private var reportsLosses: Bool { !status.enabled && !command.quiet }

    private func reportLosses(_ current: ReceiveStats) {
        guard reportsLosses, current.lost > reportedLost, ContinuousClock.now - lastLossReport > .seconds(1) else {
            return
        }
        Terminal.error("yt-gst: \(source): \(current.lost) packets lost so far")
        reportedLost = current.lost
        lastLossReport = .now
    }

    /// When to read the jitter buffer's counts again: when a loss waits to be said, or a second from now. Before
    /// a jitter buffer exists nothing can be lost (rtpbin makes one for the first packet, with bus messages).
    private func nextLossCheck(_ current: ReceiveStats) -> ContinuousClock.Instant? {
        guard reportsLosses, jitterBuffer != nil else { return nil }
        return current.lost > reportedLost ? lastLossReport + .milliseconds(1001) : .now + .seconds(1)
    }

    /// Says once when the sender's clock stops answering (playback goes on, on the clock's last estimate).
    private func reportClockLoss() {
        guard sync != nil, clockWatch.checkLost(), !command.quiet else { return }
        status.clear()
        Terminal.error(
            "yt-gst: \(source): warning: the sender's clock stopped answering; playing on its last estimate")
    }

    private func drawStatus(_ current: ReceiveStats) {
        guard status.enabled, ContinuousClock.now >= nextDraw else { return }
        nextDraw = .now + .milliseconds(100)
        let state = ending == nil ? (current.audio.buffers == 0 ? "… waiting for" : "● receiving") : "■ finishing"
        let timing = syncSummary.map { "  \($0)" } ?? ""
        status.draw("\(state) \(source)  \(current.audio.duration)  \(current.packets)\(timing)")
    }

    /// "in sync, clock ±12 µs, output +95 ppm (40 corrections)": the sync state, the clock's distance to the
    /// followed clock at its last answer and how far the output is corrected; nil when not synchronised.
    private var syncSummary: String? {
        guard let sync else { return nil }
        let output = sync.aligners.first?.status
        return SyncSummary(clock: clockWatch, output: output).text
    }

    /// After the pipeline's end of stream: the summary, and the exit code for why it ended.
    private func finish() -> ExitCode {
        let stats = stats()
        switch ending {
        case .senderFinished?:
            if stats.audio.buffers == 0 { return senderFinishedWithoutAudio(stats) }
            if !command.quiet {
                let timing = syncSummary.map { "; \($0)" } ?? ""
                Terminal.error("yt-gst: \(source): the sender finished; \(stats.summary)\(timing)")
            }
            return .success
        case .timedOut?:
            Terminal.error("yt-gst: no data from \(source) for \(timeoutText) (\(stats.summary))")
            return .failure
        case .interrupted(let signal)?:
            if !command.quiet {
                let timing = syncSummary.map { "; \($0)" } ?? ""
                Terminal.error("yt-gst: \(source): stopped; \(stats.summary)\(timing)")
            }
            return Interrupts.exitCode(for: signal)
        case .failed?, nil:
            Terminal.error("yt-gst: \(failure ?? "\(source): failed") (\(stats.summary))")
            return .failure
        }
    }

    /// When the loop ends with no end of stream to wait for: nothing arrived, or the output could not be finalised.
    private func endedWithoutEndOfStream() -> ExitCode {
        status.clear()
        if let failure { Terminal.error("yt-gst: \(failure)") }
        let current = stats()
        switch ending {
        case .senderFinished?: return senderFinishedWithoutAudio(current)
        case .timedOut?: Terminal.error("yt-gst: no data from \(source) for \(timeoutText) (\(current.summary))")
        case .interrupted(let signal)?: return Interrupts.exitCode(for: signal)
        default: break
        }
        return .failure
    }

    /// The sender's end came before any audio was decoded (an empty stream, or packets nothing could decode):
    /// an error, since there is nothing to play or finalise.
    private func senderFinishedWithoutAudio(_ stats: ReceiveStats) -> ExitCode {
        Terminal.error("yt-gst: \(source): the sender finished before any audio was decoded (\(stats.summary))")
        return .failure
    }

    private var timeoutText: String {
        guard let timeout = command.timeout else { return "" }
        return timeout == timeout.rounded() ? "\(Int(timeout)) s" : "\(timeout) s"
    }
}
