// yt-gst — a recording's events and errors as the terminal shows them: status line or JSON, markers, messages.
import AppSrcFeeder
import GstPlayer
import Recording

/// Draws what a `RecordSession` reports: the status line (on a terminal) or a JSON object per line, the marker
/// lines, and warnings with --verbose. It runs on the loop's thread, as the session's observer.
final class RecordRenderer {
    private var statusLine: StatusLine
    private let jsonStatus: Bool
    /// The audio goes to standard output: JSON status lines go to standard error instead.
    private let toStandardOutput: Bool
    private let verbose: Bool

    init(_ options: TerminalOptions, onTerminal: Bool, toStandardOutput: Bool) {
        statusLine = StatusLine(enabled: options.drawsStatusLine(onTerminal: onTerminal))
        jsonStatus = options.status == .json
        self.toStandardOutput = toStandardOutput
        verbose = options.verbose
    }

    /// Whether the session should send status ticks at all (its levels are measured only then).
    var showsStatus: Bool { statusLine.enabled || jsonStatus }

    func show(_ event: RecordSession.Event) {
        switch event {
        case .status(let status): show(status)
        case .markerAdded(let number, let seconds) where !jsonStatus:
            statusLine.clear()
            Terminal.error("marker \(number) at \(TimeText.format(seconds)).\(Int(seconds * 10) % 10)")
        case .warning(let warning) where verbose:
            Terminal.error("yt-gst: warning: \(warning.message)")
        default: break
        }
    }

    func showKeys() {
        statusLine.clear()
        Terminal.error(RecordKeys.help)
    }

    /// Removes the status line, so the next output starts on a clean line.
    func clear() { statusLine.clear() }

    /// The status line, or a JSON line.
    private func show(_ status: RecordSession.Status) {
        if jsonStatus {
            let levels = status.levels.map {
                "{\"peak\": \(StatusView.number($0.peak)), \"rms\": \(StatusView.number($0.rms)), "
                    + "\"clip\": \($0.clipped)}"
            }
            let line = JSON.object([
                ("state", JSON.string(status.state.rawValue)), ("file", status.file.map(JSON.string) ?? "null"),
                ("elapsed", StatusView.number(status.seconds)), ("bytes", "\(status.bytes)"),
                ("files", "\(status.files)"), ("markers", "\(status.markers)"),
                ("levels", "[\(levels.joined(separator: ", "))]"),
            ])
            if toStandardOutput { Terminal.error(line) } else { Terminal.write(line + "\n") }
            return
        }
        let symbol = status.state == .paused ? "||" : status.state == .waiting ? ".." : "* REC"
        let size = StatusView.trim((Double(status.bytes) / 100_000).rounded() / 10) + " MB"
        let meter = status.levels.map {
            StatusView.meterBar($0.peak) + StatusView.dB($0.rms) + ($0.clipped ? " CLIP" : "")
        }
        let markers = status.markers == 0 ? "" : "  \(status.markers) markers"
        let name = status.file.map { "  " + ($0.split(separator: "/").last.map(String.init) ?? $0) } ?? ""
        statusLine.draw(
            "\(symbol) \(TimeText.format(status.seconds))  \(size)  \(meter.joined(separator: " "))\(markers)\(name)")
    }

    /// One line (after "yt-gst: ") for a recording that did not start or stopped early.
    static func describe(_ error: RecordingError, verbose: Bool) -> String {
        switch error {
        case .outputExists(let path): "\(path): already exists (add --force to replace it)"
        case .pipeline(let error, let launch): describe(error, launch: launch)
        case .sourceFailed(let error): describe(error, launch: nil, verbose: verbose)
        case .noRateAndChannels(let caps): "the source gave no rate and channels (caps: \(caps ?? "none"))"
        case .formatMismatch(let given, let expected):
            "the pipeline gives \(given) samples, not \(expected): choose --format to match"
        case .cannotCreate(let path, let error), .finishFailed(let path, let error): "\(path): \(error.message)"
        case .writeFailed(let path, let error, let seconds):
            "\(path): \(error.message); the file holds \(StatusView.trim((seconds * 10).rounded() / 10)) s"
        }
    }

    /// A pipeline that does not parse, or lacks the appsink, is the user's launch text (2); the rest failed (1).
    static func exitCode(for error: RecordingError) -> ExitCode {
        guard case .pipeline(let error, _) = error else { return .failure }
        return error.kind == .missingElement || error.kind == .stateChange || error.kind == .stream ? .failure : .usage
    }

    /// One line for a pipeline that does not build or run.
    private static func describe(_ error: GstError, launch: String?, verbose: Bool = false) -> String {
        switch error.kind {
        case .missingAppElement:
            return "the pipeline must end in an element \"appsink name=sink\"" + (launch.map { ": \($0)" } ?? "")
        case .missingElement: return MissingPlugin.describe(error)
        case .notFound, .invalidValue, .parse:
            return "bad pipeline: \(error.message)" + (launch.map { ": \($0)" } ?? "")
        default:
            let from = error.elementName.map { " (from \($0))" } ?? ""
            return "cannot record: \(error.message)\(from)" + (verbose ? (error.debug.map { "; \($0)" } ?? "") : "")
        }
    }
}
