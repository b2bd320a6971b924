// yt-gst — the clock a sender runs on, published for its receivers, and its stream's timestamps on it.
import GstPlayer
import Streaming

/// What a synchronised RTP sender runs on: its pipeline clock (the machine's, or an NTP or PTP one), published on
/// the RTP port + 2 of every destination's port, and RTP timestamps that count that clock (`MediaClock`).
final class SenderClock {
    let clock: Clock
    let reference: ReferenceClock
    /// Kept alive for as long as the stream: receivers ask them for the time.
    private let publishers: [ClockPublisher]

    private init(clock: Clock, reference: ReferenceClock, publishers: [ClockPublisher]) {
        self.clock = clock
        self.reference = reference
        self.publishers = publishers
    }

    /// Starts the clock and publishes it on `MediaClock.clockPort` of each RTP port.
    ///
    /// - Throws: the exit code, once the problem has been said: an NTP or PTP clock that does not answer.
    static func start(_ reference: ReferenceClock, rtpPorts: [Int], quiet: Bool) throws(ExitCode) -> SenderClock {
        guard let clock = reference.makeClock(senderAddress: nil, clockPort: 0, statisticsTo: nil) else {
            Terminal.error("yt-gst: \(reference) is not available here (PTP needs gst-ptp-helper and ports 319-320)")
            throw .failure
        }
        guard try clock.waitForSync(within: .seconds(5)) else {
            Terminal.error("yt-gst: \(reference) did not answer within 5 s")
            throw .failure
        }
        var publishers: [ClockPublisher] = []
        for port in Set(rtpPorts.map(MediaClock.clockPort)).sorted() {
            do {
                publishers.append(try ClockPublisher(clock, port: port))
            } catch {
                if !quiet { Terminal.error("yt-gst: warning: \(error.message); receivers will not be in step") }
            }
        }
        return SenderClock(clock: clock, reference: reference, publishers: publishers)
    }

    /// Runs `pipeline` on the clock from a moment ago plus 50 ms (so its first packet is not late), with the RTP
    /// timestamps of `payloader` (at `rate`) counting the clock.
    func prepare(_ pipeline: Pipeline, payloader: Element, rate: Int) throws(GstError) {
        let baseTime = ClockTime(nanoseconds: clock.time.nanoseconds + 50_000_000)
        pipeline.run(on: clock, baseTime: baseTime)
        try payloader.set(
            "timestamp-offset", fromString: String(MediaClock.rtpTimestamp(at: baseTime, rate: rate)))
    }
}
