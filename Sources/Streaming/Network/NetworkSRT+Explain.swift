// yt-gst — what an SRT element's error most likely means, in one line.
import GstPlayer

extension NetworkSRT {
    /// One line for an SRT element's error, saying what it most likely means.
    ///
    /// - Parameter connected: whether audio already went through this connection (then it broke, rather than
    ///   never came up).
    public static func explain(_ error: GstError, endpoint: SRTEndpoint, connected: Bool, verbose: Bool) -> String {
        let detail = lastLine(of: error.debug) ?? error.message
        // Opening (binding, resolving) fails as OPEN_*; a connection that is refused, times out or breaks as
        // READ or WRITE, with libsrt's reject reason (if any) in the text.
        guard error.resourceError == .read || error.resourceError == .write else {
            if verbose { return "\(endpoint): \(error.verboseDescription)" }
            return "\(endpoint): \(error.message)\(detail == error.message ? "" : ": " + detail)"
        }
        switch SRTRejectReason(reportedIn: detail) {
        case .badSecret?:
            return "\(endpoint): wrong passphrase (the other side rejected the connection: Incorrect passphrase)"
        case .unsecure?:
            return "\(endpoint): \(SRTRejectReason.unsecure.explanation)"
        default:
            break
        }
        if !connected {
            let what = endpoint.mode == .caller ? "could not connect" : "the connection failed"
            return "\(endpoint): \(what) (\(detail)); is the other side running, with the same passphrase?"
        }
        if verbose { return "\(endpoint): the connection broke: \(error.verboseDescription)" }
        return "\(endpoint): the connection broke (\(detail))"
    }

    /// The last line of GStreamer's debug text (where srt puts the reason).
    private static func lastLine(of debug: String?) -> String? {
        guard let line = debug?.split(separator: "\n").last.map(String.init), !line.isEmpty, !line.hasPrefix("../")
        else { return nil }
        return line
    }
}
