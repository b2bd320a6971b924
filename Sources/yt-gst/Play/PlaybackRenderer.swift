// yt-gst — what `play` shows of a playback session: the status line or JSON, warnings, errors and tags.
import AppSrcFeeder
import GstPlayer

/// Renders a `PlaybackSession`'s events on the terminal: status on stdout (a line redrawn in place, or JSON lines),
/// problems on stderr as "yt-gst: PATH: ...", printed above the status line.
final class PlaybackRenderer {
    private var statusLine: StatusLine
    private let json: Bool
    private let quiet: Bool
    private let verbose: Bool
    /// The time typed after `g`, shown instead of the status line while it is entered.
    var gotoText: String?
    /// The file that plays, as last announced.
    private(set) var playing: PlaybackSession.File?

    init(_ options: TerminalOptions) {
        statusLine = StatusLine(enabled: options.drawsStatusLine(onTerminal: Terminal.stdoutIsTerminal))
        json = options.status == .json
        quiet = options.quiet
        verbose = options.verbose
    }

    /// Whether status events are shown (and so worth asking the session for).
    var showsStatus: Bool { statusLine.enabled || json }

    func render(_ event: PlaybackSession.Event) {
        switch event {
        case .status(let snapshot):
            draw(snapshot)
        case .fileStarted(let file):
            playing = file
            if !quiet { for warning in file.warnings { report("yt-gst: \(file.path): warning: \(warning)") } }
        case .tags(let tags):
            let shown = tags.filter { ["title", "artist", "album", "date", "comment"].contains($0.name) }
            if statusLine.enabled && !shown.isEmpty {
                report(shown.map { "\($0.name): \($0.value)" }.joined(separator: "  "), toStderr: false)
            }
        case .warning(let path, let warning):
            if !quiet { report("yt-gst: \(path): warning: \(describe(warning))") }
        case .fileSkipped(let file):
            if !quiet { file.warningLines.forEach { report($0) } }
        case .fileFailed(let error):
            report("yt-gst: \(describe(error))")
        case .nothingToPlay(let file?):
            report("yt-gst: \(file.path): nothing to play (\(file.reason))")
        case .nothingToPlay(nil):
            report("yt-gst: nothing to play in the list (every file is empty or cut away by --start/--end)")
        case .seekUnavailable(let path):
            report("yt-gst: \(path): seeking is unavailable on a pipe (it plays forward only)")
        case .commandFailed(let error):
            report("yt-gst: \(describe(error))")
        case .ended, .seeked, .pausedChanged, .controlsChanged, .orderChanged:
            break
        }
    }

    /// The text after "yt-gst: " for a playback error.
    func describe(_ error: PlaybackError) -> String {
        switch error {
        case .file(let path, let error): "\(path): \(error)"
        case .pipeline(let path, let error): "\(path): \(describe(error))"
        case .launch(let launch, let error): PlayCommand.problem(error, launch: launch).message
        case .noAudioOutput:
            "no audio output available (no PulseAudio server or sound card found); "
                + "choose another with --sink, e.g. --sink null"
        }
    }

    /// Prints a line above the status line (which is redrawn on the next status).
    func report(_ text: String, toStderr: Bool = true) {
        statusLine.clear()
        if toStderr { Terminal.error(text) } else { Terminal.write(text + "\n") }
    }

    /// Removes the status line, so what follows starts on a clean line.
    func finish() { statusLine.clear() }

    private func draw(_ snapshot: PlaybackSnapshot) {
        if json {
            Terminal.write(StatusView.json(snapshot) + "\n")
        } else if let gotoText {
            statusLine.draw("Go to (1:23 or 83.5, Enter; Esc cancels): \(gotoText)")
        } else {
            statusLine.draw(StatusView.line(snapshot, width: Terminal.columns - 1))
        }
    }

    private func describe(_ error: GstError) -> String { verbose ? error.verboseDescription : error.description }
}
