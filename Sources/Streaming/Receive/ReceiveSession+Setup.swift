// yt-gst — before a receiver plays: where to listen, its pipeline, and for a synchronised one the sender's clock.
import GstPlayer

extension ReceiveSession {
    /// Where to listen or whom to call, and the RTP format when an SDP gives it.
    func makePlan() throws(StreamingError) -> ReceivePlan {
        let source: StreamURL
        do { source = try configuration.source.resolved(sending: false) } catch { throw .address(error) }
        switch source {
        case .rtp(let endpoint):
            return .rtp(address: endpoint.host, port: endpoint.port, rtcpPort: endpoint.rtcpPort, caps: nil)
        case .sdp(let path):
            let sdp: SessionDescription
            do { sdp = try SessionDescription(parsing: try NetworkFile.read(path).get()) } catch {
                throw .sdp(path: path, error)
            }
            // A unicast SDP names this machine's address; listening on every address is the same and more robust.
            return .rtp(
                address: sdp.isMulticast ? sdp.address : nil, port: sdp.port, rtcpPort: sdp.rtcpPort, caps: sdp.rtpCaps,
                clock: sdp.referenceClock)
        case .srt(let endpoint):
            return .srt(endpoint)
        }
    }

    /// The pipeline for `plan` into the output, with the configuration's values set.
    func makePipeline(_ plan: ReceivePlan, packetGuard: RTPPacketGuard?) throws(StreamingError) -> Pipeline {
        let output = configuration.output ?? ReceiveSession.defaultOutput
        let pipeline: Pipeline
        do { pipeline = try Pipeline(launch: plan.launch(output: output)) } catch {
            throw .launch(error, output: output)
        }
        if configuration.realtimeThreads { RealtimeThreads.raiseStreamingThreads(of: pipeline) }
        do { try configure(pipeline, plan: plan, packetGuard: packetGuard) } catch {
            _ = try? pipeline.setState(.null)
            throw streamError(error, plan: plan, connected: false)
        }
        return pipeline
    }

    /// `error` as the stream's, with the SRT endpoint it concerns.
    func streamError(_ error: GstError, plan: ReceivePlan, connected: Bool) -> StreamingError {
        guard case .srt(let endpoint) = plan else { return .stream(error, url: url) }
        return .stream(error, url: url, srt: endpoint, connected: connected)
    }

    private func configure(_ pipeline: Pipeline, plan: ReceivePlan, packetGuard: RTPPacketGuard?) throws(GstError) {
        try ReceiverSync.nameOutputNodes(of: pipeline)
        switch plan {
        case .rtp(let address, let port, let rtcpPort, let caps, _):
            try configureRTP(pipeline, address: address, ports: (port, rtcpPort), caps: caps, packetGuard: packetGuard)
        case .srt(let endpoint):
            let latency = configuration.latencyMilliseconds
            try NetworkSRT.configure(try pipeline.element(named: "net"), endpoint: endpoint, latency: latency)
            try pipeline.element(named: "framing").endStreamAtMarker(
                onPad: "src", named: ApplicationMessage.endOfStream.rawValue,
                postingMessage: ApplicationMessage.senderFinished.rawValue)
            // The buffers carry the sender's timestamps: play them as they arrive, paced by SRT's own latency.
            for sink in pipeline.allElements() where sink.isSink && sink.hasProperty("sync") {
                try sink.set("sync", to: false)
            }
        }
        // The caller's values last: they win over the defaults above.
        for sink in pipeline.allElements() where sink.isSink {
            for (property, value) in configuration.sinkProperties.sorted(by: { $0.key < $1.key })
            where sink.hasProperty(property) {
                try sink.set(property, fromString: value)
            }
        }
    }

    private func configureRTP(
        _ pipeline: Pipeline, address: String?, ports: (rtp: Int, rtcp: Int), caps: Caps?, packetGuard: RTPPacketGuard?
    ) throws(GstError) {
        let rtpbin = try pipeline.element(named: "rtpbin")
        try rtpbin.set("latency", to: unsynchronisedLatency)
        if caps == nil { rtpbin.answerPayloadTypeRequests(from: RTPFormat.knownCapsByPayloadType) }
        rtpbin.postApplicationMessageOnBye(named: ApplicationMessage.rtpBye.rawValue)
        for (name, port) in [("rtp", ports.rtp), ("rtcp", ports.rtcp)] {
            let udp = try pipeline.element(named: name)
            try udp.set("port", to: port)
            if let address {
                try udp.set("address", to: address)
                if let interface = configuration.interface { try udp.set("multicast-iface", to: interface) }
            }
        }
        let rtp = try pipeline.element(named: "rtp")
        if let packetGuard { rtp.filterPackets(onPad: "src") { packetGuard.verdict(on: $0) } }
        try rtp.set("caps", to: caps ?? Caps(mediaType: "application/x-rtp", fields: [("media", .string("audio"))]))
        if let timeout = configuration.timeout {
            try rtp.set("timeout", to: Int(timeout.wholeNanoseconds))
        }
        // Render as soon as the jitter buffer lets a packet go: the sink adds no processing deadline of its own.
        for sink in pipeline.allElements() where sink.isSink && sink.hasProperty("processing-deadline") {
            try sink.set("processing-deadline", to: 0)
        }
    }

    /// The jitter buffer's latency without a clock to follow.
    private var unsynchronisedLatency: Int {
        configuration.latencyMilliseconds ?? ReceiveSession.unsynchronisedLatencyMilliseconds
    }

    /// For a synchronised RTP receiver that plays in real time: the output opened (`openOutputEarly`), the sender's
    /// first packet, then its clock, and the pipeline's timing on it (the pipeline is PAUSED or READY after it); nil
    /// otherwise (an output that does not follow the clock, a file, is not synchronised, and loses nothing), or when
    /// the sender publishes no clock (after a warning).
    func synchronise(
        _ plan: ReceivePlan, pipeline: Pipeline, packetGuard: RTPPacketGuard?
    ) throws(StreamingError) -> Result<ReceiverSync?, FirstPacket.Missing> {
        guard configuration.synchronised, case .rtp(_, let port, _, let caps, _) = plan, let packetGuard,
            (try? pipeline.element(named: "received"))?.pipelineSynchronizesToClock ?? true
        else { return .success(nil) }
        // pulsesink's clock is what the aligners compare with the shared one: an unbiased one, from a stream that
        // plays before its first sample is placed (see PulseStreamClock.Start), from before the output opens (its
        // stream is marked as it connects) to the end of the ReceiverSync that takes this over.
        let streamClockUse = PulseStreamClock.Use()
        // READY binds the ports: from here on the stream's packets queue on the socket until the pipeline plays.
        let source: Element
        do {
            try pipeline.setState(.ready)
            source = try pipeline.element(named: "rtp")
        } catch {
            throw .socket(error, url: url, port: port)
        }
        // Only an audio device: a file output (filesink) would be created before anyone sends. pipewiresink too:
        // its stream is linked and started 12-55 ms after its format comes (lab, beside CPU hogs), and drops what it
        // is given until then.
        let hasAudioDevice = pipeline.allElements().contains(where: \.isAudioOutput)
        let opened = hasAudioDevice ? openOutputEarly(pipeline, rtpCaps: caps ?? ReceiveSession.expectedRTPCaps) : nil
        let first = FirstPacket.wait(
            on: source, timeout: configuration.timeout, accepting: packetGuard.isPlayable,
            stopRequested: stopRequested)
        switch first {
        case .failure(let missing):
            return .failure(missing)
        case .success(let sender):
            observer(.senderFound(address: sender.sender))
            let sync = try makeSync(
                plan, sender: sender, pipeline: pipeline, opened: opened, streamClockUse: streamClockUse)
            if sync == nil {
                // No clock to follow: the jitter buffer's latency as without synchronisation, and the output opens
                // again, with its own buffer, when the pipeline plays.
                try? pipeline.element(named: "rtpbin").set("latency", to: unsynchronisedLatency)
                _ = try? pipeline.setState(.ready)
                ReceiverSync.unsizeOutputs(opened?.sized ?? [])
            }
            return sync.map { .success($0) } ?? stoppedOrUnsynchronised
        }
    }

    /// The RTP format the output opens for before a sender is heard, without an SDP: what `stream` sends a 48 kHz
    /// stereo file in.
    static let expectedRTPCaps = RTPFormat(codec: .l16, rate: 48_000, channels: 2).rtpCaps

    /// What the output was opened early for (see `openOutputEarly`).
    struct EarlyOutput {
        let sized: ReceiverSync.SizedOutputs
        let decoded: Caps
        /// Keeps its pulsesink streams playing until their first sample (see `OutputWarmUp`); nil without one.
        let warmUp: OutputWarmUp?
    }

    /// Opens the output while the receiver waits for a sender (an audio device; another output, such as a file, when
    /// the first packet comes), in the format of `rtpCaps` (the SDP's, or the expected one, then the stream's), when
    /// its decoded format is known (L16, L24, Opus): the audio sinks get the synchronised buffer, the pipeline goes to
    /// PAUSED (its sources wait for PLAYING: the packets stay queued on the socket) and the format is announced to the
    /// output; a stream in another format opens it again, or is converted into its format (pipewiresink, see
    /// `keptFormat`), when the stream comes (`makeSync`). Why before the first packet: the first sample plays
    /// `--latency-ms` after the sender sent it, and a pipewire-pulse output took 40-85 ms to open (a probe stream, then
    /// its own), so the first buffer came late and the sink dropped up to 43 ms of the start. (Opened only when the
    /// first buffer came, it lost up to 30 ms on PipeWire.)
    ///
    /// - Returns: the buffer sizes set (to put back if no clock comes) and the format; nil when the output opens when
    ///   it plays.
    private func openOutputEarly(_ pipeline: Pipeline, rtpCaps: Caps) -> EarlyOutput? {
        guard let decoded = RTPFormat.decodedCaps(ofRTP: rtpCaps),
            let received = try? pipeline.element(named: "received")
        else { return nil }
        var sized: ReceiverSync.SizedOutputs = []
        do {
            sized = try ReceiverSync.sizeOutputs(of: pipeline)
            try pipeline.setState(.paused)
            received.announce(decoded, intoPad: "sink")
            return EarlyOutput(
                sized: sized, decoded: decoded, warmUp: OutputWarmUp(sinks: pipeline.elements(madeBy: "pulsesink")))
        } catch {
            // As before: it opens when the pipeline plays, and says then what failed.
            _ = try? pipeline.setState(.ready)
            ReceiverSync.unsizeOutputs(sized)
            return nil
        }
    }

    /// The format a pipewiresink output opened early for `opened` keeps for a stream decoded as `stream`, which is
    /// converted into it (the capsfilter `ReceivePlan.outputFormatName`), instead of opening again: `opened`'s rate
    /// and channels, for a stream of the same sample format at another rate, or with fewer channels (a mono one on
    /// each); nil otherwise (more channels, another sample format: the output opens again in the stream's). Why:
    /// pipewiresink's stream keeps the format it connected in until the sink closes, and opened again as the first
    /// packet came, it played 60-90 ms later, so the first chunk came as little as 9 ms before its place, or up to
    /// 9 ms after it (lab, 44.1 kHz mono: its first 8-24 ms cut in 2 runs of 19), and its start could not be
    /// checked (`PipeWireSinkPacer.observedStart` needs 16 ms of silence before it). (Opened in 32-bit float for
    /// every stream, which would keep it for L24 too, the bench's row with one receiver 200 ppm fast gave 46-77 µs at
    /// p99 in three 60 s runs, and 21-83 in five without: no clear difference, and the usual stream's path stays as
    /// it was.) An audio base sink opens again in the stream's own format (at READY, in some ms), and plays it bit
    /// for bit where the device takes it.
    static func keptFormat(opened: Caps, stream: Caps) -> Caps? {
        guard let format = stream.format, format == opened.format, let rate = opened.rate,
            let channels = opened.channels, let streamChannels = stream.channels, streamChannels <= channels
        else { return nil }
        return Caps(
            mediaType: "audio/x-raw", fields: [("rate", .int(Int64(rate))), ("channels", .int(Int64(channels)))])
    }

    /// Closes an output opened early for another format, so that it opens for the stream's: to READY, where an audio
    /// base sink takes the next format it is given, and pipewiresink through NULL (its stream keeps the format it
    /// connected in until the sink closes).
    private func closeOutputs(_ pipeline: Pipeline) {
        _ = try? pipeline.setState(.ready)
        for sink in pipeline.elements(madeBy: "pipewiresink") { sink.reopen() }
    }

    /// After a clock wait that gave nothing: stopped, if a stop came meanwhile; else unsynchronised.
    private var stoppedOrUnsynchronised: Result<ReceiverSync?, FirstPacket.Missing> {
        for case .stop(let reason) in early { return .failure(.stopped(reason)) }
        return .success(nil)
    }

    /// The shared clock, synced, and the timing of `pipeline` on it; nil when the sender publishes no clock (said
    /// as a warning) or a stop came while waiting for it.
    private func makeSync(
        _ plan: ReceivePlan, sender: FirstPacket, pipeline: Pipeline, opened: EarlyOutput?,
        streamClockUse: PulseStreamClock.Use
    ) throws(StreamingError) -> ReceiverSync? {
        guard case .rtp(_, let port, _, let caps, let sdpClock) = plan else { return nil }
        let rtpCaps = caps ?? RTPFormat.knownCapsByPayloadType[sender.payloadType]
        guard let rate = rtpCaps?["clock-rate"]?.number.map({ Int($0) }), rate > 0 else { return nil }
        let reference = configuration.clock ?? sdpClock ?? .sender
        let clockPort = MediaClock.clockPort(rtpPort: port)
        guard
            let shared = reference.makeClock(senderAddress: sender.sender, clockPort: clockPort, statisticsTo: pipeline)
        else { throw .clockUnavailable(reference) }
        var output = opened
        if let rtpCaps, case let decoded = RTPFormat.decodedCaps(ofRTP: rtpCaps), decoded != opened?.decoded {
            if let opened, let decoded, !pipeline.elements(madeBy: "pipewiresink").isEmpty,
                let kept = Self.keptFormat(opened: opened.decoded, stream: decoded)
            {
                // Converted into the format the pipewiresink output plays.
                try? pipeline.element(named: ReceivePlan.outputFormatName).set("caps", to: kept)
            } else {
                // Not opened yet, or for a format the stream's does not fit: it opens for this one.
                if let opened {
                    opened.warmUp?.stop()
                    closeOutputs(pipeline)
                }
                output = openOutputEarly(pipeline, rtpCaps: rtpCaps)
            }
        }
        switch shared.waitForSync(within: .seconds(3), stoppingWhen: { stopRequested() != nil }) {
        case .answered:
            break
        case .stopped:
            return nil
        case .timedOut:
            if reference != .sender { throw .clockSilent(reference, url: url, limit: .seconds(3)) }
            observer(.warning(.noSenderClock(sender: sender.sender, port: clockPort)))
            return nil
        }
        let latency = configuration.latencyMilliseconds ?? ReceiverSync.defaultLatencyMilliseconds
        let sync = ReceiverSync(
            clock: shared, latency: ClockTime(nanoseconds: UInt64(latency) * 1_000_000),
            delay: Int64(configuration.delayMilliseconds) * 1_000_000, rate: rate, streamClockUse: streamClockUse,
            warmUp: output?.warmUp)
        do throws(GstError) {
            sync.prepare(
                pipeline, networkSource: try pipeline.element(named: plan.networkSourceName),
                retimeElement: try pipeline.element(named: "retime"))
        } catch {
            throw streamError(error, plan: plan, connected: false)
        }
        return sync
    }
}
