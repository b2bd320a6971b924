// yt-gst — the network addresses of `stream` and `receive`: rtp://, srt:// and SDP files.

/// Where `stream` sends to or `receive` listens on. The command line parses it from text (`rtp://@:5004`).
public enum StreamURL: Equatable, Sendable, CustomStringConvertible {
    case rtp(RTPEndpoint)
    case srt(SRTEndpoint)
    /// An SDP file that describes an RTP stream (receive only).
    case sdp(path: String)

    public var description: String {
        switch self {
        case .rtp(let endpoint): endpoint.description
        case .srt(let endpoint): endpoint.description
        case .sdp(let path): "sdp:\(path)"
        }
    }
}
