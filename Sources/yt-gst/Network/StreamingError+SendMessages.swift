// yt-gst — how `stream` words a send error and the exit code it means (the texts tests compare).
import GstPlayer
import Streaming

extension StreamingError {
    /// The line to print for a stream's or broadcast's error (nil when the events said it all already) and the exit
    /// code.
    ///
    /// - Parameter pipeline: the command's wording of a pipeline error (it names the destination concerned).
    func sendMessage(pipeline: (GstError, _ connected: Bool) -> String) -> (line: String?, code: ExitCode) {
        switch self {
        case .nothingOpened: (nil, .failure)
        case .needsSDP: ("yt-gst: \(text(verbose: false))", .usage)
        case .pipeline(let error, let connected): ("yt-gst: \(pipeline(error, connected))", .failure)
        default: ("yt-gst: \(text(verbose: false))", .failure)
        }
    }
}

extension StopReason {
    /// How a session stopped this way exits: 143 for SIGTERM, 130 for SIGINT (and a stop asked otherwise).
    var exitCode: ExitCode {
        guard case .interrupted(let signal) = self else { return .interrupted }
        return Interrupts.exitCode(for: signal)
    }
}
