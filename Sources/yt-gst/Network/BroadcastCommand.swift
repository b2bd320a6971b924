// yt-gst — `yt-gst stream ... --to icecast://... --to hls:DIR`: a playlist broadcast through Icecast and HLS.
import AppSrcFeeder
import GstPlayer
import Streaming

/// `stream`'s options when a `--to` is a broadcast destination (see `BroadcastTarget.isBroadcast`), checked, and
/// the configuration they make; a `BroadcastSession` runs it, a `BroadcastRenderer` shows it.
struct BroadcastCommand {
    /// Seconds a broadcast keeps retrying a lost server before it gives up, by default.
    static let defaultRetrySeconds = 300.0

    /// The options only a broadcast takes; `StreamCommand.spec` lists them.
    static let options: [OptionSpec] =
        OptionSpec.listOrder(scope: "Broadcast") + [
            OptionSpec(
                name: "retry-for", valueName: "SEC",
                help: "Broadcast: keep retrying a lost Icecast server for SEC seconds (default 300), then exit 1."),
            OptionSpec(
                name: "segment", valueName: "SEC", help: "HLS segment duration in seconds, 1 to 60 (default 2)."),
            OptionSpec(
                name: "playlist-length", valueName: "N",
                help: "HLS: segments in the rolling playlist, 1 to 100 (default 5)."),
        ]

    var arguments: [String]
    var plan: BroadcastPlan
    var shuffle: Bool
    /// nil: once; 0: forever; N: N times.
    var loopCount: Int?
    var retrySeconds: Double
    var quiet: Bool
    var verbose: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        guard !parsed.operands.isEmpty else { throw UsageError("no file given") }
        arguments = parsed.operands
        var targets: [BroadcastTarget] = []
        for text in parsed.values["to"] ?? [] {
            guard BroadcastTarget.isBroadcast(text) else {
                throw UsageError("\(text): a broadcast goes to icecast:// and hls: destinations only, not RTP or SRT")
            }
            targets.append(try BroadcastTarget(parsing: text))
        }
        let hasIcecast = targets.contains { if case .icecast = $0 { true } else { false } }
        var codec = BroadcastCodec.defaultCodec
        if let text = parsed.value("codec") {
            guard let parsedCodec = BroadcastCodec(rawValue: text.lowercased()) else {
                throw UsageError("--codec for Icecast must be mp3, vorbis or opus, not \"\(text)\"")
            }
            guard hasIcecast else { throw UsageError("--codec applies to Icecast; HLS is always AAC") }
            codec = parsedCodec
        }
        let bitrate = try parsed.integer("bitrate", in: 32...320) ?? BroadcastCodec.defaultBitrate
        plan = BroadcastPlan(
            targets: targets, codec: codec, bitrate: bitrate,
            segmentSeconds: try parsed.integer("segment", in: 1...60) ?? 2,
            playlistLength: try parsed.integer("playlist-length", in: 1...100) ?? 5)
        if plan.hlsSinks.isEmpty && (parsed.value("segment") != nil || parsed.value("playlist-length") != nil) {
            throw UsageError("--segment and --playlist-length apply to hls: destinations")
        }
        shuffle = parsed.flags.contains("shuffle")
        loopCount = try parsed.loopCount()
        retrySeconds = try parsed.number("retry-for", in: 0...86_400) ?? BroadcastCommand.defaultRetrySeconds
        for option in ["sdp", "iface", "ttl"] where parsed.value(option) != nil {
            throw UsageError("--\(option) applies to RTP; a broadcast goes through Icecast or HLS")
        }
        quiet = parsed.flags.contains("quiet")
        verbose = parsed.flags.contains("verbose")
    }

    func run() -> ExitCode {
        Gst.initialize()
        guard let files = Playlist.files(of: arguments, nothingTo: "broadcast", quiet: quiet) else { return .failure }
        // The segment sink takes its muxer as a property: without it the pipeline would only fail to parse.
        if !plan.hlsSinks.isEmpty && !Gst.hasElement("mpegtsmux") {
            Terminal.error("yt-gst: \(MissingPlugin.describe(element: "mpegtsmux"))")
            return .failure
        }
        let renderer = BroadcastRenderer(self)
        var configuration = BroadcastSession.Configuration(files: files, plan: plan)
        configuration.shuffle = shuffle
        configuration.passes = ParsedArguments.passes(loopCount: loopCount)
        configuration.retrySeconds = retrySeconds
        configuration.statusInterval = renderer.statusInterval
        let session = BroadcastSession(configuration, observer: renderer.render)
        let control = session.control
        Interrupts.onSignal { control.stop(.interrupted($0)) }
        do { return renderer.finish(.success(try session.run())) } catch { return renderer.finish(.failure(error)) }
    }

    /// One line for a pipeline error: the destination it concerns, and what happened.
    func describe(_ error: GstError) -> String {
        if error.kind == .missingElement { return MissingPlugin.describe(error) }
        let detail = verbose ? error.verboseDescription : error.description
        if let name = error.elementName, let sink = plan.icecastSinks.first(where: { $0.name == name }) {
            return "\(sink.endpoint): \(detail)"
        }
        if let name = error.elementName, let sink = plan.hlsSinks.first(where: { $0.name == name }) {
            return "hls:\(sink.directory): \(detail)"
        }
        return detail
    }
}

extension BroadcastCommand {
    /// The broadcast part of `stream --help`.
    static let help = """
        BROADCAST: --to icecast://[USER:]PASSWORD@HOST[:PORT]/MOUNT sends to an Icecast 2 server (USER defaults to
        source, PORT to 8000); --to hls:DIR (or file:///DIR/NAME.m3u8) writes HLS: AAC in MPEG-TS segments of
        --segment seconds and a rolling playlist of --playlist-length segments, for any web server to serve. Give
        --to several times to feed them all from one decode. The files are one continuous, real-time broadcast (with
        --loop and --shuffle, a radio station); each file's title (LIST/INFO INAM and IART, else its name) becomes
        the mount's now-playing title as it starts. The default codec is MP3 at 128 kbit/s, which every browser and
        player plays and which carries titles to listeners; Ogg (Vorbis, Opus) keeps the first title.
        A server lost mid-broadcast is retried (for --retry-for seconds): a sole destination resumes where it was;
        beside others, that mount reconnects alone while they go on.

        BROADCAST EXAMPLES:
          yt-gst stream music/ --loop --shuffle --to icecast://hackme@radio.example.org:8000/live.mp3
          yt-gst stream a.wav b.wav --to icecast://hackme@localhost/live.ogg --codec vorbis --to hls:/var/www/live
        """
}
