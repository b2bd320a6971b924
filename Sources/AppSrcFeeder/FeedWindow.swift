// yt-gst — the part of a file a feeder feeds, and its place in the stream.
import GstPlayer

/// Which part of a file a feeder feeds, and where it sits in the stream.
public struct FeedWindow: Sendable {
    /// Where feeding starts in the file (the unit holding this time is the first fed); nil = the file's start.
    public var start: ClockTime?
    /// Where feeding stops in the file (units up to this time are fed); nil = the file's end.
    public var end: ClockTime?
    /// The stream time of the first unit fed; nil = the file's own time (0 at its start). Files played one after
    /// another continue the stream's time instead of starting again at 0.
    public var streamStart: ClockTime?

    /// A window over `start..<end` of the file at `streamStart` in the stream; the defaults feed the whole file at its own times.
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
