// yt-gst — `yt-gst receive http://HOST:PORT/MOUNT` (and https://, and HLS .m3u8): plays what an Icecast server or
// a web server broadcasts, through the same outputs as every `receive`.
import GstPlayer
import Streaming

/// `receive`'s options for an http(s):// URL, checked, and the session's configuration they make; an
/// `HTTPReceiveSession` runs it, an `HTTPReceiveRenderer` says what happens.
struct HTTPReceiveCommand {
    /// Seconds to keep reconnecting after the connection drops, without --timeout: also how long after a
    /// broadcast's end `receive` exits, since only a mount that stays gone has ended.
    static let defaultTimeout = 5.0

    var url: String
    var timeout: Double
    /// What takes the decoded audio; nil: the default output.
    var output: String?
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
        guard let server = HTTPReceiveSession.Configuration(url: url).server, !server.host.isEmpty, server.port > 0
        else {
            throw UsageError("\(url): no host (expected http://HOST:PORT/MOUNT)")
        }
        for option in ["latency-ms", "iface"] where arguments.value(option) != nil {
            throw UsageError("--\(option) applies to RTP and SRT, not to http(s):// streams")
        }
        timeout = try arguments.number("timeout", in: 0.5...86_400) ?? HTTPReceiveCommand.defaultTimeout
        output = try arguments.receiveOutput()
        quiet = arguments.flags.contains("quiet")
        verbose = arguments.flags.contains("verbose")
    }

    /// The session's configuration: the options as plain values, and the status line's rate when one is shown.
    var configuration: HTTPReceiveSession.Configuration {
        var configuration = HTTPReceiveSession.Configuration(url: url)
        configuration.timeout = .milliseconds(Int64(timeout * 1000))
        configuration.output = output
        configuration.statusInterval = showsStatus ? .milliseconds(100) : nil
        return configuration
    }

    /// Whether a status line is drawn: on a terminal, without --quiet.
    var showsStatus: Bool { Terminal.stdoutIsTerminal && !quiet }

    func run() -> ExitCode {
        Gst.initialize()
        Interrupts.install()
        let renderer = HTTPReceiveRenderer(self)
        let session = HTTPReceiveSession(configuration, observer: renderer.render)
        let control = session.control
        Interrupts.onSignal({ control.stop(.interrupted($0)) })
        do { return renderer.finish(try session.run()) } catch { return renderer.fail(error) }
    }
}
