// yt-gst — `yt-gst stream`: sends WAV files to other machines over RTP (unicast or multicast) or SRT.
import AppSrcFeeder
import Control
import GstPlayer
import Streaming

/// `stream`'s options, checked, and the configuration they make; a `StreamSession` runs it, a `StreamRenderer`
/// shows it.
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
            .verbose, .noRealtime, .inputIPCServer, .control, .controlToken, .controlOpen, .controlReadOpen,
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
    /// Whether the audio threads may run realtime (not --no-realtime).
    var realtime: Bool
    var ipcServer: String?
    /// `--control` and its companions; nil without it.
    var hub: HubOptions?

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
        realtime = !arguments.flags.contains("no-realtime")
        ipcServer = arguments.value("input-ipc-server")
        hub = try HubOptions(arguments)
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
        let renderer = StreamRenderer(self)
        let model = StreamModel()
        guard let ipc = IPCOption.open(ipcServer, { try StreamIPC(socket: $0, model: model) }) else { return .failure }
        defer { ipc?.close() }
        var servers: ControlServers?
        if let hub {
            guard let started = hub.start(model: model, streamID: destination.description, quiet: quiet) else {
                return .failure
            }
            servers = started
        }
        defer { servers?.close() }
        let session = StreamSession(
            configuration(statusInterval: IPCOption.statusInterval(renderer.statusInterval, serving: ipc))
        ) { event in
            renderer.render(event)
            model.update(event)
            ipc?.handle(event)
        }
        let control = session.control
        model.control = control
        Interrupts.onSignal { control.stop(.interrupted($0)) }
        do { return renderer.finish(.success(try session.run())) } catch { return renderer.finish(.failure(error)) }
    }

    /// The session's configuration: the options' values.
    func configuration(statusInterval: Duration?) -> StreamSession.Configuration {
        var configuration = StreamSession.Configuration(files: files, destinations: destinations)
        configuration.clock = clock
        configuration.codec = codec
        configuration.bitrate = bitrate
        configuration.sdpPath = sdpPath
        configuration.interface = interface
        configuration.ttl = ttl
        configuration.statusInterval = statusInterval
        configuration.realtimeThreads = realtime
        return configuration
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
