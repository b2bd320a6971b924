// yt-gst — `yt-gst receive`: plays (or records) what `stream` sends, over RTP or SRT, and ends by itself.
import Glibc
import GstPlayer

struct ReceiveCommand {
    static let defaultLatencyMilliseconds = 50
    /// Everything after the decoder when neither --sink nor --pipeline is given.
    static let defaultOutput = "audioconvert ! audioresample ! autoaudiosink"

    static let spec = CommandSpec(
        name: "receive", abstract: "Receive a stream from `yt-gst stream` and play it.", operands: "URL",
        options: [
            OptionSpec(
                name: "latency-ms", valueName: "N",
                help: "Jitter-buffer latency in ms (default 50; SRT: its latency, default 125)."),
            OptionSpec(name: "timeout", valueName: "SEC", help: "Give up (exit 1) after SEC seconds without data."),
            OptionSpec(
                name: "sink", valueName: "FRAGMENT",
                help: "Play into this launch fragment instead of the default output."),
            OptionSpec(
                name: "pipeline", valueName: "LAUNCH", help: "Send the decoded audio into this launch string instead."),
            OptionSpec(name: "iface", valueName: "NAME", help: "Network interface to join a multicast group on."),
            OptionSpec(name: "quiet", short: "q", help: "No status line, no summary and no warnings; errors only."),
            OptionSpec(name: "verbose", short: "v", help: "Show GStreamer's debug details with errors and warnings."),
        ],
        discussion: """
            URL: rtp://@:PORT (any local address), rtp://@GROUP:PORT (join a multicast group), sdp:FILE or FILE.sdp
            (the SDP `stream --sdp` writes, or any SDP for one RTP audio stream), srt://HOST:PORT (call a sender
            that listens) or srt://:PORT (listen), with ?passphrase=SECRET&pbkeylen=16|24|32 for encrypted SRT.

            Without an SDP the format comes from the RTP payload type (yt-gst's table; L16 44.1 kHz uses RFC 3551's
            10 and 11). The stream ends when the sender finishes (RTCP BYE, or the end of the SRT stream): the
            output is finalised (a wavenc header is written), a summary goes to stderr and the exit code is 0.
            With --timeout, SEC seconds without data end it with exit 1. A lost RTP packet is skipped. Over SRT the
            audio is played as it arrives (the sinks do not sync to the sender's timestamps).

            EXAMPLES:
              yt-gst receive rtp://@:5004
              yt-gst receive rtp://@239.255.0.1:5004 --iface eth0
              yt-gst receive song.sdp --sink 'wavenc ! filesink location=copy.wav' --timeout 5
              yt-gst receive 'srt://:7001?passphrase=correct-horse-battery'
            """)

    var source: StreamURL
    var latency: Int?
    var timeout: Double?
    var output: String
    var usesDefaultOutput: Bool
    var interface: String?
    var quiet: Bool
    var verbose: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        guard let url = arguments.operands.first else { throw UsageError("no URL given (e.g. rtp://@:5004)") }
        guard arguments.operands.count == 1 else {
            throw UsageError("receive takes one URL, not \(arguments.operands.count)")
        }
        source = try StreamURL(parsing: url)
        latency = try arguments.integer("latency-ms", in: 0...10_000)
        if let text = arguments.value("timeout") {
            guard let seconds = Double(text), seconds > 0, seconds <= 86_400 else {
                throw UsageError("--timeout must be seconds from 0 to 86400, not \"\(text)\"")
            }
            timeout = seconds
        }
        let sink = arguments.value("sink")
        let pipeline = arguments.value("pipeline")
        if sink != nil && pipeline != nil { throw UsageError("use --sink or --pipeline, not both") }
        if let text = sink ?? pipeline, text.allSatisfy(\.isWhitespace) {
            throw UsageError("--sink and --pipeline need a launch string")
        }
        output = pipeline ?? sink.map { "audioconvert ! audioresample ! " + $0 } ?? ReceiveCommand.defaultOutput
        usesDefaultOutput = sink == nil && pipeline == nil
        interface = arguments.value("iface")
        quiet = arguments.flags.contains("quiet")
        verbose = arguments.flags.contains("verbose")
        switch source {
        case .rtp(let endpoint):
            if !endpoint.listen && !endpoint.isMulticast {
                throw UsageError("\(url): to receive, listen with rtp://@:PORT (or rtp://@GROUP:PORT for multicast)")
            }
            if interface != nil && !endpoint.isMulticast {
                throw UsageError("--iface applies to multicast groups only")
            }
        case .srt:
            if interface != nil { throw UsageError("--iface applies to RTP multicast only") }
        case .sdp:
            break
        }
    }

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

    func run() throws(UsageError) -> ExitCode {
        Gst.initialize()
        Interrupts.install()
        let plan: ReceivePlan
        switch source {
        case .rtp(let endpoint):
            plan = .rtp(address: endpoint.host, port: endpoint.port, rtcpPort: endpoint.rtcpPort, caps: nil)
        case .sdp(let path):
            let sdp: SessionDescription
            switch NetworkFile.read(path) {
            case .failure(let error):
                Terminal.error("yt-gst: \(path): \(error)")
                return .failure
            case .success(let text):
                do { sdp = try SessionDescription(parsing: text) } catch {
                    Terminal.error("yt-gst: \(path): \(error)")
                    return .failure
                }
            }
            // A unicast SDP names this machine's address; listening on every address is the same and more robust.
            plan = .rtp(
                address: sdp.isMulticast ? sdp.address : nil, port: sdp.port, rtcpPort: sdp.rtcpPort, caps: sdp.rtpCaps)
        case .srt(var endpoint):
            if let host = endpoint.host {
                switch NetworkAddress.resolve(host) {
                case .success(let address): endpoint.host = address
                case .failure(let error):
                    Terminal.error("yt-gst: \(source): cannot resolve \(host): \(error.message)")
                    return .failure
                }
                if endpoint.mode == .caller,
                    let problem = NetworkAddress.routeProblem(to: endpoint.host ?? "", port: endpoint.port)
                {
                    Terminal.error("yt-gst: \(source): no route to \(endpoint.host ?? "") (\(problem))")
                    return .failure
                }
            }
            plan = .srt(endpoint)
        }
        if usesDefaultOutput && Gst.audioOutputs().isEmpty {
            Terminal.error(
                "yt-gst: no audio output available (no PulseAudio server or sound card found); "
                    + "choose another with --sink, e.g. --sink 'wavenc ! filesink location=received.wav'")
            return .failure
        }
        let pipeline: Pipeline
        do {
            pipeline = try Pipeline(launch: plan.launch(output: output))
        } catch {
            switch error.kind {
            case .missingElement: Terminal.error("yt-gst: \(MissingPlugin.describe(error))")
            default: Terminal.error("yt-gst: bad pipeline: \(error.message): \(output)")
            }
            return error.kind == .missingElement ? .failure : .usage
        }
        var logWatch: DebugLogWatch? = nil
        defer { logWatch?.stop() }
        let counter: FlowCounter?
        let arrivals: FlowCounter?
        do {
            try configure(pipeline, plan: plan)
            counter = try pipeline.element(named: "received").countFlow(onPad: "src")
            arrivals = try pipeline.element(named: plan.networkSourceName).countFlow(onPad: "src")
            if case .srt(let endpoint) = plan, endpoint.mode == .listener {
                // A listener is never told that a caller was rejected; libsrt only logs it.
                logWatch = DebugLogWatch(
                    category: "srtlib", level: .info, patterns: [SRTRejectReason.handshakeLogMarker],
                    pipeline: pipeline, messageName: "yt-gst/srt-rejected")
            }
            try pipeline.setState(.playing)
        } catch {
            Terminal.error("yt-gst: \(describe(error, plan: plan, connected: false))")
            _ = try? pipeline.setState(.null)
            return .failure
        }
        let result = receive(pipeline, plan: plan, counter: counter, arrivals: arrivals)
        _ = try? pipeline.setState(.null)
        return result
    }

    private func configure(_ pipeline: Pipeline, plan: ReceivePlan) throws(GstError) {
        switch plan {
        case .rtp(let address, let port, let rtcpPort, let caps):
            let rtpbin = try pipeline.element(named: "rtpbin")
            try rtpbin.set("latency", fromString: String(latency ?? ReceiveCommand.defaultLatencyMilliseconds))
            if caps == nil { rtpbin.answerPayloadTypeRequests(from: RTPFormat.knownCapsByPayloadType) }
            rtpbin.postApplicationMessageOnBye(named: "yt-gst/rtp-bye")
            for (name, port) in [("rtp", port), ("rtcp", rtcpPort)] {
                let udp = try pipeline.element(named: name)
                try udp.set("port", fromString: String(port))
                if let address {
                    try udp.set("address", fromString: address)
                    if let interface { try udp.set("multicast-iface", fromString: interface) }
                }
            }
            let rtp = try pipeline.element(named: "rtp")
            try rtp.set("caps", fromString: caps ?? "application/x-rtp,media=(string)audio")
            if let timeout { try rtp.set("timeout", fromString: String(UInt64(timeout * 1e9))) }
            // Render as soon as the jitter buffer lets a packet go: the sink adds no processing deadline of its own.
            for sink in pipeline.allElements() where sink.isSink && sink.hasProperty("processing-deadline") {
                try sink.set("processing-deadline", fromString: "0")
            }
        case .srt(let endpoint):
            try NetworkSRT.configure(try pipeline.element(named: "net"), endpoint: endpoint, latency: latency)
            try pipeline.element(named: "framing").endStreamAtMarker(
                onPad: "src", named: NetworkSRT.endMarker, postingMessage: "yt-gst/sender-finished")
            // The buffers carry the sender's timestamps: play them as they arrive, paced by SRT's own latency.
            for sink in pipeline.allElements() where sink.isSink && sink.hasProperty("sync") {
                try sink.set("sync", fromString: "false")
            }
        }
    }

    /// Runs until the stream ends; returns the exit code.
    private func receive(
        _ pipeline: Pipeline, plan: ReceivePlan, counter: FlowCounter?, arrivals: FlowCounter?
    ) -> ExitCode {
        var status = StatusLine(enabled: Terminal.stdoutIsTerminal && !quiet)
        defer { status.clear() }
        var ending: Ending? = nil
        var endAt: ContinuousClock.Instant? = nil  // when to send EOS (a BYE waits for the last packets)
        var deadline: ContinuousClock.Instant? = nil
        var forcedEnd = false
        var failure: String? = nil
        var jitterBuffer: Element? = nil
        var lastArrivals = 0
        var lastArrivalTime = ContinuousClock.now
        var reportedLost = 0
        var lastLossReport = ContinuousClock.now
        var warned: Set<String> = []
        let finishAllowance = Duration.milliseconds(latency ?? 125) + .seconds(2)

        func begin(_ reason: Ending, after delay: Duration = .zero) {
            guard ending == nil else { return }
            ending = reason
            endAt = .now + delay
        }
        func stats() -> ReceiveStats {
            if jitterBuffer == nil { jitterBuffer = pipeline.elements(madeBy: "rtpjitterbuffer").first }
            return ReceiveStats(jitterBuffer: jitterBuffer?.structure(of: "stats"), audio: counter?.snapshot)
        }

        while true {
            if let signal = Interrupts.pending { begin(.interrupted(signal)) }
            if let at = endAt, ContinuousClock.now >= at {
                endAt = nil
                if (counter?.snapshot.buffers ?? 0) == 0 {
                    break  // nothing arrived: nothing to finalise
                }
                // srtsrc may sit in a blocking read for seconds (a dead peer), so over SRT (and after an error)
                // the end goes in right after the source side; udpsrc ends promptly and drains the jitter buffer.
                if case .srt = plan {
                    _ = try? pipeline.element(named: "received").sendEndOfStream(intoPad: "sink")
                } else if ending == .failed {
                    _ = try? pipeline.element(named: "received").sendEndOfStream(intoPad: "sink")
                } else {
                    pipeline.sendEndOfStream()
                }
                deadline = .now + finishAllowance
            }
            if let limit = deadline, ContinuousClock.now > limit {
                if !forcedEnd {
                    // The sources could not end the stream (e.g. rtpbin dropped it): end it after them.
                    forcedEnd = true
                    _ = try? pipeline.element(named: "received").sendEndOfStream(intoPad: "sink")
                    deadline = .now + .seconds(2)
                } else {
                    failure =
                        failure
                        ?? "\(source): could not finalise the output (no end of stream within \(finishAllowance))"
                    break
                }
            }
            if let timeout, case .srt = plan, ending == nil {
                let now = arrivals?.snapshot.buffers ?? 0
                if now != lastArrivals {
                    lastArrivals = now
                    lastArrivalTime = .now
                } else if ContinuousClock.now - lastArrivalTime > .milliseconds(Int64(timeout * 1000)) {
                    begin(.timedOut)
                }
            }
            let message = pipeline.nextMessage(timeout: .milliseconds(50))
            switch message {
            case .endOfStream?:
                if ending == nil {
                    // Only SRT ends by itself: the sender's end marker (then `ending` is set), or the connection
                    // closed without one.
                    ending = .failed
                    failure = "\(source): the connection closed before the end of the stream"
                }
                status.clear()
                return finish(ending!, failure: failure, stats: stats(), plan: plan)
            case .error(let error)?:
                status.clear()
                let connected = (arrivals?.snapshot.buffers ?? 0) > 0
                if case .srt = plan, (counter?.snapshot.buffers ?? 0) == 0 || ending != nil {
                    Terminal.error("yt-gst: \(describe(error, plan: plan, connected: connected))")
                    if ending == nil { return .failure }
                    break
                }
                if ending == nil {
                    failure = describe(error, plan: plan, connected: connected)
                    begin(.failed)
                } else if failure == nil {
                    failure = describe(error, plan: plan, connected: connected)
                }
            case .warning(let warning)?:
                if !quiet && warned.insert(warning.description).inserted {
                    status.clear()
                    Terminal.error(
                        "yt-gst: \(source): warning: \(verbose ? warning.verboseDescription : warning.description)")
                }
            case .application(let message)? where message.name == "yt-gst/sender-finished":
                if ending == nil { ending = .senderFinished }  // the marker has become end of stream already
            case .application(let message)? where message.name == "yt-gst/rtp-bye":
                begin(.senderFinished, after: .milliseconds(100))  // the last packets may still be in the socket
            case .application(let message)? where message.name == "yt-gst/srt-rejected":
                status.clear()
                if let reason = SRTRejectReason(handshakeLogLine: message.string("text") ?? ""),
                    (counter?.snapshot.buffers ?? 0) == 0
                {
                    Terminal.error("yt-gst: \(source): \(reason.explanation)")
                    return .failure
                }
            case .element(let structure)? where structure.name == "GstUDPSrcTimeout":
                begin(.timedOut)
            default:
                break
            }
            let current = stats()
            if !status.enabled && !quiet && current.lost > reportedLost
                && ContinuousClock.now - lastLossReport > .seconds(1)
            {
                Terminal.error("yt-gst: \(source): \(current.lost) packets lost so far")
                reportedLost = current.lost
                lastLossReport = .now
            }
            let state = ending == nil ? (current.audio.buffers == 0 ? "… waiting for" : "● receiving") : "■ finishing"
            status.draw("\(state) \(source)  \(current.audio.duration)  \(current.packets)")
        }
        status.clear()
        if let failure { Terminal.error("yt-gst: \(failure)") }
        let current = stats()
        switch ending {
        case .senderFinished?: return senderFinishedWithoutAudio(current)
        case .timedOut?: Terminal.error("yt-gst: no data from \(source) for \(timeoutText) (\(current.summary))")
        case .interrupted(let signal)?: return signal == SIGTERM ? .terminated : .interrupted
        default: break
        }
        return .failure
    }

    /// After the pipeline's end of stream: the summary, and the exit code for why it ended.
    private func finish(_ ending: Ending, failure: String?, stats: ReceiveStats, plan: ReceivePlan) -> ExitCode {
        switch ending {
        case .senderFinished:
            if stats.audio.buffers == 0 { return senderFinishedWithoutAudio(stats) }
            if !quiet { Terminal.error("yt-gst: \(source): the sender finished; \(stats.summary)") }
            return .success
        case .timedOut:
            Terminal.error("yt-gst: no data from \(source) for \(timeoutText) (\(stats.summary))")
            return .failure
        case .interrupted(let signal):
            if !quiet { Terminal.error("yt-gst: \(source): stopped; \(stats.summary)") }
            return signal == SIGTERM ? .terminated : .interrupted
        case .failed:
            Terminal.error("yt-gst: \(failure ?? "\(source): failed") (\(stats.summary))")
            return .failure
        }
    }

    /// The sender's end came before any audio was decoded (an empty stream, or packets nothing could decode):
    /// an error, since there is nothing to play or finalise.
    private func senderFinishedWithoutAudio(_ stats: ReceiveStats) -> ExitCode {
        Terminal.error("yt-gst: \(source): the sender finished before any audio was decoded (\(stats.summary))")
        return .failure
    }

    private var timeoutText: String {
        guard let timeout else { return "" }
        return timeout == timeout.rounded() ? "\(Int(timeout)) s" : "\(timeout) s"
    }

    /// One line for an error; `connected`: whether data had arrived from the network.
    private func describe(_ error: GstError, plan: ReceivePlan, connected: Bool) -> String {
        if error.kind == .missingElement { return MissingPlugin.describe(error) }
        if case .srt(let endpoint) = plan, error.sourceName == "net" {
            return NetworkSRT.explain(error, endpoint: endpoint, connected: connected, verbose: verbose)
        }
        return "\(source): \(verbose ? error.verboseDescription : error.description)"
    }
}

/// What `receive` builds.
enum ReceivePlan {
    /// RTP through rtpbin; `address` is a multicast group to join (nil: every local address); caps from an SDP.
    case rtp(address: String?, port: Int, rtcpPort: Int, caps: String?)
    case srt(SRTEndpoint)

    var networkSourceName: String {
        switch self {
        case .rtp: "rtp"
        case .srt: "net"
        }
    }

    /// The launch string: named elements, values set as properties afterwards; `output` is the user's part.
    func launch(output: String) -> String {
        let decode = "decodebin name=decode ! identity name=received silent=true ! \(output)"
        switch self {
        case .rtp:
            return
                "rtpbin name=rtpbin udpsrc name=rtp ! rtpbin.recv_rtp_sink_0 udpsrc name=rtcp ! rtpbin.recv_rtcp_sink_0 "
                + "rtpbin. ! \(decode)"
        case .srt:
            return "srtsrc name=net ! gdpdepay name=framing ! \(decode)"
        }
    }
}

/// Counts for the status line and the summary.
struct ReceiveStats {
    var received = 0
    var lost = 0
    var late = 0
    var audio = FlowCounter.Snapshot()
    var isRTP = false

    init(jitterBuffer: Structure?, audio: FlowCounter.Snapshot?) {
        if let jitterBuffer {
            isRTP = true
            received = Int(jitterBuffer.count("num-pushed") ?? 0)
            lost = Int(jitterBuffer.count("num-lost") ?? 0)
            late = Int(jitterBuffer.count("num-late") ?? 0)
        }
        self.audio = audio ?? FlowCounter.Snapshot()
    }

    /// "1234 packets received, 2 lost, 0 late; 0:09.8 of audio".
    var summary: String {
        (isRTP ? packets + "; " : "") + "\(audio.duration) of audio"
    }

    /// "1234 packets received, 2 lost, 0 late" (RTP), or the bytes that arrived (SRT).
    var packets: String {
        isRTP ? "\(received) packets received, \(lost) lost, \(late) late" : "\(audio.bytes / 1024) KiB received"
    }
}
