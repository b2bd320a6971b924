// yt-gst — which cycle of a PipeWire graph is under way, and when a position plays, from the cycles a watch saw.
import GstPlayer
import Testing

@Suite struct GraphCyclesTests {
    static let period: Int64 = 5_333_333  // 256 ticks at 48 kHz
    static let start: Int64 = 1_000_000_000

    /// Cycles of 256 ticks at 48 kHz from `first` (ticks), `count` of them, leaving out those in `missed`.
    static func seen(count: Int, firstTicks: UInt64 = 0, missed: Set<Int> = []) -> GraphCycles {
        var cycles = GraphCycles()
        for index in 0..<count where !missed.contains(index) {
            cycles.add(
                start: start + Int64(index) * period, ticks: firstTicks + UInt64(index) * 256, length: 256,
                ticksPerSecond: 48_000)
        }
        return cycles
    }

    @Test func theCycleUnderWayIsProjectedFromTheNewestSeen() throws {
        let cycles = Self.seen(count: 10)
        let newest = Self.start + 9 * Self.period
        let under = try #require(cycles.cycle(atOrBefore: newest + Self.period + 1_000))
        #expect(abs(under.start - (newest + Self.period)) <= 1)
        #expect(under.ticks == 10 * 256 && under.length == 256)
        // A seen one is itself; too far beyond the newest (the graph stopped), none.
        #expect(cycles.cycle(atOrBefore: Self.start + 3 * Self.period + 10)?.ticks == 3 * 256)
        #expect(cycles.cycle(atOrBefore: newest + 6 * Self.period) == nil)
    }

    /// The watch's thread misses a cycle now and then: a cycle is still 256 ticks, not the 512 between two seen.
    @Test func aMissedCycleLeavesTheLengthAsItIs() throws {
        let cycles = Self.seen(count: 10, missed: [8])
        let under = try #require(cycles.cycle(atOrBefore: Self.start + 10 * Self.period + 1_000))
        #expect(under.length == 256 && under.ticks == 10 * 256)
    }

    /// The graph's quantum goes from 512 ticks to 256 (a stream joined): the cycle under way is as long as the
    /// newest seen, so a buffer placed in it plays from 256 ticks on, not 512 (a room started a cycle early).
    @Test func aShorterQuantumCountsFromTheCycleItBegins() throws {
        var cycles = GraphCycles()
        for index in 0..<8 {
            cycles.add(
                start: Self.start + Int64(index) * 2 * Self.period, ticks: UInt64(index) * 512,
                length: index < 7 ? 512 : 256, ticksPerSecond: 48_000)
        }
        let newest = Self.start + 14 * Self.period
        let under = try #require(cycles.cycle(atOrBefore: newest + 1_000_000))
        #expect(under.ticks == 7 * 512 && under.length == 256)
        let next = try #require(cycles.cycle(atOrBefore: newest + Self.period + 1_000_000))
        #expect(next.ticks == 7 * 512 + 256 && abs(next.start - (newest + Self.period)) <= 2)
    }

    /// A position that does not follow from the newest (another driver) starts a new line, its positions counted on
    /// from the newest's: a position placed before plays when the time between them says.
    @Test func anotherDriverStartsANewLineCountedOn() throws {
        var cycles = Self.seen(count: 10)
        let moved = Self.start + 10 * Self.period + 1_000_000
        cycles.add(start: moved, ticks: 512, length: 256, ticksPerSecond: 48_000)
        #expect(cycles.time(ofTicks: 3_000) == nil)
        cycles.add(start: moved + Self.period, ticks: 768, length: 256, ticksPerSecond: 48_000)
        // 9 × 256 at the newest seen before, and 11 cycles and 1 ms (48 ticks) later: 2 352 + 256 a cycle after.
        let continued = Double(9 * 256 + 256 + 48)
        let time = try #require(cycles.time(ofTicks: continued + 256))
        #expect(abs(time - Double(moved + Self.period)) < 2)
        #expect(cycles.cycle(atOrBefore: moved + Self.period + 10)?.ticks == UInt64(continued) + 256)
    }

    /// A driver 100 ppm fast on the kernel's clock: a position plays on the line through its cycles, not at the
    /// nominal rate.
    @Test func aPositionPlaysOnTheLineThroughTheCycles() throws {
        var cycles = GraphCycles()
        let period = 5_333_333.0 / 1.0001
        for index in 0..<64 {
            cycles.add(
                start: Self.start + Int64((Double(index) * period).rounded()), ticks: UInt64(index) * 256,
                length: 256, ticksPerSecond: 48_000)
        }
        let time = try #require(cycles.time(ofTicks: 100 * 256))
        #expect(abs(time - (Double(Self.start) + 100 * period)) < 5)
    }
}
