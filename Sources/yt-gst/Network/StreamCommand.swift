// yt-gst — `yt-gst stream`: sends WAV files to other machines over RTP (unicast or multicast) or SRT.
import AppSrcFeeder
import GstPlayer
import Streaming
import WAV

/// `stream`'s options, checked, and the plan they make: the files, the format on the wire, the resolved destination
/// and the pipeline for them. A `StreamSession` then runs it.
struct StreamCommand {
    static let spec = CommandSpec(
        name: "stream", abstract: "Stream WAV files over RTP or SRT, or broadcast them through Icecast and HLS.",
        operands: "FILE... --to URL",
        options: [
            OptionSpec(
                name: "to", valueName: "URL",
                help: "Where to send: rtp://HOST:PORT, rtp://GROUP:PORT, srt://HOST:PORT, srt://:PORT; broadcast: "
                    + "icecast://[USER:]PASSWORD@HOST[:PORT]/MOUNT, hls:DIR. Repeatable: several RTP hosts (one "
                    + "encoder, one clock), or one broadcast to every Icecast and HLS --to."),
            OptionSpec(
                name: "clock", valueName: "CLOCK",
                help: "The clock receivers synchronise to: sender (the default: this machine's, published on the "
                    + "RTP port + 2), ntp://HOST[:PORT] or ptp[:DOMAIN]."),
            OptionSpec(
                name: "codec", valueName: "CODEC",
                help: "l16, l24 or opus (default: l16, l24 for files deeper than 16 bits); Icecast: mp3, vorbis, opus."),
            OptionSpec(
                name: "bitrate", valueName: "KBITS",
                help: "Opus bitrate in kbit/s, 6 to 510 (default 64); broadcast: 32 to 320 (default 128)."),
            OptionSpec(
                name: "sdp", valueName: "FILE", help: "Write an SDP file that describes the RTP stream, for receivers."),
            OptionSpec(
                name: "iface", valueName: "NAME", help: "Network interface for multicast (default: the route's)."),
            OptionSpec(
                name: "ttl", valueName: "N", help: "Multicast time-to-live, 1 to 255 (default 1: this network only)."),
        ] + BroadcastCommand.options + [
            .quiet(silencing: "status line and no warnings"),
            .verbose,
        ],
        discussion: """
            RTP goes through rtpbin with RTCP on PORT+1; the end of the stream is an RTCP BYE. The sender publishes
            its clock on UDP PORT+2 and timestamps the audio on it, so every `yt-gst receive` plays sample n at the
            same instant (multi-room); --to repeated sends one encoding to several hosts where there is no multicast. The default codec is
            lossless linear PCM at the file's rate and channels (L16, or L24 for deeper files); a receiver knows the
            format from the payload type, or from the SDP that --sdp writes. Opus needs 1 or 2 channels and is sent
            at 48 kHz. Several files are sent one after another as one stream, converted to the first file's format.

            SRT: srt://HOST:PORT calls a listener, srt://:PORT listens and waits for a receiver to call. Options:
            ?passphrase=SECRET (10-79 characters, AES encryption) &pbkeylen=16|24|32 &latency=MS &mode=caller|listener.
            The audio goes as is (or as Opus) in GStreamer's GDP framing, so the receiver learns the format.

            The sender paces the audio in real time and ends after the last sample has left (for SRT, after the
            receiver has had time to acknowledge it). FILE may be "-" (standard input), a FIFO or a device: a WAV
            from a live producer (`arecord -f cd | yt-gst stream - --to ...`) is sent as it arrives, paced by the
            input rather than by this machine's clock; one that arrives faster than real time (`cat song.wav |`)
            is paced by the clock, as a file is.

            EXAMPLES:
              yt-gst stream song.wav --to rtp://192.168.1.20:5004
              yt-gst stream song.wav --to rtp://239.255.0.1:5004 --ttl 1 --sdp song.sdp
              yt-gst stream song.wav --to rtp://192.168.1.20:5004 --to rtp://192.168.1.21:5004
              yt-gst stream song.wav --to rtp://192.168.1.20:5004 --codec opus --bitrate 96
              yt-gst stream song.wav --to 'srt://192.168.1.20:7001?passphrase=correct-horse-battery'
              arecord -f cd | yt-gst stream - --to rtp://192.168.1.20:5004

            \(BroadcastCommand.help)
            """)

    /// Buffers read from a pipe: short, since a live pipe's are sent as they arrive (200 ms bursts lost packets in a
    /// receiver's 50 ms jitter buffer, 1 run in 4 of `StreamingTests.livePipeStreamsBitExact`).
    static let pipeChunkMilliseconds = 20

    var files: [String]
    /// Every --to, in order; several only for RTP.
    var destinations: [StreamURL]
    /// The first --to (labels and messages name it).
    var destination: StreamURL { destinations[0] }
    var clock: ReferenceClock
    var codec: NetworkCodec?
    var bitrate: Int?
    var sdpPath: String?
    var interface: String?
    var ttl: Int?
    var quiet: Bool
    var verbose: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        guard !arguments.operands.isEmpty else { throw UsageError("no file given") }
        let targets = arguments.values["to"] ?? []
        guard !targets.isEmpty else { throw UsageError("--to URL is required (e.g. --to rtp://HOST:5004)") }
        files = arguments.operands
        for option in BroadcastCommand.options
        where arguments.flags.contains(option.name) || arguments.value(option.name) != nil {
            throw UsageError("--\(option.name) applies to broadcasts (--to icecast://... or hls:DIR)")
        }
        try StandardInput.check(files, command: "stream")
        destinations = try targets.map { text throws(UsageError) in try StreamURL(parsing: text) }
        clock =
            try arguments.value("clock").map { text throws(UsageError) in try ReferenceClock(option: text) } ?? .sender
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
        if destinations.count > 1, !destinations.allSatisfy({ if case .rtp = $0 { true } else { false } }) {
            throw UsageError("several --to are for RTP hosts; SRT sends to one peer")
        }
        for (text, destination) in zip(targets, destinations) { try check(destination, text: text) }
    }

    /// Checks one --to against the other options.
    private func check(_ destination: StreamURL, text to: String) throws(UsageError) {
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
            if clock != .sender { throw UsageError("--clock applies to RTP (SRT receivers play as it arrives)") }
        }
    }

    func run() throws(UsageError) -> ExitCode {
        Gst.initialize()
        Interrupts.install()
        let (feeders, anyFailed) = openFiles()
        guard let first = feeders.first else { return .failure }
        do throws(ExitCode) {
            let plan = try makePlan(for: first.file.format, named: first.displayName)
            let pipeline = try makePipeline(plan, feeders: feeders)
            let senderClock = try startClock(plan, pipeline: pipeline)
            defer { withExtendedLifetime(senderClock) {} }
            try writeSDP(plan)
            // Unknown while a pipe's header does not say how long it is.
            let total =
                feeders.allSatisfy(\.file.lengthIsKnown)
                ? feeders.reduce(ClockTime.zero) {
                    ClockTime(
                        nanoseconds: $0.nanoseconds
                            + ClockTime(frames: $1.file.frameCount, rate: $1.file.format.sampleRate).nanoseconds)
                } : nil
            let label =
                (files.count == 1 ? files[0] : "\(feeders.count) files") + " → "
                + destinations.map(\.description).joined(separator: ", ") + " (\(plan.formatName))"
            let pipes = feeders.filter(\.file.isStream)
            let result = StreamSession(
                command: self, pipeline: pipeline, plan: plan, total: total, label: label,
                producerWaits: pipes.isEmpty ? nil : { pipes.reduce(0) { $0 + $1.producerWaits } }
            ).run()
            _ = try? pipeline.setState(.null)
            return result == .success && anyFailed ? .failure : result
        } catch {
            return error
        }
    }

    /// The files that open, each with its warnings said; those that do not are reported, and make `anyFailed`.
    private func openFiles() -> (feeders: [WAVFeeder], anyFailed: Bool) {
        var feeders: [WAVFeeder] = []
        var anyFailed = false
        for file in files {
            do {
                // A pipe may be live, and then each buffer goes out as soon as it is read (see StreamSession's
                // pacing): 20 ms buffers keep those bursts, and the latency, within a receiver's 50 ms jitter buffer.
                let feeder =
                    DescriptorStream.isStream(path: file)
                    ? try WAVFeeder(path: file, chunkMilliseconds: Self.pipeChunkMilliseconds, buffers: 10)
                    : try WAVFeeder(path: file)
                if !quiet {
                    for warning in feeder.file.warnings { Terminal.error("yt-gst: \(file): warning: \(warning)") }
                }
                feeders.append(feeder)
            } catch {
                Terminal.error("yt-gst: \(file): \(error)")
                anyFailed = true
            }
        }
        return (feeders, anyFailed)
    }

    /// The codec on the wire for audio in `format`: --codec, else linear PCM as deep as the file (16 or 24 bits).
    private func codec(for format: WAVFormat) -> NetworkCodec {
        codec ?? (format.encoding == .pcm && format.validBits <= 16 ? .l16 : .l24)
    }

    /// What to send where, for files in `format` (that of the first, `name`): the destination resolved, and the
    /// format on the wire checked against what the transport can carry.
    ///
    /// - Throws: the exit code, once the problem has been said.
    private func makePlan(for format: WAVFormat, named name: String) throws(ExitCode) -> StreamPlan {
        let codec = codec(for: format)
        if codec == .opus && format.channels > 2 {
            Terminal.error(
                "yt-gst: \(name): Opus streams carry 1 or 2 channels, not \(format.channels) (use --codec l16 or l24)")
            throw .failure
        }
        switch try destination.resolvedOrExit(sending: true) {
        case .rtp(let endpoint):
            let rtp = RTPFormat(codec: codec, rate: format.sampleRate, channels: format.channels)
            if !rtp.isKnownWithoutSDP && sdpPath == nil {
                Terminal.error(
                    "yt-gst: \(name): \(rtp.rtpmap) has no standard payload type; write an SDP with --sdp FILE "
                        + "and receive with sdp:FILE")
                throw .usage
            }
            var endpoints = [endpoint]
            for other in destinations.dropFirst() {
                if case .rtp(let resolved) = try other.resolvedOrExit(sending: true) { endpoints.append(resolved) }
            }
            return .rtp(endpoints, rtp)
        case .srt(let endpoint):
            return .srt(endpoint, codec == .opus ? .opus : .pcm(format.rawCaps))
        case .sdp:
            throw .usage
        }
    }

    /// The pipeline for `plan`, with the user's values set and every file's feeder attached to its appsrc.
    private func makePipeline(_ plan: StreamPlan, feeders: [WAVFeeder]) throws(ExitCode) -> Pipeline {
        let format = feeders[0].file.format
        do {
            let pipeline = try Pipeline(launch: plan.launch(sources: feeders.count))
            try configure(
                pipeline, plan: plan, channels: format.channels,
                dithering: format.validBits > (codec(for: format) == .l16 ? 16 : 24))
            for (index, feeder) in feeders.enumerated() {
                try feeder.attach(to: pipeline.appSource(named: "src\(index)"))
            }
            return pipeline
        } catch {
            Terminal.error("yt-gst: \(describe(error))")
            throw .failure
        }
    }

    /// Sets the user's values on the parsed pipeline's elements (never pasted into the launch text).
    private func configure(_ pipeline: Pipeline, plan: StreamPlan, channels: Int, dithering: Bool) throws(GstError) {
        if !dithering { try pipeline.element(named: "convert").set("dithering", fromString: "none") }
        switch plan {
        case .rtp(let endpoints, let format):
            try pipeline.element(named: "format").set("caps", to: format.rawCaps)
            try pipeline.element(named: "pay").set("pt", fromString: String(format.payloadType))
            if format.codec == .opus {
                try pipeline.element(named: "enc").set("bitrate", fromString: String((bitrate ?? 64) * 1000))
            }
            for (name, port) in [("rtp", \RTPEndpoint.port), ("rtcp", \RTPEndpoint.rtcpPort)] {
                let sink = try pipeline.element(named: name)
                for endpoint in endpoints {
                    sink.addDestination(host: endpoint.host ?? "", port: endpoint[keyPath: port])
                }
                if endpoints.contains(where: \.isMulticast) {
                    try sink.set("ttl-mc", fromString: String(ttl ?? 1))
                    if let interface { try sink.set("multicast-iface", fromString: interface) }
                }
            }
        case .srt(let endpoint, let payload):
            switch payload {
            case .pcm(let caps?): try pipeline.element(named: "format").set("caps", to: caps)
            case .pcm(nil): break
            case .opus:
                try pipeline.element(named: "format").set("caps", to: NetworkCodec.opusInput(channels: channels))
                try pipeline.element(named: "enc").set("bitrate", fromString: String((bitrate ?? 64) * 1000))
            }
            try NetworkSRT.configure(try pipeline.element(named: "net"), endpoint: endpoint, latency: nil)
            // GDP does not carry end of stream: mark it in the stream, so the receiver knows we finished.
            try pipeline.element(named: "framing").sendMarkerBeforeEndOfStream(
                onPad: "sink", named: NetworkSRT.endMarker)
        }
    }

    /// For RTP: the clock the stream runs on, published for the receivers, with the stream's timestamps on it.
    private func startClock(_ plan: StreamPlan, pipeline: Pipeline) throws(ExitCode) -> SenderClock? {
        guard case .rtp(let endpoints, let format) = plan else { return nil }
        let senderClock = try SenderClock.start(clock, rtpPorts: endpoints.map(\.port), quiet: quiet)
        do {
            try senderClock.prepare(pipeline, payloader: try pipeline.element(named: "pay"), rate: format.rate)
        } catch {
            Terminal.error("yt-gst: \(describe(error))")
            throw .failure
        }
        return senderClock
    }

    /// With --sdp, writes the description of the RTP stream for receivers (the first destination's).
    private func writeSDP(_ plan: StreamPlan) throws(ExitCode) {
        guard case .rtp(let endpoints, let rtp) = plan, let endpoint = endpoints.first, let sdpPath else { return }
        let name = files.count == 1 ? files[0] : "\(files.count) files"
        let sdp = SessionDescription(
            name: name, format: rtp, address: endpoint.host ?? "", port: endpoint.port, ttl: ttl, clock: clock)
        if let problem = NetworkFile.write(sdp.text, to: sdpPath) {
            Terminal.error("yt-gst: \(sdpPath): \(problem)")
            throw .failure
        }
    }

    /// One line for an error, naming the destination and what to check.
    /// - Parameter connected: whether audio had gone out over the connection.
    func describe(_ error: GstError, connected: Bool = false) -> String {
        if error.kind == .missingElement { return MissingPlugin.describe(error) }
        let detail = verbose ? error.verboseDescription : error.description
        if case .srt(let endpoint) = destination, error.elementName == "net" {
            return NetworkSRT.explain(error, endpoint: endpoint, connected: connected, verbose: verbose)
        }
        return "\(destination): \(detail)"
    }
}
