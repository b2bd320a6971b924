// yt-gst — how `stream` words a send error and the exit code it means (the texts tests compare).
import Glibc
import GstPlayer
import Streaming
import WAV

extension SendError {
    /// The line to print (nil when the events said it all already) and the exit code.
    ///
    /// - Parameter pipeline: the command's wording of a pipeline error (it names the destination concerned).
    func message(pipeline: (GstError, _ connected: Bool) -> String) -> (line: String?, code: ExitCode) {
        switch self {
        case .nothingOpened:
            return (nil, .failure)
        case .needsSDP(let file, let rtpmap):
            return (
                "yt-gst: \(file): \(rtpmap) has no standard payload type; write an SDP with --sdp FILE and receive "
                    + "with sdp:FILE", .usage
            )
        case .pipeline(let error, let connected):
            return ("yt-gst: \(pipeline(error, connected))", .failure)
        default:
            return ("yt-gst: \(text)", .failure)
        }
    }

    /// The words after "yt-gst: " of the errors that exit with 1 and need no context.
    private var text: String {
        switch self {
        case .nothingOpened, .needsSDP, .pipeline: "\(self)"
        case .nothingToBroadcast: "nothing to broadcast (every file is empty)"
        case .opusChannels(let file, let channels):
            "\(file): Opus streams carry 1 or 2 channels, not \(channels) (use --codec l16 or l24)"
        case .unreachable(let problem): "\(problem)"
        case .clockUnavailable(let clock):
            "\(clock) is not available here (PTP needs gst-ptp-helper and ports 319-320)"
        case .clockSilent(let clock, let limit): "\(clock) did not answer within \(limit.components.seconds) s"
        case .sdpNotWritten(let path, let problem): "\(path): \(problem)"
        case .needsAnotherDecoder(let file):
            "\(file): needs another decoder than the files before it; stream it on its own"
        case .cannotConnect(let endpoint, let problem): "\(endpoint): cannot connect to the server (\(problem))"
        case .noSuchDirectory(let directory): "hls:\(directory): no such directory"
        case .playlistNotWritten(let directory, let problem): "hls:\(directory): \(problem)"
        case .refused(let endpoint, let refusal): "\(endpoint): \(refusal)"
        case .gaveUp(let endpoint, let seconds):
            "\(endpoint): gave up after \(StatusView.trim(seconds)) s without the server"
        }
    }
}

extension StopReason {
    /// How a command stopped this way exits: 143 for SIGTERM, 130 for SIGINT (and a stop asked otherwise).
    var exitCode: ExitCode { self == .signal(SIGTERM) ? .terminated : .interrupted }
}
