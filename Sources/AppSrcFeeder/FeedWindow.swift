// yt-gst — the part of a file a feeder feeds, and its place in the stream.
import GstPlayer

/// Which part of a file a feeder feeds, and where it sits in the stream.
public struct FeedWindow: Sendable {
    /// Start and end within the file (--start / --end); nil = the file's start / end.
    public var start: ClockTime?
    public var end: ClockTime?
    /// The stream time of the first unit fed; nil = the file's own time (0 at its start). Files played one after
    /// another continue the stream's time instead of starting again at 0.
    public var streamStart: ClockTime?

    public init(start: ClockTime? = nil, end: ClockTime? = nil, streamStart: ClockTime? = nil) {
        self.start = start
        self.end = end
        self.streamStart = streamStart
    }

    /// The whole units between `start` and `end` (the unit holding `start` on; units up to `end`).
    func units(in plan: PacketPlan) -> Range<Int64> {
        let last = end.map { plan.unit(atNanoseconds: $0.nanoseconds) } ?? plan.totalUnits
        let first = min(start.map { plan.unit(atNanoseconds: $0.nanoseconds) } ?? 0, last)
        return first..<last
    }
}
