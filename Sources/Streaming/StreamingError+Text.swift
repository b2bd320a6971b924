// yt-gst — a streaming session's error as the one line a program prints (after its name).
import GstPlayer

extension StreamingError {
    /// The line `receive` or `stream` prints for this error; `verbose` adds GStreamer's details.
    public func text(verbose: Bool) -> String {
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
            (url.map { "\($0): " } ?? "") + "\(clock) did not answer within \(limit.components.seconds) s"
        case .srtRejected(let reason, let url): "\(url): \(reason.explanation)"
        case .connectionClosed(let url): "\(url): the connection closed before the end of the stream"
        case .couldNotFinalise(let url, let limit):
            "\(url): could not finalise the output (no end of stream within \(limit))"
        case .notFound(let url): "\(url): not found (404): no such mount or stream on the server"
        case .cannotConnect(let url, let problem): "\(url): cannot connect to the server (\(problem))"
        case .nothingOpened: "no file could be opened"
        case .nothingToBroadcast: "nothing to broadcast (every file is empty)"
        case .opusChannels(let file, let channels):
            "\(file): Opus streams carry 1 or 2 channels, not \(channels) (use --codec l16 or l24)"
        case .needsSDP(let file, let rtpmap):
            "\(file): \(rtpmap) has no standard payload type; write an SDP with --sdp FILE and receive with sdp:FILE"
        case .sdpNotWritten(let path, let problem): "\(path): \(problem)"
        case .needsAnotherDecoder(let file):
            "\(file): needs another decoder than the files before it; stream it on its own"
        case .pipeline(let error, _): verbose ? error.verboseDescription : error.description
        case .noSuchDirectory(let directory): "hls:\(directory): no such directory"
        case .playlistNotWritten(let directory, let problem): "hls:\(directory): \(problem)"
        case .refused(let endpoint, let refusal): "\(endpoint): \(refusal)"
        case .gaveUp(let endpoint, let seconds):
            "\(endpoint): gave up after \(Self.trim(seconds)) s without the server"
        }
    }

    /// "5" for 5.0, "2.5" for 2.5.
    private static func trim(_ value: Double) -> String {
        let text = "\(value)"
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }
}
