// yt-gst — what a receiver's network clock last said, and whether it still answers.
import GstPlayer

/// Follows the statistics a network clock posts for every answer it gets (`Clock.following(...statisticsTo:)`):
/// the clock's distance to the sender's at the last exchange and the round trip, and when answers stop.
struct ClockWatch {
    /// The element message a network clock posts per answer.
    static let statisticsMessage = "gst-netclock-statistics"
    /// Answers come every 50 ms or so; this long without one means the clock is lost.
    static let silenceLimit = Duration.seconds(2)

    /// The receiver clock's distance to the followed clock at the last answer (µs; positive: the followed clock
    /// is ahead), and the average round trip (µs).
    private(set) var offset: Double? = nil
    private(set) var roundTrip: Double? = nil
    private(set) var lost = false
    private var lastAnswer = ContinuousClock.now

    /// One answer; true when it ends a loss that was said.
    mutating func observe(_ statistics: Structure) -> Bool {
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

/// The status line's and summary's words for a synchronised receiver.
struct SyncSummary {
    var clock: ClockWatch
    var output: OutputAligner.Status?

    var text: String {
        var parts: [String] = []
        // Without an audio sink to align (a sink that only synchronises, like fakesink), the clock is all.
        if clock.lost {
            parts.append("clock lost, on last estimate")
        } else {
            parts.append(output == nil || output?.phase == .following ? "in sync" : "syncing")
        }
        if let offset = clock.offset {
            parts.append(
                "clock \(SyncSummary.signed(offset)) µs" + (clock.roundTrip.map { " (rtt \(Int($0)) µs)" } ?? ""))
        }
        if let drift = output?.drift {
            parts.append("output \(SyncSummary.signed(drift)) ppm")
        }
        if let corrections = output?.corrections, corrections > 0 { parts.append("\(corrections) corrections") }
        return parts.joined(separator: ", ")
    }

    private static func signed(_ value: Double) -> String {
        let rounded = Int(value.rounded())
        return rounded > 0 ? "+\(rounded)" : "\(rounded)"
    }
}
