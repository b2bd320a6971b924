// yt-gst — the clock a sender runs on, published for its receivers, and its stream's timestamps on it.
import GstPlayer

/// What a synchronised RTP sender runs on: its pipeline clock (the machine's, or an NTP or PTP one), published on
/// the RTP port + 2 of every destination's port, and RTP timestamps that count that clock (`MediaClock`).
final class SenderClock {
    /// How long an NTP or PTP clock has to answer before the stream gives up.
    static let syncLimit: Duration = .seconds(5)

    let clock: Clock
    let reference: ReferenceClock
    /// Kept alive for as long as the stream: receivers ask them for the time.
    private let publishers: [ClockPublisher]
    /// The ports the clock could not be published on (in use, or not allowed): receivers there will not be in step.
    let unpublished: [GstError]

    private init(clock: Clock, reference: ReferenceClock, publishers: [ClockPublisher], unpublished: [GstError]) {
        self.clock = clock
        self.reference = reference
        self.publishers = publishers
        self.unpublished = unpublished
    }

    /// Starts the clock and publishes it on `MediaClock.clockPort` of each RTP port.
    ///
    /// - Parameter stop: asked between short waits for the clock's first answer; true gives up the wait.
    /// - Returns: nil when `stop` said so before the clock answered.
    /// - Throws: `.clockUnavailable` or `.clockSilent`: an NTP or PTP clock that cannot run or does not answer.
    static func start(
        _ reference: ReferenceClock, rtpPorts: [Int], stop: () -> Bool
    ) throws(StreamingError) -> SenderClock? {
        guard let clock = reference.makeClock(senderAddress: nil, clockPort: 0, statisticsTo: nil) else {
            throw .clockUnavailable(reference)
        }
        switch clock.waitForSync(within: syncLimit, stoppingWhen: stop) {
        case .stopped: return nil
        case .timedOut: throw .clockSilent(reference, url: nil, limit: syncLimit)
        case .answered: break
        }
        var publishers: [ClockPublisher] = []
        var unpublished: [GstError] = []
        for port in Set(rtpPorts.map(MediaClock.clockPort)).sorted() {
            do { publishers.append(try ClockPublisher(clock, port: port)) } catch { unpublished.append(error) }
        }
        return SenderClock(clock: clock, reference: reference, publishers: publishers, unpublished: unpublished)
    }

    /// Runs `pipeline` on the clock from a moment ago plus 50 ms (so its first packet is not late), with the RTP
    /// timestamps of `payloader` (at `rate`) counting the clock. Receivers already listening keep the packets that
    /// arrive while they learn the clock (`Clock.seed` takes a few ms), so the latency is time enough to start at
    /// the first sample.
    func prepare(_ pipeline: Pipeline, payloader: Element, rate: Int) throws(GstError) {
        let baseTime = ClockTime(nanoseconds: clock.time.nanoseconds + 50_000_000)
        pipeline.run(on: clock, baseTime: baseTime)
        try payloader.set("timestamp-offset", to: Int(MediaClock.rtpTimestamp(at: baseTime, rate: rate)))
    }
}
