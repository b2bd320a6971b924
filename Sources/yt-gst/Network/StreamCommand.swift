// yt-gst — `yt-gst stream`: sends WAV files to other machines over RTP (unicast or multicast) or SRT.
import AppSrcFeeder
import Glibc
import GstPlayer

struct StreamCommand {
    static let spec = CommandSpec(
        name: "stream", abstract: "Stream WAV files to other machines over RTP or SRT.", operands: "FILE... --to URL",
        options: [
            OptionSpec(
                name: "to", valueName: "URL",
                help: "Where to send: rtp://HOST:PORT, rtp://GROUP:PORT, srt://HOST:PORT, srt://:PORT."),
            OptionSpec(
                name: "codec", valueName: "CODEC",
                help: "l16, l24 or opus (default: l16, l24 for files deeper than 16 bits)."),
            OptionSpec(name: "bitrate", valueName: "KBITS", help: "Opus bitrate in kbit/s, 6 to 510 (default 64)."),
            OptionSpec(
                name: "sdp", valueName: "FILE", help: "Write an SDP file that describes the RTP stream, for receivers."),
            OptionSpec(
                name: "iface", valueName: "NAME", help: "Network interface for multicast (default: the route's)."),
            OptionSpec(
                name: "ttl", valueName: "N", help: "Multicast time-to-live, 1 to 255 (default 1: this network only)."),
            OptionSpec(name: "quiet", short: "q", help: "No status line and no warnings; errors only."),
            OptionSpec(name: "verbose", short: "v", help: "Show GStreamer's debug details with errors and warnings."),
        ],
        discussion: """
            RTP goes through rtpbin with RTCP on PORT+1; the end of the stream is an RTCP BYE. The default codec is
            lossless linear PCM at the file's rate and channels (L16, or L24 for deeper files); a receiver knows the
            format from the payload type, or from the SDP that --sdp writes. Opus needs 1 or 2 channels and is sent
            at 48 kHz. Several files are sent one after another as one stream, converted to the first file's format.

            SRT: srt://HOST:PORT calls a listener, srt://:PORT listens and waits for a receiver to call. Options:
            ?passphrase=SECRET (10-79 characters, AES encryption) &pbkeylen=16|24|32 &latency=MS &mode=caller|listener.
            The audio goes as is (or as Opus) in GStreamer's GDP framing, so the receiver learns the format.

            The sender paces the audio in real time and ends after the last sample has left (for SRT, after the
            receiver has had time to acknowledge it).

            EXAMPLES:
              yt-gst stream song.wav --to rtp://192.168.1.20:5004
              yt-gst stream song.wav --to rtp://239.255.0.1:5004 --ttl 1 --sdp song.sdp
              yt-gst stream song.wav --to rtp://192.168.1.20:5004 --codec opus --bitrate 96
              yt-gst stream song.wav --to 'srt://192.168.1.20:7001?passphrase=correct-horse-battery'
            """)

    var files: [String]
    var destination: StreamURL
    var codec: NetworkCodec?
    var bitrate: Int?
    var sdpPath: String?
    var interface: String?
    var ttl: Int?
    var quiet: Bool
    var verbose: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        guard !arguments.operands.isEmpty else { throw UsageError("no file given") }
        guard let to = arguments.value("to") else {
            throw UsageError("--to URL is required (e.g. --to rtp://HOST:5004)")
        }
        files = arguments.operands
        destination = try StreamURL(parsing: to)
        if let text = arguments.value("codec") {
            guard let parsed = NetworkCodec(rawValue: text.lowercased()) else {
                throw UsageError("--codec must be l16, l24 or opus, not \"\(text)\"")
            }
            codec = parsed
        }
        bitrate = try arguments.integer("bitrate", in: 6...510)
        if bitrate != nil && codec != .opus { throw UsageError("--bitrate applies to --codec opus only") }
        sdpPath = arguments.value("sdp")
        interface = arguments.value("iface")
        ttl = try arguments.integer("ttl", in: 1...255)
        quiet = arguments.flags.contains("quiet")
        verbose = arguments.flags.contains("verbose")
        switch destination {
        case .sdp:
            throw UsageError("\(to): stream sends to rtp:// or srt://; use --sdp FILE to write an SDP")
        case .rtp(let endpoint):
            if endpoint.listen { throw UsageError("\(to): @ is for receiving; send to rtp://HOST:PORT") }
            if (ttl != nil || interface != nil) && !endpoint.isMulticast {
                throw UsageError("--ttl and --iface apply to multicast groups (224.0.0.0/4, ff00::/8) only")
            }
        case .srt:
            if sdpPath != nil { throw UsageError("--sdp describes RTP streams; SRT carries its format in the stream") }
            if ttl != nil || interface != nil { throw UsageError("--ttl and --iface apply to RTP multicast only") }
        }
    }

    func run() throws(UsageError) -> ExitCode {
        Gst.initialize()
        Interrupts.install()
        var feeders: [WAVFeeder] = []
        var anyFailed = false
        for file in files {
            do {
                let feeder = try WAVFeeder(path: file)
                if !quiet {
                    for warning in feeder.file.warnings { Terminal.error("yt-gst: \(file): warning: \(warning)") }
                }
                feeders.append(feeder)
            } catch {
                Terminal.error("yt-gst: \(file): \(error)")
                anyFailed = true
            }
        }
        guard let first = feeders.first else { return .failure }
        let format = first.file.format
        let codec = codec ?? (format.encoding == .pcm && format.validBits <= 16 ? .l16 : .l24)
        if codec == .opus && format.channels > 2 {
            Terminal.error(
                "yt-gst: \(first.displayName): Opus streams carry 1 or 2 channels, not \(format.channels) (use --codec l16 or l24)"
            )
            return .failure
        }
        let plan: StreamPlan
        switch destination {
        case .rtp(var endpoint):
            switch NetworkAddress.resolve(endpoint.host ?? "") {
            case .success(let address): endpoint.host = address
            case .failure(let error):
                Terminal.error("yt-gst: \(destination): cannot resolve \(endpoint.host ?? ""): \(error.message)")
                return .failure
            }
            if let problem = NetworkAddress.routeProblem(to: endpoint.host ?? "", port: endpoint.port) {
                Terminal.error("yt-gst: \(destination): no route to \(endpoint.host ?? "") (\(problem))")
                return .failure
            }
            let rtp = RTPFormat(codec: codec, rate: format.sampleRate, channels: format.channels)
            if !rtp.isKnownWithoutSDP && sdpPath == nil {
                Terminal.error(
                    "yt-gst: \(first.displayName): \(rtp.rtpmap) has no standard payload type; write an SDP with --sdp FILE "
                        + "and receive with sdp:FILE")
                return .usage
            }
            plan = .rtp(endpoint, rtp)
        case .srt(var endpoint):
            if let host = endpoint.host {
                switch NetworkAddress.resolve(host) {
                case .success(let address): endpoint.host = address
                case .failure(let error):
                    Terminal.error("yt-gst: \(destination): cannot resolve \(host): \(error.message)")
                    return .failure
                }
                if endpoint.mode == .caller,
                    let problem = NetworkAddress.routeProblem(to: endpoint.host ?? "", port: endpoint.port)
                {
                    Terminal.error("yt-gst: \(destination): no route to \(endpoint.host ?? "") (\(problem))")
                    return .failure
                }
            }
            plan = .srt(endpoint, codec == .opus ? .opus : .pcm(format.rawCaps ?? ""))
        case .sdp:
            return .usage
        }
        let pipeline: Pipeline
        do {
            pipeline = try Pipeline(launch: plan.launch(sources: feeders.count))
            try configure(
                pipeline, plan: plan, firstFile: first, dithering: format.validBits > (codec == .l16 ? 16 : 24))
            for (index, feeder) in feeders.enumerated() {
                try feeder.attach(to: pipeline.appSource(named: "src\(index)"))
            }
        } catch {
            Terminal.error("yt-gst: \(describe(error))")
            return .failure
        }
        if case .rtp(let endpoint, let rtp) = plan, let sdpPath {
            let name = files.count == 1 ? files[0] : "\(files.count) files"
            let sdp = SessionDescription(
                name: name, format: rtp, address: endpoint.host ?? "", port: endpoint.port, ttl: ttl)
            if let problem = NetworkFile.write(sdp.text, to: sdpPath) {
                Terminal.error("yt-gst: \(sdpPath): \(problem)")
                return .failure
            }
        }
        let total = feeders.reduce(ClockTime.zero) {
            ClockTime(
                nanoseconds: $0.nanoseconds
                    + ClockTime(frames: $1.file.frameCount, rate: $1.file.format.sampleRate).nanoseconds)
        }
        let label = (files.count == 1 ? files[0] : "\(feeders.count) files") + " → \(destination) (\(plan.formatName))"
        let result = stream(pipeline, plan: plan, total: total, label: label)
        _ = try? pipeline.setState(.null)
        if result == .success && anyFailed { return .failure }
        return result
    }

    /// Sets the user's values on the parsed pipeline's elements (never pasted into the launch text).
    private func configure(
        _ pipeline: Pipeline, plan: StreamPlan, firstFile: WAVFeeder, dithering: Bool
    ) throws(GstError) {
        if !dithering { try pipeline.element(named: "convert").set("dithering", fromString: "none") }
        switch plan {
        case .rtp(let endpoint, let format):
            try pipeline.element(named: "format").set("caps", fromString: format.rawCaps)
            try pipeline.element(named: "pay").set("pt", fromString: String(format.payloadType))
            if format.codec == .opus {
                try pipeline.element(named: "enc").set("bitrate", fromString: String((bitrate ?? 64) * 1000))
            }
            for (name, port) in [("rtp", endpoint.port), ("rtcp", endpoint.rtcpPort)] {
                let sink = try pipeline.element(named: name)
                try sink.set("host", fromString: endpoint.host ?? "")
                try sink.set("port", fromString: String(port))
                if endpoint.isMulticast {
                    try sink.set("ttl-mc", fromString: String(ttl ?? 1))
                    if let interface { try sink.set("multicast-iface", fromString: interface) }
                }
            }
        case .srt(let endpoint, let payload):
            switch payload {
            case .pcm(let caps): try pipeline.element(named: "format").set("caps", fromString: caps)
            case .opus:
                try pipeline.element(named: "format").set(
                    "caps", fromString: "audio/x-raw,rate=48000,channels=\(firstFile.file.format.channels)")
                try pipeline.element(named: "enc").set("bitrate", fromString: String((bitrate ?? 64) * 1000))
            }
            try NetworkSRT.configure(try pipeline.element(named: "net"), endpoint: endpoint, latency: nil)
            // GDP does not carry end of stream: mark it in the stream, so the receiver knows we finished.
            try pipeline.element(named: "framing").sendMarkerBeforeEndOfStream(
                onPad: "sink", named: NetworkSRT.endMarker)
        }
    }

    /// Runs the pipeline to its end; returns the exit code.
    private func stream(_ pipeline: Pipeline, plan: StreamPlan, total: ClockTime, label: String) -> ExitCode {
        var status = StatusLine(enabled: Terminal.stdoutIsTerminal && !quiet)
        defer { status.clear() }
        let net = try? pipeline.element(named: "net")
        // Whether an SRT connection came up (a caller arrived, or the receiver acknowledged packets): an error
        // after that is a broken connection, before it a failure to connect.
        var connected = false
        var waitingForCaller = false
        do {
            if case .srt(let endpoint, _) = plan, endpoint.mode == .listener, let net {
                // Start the clock only when a receiver has called, so nothing is sent to no one.
                net.postApplicationMessageOnCallerAdded(named: "yt-gst/caller-added")
                try pipeline.setState(.paused)
                waitingForCaller = true
            } else {
                try pipeline.setState(.playing)
            }
        } catch {
            Terminal.error("yt-gst: \(describe(error))")
            return .failure
        }
        var stopping: (signal: Int32, deadline: ContinuousClock.Instant)? = nil
        var warned: Set<String> = []
        let rtpSink = try? pipeline.element(named: "rtp")
        var rtpFinishedAt: ContinuousClock.Instant? = nil
        while true {
            // rtpsession sends the BYE after the last packet and then ends its RTCP output; on rare runs that end
            // never comes. The BYE is out by then, so end the RTCP sink after a second.
            if let rtpSink, rtpFinishedAt == nil, rtpSink.padHasSeenEndOfStream("sink") { rtpFinishedAt = .now }
            if let since = rtpFinishedAt, ContinuousClock.now - since > .seconds(1) {
                rtpFinishedAt = .now + .seconds(3600)
                _ = try? pipeline.element(named: "rtcp").sendEndOfStream(intoPad: "sink")
            }
            if case .srt = plan, !connected,
                let acknowledged = net?.structure(of: "stats")?.count("packet-ack-received")
            {
                connected = acknowledged > 0
            }
            if stopping == nil, let signal = Interrupts.pending {
                if waitingForCaller { return signal == SIGTERM ? .terminated : .interrupted }
                pipeline.sendEndOfStream()  // RTP then sends its BYE, so receivers end cleanly
                stopping = (signal, .now + .seconds(2))
            }
            if let stopping, ContinuousClock.now > stopping.deadline {
                return stopping.signal == SIGTERM ? .terminated : .interrupted
            }
            switch pipeline.nextMessage(timeout: .milliseconds(100)) {
            case .endOfStream?:
                status.clear()
                if case .srt = plan, let net { NetworkSRT.waitUntilDelivered(net) }
                if let stopping { return stopping.signal == SIGTERM ? .terminated : .interrupted }
                return .success
            case .error(let error)?:
                status.clear()
                Terminal.error("yt-gst: \(describe(error, connected: connected))")
                return .failure
            case .warning(let warning)?:
                // Each kind of warning once: udpsink warns for every packet the network refuses.
                if !quiet && warned.insert(warning.description).inserted {
                    status.clear()
                    Terminal.error(
                        "yt-gst: \(destination): warning: \(verbose ? warning.verboseDescription : warning.description)"
                    )
                }
            case .application(let message)? where message.name == "yt-gst/caller-added" && waitingForCaller:
                waitingForCaller = false
                connected = true
                do { try pipeline.setState(.playing) } catch {
                    Terminal.error("yt-gst: \(describe(error))")
                    return .failure
                }
            default:
                break
            }
            if waitingForCaller {
                status.draw("… waiting for a receiver to call \(destination)")
            } else {
                let position = pipeline.position.map { min($0, total) } ?? .zero
                status.draw("> \(position) / \(total)  \(label)")
            }
        }
    }

    /// One line for an error, naming the destination and what to check.
    /// - Parameter connected: whether audio had gone out over the connection.
    private func describe(_ error: GstError, connected: Bool = false) -> String {
        if error.kind == .missingElement { return MissingPlugin.describe(error) }
        let detail = verbose ? error.verboseDescription : error.description
        if case .srt(let endpoint) = destination, error.sourceName == "net" {
            return NetworkSRT.explain(error, endpoint: endpoint, connected: connected, verbose: verbose)
        }
        return "\(destination): \(detail)"
    }
}

/// What `stream` builds: the transport, and the format on the wire.
enum StreamPlan {
    enum SRTPayload {
        /// The raw audio as it is in the file (caps).
        case pcm(String)
        case opus
    }

    case rtp(RTPEndpoint, RTPFormat)
    case srt(SRTEndpoint, SRTPayload)

    /// "L16/44100/2", "PCM", "Opus".
    var formatName: String {
        switch self {
        case .rtp(_, let format): format.rtpmap
        case .srt(_, .pcm): "PCM"
        case .srt(_, .opus): "Opus"
        }
    }

    /// The launch string: constant text with named elements; every user value is set as a property afterwards.
    func launch(sources: Int) -> String {
        var text: String
        if sources == 1 {
            text = "appsrc name=src0 ! "
        } else {
            text = (0..<sources).map { "appsrc name=src\($0) ! files. " }.joined() + "concat name=files ! "
        }
        text += "audioconvert name=convert ! audioresample ! capsfilter name=format ! "
        switch self {
        case .rtp(_, let format):
            switch format.codec {
            case .l16: text += "rtpL16pay name=pay"
            case .l24: text += "rtpL24pay name=pay"
            case .opus: text += "opusenc name=enc ! rtpopuspay name=pay"
            }
            text += " ! rtpbin.send_rtp_sink_0 rtpbin name=rtpbin rtpbin.send_rtp_src_0 ! udpsink name=rtp"
            text += " rtpbin.send_rtcp_src_0 ! udpsink name=rtcp sync=false async=false"
        case .srt(_, let payload):
            if case .opus = payload { text += "opusenc name=enc ! " }
            text += "gdppay name=framing ! srtsink name=net auto-reconnect=false"
        }
        return text
    }
}
