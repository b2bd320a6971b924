// yt-gst — what the cycles a watch saw of a PipeWire graph say: which cycle is under way, and when a position plays.

/// The newest cycles seen of one PipeWire graph (at most `kept`): each one's start (ns, kernel's CLOCK_MONOTONIC),
/// the graph's position then (ticks: samples at the graph's rate, counted on across drivers) and its length (the
/// graph's quantum in that cycle). Pure logic: `PipeWireCycles` feeds it from the graph.
public struct GraphCycles: Sendable {
    /// A cycle of the graph: its start (ns), the time from the one before it (ns), the graph's position at its start
    /// and its length (ticks).
    public struct Cycle: Sendable, Equatable {
        public var start: Int64
        public var period: Int64
        public var ticks: UInt64
        public var length: UInt64
    }

    private var seen: [(start: Int64, ticks: UInt64, length: UInt64)] = []
    /// What is added to the graph's positions to count them on across drivers (see `add`).
    private var tickOffset: Int64 = 0
    static let kept = 64
    /// How many cycles beyond the newest seen a start is projected (the watch's thread may not have run yet for the
    /// cycle under way); further than that, the graph has stopped or the watch fell behind.
    static let projectedLimit = 4.0

    public init() {}

    /// A cycle seen: its start, its position, its length, and the graph's rate (ticks a second). Its own length,
    /// not the step from the cycle seen before: the watch's thread misses a cycle now and then, and the graph's
    /// quantum changes as streams come and go (512 ticks, then 256, as a lab's rooms started: a stream placed by the
    /// old length played a cycle early). One whose position does not follow from the newest's at that rate (within
    /// 16 ticks and 1 %) comes from another driver (the stream was moved, or the graph started anew when a stream
    /// joined it): its positions are counted on from the newest's, as the time between them says, so that a stream
    /// placed before goes on where it was (its frames play on in order), and the line starts anew from it.
    public mutating func add(start: Int64, ticks: UInt64, length: UInt64, ticksPerSecond: Double) {
        var position = Int64(bitPattern: ticks) + tickOffset
        if let newest = seen.last {
            guard start > newest.start else { return }
            let expected = Double(start - newest.start) * ticksPerSecond / 1e9
            let advanced = Double(position - Int64(bitPattern: newest.ticks))
            if advanced <= 0 || abs(advanced - expected) > 16 + expected / 100 {
                let continued = Int64(bitPattern: newest.ticks) + Int64(expected.rounded())
                tickOffset += continued - position
                position = continued
                seen.removeAll()
            }
        }
        seen.append((start, UInt64(bitPattern: position), length))
        if seen.count > Self.kept { seen.removeFirst(seen.count - Self.kept) }
    }

    /// The last cycle that began at or before `time` (ns); nil before two cycles were seen, or when `time` lies more
    /// than a few cycles beyond the newest. Beyond the newest, the cycles are as long as the newest, and their
    /// starts are on the line through those seen.
    public func cycle(atOrBefore time: Int64) -> Cycle? {
        guard seen.count >= 2, let newest = seen.last, let nanosecondsPerTick else { return nil }
        guard time >= newest.start else {
            guard let index = seen.lastIndex(where: { $0.start <= time }), index > 0 else { return nil }
            let (cycle, before) = (seen[index], seen[index - 1])
            return Cycle(
                start: cycle.start, period: cycle.start - before.start, ticks: cycle.ticks, length: cycle.length)
        }
        guard newest.length > 0 else { return nil }
        let period = Double(newest.length) * nanosecondsPerTick
        let later = (Double(time - newest.start) / period).rounded(.down)
        guard later <= Self.projectedLimit else { return nil }
        return Cycle(
            start: newest.start + Int64(later * period), period: Int64(period),
            ticks: newest.ticks + UInt64(later) * newest.length, length: newest.length)
    }

    /// When the graph reaches position `ticks` (ns): on the line through the cycles seen (their starts are the
    /// driver's, which may run off the kernel's clock); nil before two were seen.
    public func time(ofTicks ticks: Double) -> Double? {
        guard let newest = seen.last, let nanosecondsPerTick else { return nil }
        return Double(newest.start) + (ticks - Double(newest.ticks)) * nanosecondsPerTick
    }

    /// The graph's time per tick, from the oldest cycle seen to the newest.
    private var nanosecondsPerTick: Double? {
        guard let newest = seen.last, let oldest = seen.first, newest.ticks > oldest.ticks else { return nil }
        return Double(newest.start - oldest.start) / Double(newest.ticks - oldest.ticks)
    }
}
