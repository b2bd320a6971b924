// yt-gst — what `stream` shows of a stream: the status line, warnings (each kind once), files' problems.
import AppSrcFeeder
import GstPlayer
import Streaming

/// Renders a `StreamSession`'s events on the terminal, as `stream` always has.
final class StreamRenderer {
    private let command: StreamCommand
    private var status: StatusLine
    private var warnings: NetworkWarnings
    /// The status line's text after the position: the files, the destinations and the format.
    private var label = ""

    init(_ command: StreamCommand) {
        self.command = command
        status = StatusLine(enabled: Terminal.stdoutIsTerminal && !command.quiet)
        warnings = NetworkWarnings(quiet: command.quiet, verbose: command.verbose)
    }

    /// How often the session should send its status: 10 times a second while the status line shows.
    var statusInterval: Duration? { status.enabled ? .milliseconds(100) : nil }

    func render(_ event: StreamSession.Event) {
        switch event {
        case .status(let now): draw(now)
        case .sending(let format):
            let files = command.files
            label =
                (files.count == 1 ? files[0] : "\(files.count) files") + " → "
                + command.destinations.map(\.description).joined(separator: ", ") + " (\(format))"
        case .fileWarning(let path, let warning):
            if !command.quiet { status.say("yt-gst: \(path): warning: \(warning)") }
        case .fileFailed(let failure): status.say("yt-gst: \(failure)")
        case .emptyFile(let file): if !command.quiet { file.warningLines.forEach { status.say($0) } }
        case .clockNotPublished(let error):
            if !command.quiet { status.say("yt-gst: warning: \(error.message); receivers will not be in step") }
        case .warning(let warning): warnings.report(warning, about: command.destination, status: &status)
        case .fileChanged, .callerConnected, .pausedChanged, .seeked, .orderChanged, .volumeChanged: break
        }
    }

    /// Says how the stream ended, and the exit code for it.
    func finish(_ result: Result<StreamSession.Ending, StreamingError>) -> ExitCode {
        status.clear()
        switch result {
        case .success(.finished(let someFilesFailed)): return someFilesFailed ? .failure : .success
        case .success(.stopped(let reason)): return reason.exitCode
        case .failure(let error):
            return error.reportSendError { error, connected in command.describe(error, connected: connected) }
        }
    }

    private func draw(_ now: StreamSession.Status) {
        switch now.state {
        case .waitingForCaller: status.draw("… waiting for a receiver to call \(command.destination)")
        case .sending, .paused:
            let mark = now.state == .paused ? "||" : ">"
            if let total = now.total {
                status.draw("\(mark) \(now.position) / \(total)  \(label)")
            } else {
                status.draw("\(mark) \(now.position)  \(label)")
            }
        }
    }
}
