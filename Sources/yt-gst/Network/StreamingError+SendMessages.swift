// yt-gst — how `stream` words a send error and the exit code it means (the texts tests compare).
import GstPlayer
import Streaming

extension StreamingError {
    /// Prints the line for a stream's or broadcast's error (none when the events said it all already) and gives the
    /// exit code.
    ///
    /// - Parameter pipeline: the command's wording of a pipeline error (it names the destination concerned).
    func reportSendError(pipeline: (GstError, _ connected: Bool) -> String) -> ExitCode {
        let line: String
        switch self {
        case .nothingOpened: return .failure
        case .pipeline(let error, let connected): line = pipeline(error, connected)
        default: line = text(verbose: false)
        }
        Terminal.error("yt-gst: \(line)")
        if case .needsSDP = self { return .usage }
        return .failure
    }
}

extension StopReason {
    /// How a session stopped this way exits: 143 for SIGTERM, 130 for SIGINT, 0 when asked (`quit` on the socket).
    var exitCode: ExitCode {
        guard case .interrupted(let signal) = self else { return .success }
        return Interrupts.exitCode(for: signal)
    }
}
