// yt-gst — what `stream` shows of a broadcast: the status line, titles, warnings and the servers' faults.
import AppSrcFeeder
import GstPlayer
import Streaming

/// Renders a `BroadcastSession`'s events on the terminal, as `stream` always has.
final class BroadcastRenderer {
    private let command: BroadcastCommand
    private var status: StatusLine

    init(_ command: BroadcastCommand) {
        self.command = command
        status = StatusLine(enabled: Terminal.stdoutIsTerminal && !command.quiet)
    }

    /// How often the session should send its status: 10 times a second while the status line shows.
    var statusInterval: Duration? { status.enabled ? .milliseconds(100) : nil }

    func render(_ event: BroadcastSession.Event) {
        let quiet = command.quiet
        switch event {
        case .status(let now): draw(now)
        case .titleChanged(let title): if !quiet { status.say("yt-gst: now playing: \(title)") }
        case .fileFailed(let failure): status.say("yt-gst: \(failure)")
        case .emptyFile(let file): if !quiet { file.warningLines.forEach { status.say($0) } }
        case .warning(let warning): if !quiet { status.say("yt-gst: warning: \(command.describe(warning))") }
        case .titleNotSent(let endpoint, let problem):
            if !quiet { status.say("yt-gst: \(endpoint): warning: \(problem)") }
        case .titlesStayFirst(let endpoint):
            if !quiet {
                status.say(
                    "yt-gst: \(endpoint): warning: Icecast 2.4 cannot change the title of an Ogg stream; "
                        + "listeners see the first file's (use --codec mp3 for a title per file)")
            }
        case .serverLost(let endpoint, let error):
            let detail = command.verbose ? error.verboseDescription : error.message
            status.say(
                "yt-gst: \(endpoint): lost the server (\(detail)); retrying for up to "
                    + "\(StatusView.trim(command.retrySeconds)) s")
        case .streamingAgain(let endpoint, let lostFor):
            let seconds = lostFor / .seconds(1)
            status.say(
                "yt-gst: \(endpoint): streaming again (the server was lost for "
                    + "\(StatusView.trim((seconds * 10).rounded() / 10)) s)")
        }
    }

    /// Says how the broadcast ended, and the exit code for it.
    func finish(_ result: Result<BroadcastSession.Ending, StreamingError>) -> ExitCode {
        status.clear()
        switch result {
        case .success(.finished(let someFilesFailed)): return someFilesFailed ? .failure : .success
        case .success(.stopped(let reason)): return reason.exitCode
        case .failure(let error):
            return error.reportSendError { error, _ in command.describe(error) }
        }
    }

    private func draw(_ now: BroadcastSession.Status) {
        switch now.state {
        case .lost(let endpoint, let since):
            let seconds = Int((ContinuousClock.now - since) / .seconds(1))
            status.draw("… \(endpoint) lost \(seconds) s ago; retrying")
        case .broadcasting, .paused:
            let mark = if case .paused = now.state { "||" } else { ">" }
            let targets = command.plan.targets.map(\.description).joined(separator: ", ")
            status.draw("\(mark) \(TimeText.format(now.fileTime.seconds))  \(now.title)  → \(targets)")
        }
    }
}
