// yt-gst — `yt-gst receive`: plays (or records) what `stream` sends, over RTP or SRT, and ends by itself.
import Control
import GstPlayer
import Streaming

/// `receive`'s options, checked, and the session's configuration they make; a `ReceiveSession` runs it, a
/// `ReceiveRenderer` says what happens.
struct ReceiveCommand {

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
            .verbose, .noRealtime, .inputIPCServer, .noMPRIS, .roomName, .controlPort, .noControl, .controlToken,
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
    /// What takes the decoded audio; nil: the default output.
    var output: String?
    var interface: String?
    /// Whether RTP plays in step with the sender's clock (not --no-sync), and on which clock.
    var synchronised: Bool
    var clock: ReferenceClock?
    var delayMilliseconds: Int
    var quiet: Bool
    var verbose: Bool
    /// Whether the audio threads may run realtime (not --no-realtime).
    var realtime: Bool
    var ipcServer: String?
    var mpris: Bool
    /// How this room registers with the sender's control service; nil with --no-control, or when it cannot (not
    /// a synchronised RTP receiver).
    var room: RoomOptions?
    /// Whether --delay-ms was given (else the room's kept delay is the start value).
    var delayGiven: Bool

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
        output = try arguments.receiveOutput()
        interface = arguments.value("iface")
        synchronised = !arguments.flags.contains("no-sync")
        clock = try arguments.value("clock").map { text throws(UsageError) in try ReferenceClock(option: text) }
        delayMilliseconds = try arguments.integer("delay-ms", in: -10_000...10_000) ?? 0
        delayGiven = arguments.value("delay-ms") != nil
        quiet = arguments.flags.contains("quiet")
        verbose = arguments.flags.contains("verbose")
        realtime = !arguments.flags.contains("no-realtime")
        (ipcServer, mpris) = (arguments.value("input-ipc-server"), !arguments.flags.contains("no-mpris"))
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
            if delayMilliseconds != 0 || clock != nil || !synchronised {
                throw UsageError("--delay-ms, --clock and --no-sync apply to RTP (SRT plays as it arrives)")
            }
        case .sdp:
            break
        }
        room = try Self.room(arguments, source: source, synchronised: synchronised)
        if !synchronised && (delayMilliseconds != 0 || clock != nil) {
            throw UsageError("--delay-ms and --clock synchronise playback; they do not go with --no-sync")
        }
        // Playing earlier than the others takes from the shared latency; what the output buffers must be left.
        let shared = latency ?? ReceiverSync.defaultLatencyMilliseconds
        let earliest = ReceiverSync.earliestDelayMilliseconds(latency: shared)
        if delayMilliseconds < 0 && -delayMilliseconds > earliest {
            throw UsageError(
                "--delay-ms \(delayMilliseconds) plays earlier than the latency allows (at most -\(earliest) "
                    + "with --latency-ms \(shared); raise --latency-ms on every receiver)")
        }
    }

    /// The session's configuration: the options as plain values, the status line's rate when one is shown, and
    /// losses reported on stderr when not.
    var configuration: ReceiveSession.Configuration {
        var configuration = ReceiveSession.Configuration(source: source)
        configuration.latencyMilliseconds = latency
        configuration.delayMilliseconds = delayMilliseconds
        configuration.synchronised = synchronised
        configuration.clock = clock
        configuration.timeout = timeout.map { .seconds($0) }
        configuration.interface = interface
        configuration.output = output
        configuration.statusInterval = showsStatus ? .milliseconds(100) : nil
        configuration.lossReportInterval = !showsStatus && !quiet ? .seconds(1) : nil
        configuration.realtimeThreads = realtime
        return configuration
    }

    /// Whether a status line is drawn: on a terminal, without --quiet.
    var showsStatus: Bool { Terminal.stdoutIsTerminal && !quiet }

    func run() throws(UsageError) -> ExitCode {
        Gst.initialize()
        Interrupts.install()
        let renderer = ReceiveRenderer(self)
        var configuration = configuration
        let identity = room.map { startingIdentity($0, configuration: &configuration) }
        let model = ReceiveModel(configuration: configuration)
        guard let ipc = IPCOption.open(ipcServer, { try ReceiveIPC(socket: $0, model: model) }) else { return .failure }
        let mpris = mpris ? ReceiveMPRIS(model: model) : nil
        defer {
            ipc?.close()
            mpris?.close()
        }
        configuration.statusInterval = IPCOption.statusInterval(configuration.statusInterval, serving: ipc)
        if room != nil { configuration.statusInterval = configuration.statusInterval ?? RoomClient.statusInterval }
        var roomClient: RoomClient?
        let session = ReceiveSession(configuration) { event in
            renderer.render(event)
            model.update(event)
            ipc?.handle(event)
            mpris?.handle(event)
            roomClient?.handle(event)
        }
        let control = session.control
        model.control = control
        if let room, let identity { roomClient = makeRoomClient(room, identity: identity, model: model) }
        defer { roomClient?.close() }
        Interrupts.onSignal({ control.stop(.interrupted($0)) })
        do { return renderer.finish(try session.run()) } catch { return renderer.fail(error) }
    }
}
