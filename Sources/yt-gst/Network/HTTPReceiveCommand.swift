// yt-gst — `yt-gst receive http://HOST:PORT/MOUNT` (and https://, and HLS .m3u8): plays what an Icecast server or
// a web server broadcasts, through the same outputs as every `receive`.
import Glibc
import GstPlayer

/// `receive`'s options for an http(s):// URL, checked, and the pipeline they make. An `HTTPReceiveSession` then
/// runs it.
struct HTTPReceiveCommand {
    /// Seconds to keep reconnecting after the connection drops, without --timeout: also how long after a
    /// broadcast's end `receive` exits, since only a mount that stays gone has ended.
    static let defaultTimeout = 5.0

    var url: String
    /// An HLS playlist: hlsdemux follows it (a live one is reloaded by itself) and its end is the stream's end.
    var isHLS: Bool
    var timeout: Double
    var output: String
    var usesDefaultOutput: Bool
    var quiet: Bool
    var verbose: Bool

    /// Whether `receive`'s URL is one for this command.
    static func handles(_ arguments: ParsedArguments) -> Bool {
        guard let url = arguments.operands.first?.lowercased() else { return false }
        return url.hasPrefix("http://") || url.hasPrefix("https://")
    }

    init(_ arguments: ParsedArguments) throws(UsageError) {
        guard let url = arguments.operands.first, arguments.operands.count == 1 else {
            throw UsageError("receive takes one URL, not \(arguments.operands.count)")
        }
        self.url = url
        guard let server = HTTPReceiveCommand.server(of: url), !server.host.isEmpty, server.port > 0 else {
            throw UsageError("\(url): no host (expected http://HOST:PORT/MOUNT)")
        }
        let path = url.split(separator: "?").first.map(String.init) ?? url
        isHLS = path.lowercased().hasSuffix(".m3u8")
        for option in ["latency-ms", "iface"] where arguments.value(option) != nil {
            throw UsageError("--\(option) applies to RTP and SRT, not to http(s):// streams")
        }
        timeout = try arguments.number("timeout", in: 0.5...86_400) ?? HTTPReceiveCommand.defaultTimeout
        let (sink, pipeline) = try arguments.sinkOrPipeline()
        if let text = sink ?? pipeline, text.allSatisfy(\.isWhitespace) {
            throw UsageError("--sink and --pipeline need a launch string")
        }
        output = pipeline ?? sink.map { "audioconvert ! audioresample ! " + $0 } ?? ReceiveCommand.defaultOutput
        usesDefaultOutput = sink == nil && pipeline == nil
        quiet = arguments.flags.contains("quiet")
        verbose = arguments.flags.contains("verbose")
    }

    /// The launch string: the HTTP source and decoder (restarted on a reconnect) apart from the output, which
    /// stays. Each new decoder pad is linked to `received` by `linkEachNewPad`.
    var launch: String {
        "souphttpsrc name=net ! decodebin name=decode identity name=received silent=true ! \(output)"
    }

    /// The server's host and port, from the URL (default 80, or 443 for https).
    var server: (host: String, port: Int)? { HTTPReceiveCommand.server(of: url) }

    static func server(of url: String) -> (host: String, port: Int)? {
        guard let schemeEnd = url.firstRange(of: "://"),
            var authority = url[schemeEnd.upperBound...].split(separator: "/", omittingEmptySubsequences: false)
                .first.map(String.init), !authority.isEmpty
        else { return nil }
        if let at = authority.lastIndex(of: "@") { authority = String(authority[authority.index(after: at)...]) }
        let secure = url.lowercased().hasPrefix("https")
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            let host = String(authority[authority.index(after: authority.startIndex)..<close])
            let port = Int(authority[close...].dropFirst(2)) ?? (secure ? 443 : 80)
            return (host, port)
        }
        let parts = authority.split(separator: ":", maxSplits: 1)
        return (String(parts[0]), parts.count > 1 ? Int(parts[1]) ?? 0 : (secure ? 443 : 80))
    }

    /// Why the server cannot be reached ("Connection refused"), or nil when it accepts connections.
    func connectionProblem() -> String? {
        guard let server else { return nil }
        do { try HTTPProbe.connect(host: server.host, port: server.port, timeout: .seconds(2)) } catch {
            return error.description
        }
        return nil
    }

    func run() -> ExitCode {
        Gst.initialize()
        Interrupts.install()
        if usesDefaultOutput && Gst.audioOutputs().isEmpty {
            Terminal.error(
                "yt-gst: no audio output available (no PulseAudio server or sound card found); "
                    + "choose another with --sink, e.g. --sink 'wavenc ! filesink location=received.wav'")
            return .failure
        }
        let pipeline: Pipeline
        do {
            pipeline = try Pipeline(launch: launch)
        } catch {
            switch error.kind {
            case .missingElement: Terminal.error("yt-gst: \(MissingPlugin.describe(error))")
            default: Terminal.error("yt-gst: bad pipeline: \(error.message): \(output)")
            }
            return error.kind == .missingElement ? .failure : .usage
        }
        do {
            let net = try pipeline.element(named: "net")
            try net.set("location", fromString: url)
            // ICY metadata (Icecast's MP3 titles) becomes tags instead of noise in the audio.
            try net.set("iradio-mode", fromString: "true")
            try net.set("timeout", fromString: String(max(1, Int(timeout.rounded(.up)))))
            let received = try pipeline.element(named: "received")
            try pipeline.element(named: "decode").linkEachNewPad(to: received, pad: "sink")
            received.holdEndOfStream(onPad: "sink", postingMessage: HTTPReceiveSession.sourceEnded)
        } catch {
            Terminal.error("yt-gst: \(url): \(error)")
            _ = try? pipeline.setState(.null)
            return .failure
        }
        return HTTPReceiveSession(command: self, pipeline: pipeline).run()
    }
}
