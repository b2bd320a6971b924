// yt-gst — the broadcast destinations of `stream --to`: an Icecast mount, or an HLS directory.

/// One broadcast destination: `stream` feeds every one given from the same decoded audio.
public enum BroadcastTarget: Sendable, Equatable, CustomStringConvertible {
    case icecast(IcecastEndpoint)
    /// HLS: MPEG-TS segments and a rolling playlist written to `directory`, for any web server to serve.
    case hls(directory: String, playlist: String)

    /// The playlist name for `hls:DIR`.
    public static let defaultPlaylist = "playlist.m3u8"

    /// Whether `text` names a broadcast destination (so `stream` broadcasts instead of sending RTP or SRT).
    public static func isBroadcast(_ text: String) -> Bool {
        let lower = text.lowercased()
        return lower.hasPrefix("icecast://") || lower.hasPrefix("hls:")
            || (lower.hasPrefix("file://") && lower.hasSuffix(".m3u8"))
    }

    public var description: String {
        switch self {
        case .icecast(let endpoint): endpoint.description
        case .hls(let directory, let playlist): "hls:\(directory)/\(playlist)"
        }
    }
}
