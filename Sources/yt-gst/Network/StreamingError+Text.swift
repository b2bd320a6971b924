// yt-gst — a streaming session's error as one line (after "yt-gst: ").
import GstPlayer
import Streaming
import WAV

extension StreamingError {
    /// The line `receive` prints for this error; `verbose` adds GStreamer's details.
    func text(verbose: Bool) -> String {
        switch self {
        case .address(let problem): "\(problem)"
        case .sdp(let path, let error): "\(path): \(error)"
        case .noAudioOutput:
            "no audio output available (no PulseAudio server or sound card found); "
                + "choose another with --sink, e.g. --sink 'wavenc ! filesink location=received.wav'"
        case .launch(let error, _) where error.kind == .missingElement: MissingPlugin.describe(error)
        case .launch(let error, let output): "bad pipeline: \(error.message): \(output)"
        case .stream(let error, _, _, _) where error.kind == .missingElement: MissingPlugin.describe(error)
        case .stream(let error, _, let endpoint?, let connected) where error.elementName == "net":
            NetworkSRT.explain(error, endpoint: endpoint, connected: connected, verbose: verbose)
        case .stream(let error, let url, _, _): "\(url): \(verbose ? error.verboseDescription : error.description)"
        case .socket(let error, let url, _): "\(url): \(error.message)"
        case .clockUnavailable(let clock):
            "\(clock) is not available here (PTP needs gst-ptp-helper and ports 319-320)"
        case .clockSilent(let clock, let url, let limit):
            "\(url): \(clock) did not answer within \(limit.components.seconds) s"
        case .srtRejected(let reason, let url): "\(url): \(reason.explanation)"
        case .connectionClosed(let url): "\(url): the connection closed before the end of the stream"
        case .couldNotFinalise(let url, let limit):
            "\(url): could not finalise the output (no end of stream within \(limit))"
        case .notFound(let url): "\(url): not found (404): no such mount or stream on the server"
        case .cannotConnect(let url, let problem): "\(url): cannot connect to the server (\(problem))"
        }
    }
}
