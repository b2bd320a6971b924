// yt-gst — what a receiver's network clock last said, and whether it still answers.
import GstPlayer

/// Follows the statistics a network clock posts for every answer it gets (`Clock.following(...statisticsTo:)`):
/// the clock's distance to the sender's at the last exchange and the round trip, and when answers stop.
public struct ClockWatch: Sendable {
    /// The element message a network clock posts per answer.
    public static let statisticsMessage = "gst-netclock-statistics"
    /// Answers come every 50 ms or so; this long without one means the clock is lost.
    static let silenceLimit = Duration.seconds(2)

    /// The receiver clock's distance to the followed clock at the last answer (µs; positive: the followed clock
    /// is ahead), and the average round trip (µs).
    public private(set) var offset: Double? = nil
    public private(set) var roundTrip: Double? = nil
    /// Whether answers stopped (for `silenceLimit`): the receiver plays on the clock's last estimate.
    public private(set) var lost = false
    private var lastAnswer = ContinuousClock.now

    public init() {}

    /// One answer; true when it ends a loss that was said.
    public mutating func observe(_ statistics: Structure) -> Bool {
        if let distance = ClockWatch.distance(statistics) { offset = distance }
        roundTrip = statistics.count("rtt-average").map { Double($0) / 1000 }
        lastAnswer = .now
        defer { lost = false }
        return lost
    }

    /// How far (µs) the followed clock's reading at an exchange is from what the receiver's clock read then.
    ///
    /// The statistics give the exchange's midpoint on the receiver's own (internal) clock and on the followed one,
    /// and the calibration that maps the first onto the second; the receiver's clock is the calibrated one. (The
    /// internal and followed clocks can count from different epochs: an NTP clock counts from 1900.)
    static func distance(_ statistics: Structure) -> Double? {
        guard let local = statistics.count("local"), let remote = statistics.count("remote"),
            let internalTime = statistics.count("internal-time"),
            let externalTime = statistics.count("external-time"),
            let rateNumerator = statistics.count("rate-num"), let rateDenominator = statistics.count("rate-den"),
            rateDenominator > 0
        else { return nil }
        // Differences within one clock first, in integers: the readings themselves are too large for a Double's ns.
        let sinceCalibration = Double(Int64(bitPattern: local &- internalTime))
        let remoteSinceCalibration = Double(Int64(bitPattern: remote &- externalTime))
        let estimated = sinceCalibration * Double(rateNumerator) / Double(rateDenominator)
        return (remoteSinceCalibration - estimated) / 1000
    }

    /// True once, when answers have stopped for `silenceLimit`.
    mutating func checkLost() -> Bool {
        guard !lost, ContinuousClock.now - lastAnswer >= ClockWatch.silenceLimit else { return false }
        lost = true
        return true
    }

    /// When `checkLost` can next turn true.
    var nextCheck: ContinuousClock.Instant? { lost ? nil : lastAnswer + ClockWatch.silenceLimit }
}

/// A synchronised receiver's state: its clock's distance to the followed one, and how its output is kept in step.
public struct SyncSummary: Sendable {
    public var clock: ClockWatch
    /// The first audio sink's alignment; nil without one (a sink that only synchronises, like fakesink).
    public var output: OutputAligner.Status?
    /// Whether the output's clock is placed by its PipeWire graph's own cycle starts (pulsesink on pipewire-pulse,
    /// see `PulseStreamClock.placedByGraphCycles`).
    public var onGraphCycles: Bool

    public init(clock: ClockWatch, output: OutputAligner.Status?, onGraphCycles: Bool = false) {
        self.clock = clock
        self.output = output
        self.onGraphCycles = onGraphCycles
    }
}
