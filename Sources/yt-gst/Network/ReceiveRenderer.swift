// yt-gst — what `receive` shows: the status line, warnings and the summary on stderr, and the exit code.
import Glibc
import GstPlayer
import Streaming

/// Renders a `ReceiveSession`'s events on the terminal, and its ending or error as a last line and an exit code.
final class ReceiveRenderer {
    private let command: ReceiveCommand
    private var status: StatusLine

    init(_ command: ReceiveCommand) {
        self.command = command
        status = StatusLine(enabled: command.showsStatus)
    }

    private var source: StreamURL { command.source }
    private var quiet: Bool { command.quiet }
    private var verbose: Bool { command.verbose }

    func render(_ event: ReceiveSession.Event) {
        switch event {
        case .status(let current):
            let state =
                switch current.state {
                case .waiting: "… waiting for"
                case .receiving: "● receiving"
                case .finishing: "■ finishing"
                }
            let timing = current.sync.map { "  \($0.text)" } ?? ""
            status.draw("\(state) \(source)  \(current.stats.audio.duration)  \(current.stats.packets)\(timing)")
        case .warning(let warning):
            guard !quiet else { return }
            status.say("yt-gst: \(source): warning: \(text(warning))")
        case .packetsLost(let count):
            status.say("yt-gst: \(source): \(count) packets lost so far")
        case .clockLost:
            if !quiet {
                status.say(
                    "yt-gst: \(source): warning: the sender's clock stopped answering; playing on its last estimate")
            }
        case .clockRegained:
            if !quiet { status.say("yt-gst: \(source): the sender's clock answers again") }
        case .title, .senderFound:
            break
        case .problem(let error):
            status.say("yt-gst: \(error.text(verbose: verbose))")
        }
    }

    /// The last lines for how the stream ended, and the exit code.
    func finish(_ ending: ReceiveSession.Ending) -> ExitCode {
        status.clear()
        if !ending.finalised, let failure = ending.failure { status.say("yt-gst: \(failure.text(verbose: verbose))") }
        let summary = ending.stats?.summary ?? ""
        let timing = ending.sync.map { "; \($0.text)" } ?? ""
        switch ending.reason {
        case .senderFinished:
            guard ending.finalised, (ending.stats?.audio.buffers ?? 0) > 0 else {
                status.say("yt-gst: \(source): the sender finished before any audio was decoded (\(summary))")
                return .failure
            }
            if !quiet { status.say("yt-gst: \(source): the sender finished; \(summary)\(timing)") }
            return .success
        case .timedOut:
            status.say(
                "yt-gst: no data from \(source) for \(timeoutText)" + (ending.stats.map { " (\($0.summary))" } ?? ""))
            return .failure
        case .stopped(let reason):
            if ending.finalised && !quiet { status.say("yt-gst: \(source): stopped; \(summary)\(timing)") }
            return reason.exitCode
        case .failed:
            if ending.finalised {
                status.say(
                    "yt-gst: \(ending.failure.map { $0.text(verbose: verbose) } ?? "\(source): failed") (\(summary))")
            }
            return .failure
        }
    }

    /// The one line for an error that kept the session from running or ended it at once, and the exit code.
    func fail(_ error: StreamingError) -> ExitCode {
        status.clear()
        status.say("yt-gst: \(error.text(verbose: verbose))")
        if case .launch(let cause, _) = error, cause.kind != .missingElement { return .usage }
        return .failure
    }

    private func text(_ warning: StreamingWarning) -> String {
        switch warning {
        case .pipeline(let warning):
            verbose ? warning.verboseDescription : warning.description
        case .noSenderClock(let sender, let port):
            "\(sender) publishes no clock on UDP port \(port) (not a yt-gst sender?); playing unsynchronised"
        case .delayNeedsSync:
            "a delay needs a synchronised receiver"
        case .outputNotPlaced(let milliseconds):
            "the audio server did not say where the output plays within \(milliseconds) ms; it may start up"
                + " to that much off and then move once"
        }
    }

    private var timeoutText: String {
        guard let timeout = command.timeout else { return "" }
        return timeout == timeout.rounded() ? "\(Int(timeout)) s" : "\(timeout) s"
    }
}
