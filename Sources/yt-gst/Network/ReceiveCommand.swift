// yt-gst — `yt-gst receive`: plays (or records) what `stream` sends, over RTP or SRT, and ends by itself.
import GstPlayer

/// `receive`'s options, checked, and the plan they make: where to listen or call, and the pipeline from the network
/// to the output. A `ReceiveSession` then runs it.
struct ReceiveCommand {
    static let defaultLatencyMilliseconds = 50
    /// Everything after the decoder when neither --sink nor --pipeline is given.
    static let defaultOutput = "audioconvert ! audioresample ! autoaudiosink"

    static let spec = CommandSpec(
        name: "receive", abstract: "Receive a stream from `yt-gst stream` and play it.", operands: "URL",
        options: [
            OptionSpec(
                name: "latency-ms", valueName: "N",
                help: "RTP: sending to sound in ms, the same on every receiver (default 80; with --no-sync the "
                    + "jitter buffer's, default 50). SRT: its latency (default 125)."),
            OptionSpec(
                name: "delay-ms", valueName: "N",
                help: "Play this receiver N ms later (negative: earlier), for a speaker with its own delay."),
            OptionSpec(name: "no-sync", help: "Play as packets arrive, not in step with the sender's clock."),
            OptionSpec(
                name: "clock", valueName: "CLOCK",
                help: "The clock to follow: sender (the default, published by yt-gst stream), ntp://HOST[:PORT] or "
                    + "ptp[:DOMAIN]; an SDP's a=ts-refclk line sets it too."),
            OptionSpec(name: "timeout", valueName: "SEC", help: "Give up (exit 1) after SEC seconds without data."),
            .sink(templates: false),
            .pipeline(templates: false),
            OptionSpec(name: "iface", valueName: "NAME", help: "Network interface to join a multicast group on."),
            .quiet(silencing: "status line, no summary and no warnings"),
            .verbose,
        ],
        discussion: """
            URL: rtp://@:PORT (any local address), rtp://@GROUP:PORT (join a multicast group), sdp:FILE or FILE.sdp
            (the SDP `stream --sdp` writes, or any SDP for one RTP audio stream), srt://HOST:PORT (call a sender
            that listens) or srt://:PORT (listen), with ?passphrase=SECRET&pbkeylen=16|24|32 for encrypted SRT.
            http://HOST:PORT/MOUNT or https://... plays an Icecast mount or any HTTP audio stream, and a .m3u8 URL
            an HLS stream (as `stream --to icecast://... or hls:DIR` broadcast them): the title is shown as it
            changes; a dropped connection is retried for --timeout seconds (default 5), and a mount still gone
            then has ended (exit 0).

            RTP receivers play in step (multi-room): each follows the sender's clock (published by `yt-gst stream`
            on its RTP port + 2, or the NTP or PTP clock of --clock or the SDP), plays sample n when that clock reads
            the sender's time of n plus --latency-ms (+ --delay-ms), and keeps its audio output on that instant one
            sample at a time. A sender that publishes no clock is played unsynchronised, with a warning.

            Without an SDP the format comes from the RTP payload type (yt-gst's table; L16 44.1 kHz uses RFC 3551's
            10 and 11). The stream ends when the sender finishes (RTCP BYE, or the end of the SRT stream): the
            output is finalised (a wavenc header is written), a summary goes to stderr and the exit code is 0.
            With --timeout, SEC seconds without data end it with exit 1. A lost RTP packet is skipped; one that is
            not the stream's (not RTP, another payload type or source, not whole frames) is dropped and counted.
            Over SRT the audio is played as it arrives (the sinks do not sync to the sender's timestamps).

            EXAMPLES:
              yt-gst receive rtp://@:5004
              yt-gst receive rtp://@239.255.0.1:5004 --iface eth0
              yt-gst receive rtp://@239.255.0.1:5004 --delay-ms 12 --sink 'pulsesink device=kitchen'
              yt-gst receive song.sdp --sink 'wavenc ! filesink location=copy.wav' --timeout 5
              yt-gst receive 'srt://:7001?passphrase=correct-horse-battery'
              yt-gst receive http://radio.example.org:8000/live.mp3
            """)

    var source: StreamURL
    var latency: Int?
    var timeout: Double?
    var output: String
    var usesDefaultOutput: Bool
    var interface: String?
    /// Whether RTP plays in step with the sender's clock (not --no-sync), and on which clock.
    var synchronised: Bool
    var clock: ReferenceClock?
    /// --delay-ms in ns.
    var delay: Int64
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
        let (sink, pipeline) = try arguments.sinkOrPipeline()
        if let text = sink ?? pipeline, text.allSatisfy(\.isWhitespace) {
            throw UsageError("--sink and --pipeline need a launch string")
        }
        output = pipeline ?? sink.map { "audioconvert ! audioresample ! " + $0 } ?? ReceiveCommand.defaultOutput
        usesDefaultOutput = sink == nil && pipeline == nil
        interface = arguments.value("iface")
        synchronised = !arguments.flags.contains("no-sync")
        clock = try arguments.value("clock").map { text throws(UsageError) in try ReferenceClock(option: text) }
        delay = Int64(try arguments.integer("delay-ms", in: -10_000...10_000) ?? 0) * 1_000_000
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
            if delay != 0 || clock != nil || !synchronised {
                throw UsageError("--delay-ms, --clock and --no-sync apply to RTP (SRT plays as it arrives)")
            }
        case .sdp:
            break
        }
        if !synchronised && (delay != 0 || clock != nil) {
            throw UsageError("--delay-ms and --clock synchronise playback; they do not go with --no-sync")
        }
        // Playing earlier than the others takes from the shared latency; what the output buffers must be left.
        let shared = latency ?? ReceiverSync.defaultLatencyMilliseconds
        let earliest = shared - ReceiverSync.outputBufferMicroseconds / 1000 - 10
        if delay < 0 && -delay > Int64(earliest) * 1_000_000 {
            throw UsageError(
                "--delay-ms \(delay / 1_000_000) plays earlier than the latency allows (at most -\(max(earliest, 0)) "
                    + "with --latency-ms \(shared); raise --latency-ms on every receiver)")
        }
    }

    func run() throws(UsageError) -> ExitCode {
        Gst.initialize()
        Interrupts.install()
        do throws(ExitCode) {
            let plan = try makePlan()
            if usesDefaultOutput && Gst.audioOutputs().isEmpty {
                Terminal.error(
                    "yt-gst: no audio output available (no PulseAudio server or sound card found); "
                        + "choose another with --sink, e.g. --sink 'wavenc ! filesink location=received.wav'")
                return .failure
            }
            let packetGuard = plan.packetGuard()
            let pipeline = try makePipeline(plan, packetGuard: packetGuard)
            let sender = try firstPacketIfSynchronising(plan, pipeline: pipeline, packetGuard: packetGuard)
            let sync = try sender.flatMap { first throws(ExitCode) in
                try makeSync(plan, sender: first, pipeline: pipeline)
            }
            if sender != nil && sync == nil {
                // No clock to follow: the jitter buffer's latency as without synchronisation.
                try? pipeline.element(named: "rtpbin").set(
                    "latency", fromString: String(latency ?? ReceiveCommand.defaultLatencyMilliseconds))
            }
            return ReceiveSession(
                command: self, pipeline: pipeline, plan: plan, packetGuard: packetGuard, sync: sync
            ).run()
        } catch {
            return error
        }
    }

    /// Where to listen or whom to call, and the RTP format when an SDP gives it.
    ///
    /// - Throws: the exit code, once the problem has been said.
    private func makePlan() throws(ExitCode) -> ReceivePlan {
        switch try source.resolvedOrExit(sending: false) {
        case .rtp(let endpoint):
            return .rtp(address: endpoint.host, port: endpoint.port, rtcpPort: endpoint.rtcpPort, caps: nil)
        case .sdp(let path):
            let sdp: SessionDescription
            do { sdp = try SessionDescription(parsing: try NetworkFile.read(path).get()) } catch {
                Terminal.error("yt-gst: \(path): \(error)")
                throw .failure
            }
            // A unicast SDP names this machine's address; listening on every address is the same and more robust.
            return .rtp(
                address: sdp.isMulticast ? sdp.address : nil, port: sdp.port, rtcpPort: sdp.rtcpPort, caps: sdp.rtpCaps,
                clock: sdp.referenceClock)
        case .srt(let endpoint):
            return .srt(endpoint)
        }
    }

    /// For a synchronised RTP receiver that plays in real time: the first packet (who sends, which payload type);
    /// nil otherwise. An output that does not follow the clock (a file) is not synchronised, and loses nothing.
    private func firstPacketIfSynchronising(
        _ plan: ReceivePlan, pipeline: Pipeline, packetGuard: RTPPacketGuard?
    ) throws(ExitCode) -> FirstPacket? {
        guard synchronised, case .rtp(let address, let port, _, _, _) = plan, let packetGuard,
            (try? pipeline.element(named: "received"))?.pipelineSynchronizesToClock ?? true
        else { return nil }
        return try FirstPacket.wait(
            port: port, group: address, interface: interface, timeout: timeout, describing: source,
            accepting: packetGuard.isPlayable)
    }

    /// The shared clock, synced, and the timing of `pipeline` on it; nil (after a warning) when the sender publishes
    /// no clock.
    ///
    /// - Throws: the exit code, once the problem has been said (an NTP or PTP clock that does not answer).
    private func makeSync(
        _ plan: ReceivePlan, sender: FirstPacket, pipeline: Pipeline
    ) throws(ExitCode)
        -> ReceiverSync?
    {
        guard case .rtp(_, let port, _, let caps, let sdpClock) = plan else { return nil }
        let rtpCaps = caps ?? RTPFormat.knownCapsByPayloadType[sender.payloadType]
        guard let rate = rtpCaps?["clock-rate"]?.number.map({ Int($0) }), rate > 0 else { return nil }
        let reference = clock ?? sdpClock ?? .sender
        let clockPort = MediaClock.clockPort(rtpPort: port)
        guard
            let shared = reference.makeClock(
                senderAddress: sender.sender, clockPort: clockPort, statisticsTo: pipeline)
        else {
            Terminal.error("yt-gst: \(reference) is not available here (PTP needs gst-ptp-helper and ports 319-320)")
            throw .failure
        }
        guard try shared.waitForSync(within: .seconds(3)) else {
            if reference != .sender {
                Terminal.error("yt-gst: \(source): \(reference) did not answer within 3 s")
                throw .failure
            }
            if !quiet {
                Terminal.error(
                    "yt-gst: \(source): warning: \(sender.sender) publishes no clock on UDP port \(clockPort) "
                        + "(not a yt-gst sender?); playing unsynchronised")
            }
            return nil
        }
        let sync = ReceiverSync(
            clock: shared,
            latency: ClockTime(nanoseconds: UInt64(latency ?? ReceiverSync.defaultLatencyMilliseconds) * 1_000_000),
            delay: delay, rate: rate)
        do throws(GstError) {
            try pipeline.element(named: "rtpbin").set("latency", fromString: String(sync.jitterBufferMilliseconds))
            sync.prepare(pipeline, retimeElement: try pipeline.element(named: "retime"))
        } catch {
            Terminal.error("yt-gst: \(describe(error, plan: plan, connected: false))")
            throw .failure
        }
        return sync
    }

    /// The pipeline for `plan` into the output, with the user's values set.
    private func makePipeline(_ plan: ReceivePlan, packetGuard: RTPPacketGuard?) throws(ExitCode) -> Pipeline {
        let pipeline: Pipeline
        do {
            pipeline = try Pipeline(launch: plan.launch(output: output))
        } catch {
            switch error.kind {
            case .missingElement: Terminal.error("yt-gst: \(MissingPlugin.describe(error))")
            default: Terminal.error("yt-gst: bad pipeline: \(error.message): \(output)")
            }
            throw error.kind == .missingElement ? .failure : .usage
        }
        do { try configure(pipeline, plan: plan, packetGuard: packetGuard) } catch {
            Terminal.error("yt-gst: \(describe(error, plan: plan, connected: false))")
            _ = try? pipeline.setState(.null)
            throw .failure
        }
        return pipeline
    }

    private func configure(_ pipeline: Pipeline, plan: ReceivePlan, packetGuard: RTPPacketGuard?) throws(GstError) {
        switch plan {
        case .rtp(let address, let port, let rtcpPort, let caps, _):
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
            if let packetGuard { rtp.filterPackets(onPad: "src") { packetGuard.verdict(on: $0) } }
            try rtp.set("caps", to: caps ?? Caps(mediaType: "application/x-rtp", fields: [("media", .string("audio"))]))
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

    /// One line for an error; `connected`: whether data had arrived from the network.
    func describe(_ error: GstError, plan: ReceivePlan, connected: Bool) -> String {
        if error.kind == .missingElement { return MissingPlugin.describe(error) }
        if case .srt(let endpoint) = plan, error.elementName == "net" {
            return NetworkSRT.explain(error, endpoint: endpoint, connected: connected, verbose: verbose)
        }
        return "\(source): \(verbose ? error.verboseDescription : error.description)"
    }
}
