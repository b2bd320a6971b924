// yt-gst — what `receive http://...` shows: the status line, the title, reconnections, the last line and exit code.
import GstPlayer
import Streaming

/// Renders an `HTTPReceiveSession`'s events on the terminal, and its ending or error as a last line and an exit code.
final class HTTPReceiveRenderer {
    private let command: HTTPReceiveCommand
    private var status: StatusLine

    init(_ command: HTTPReceiveCommand) {
        self.command = command
        status = StatusLine(enabled: command.showsStatus)
    }

    private var url: String { command.url }
    private var quiet: Bool { command.quiet }
    private var verbose: Bool { command.verbose }

    func render(_ event: HTTPReceiveSession.Event) {
        switch event {
        case .status(let current):
            let state =
                switch current.state {
                case .reconnecting: "… reconnecting"
                case .connecting: "… connecting to"
                case .receiving: "● receiving"
                }
            status.draw("\(state) \(url)  \(current.received)  \(current.title ?? "")")
        case .titleChanged(let title):
            if !quiet { status.say("yt-gst: \(url): now playing: \(title)") }
        case .warning(.pipeline(let warning)):
            if !quiet {
                status.say("yt-gst: \(url): warning: \(verbose ? warning.verboseDescription : warning.message)")
            }
        case .warning:
            break  // the other warnings are a synchronised receiver's
        case .connectionDropped:
            if !quiet { status.say("yt-gst: \(url): the connection dropped; reconnecting") }
        case .reconnected(let after):
            if !quiet { status.say("yt-gst: \(url): reconnected after \(tenths(after)) s") }
        case .problem(let error):
            if verbose, case .stream(let cause, _, _, _) = error {
                status.say("yt-gst: \(url): \(cause.verboseDescription)")
            }
        }
    }

    /// The last line for how the stream ended, and the exit code.
    func finish(_ ending: HTTPReceiveSession.Ending) -> ExitCode {
        let received = "\(tenths(ending.received)) s received"
        switch ending.reason {
        case .finished:
            return .success
        case .streamEnded:
            if !quiet { status.say("yt-gst: \(url): the stream ended (\(received))") }
            return .success
        case .connectionLost:
            status.say(
                "yt-gst: \(url): lost the connection and could not reconnect within \(timeoutText) (\(received))")
            return .failure
        case .timedOut:
            status.say("yt-gst: no data from \(url) for \(timeoutText) (\(received))")
            return .failure
        case .stopped(let reason):
            status.clear()
            return reason.exitCode
        }
    }

    /// The one line for an error that kept the session from running or ended it before any audio, and the exit
    /// code.
    func fail(_ error: StreamingError) -> ExitCode {
        if case .stream(let cause, _, _, _) = error, cause.kind != .missingElement {
            status.say("yt-gst: \(url): \(verbose ? cause.verboseDescription : cause.message)")
        } else {
            status.say("yt-gst: \(error.text(verbose: verbose))")
        }
        if case .launch(let cause, _) = error, cause.kind != .missingElement { return .usage }
        return .failure
    }

    private var timeoutText: String { "\(StatusView.trim(command.timeout)) s" }

    /// Seconds to a tenth: "12.3", "4".
    private func tenths(_ duration: Duration) -> String {
        StatusView.trim((duration / .seconds(1) * 10).rounded() / 10)
    }
}
