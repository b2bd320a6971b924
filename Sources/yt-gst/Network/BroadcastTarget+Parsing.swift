// yt-gst — the broadcast destinations of `stream --to`: a mistyped one is a usage error.
import Streaming

extension BroadcastTarget {
    /// Parses `icecast://[USER:]PASSWORD@HOST[:PORT]/MOUNT`, `hls:DIR` or `file:///DIR/NAME.m3u8`.
    ///
    /// - Throws: a `UsageError` with the library's words for the problem.
    init(parsing text: String) throws(UsageError) {
        do { self = try BroadcastTarget(text) } catch { throw UsageError(error.description) }
    }
}
