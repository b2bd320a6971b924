// yt-gst — one run of `stream`: the built pipeline from its start to the last sample out, in one control loop.
import GstPlayer
import Streaming

/// Runs a `stream` pipeline until the audio has left (or an error or a signal ends it), and says how it ended.
///
/// One loop decides everything: it reads the bus, does what is due, and sleeps in `MainLoop.wait` until the next
/// bus message or signal, or until something has to be looked at: the status line (10 times a second, when shown),
/// SRT's first acknowledgement, the last RTP packet (not before the stream's duration has played), the RTCP
/// end a second after it, and the grace period after Ctrl-C.
final class StreamSession {
    private let command: StreamCommand
    private let pipeline: Pipeline
    private let plan: StreamPlan
    /// The duration of all the files (nil when a pipe's is unknown), and the status line's text after the position.
    private let total: ClockTime?
    private let label: String
    private var status: StatusLine
    private var warnings: NetworkWarnings
    /// srtsink, for SRT.
    private let net: Element?
    /// The RTP udpsink: end of stream there means the last packet left.
    private let rtpSink: Element?
    /// Whether an SRT connection came up (a caller arrived, or the receiver acknowledged packets): an error after
    /// that is a broken connection, before it a failure to connect.
    private var connected = false
    /// An SRT listener waits, paused, until a receiver calls.
    private var waitingForCaller = false
    /// After SIGINT or SIGTERM: the signal, and how long to wait for the end of stream (RTP sends its BYE).
    private var stopping: (signal: Int32, deadline: ContinuousClock.Instant)? = nil
    /// When end of stream reached the RTP sink; the RTCP sink gets its own a second later if it is still running.
    private var rtpFinishedAt: ContinuousClock.Instant? = nil
    private var rtcpEnded = false
    private var nextDraw = ContinuousClock.now
    /// With a pipe as input: the count of reads that waited for its producer (`WAVFeeder.producerWaits`).
    private let producerWaits: (() -> Int)?
    /// The count at the last look, when to look again, and whether the sender now sends as the input arrives.
    private var pacing = (waits: 0, nextCheck: ContinuousClock.now + .milliseconds(500), byInput: false)

    init(
        command: StreamCommand, pipeline: Pipeline, plan: StreamPlan, total: ClockTime?, label: String,
        producerWaits: (() -> Int)? = nil
    ) {
        self.command = command
        self.producerWaits = producerWaits
        pacing.waits = producerWaits?() ?? 0
        self.pipeline = pipeline
        self.plan = plan
        self.total = total
        self.label = label
        status = StatusLine(enabled: Terminal.stdoutIsTerminal && !command.quiet)
        warnings = NetworkWarnings(quiet: command.quiet, verbose: command.verbose)
        net = try? pipeline.element(named: "net")
        rtpSink = try? pipeline.element(named: "rtp")
    }

    /// Runs the pipeline to its end; returns the exit code.
    func run() -> ExitCode {
        defer { status.clear() }
        if let failed = start() { return failed }
        while true {
            if let code = doWhatIsDue() { return code }
            while let message = pipeline.nextMessage(timeout: .zero) {
                if let code = handle(message) { return code }
            }
            drawStatus()
            MainLoop.wait(
                for: [pipeline.busDescriptor],
                until: MainLoop.earliest(
                    nextRTPCheck, stopping?.deadline, status.enabled ? nextDraw : nil,
                    producerWaits != nil ? pacing.nextCheck : nil,
                    waitsForAcknowledgement ? .now + .milliseconds(100) : nil))
        }
    }

    /// Starts sending; an SRT listener only pauses until a receiver has called, so nothing is sent to no one.
    private func start() -> ExitCode? {
        do {
            if case .srt(let endpoint, _) = plan, endpoint.mode == .listener, let net {
                net.postApplicationMessageOnCallerAdded(named: "yt-gst/caller-added")
                try pipeline.setState(.paused)
                waitingForCaller = true
            } else {
                try pipeline.setState(.playing)
            }
        } catch {
            Terminal.error("yt-gst: \(command.describe(error))")
            return .failure
        }
        return nil
    }

    /// The checks that are not bus messages: RTCP's end, SRT's first acknowledgement, a signal and its grace period.
    private func doWhatIsDue() -> ExitCode? {
        endRTCPIfStuck()
        paceByInputWhenLive()
        if waitsForAcknowledgement, let acknowledged = net?.structure(of: "stats")?.count("packet-ack-received") {
            connected = acknowledged > 0
        }
        if stopping == nil, let signal = Interrupts.pending {
            if waitingForCaller { return Interrupts.exitCode(for: signal) }
            pipeline.sendEndOfStream()  // RTP then sends its BYE, so receivers end cleanly
            stopping = (signal, .now + .seconds(2))
        }
        if let stopping, ContinuousClock.now >= stopping.deadline { return Interrupts.exitCode(for: stopping.signal) }
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
        guard let producerWaits, ContinuousClock.now >= pacing.nextCheck else { return }
        let waits = producerWaits()
        let live = waits > pacing.waits
        let sink: Element?
        if case .srt = plan { sink = net } else { sink = rtpSink }
        if live != pacing.byInput { try? sink?.set("sync", fromString: live ? "false" : "true") }
        pacing = (waits, .now + .milliseconds(500), live)
    }

    /// Whether SRT is sending and nothing has been acknowledged yet (libsrt tells no one: its stats are polled).
    private var waitsForAcknowledgement: Bool {
        guard case .srt = plan else { return false }
        return !connected && !waitingForCaller
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
    /// played (udpsink sends in real time), then every 100 ms; every 100 ms too once stopping.
    private var nextRTPCheck: ContinuousClock.Instant? {
        guard rtpSink != nil, !rtcpEnded else { return nil }
        if let finished = rtpFinishedAt { return finished + .seconds(1) }
        let left =
            stopping == nil
            ? total.flatMap { total in pipeline.position.map { total.nanoseconds - min($0, total).nanoseconds } } : nil
        return .now + max(.milliseconds(100), .nanoseconds(left ?? 0))
    }

    /// Answers one bus message; returns the exit code when it ends the run.
    private func handle(_ message: Message) -> ExitCode? {
        switch message {
        case .endOfStream:
            status.clear()
            if case .srt = plan, let net { NetworkSRT.waitUntilDelivered(net) }
            if let stopping { return Interrupts.exitCode(for: stopping.signal) }
            return .success
        case .error(let error):
            status.clear()
            Terminal.error("yt-gst: \(command.describe(error, connected: connected))")
            return .failure
        case .warning(let warning):
            warnings.report(warning, about: command.destination, status: &status)
        case .application(let message) where message.name == "yt-gst/caller-added" && waitingForCaller:
            waitingForCaller = false
            connected = true
            do { try pipeline.setState(.playing) } catch {
                Terminal.error("yt-gst: \(command.describe(error))")
                return .failure
            }
        default:
            break
        }
        return nil
    }

    private func drawStatus() {
        guard status.enabled, ContinuousClock.now >= nextDraw else { return }
        nextDraw = .now + .milliseconds(100)
        if waitingForCaller {
            status.draw("… waiting for a receiver to call \(command.destination)")
        } else {
            let position = pipeline.position ?? .zero
            if let total {
                status.draw("> \(min(position, total)) / \(total)  \(label)")
            } else {
                status.draw("> \(position)  \(label)")
            }
        }
    }
}
