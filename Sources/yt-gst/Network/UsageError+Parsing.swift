// yt-gst — values the libraries parse (URLs, broadcast destinations, clocks) as users type them: a mistyped one is
// a usage error in the library's words.
import Streaming

extension UsageError {
    /// The value `parse` reads in `text`, or a usage error with the library's description of the problem.
    static func parsing<Value>(
        _ text: String, as parse: (String) throws(URLSyntaxError) -> Value
    ) throws(UsageError) -> Value {
        do { return try parse(text) } catch { throw UsageError(error.description) }
    }
}

extension StreamURL {
    /// `rtp://...`, `srt://...` or `sdp:FILE` from the command line.
    init(parsing text: String) throws(UsageError) { self = try UsageError.parsing(text, as: StreamURL.init) }
}

extension BroadcastTarget {
    /// `icecast://[USER:]PASSWORD@HOST[:PORT]/MOUNT`, `hls:DIR` or `file:///DIR/NAME.m3u8`.
    init(parsing text: String) throws(UsageError) { self = try UsageError.parsing(text, as: BroadcastTarget.init) }
}

extension ReferenceClock {
    /// `--clock`'s value: `sender`, `ntp://HOST[:PORT]` or `ptp[:DOMAIN]`.
    init(option text: String) throws(UsageError) { self = try UsageError.parsing(text, as: ReferenceClock.init) }
}
