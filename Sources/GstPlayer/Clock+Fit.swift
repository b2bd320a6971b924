// yt-gst — a network clock's time fitted from its fastest exchanges, not from all of them.
internal import CGStreamer
import Synchronization

/// The sender's time as a line through the exchanges with the shortest round trips.
///
/// Why: each exchange says the server's time at the midpoint of its round trip, which is only right when both legs
/// take as long. They do not: the request waits for the server's thread to wake (measured in the multi-room lab:
/// the server's time came 25-140 µs after the midpoint, growing with the round trip, while the answer's leg stayed
/// short), so GStreamer's client, fitting every answer it keeps, held each receiver 30-90 µs from the sender and two
/// receivers up to 90 µs apart for seconds, and 100-500 µs apart in their first seconds, when a few slow answers
/// tipped its rate by hundreds of ppm. The fastest answers are the ones whose legs are both short: measured offline
/// on the same exchanges, two receivers' clocks then stay within 11-16 µs (p99) of each other in the steady state
/// and 28-54 µs in their first 8 s (GStreamer's: 19-55 and 57-517), with one receiver's clocks 200 ppm fast alike.
///
/// The line: of the exchanges of the last `window`, the rate from the fast ones (`fastLimit`) where they are at
/// least `rateMinimum`, else the fastest `rateShare` (at least `rateMinimum`; once they span `rateSpan`, or
/// `quickRateSpan` with a slope known to `quickRateError` and beyond what their round trips allow; until then from
/// the bursts' exchanges (`Clock.seed`'s), which do that 0.3 s after the first; else the nominal rate), refitted
/// without outliers beyond 4 × MAD (where those left still span as much), the nominal rate where it is beyond
/// `plausibleRate`; the offset from the median of the fast ones (or the fastest `offsetShare`, at least 3) along that
/// rate.
struct ExchangeFit: Sendable {
    /// One exchange (ns): the midpoint of its round trip on the follower's internal clock, the server's time
    /// there, the round trip, and whether it was one of a burst's (`Clock.seed`'s, each answered before the next).
    struct Exchange: Equatable, Sendable {
        var local: UInt64
        var remote: UInt64
        var roundTrip: UInt64
        var inBurst = false
    }

    /// What `gst_clock_set_calibration` takes: the clock reads `external` when its internal clock reads `local`,
    /// and runs at `rate` against it.
    struct Calibration: Equatable, Sendable {
        var local: UInt64
        var external: UInt64
        var rate: Double
    }

    static let window: UInt64 = 10_000_000_000
    static let rateShare = 0.3
    static let rateMinimum = 8
    static let rateSpan = 1_000_000_000.0
    static let offsetShare = 0.3

    private(set) var exchanges: [Exchange] = []

    /// Adds an exchange and drops those older than `window` before it.
    mutating func add(_ exchange: Exchange) {
        exchanges.append(exchange)
        exchanges.removeAll { $0.local &+ ExchangeFit.window < exchange.local }
    }

    /// The line at the latest exchange; nil before any.
    var calibration: Calibration? {
        guard let latest = exchanges.last else { return nil }
        // Offsets (remote − local) relative to the latest's, against local time from it: small numbers, exact in a
        // Double whatever the clocks' epochs (an NTP clock counts from 1900).
        let base = Int64(bitPattern: latest.remote &- latest.local)
        func point(_ exchange: Exchange) -> Point {
            Point(
                x: Double(Int64(bitPattern: exchange.local &- latest.local)),
                y: Double(Int64(bitPattern: exchange.remote &- exchange.local) &- base),
                roundTrip: Double(exchange.roundTrip))
        }
        let byRoundTrip = exchanges.sorted { $0.roundTrip < $1.roundTrip }.map(point)
        let fastLimit = ExchangeFit.fastLimit(fastest: byRoundTrip[0].roundTrip)
        let fastCount = byRoundTrip.prefix { $0.roundTrip <= fastLimit }.count
        /// The fast exchanges where there are at least `minimum`, else the fastest `share` (at least `minimum`).
        func fastest(_ share: Double, _ minimum: Int) -> ArraySlice<Point> {
            byRoundTrip.prefix(fastCount >= minimum ? fastCount : self.share(share, minimum, byRoundTrip.count))
        }
        let slope =
            ExchangeFit.rate(of: fastest(ExchangeFit.rateShare, ExchangeFit.rateMinimum))
            ?? ExchangeFit.rate(of: exchanges.filter(\.inBurst).map(point)[...]) ?? 0
        let offsets = fastest(ExchangeFit.offsetShare, 3).map { $0.y - slope * $0.x }.sorted()
        let offset = offsets[offsets.count / 2]
        return Calibration(
            local: latest.local, external: latest.local &+ UInt64(bitPattern: base &+ Int64(offset.rounded())),
            rate: 1 + slope)
    }

    /// An exchange as the fit sees it (ns): local time and offset relative to the latest exchange's, and its round
    /// trip.
    struct Point {
        var x: Double
        var y: Double
        var roundTrip: Double
    }

    /// The longest round trip of a fast exchange: the fastest in the window and half as long again, plus 5 µs. Why:
    /// an exchange's error grows with its round trip (measured in the multi-room lab, three receivers, PipeWire and
    /// the sender on two cores: round trips of 20-25 µs within 1-2 µs of the sender's time, of 45-90 µs up to 25 µs
    /// off), and the fastest 30 % reached those: the clocks of followers on the sender's rate were 7-10 µs off for
    /// seconds.
    static func fastLimit(fastest: Double) -> Double { fastest * 1.5 + 5_000 }

    /// How many of `count` a share is, at least `minimum` (and at most `count`).
    private func share(_ share: Double, _ minimum: Int, _ count: Int) -> Int {
        min(max(Int(Double(count) * share), minimum), count)
    }

    /// The slope of offset against time through `points` without their outliers (4 × MAD off the line through all);
    /// nil while they are fewer than 4 or span too little (`spanningFit`: judged without the outliers where those
    /// left span enough, as a follower's first burst under libfaketime, round trips of up to 0.9 ms and hundreds of
    /// µs off, hid the rate of the second for 0.7 s), 0 (the nominal rate) when it is further off than
    /// `plausibleRate`. The line through all where those left do not span enough: a seed's burst is most of the
    /// fastest points for seconds, and the later ones among them lie off the line through the burst by more than its
    /// tiny scatter (measured: 7 exchanges within 0.1 ms, ±0.2 µs; 4 × that dropped every later point), and the
    /// burst's own slope was thousands of ppm (see ExchangeFitTests.aSeedsBurstIsNoRate).
    private static func rate(of points: ArraySlice<Point>) -> Double? {
        guard points.count >= 4, let line = fit(points) else { return nil }
        let residuals = points.map { abs($0.y - line.intercept - line.slope * $0.x) }
        let mad = residuals.sorted()[residuals.count / 2]
        let kept = zip(points, residuals).filter { $0.1 <= max(4 * mad, 1000) }.map(\.0)
        guard let slope = spanningSlope(kept[...]) ?? spanningSlope(points) else { return nil }
        return abs(slope) <= plausibleRate ? slope : 0
    }

    /// Two machines' clocks run tens of ppm apart (their crystals), at most 500 ppm more while NTP slews one: a
    /// fitted rate further off is its points' noise.
    static let plausibleRate = 1000e-6

    /// How short a span gives a rate whose standard error is at most `quickRateError`: the seed's bursts 0.3 s apart
    /// (exchanges of 10-20 µs round trips, scattered by tenths of a µs) give one within 1 ppm; a GStreamer client's
    /// answers (round trips of 90-150 µs, each tens of µs off) seldom do before they span `rateSpan`. Why: until the
    /// fastest exchanges spanned a second (2-4 s, while the seed's burst was most of them), a follower whose clock
    /// ran 200 ppm fast took the nominal rate, and its room drifted 100-650 µs from the others, then back (measured
    /// in the multi-room lab: beyond 200 µs in 5 runs of 9).
    static let quickRateSpan = 250_000_000.0
    static let quickRateError = 2e-6
    /// A slope this many standard errors from the nominal rate is taken over `quickRateSpan` too. Why: the bursts of
    /// a follower under libfaketime (the multi-room lab's receiver with clocks 200 ppm fast) scatter by µs, each
    /// exchange slowed by the library's clock calls (round trips of 22-160 µs, the slower ones up to 50 µs late), so
    /// their slope's standard error after 0.3 s was 6-20 ppm, not 1: the follower kept the nominal rate until the
    /// burst at 1 s, its room drifting 200 µs a second, then stepped back 130 µs, and the aligner's first estimate,
    /// fitted across that step, put the room 60-100 µs off for 2-3 s (measured in the lab). A slope 4 standard errors
    /// from 0 is no chance of the points; the nominal rate is the worse guess then.
    static let quickRateSignificance = 4.0

    /// The slope of the least-squares line through `points` where they are 4 or more and span `rateSpan`, or
    /// `quickRateSpan` with a standard error within `quickRateError` or `quickRateSignificance` times less than the
    /// slope; then 0 (the nominal rate) where the round trips at its two ends allow that. Why: the sender's time lies
    /// within half its round trip of an exchange's midpoint whichever leg was slow, so the fastest exchange of each
    /// half of the span bounds the rate between them. A seed's burst made while the machine was busy (round trips of
    /// 70-171 µs, 4-55 µs off) and a fast burst 0.3 s later (20 µs) gave a slope of -57 ppm at 4 standard errors,
    /// and a follower on the sender's rate was 36-61 µs off until the burst at 3 s (measured in the multi-room lab); the
    /// round trips allowed ±150 ppm.
    private static func spanningSlope(_ points: ArraySlice<Point>) -> Double? {
        let xs = points.map(\.x)
        guard points.count >= 4, let first = xs.min(), let last = xs.max(), last - first >= quickRateSpan,
            let line = fit(points)
        else { return nil }
        guard last - first < rateSpan else { return line.slope }
        let meanX = xs.reduce(0, +) / Double(xs.count)
        let spread = xs.reduce(0) { $0 + ($1 - meanX) * ($1 - meanX) }
        let squares = points.reduce(0) { sum, point in
            let residual = point.y - line.intercept - line.slope * point.x
            return sum + residual * residual
        }
        let slopeError = (squares / Double(points.count - 2) / spread).squareRoot()
        guard slopeError <= quickRateError || abs(line.slope) >= quickRateSignificance * slopeError else { return nil }
        let middle = (first + last) / 2
        let early = points.filter { $0.x < middle }.map(\.roundTrip).min() ?? 0
        let late = points.filter { $0.x >= middle }.map(\.roundTrip).min() ?? 0
        let allowed = (early + late) / 2
        return abs(line.slope) * (last - first) > allowed ? line.slope : 0
    }

    /// The least-squares line through points, nil for fewer than two distinct x.
    private static func fit(_ points: ArraySlice<Point>) -> (slope: Double, intercept: Double)? {
        let count = Double(points.count)
        let sumX = points.reduce(0) { $0 + $1.x }, sumY = points.reduce(0) { $0 + $1.y }
        let sumXX = points.reduce(0) { $0 + $1.x * $1.x }, sumXY = points.reduce(0) { $0 + $1.x * $1.y }
        let denominator = count * sumXX - sumX * sumX
        guard denominator > 0 else { return nil }
        let slope = (count * sumXY - sumX * sumY) / denominator
        return (slope, (sumY - slope * sumX) / count)
    }
}

/// Sets a clock from a network client's exchanges (the statistics it posts for each answer it keeps, on a bus of
/// its own) and from `Clock.seed`'s, through an `ExchangeFit`; forwards each statistics message, with the clock's
/// calibration in it, to the pipeline that shows them.
///
/// Why a clock of its own: the client sets its own calibration from all its answers before it posts, holding its
/// lock (a calibration set from the bus's handler would wait for that lock forever, and one set later would race
/// with the client's next).
final class FollowedTime: @unchecked Sendable {
    /// The clock set (+1), and where statistics go on (+1; nil: nowhere).
    private let clock: UnsafeMutablePointer<GstClock>
    private let forwardTo: UnsafeMutablePointer<GstBus>?
    private let fit = Mutex(ExchangeFit())
    /// Whether the clock has had its first exchange.
    let synced = Atomic(false)

    init(clock: UnsafeMutablePointer<GstClock>, forwardTo bus: UnsafeMutablePointer<GstBus>?) {
        self.clock = clock
        forwardTo = bus
        _ = gst_object_ref(UnsafeMutableRawPointer(clock))
        if let bus { _ = gst_object_ref(UnsafeMutableRawPointer(bus)) }
    }

    deinit {
        gst_object_unref(UnsafeMutableRawPointer(clock))
        if let forwardTo { gst_object_unref(UnsafeMutableRawPointer(forwardTo)) }
    }

    /// Adds exchanges to the fit and sets the clock from it.
    @discardableResult
    func add(_ exchanges: [ExchangeFit.Exchange]) -> ExchangeFit.Calibration? {
        // Set while the fit is held: the client's answers and the seed's later bursts come on threads of their own,
        // and the newest calibration is to be the one that stays.
        let calibration = fit.withLock { fit -> ExchangeFit.Calibration? in
            for exchange in exchanges { fit.add(exchange) }
            guard let calibration = fit.calibration else { return nil }
            gst_clock_set_calibration(
                clock, GstClockTime(calibration.local), GstClockTime(calibration.external),
                GstClockTime((calibration.rate * Double(FollowedTime.rateDenominator)).rounded()),
                GstClockTime(FollowedTime.rateDenominator))
            return calibration
        }
        guard let calibration else { return nil }
        synced.store(true, ordering: .releasing)
        return calibration
    }

    static let rateDenominator: UInt64 = 1_000_000_000

    /// Listens to `client`'s statistics (its "bus", a new one whose handler runs on the client's thread).
    func listen(to client: UnsafeMutablePointer<GstClock>) {
        let bus = gst_bus_new()!
        gst_bus_set_sync_handler(
            bus,
            { _, message, context in
                guard let message, let context else { return GST_BUS_DROP }
                Unmanaged<FollowedTime>.fromOpaque(context).takeUnretainedValue().observe(message)
                return GST_BUS_DROP
            }, Unmanaged.passRetained(self).toOpaque(),
            { context in
                guard let context else { return }
                Unmanaged<FollowedTime>.fromOpaque(context).release()
            })
        var value = GValue()
        g_value_init(&value, gst_bus_get_type())
        g_value_set_object(&value, UnsafeMutableRawPointer(bus))
        g_object_set_property(CGst_gobject(client), "bus", &value)
        g_value_unset(&value)
        gst_object_unref(UnsafeMutableRawPointer(bus))
    }

    /// One statistics message of the client: its exchange into the fit, and the message on with the result.
    private func observe(_ message: UnsafeMutablePointer<GstMessage>) {
        guard message.pointee.type == GST_MESSAGE_ELEMENT, let statistics = gst_message_get_structure(message) else {
            return
        }
        var local: guint64 = 0, remote: guint64 = 0, roundTrip: guint64 = 0
        guard gst_structure_get_uint64(statistics, "local", &local) != 0,
            gst_structure_get_uint64(statistics, "remote", &remote) != 0,
            gst_structure_get_uint64(statistics, "rtt", &roundTrip) != 0
        else { return }
        let calibration = add([
            ExchangeFit.Exchange(local: UInt64(local), remote: UInt64(remote), roundTrip: UInt64(roundTrip))
        ])
        guard let forwardTo, let calibration, let copy = gst_structure_copy(statistics) else { return }
        for (field, number) in [
            ("internal-time", calibration.local), ("external-time", calibration.external),
            ("rate-num", UInt64((calibration.rate * Double(FollowedTime.rateDenominator)).rounded())),
            ("rate-den", FollowedTime.rateDenominator),
        ] {
            var value = GValue()
            g_value_init(&value, CGst_type_uint64())
            g_value_set_uint64(&value, guint64(number))
            gst_structure_set_value(copy, field, &value)
            g_value_unset(&value)
        }
        gst_bus_post(forwardTo, gst_message_new_element(CGst_object(clock), copy))
    }
}
