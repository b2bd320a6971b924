// yt-gst — `--clock` as users type it: a mistyped one is a usage error.
import Streaming

extension ReferenceClock {
    /// Parses the option's value: `sender`, `ntp://HOST[:PORT]` or `ptp[:DOMAIN]`.
    init(option text: String) throws(UsageError) {
        do { self = try ReferenceClock(text) } catch { throw UsageError(error.description) }
    }
}
