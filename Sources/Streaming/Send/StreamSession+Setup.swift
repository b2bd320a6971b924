// yt-gst — a stream's setup: the files' chain, the plan for the first one's format, the pipeline, clock and SDP.
import AppSrcFeeder
import GstPlayer
import WAV

extension StreamSession {
    /// Buffers read from a pipe: short, since a live pipe's are sent as they arrive (200 ms bursts lost packets in a
    /// receiver's 50 ms jitter buffer, 1 run in 4 of `StreamingTests.livePipeStreamsBitExact`).
    static let pipeChunkMilliseconds = 20

    /// The chain over the files, prepared at the first that opens, and that file's format; failures and empty files
    /// are reported, and the first file's start.
    ///
    /// A pipe may be live, and then each buffer goes out as soon as it is read (see `paceByInputWhenLive`): with a
    /// pipe in the list, 20 ms buffers keep those bursts, and the latency, within a receiver's 50 ms jitter buffer.
    func makeChain() throws(StreamingError) -> (GaplessChain, WAVFormat) {
        let piped = configuration.files.contains { DescriptorStream.isStream(path: $0) }
        let settings =
            piped
            ? GaplessChain.Settings(chunkMilliseconds: StreamSession.pipeChunkMilliseconds, buffers: 10)
            : GaplessChain.Settings()
        let chain = GaplessChain(order: PlayOrder(files: configuration.files), settings: settings)
        let prepared = chain.prepare(at: 0)
        reportFiles(of: chain)
        guard prepared, let format = chain.format else { throw .nothingOpened }
        if let first = chain.segment(at: .zero) { announce(first) }
        return (chain, format)
    }

    /// The codec on the wire for audio in `format`: the configured one, else linear PCM as deep as the file.
    func codec(for format: WAVFormat) -> NetworkCodec {
        configuration.codec ?? (format.encoding == .pcm && format.validBits <= 16 ? .l16 : .l24)
    }

    /// What to send where, for files in `format` (that of the first, `name`): the destinations resolved, and the
    /// format on the wire checked against what the transport can carry.
    func makePlan(for format: WAVFormat, named name: String) throws(StreamingError) -> StreamPlan {
        let codec = codec(for: format)
        if codec == .opus && format.channels > 2 { throw .opusChannels(file: name, channels: format.channels) }
        var resolved: [StreamURL] = []
        for destination in configuration.destinations {
            do { resolved.append(try destination.resolved(sending: true)) } catch { throw .address(error) }
        }
        switch resolved[0] {
        case .rtp:
            let rtp = RTPFormat(codec: codec, rate: format.sampleRate, channels: format.channels)
            if !rtp.isKnownWithoutSDP && configuration.sdpPath == nil {
                throw .needsSDP(file: name, rtpmap: rtp.rtpmap)
            }
            return .rtp(resolved.compactMap { if case .rtp(let endpoint) = $0 { endpoint } else { nil } }, rtp)
        case .srt(let endpoint):
            return .srt(endpoint, codec == .opus ? .opus : .pcm(format.rawCaps))
        case .sdp:
            preconditionFailure("stream sends to rtp:// or srt:// (StreamCommand checks)")
        }
    }

    /// The pipeline for `plan`, with the configured values set and the chain attached to its appsrc (behind the
    /// decoder the first file needs, if any).
    func makePipeline(_ plan: StreamPlan, chain: GaplessChain, format: WAVFormat) throws(GstError) -> Pipeline {
        let launch =
            chain.needsDecoder
            ? Launch.insertingDecoder(afterSource: "src", in: plan.launch, decoder: chain.decoder) : plan.launch
        let pipeline = try Pipeline(launch: launch)
        if configuration.realtimeThreads { RealtimeThreads.raiseStreamingThreads(of: pipeline) }
        try configure(
            pipeline, plan: plan, channels: format.channels,
            dithering: format.validBits > (codec(for: format) == .l16 ? 16 : 24))
        try chain.attach(to: pipeline.appSource(named: "src"))
        return pipeline
    }

    /// Sets the configured values on the parsed pipeline's elements (never pasted into the launch text).
    private func configure(_ pipeline: Pipeline, plan: StreamPlan, channels: Int, dithering: Bool) throws(GstError) {
        if !dithering {
            for name in StreamPlan.converterNames {
                try pipeline.element(named: name).set("dithering", to: DitherMethod.none)
            }
        }
        let bitrate = (configuration.bitrate ?? 64) * 1000
        switch plan {
        case .rtp(let endpoints, let format):
            try pipeline.element(named: "format").set("caps", to: format.rawCaps)
            try pipeline.element(named: "pay").set("pt", to: format.payloadType)
            if format.codec == .opus { try configureOpus(pipeline.element(named: "enc"), bitrate: bitrate) }
            for (name, port) in [("rtp", \RTPEndpoint.port), ("rtcp", \RTPEndpoint.rtcpPort)] {
                let sink = try pipeline.element(named: name)
                for endpoint in endpoints {
                    sink.addDestination(host: endpoint.host ?? "", port: endpoint[keyPath: port])
                }
                if endpoints.contains(where: \.isMulticast) {
                    try sink.set("ttl-mc", to: configuration.ttl ?? 1)
                    if let interface = configuration.interface {
                        try sink.set("multicast-iface", to: interface)
                    }
                }
            }
        case .srt(let endpoint, let payload):
            switch payload {
            case .pcm(let caps?): try pipeline.element(named: "format").set("caps", to: caps)
            case .pcm(nil): break
            case .opus:
                try pipeline.element(named: "format").set("caps", to: NetworkCodec.opusInput(channels: channels))
                try configureOpus(pipeline.element(named: "enc"), bitrate: bitrate)
            }
            try NetworkSRT.configure(try pipeline.element(named: "net"), endpoint: endpoint, latency: nil)
            // GDP does not carry end of stream: mark it in the stream, so the receiver knows we finished.
            try pipeline.element(named: "framing").sendMarkerBeforeEndOfStream(
                onPad: "sink", named: ApplicationMessage.endOfStream.rawValue)
        }
    }

    /// The Opus encoder of an RTP or SRT stream: its bitrate, and its packets stamped as receivers decode them
    /// (neither transport carries Opus's pre-skip: see `Element.stampPacketsWhole`).
    private func configureOpus(_ encoder: Element, bitrate: Int) throws(GstError) {
        try encoder.set("bitrate", to: bitrate)
        encoder.stampPacketsWhole()
    }

    /// For RTP: the clock the stream runs on, published for the receivers, with the stream's timestamps on it.
    /// nil for SRT, or when told to stop while waiting for the clock (then `stopReason` is set).
    func startClock(_ plan: StreamPlan, pipeline: Pipeline) throws(StreamingError) -> SenderClock? {
        guard case .rtp(let endpoints, let format) = plan else { return nil }
        guard
            let senderClock = try SenderClock.start(
                configuration.clock, rtpPorts: endpoints.map(\.port), stop: { stopRequested() })
        else { return nil }
        for problem in senderClock.unpublished { observer(.clockNotPublished(problem)) }
        do {
            try senderClock.prepare(pipeline, payloader: try pipeline.element(named: "pay"), rate: format.rate)
        } catch {
            throw .pipeline(error, connected: false)
        }
        return senderClock
    }

    /// With an SDP path, writes the description of the RTP stream for receivers (the first destination's).
    func writeSDP(_ plan: StreamPlan) throws(StreamingError) {
        guard case .rtp(let endpoints, let rtp) = plan, let endpoint = endpoints.first,
            let path = configuration.sdpPath
        else { return }
        let files = configuration.files
        let sdp = SessionDescription(
            name: files.count == 1 ? files[0] : "\(files.count) files", format: rtp, address: endpoint.host ?? "",
            port: endpoint.port, ttl: configuration.ttl, clock: configuration.clock)
        if let problem = NetworkFile.write(sdp.text, to: path) { throw .sdpNotWritten(path: path, problem: problem) }
    }

    /// The duration of all the files, when every one's is known: the chain's first file, and the headers of those
    /// after it (a pipe's is known only as the first: it cannot be read twice). Files that do not open count nothing.
    func totalDuration(first: GaplessChain.Segment?) -> ClockTime? {
        guard let first, first.lengthIsKnown else { return nil }
        var total = first.duration.nanoseconds
        for path in configuration.files.dropFirst(first.position + 1) {
            if DescriptorStream.isStream(path: path) { return nil }
            guard let file = try? WAVFile.open(path: path).file else { continue }
            guard file.lengthIsKnown else { return nil }
            total += ClockTime(frames: file.frameCount, rate: file.format.sampleRate).nanoseconds
        }
        return ClockTime(nanoseconds: total)
    }

    /// Files that could not be opened, and files passed over (or sent as nothing) for having nothing to send.
    func reportFiles(of chain: GaplessChain) {
        for failure in chain.takeFailures() {
            someFilesFailed = true
            observer(.fileFailed(failure))
        }
        for file in chain.takeEmptyFiles() { observer(.emptyFile(file)) }
    }
}

/// audioconvert's `dithering` (GstAudioDitherMethod): only the value a stream without dithering sets.
private enum DitherMethod: String, PropertyEnum {
    case none
}
