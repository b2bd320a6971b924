// yt-gst — how far an audio device plays from where the shared clock says, and the correction to make now.

/// Follows the gap between an audio device's clock and the pipeline clock as the sink renders, and says how far
/// to move the output: by the whole gap as soon as the device plays, while its clock settles whenever it is clearly
/// off, and again once its clock has settled, then one sample at a time; every move a whole number of samples (see
/// `wholeSamples`).
///
/// An audio server starts a stream some milliseconds after the sink calibrated its clock (PulseAudio: 3–16 ms late,
/// differing by 1–10 ms between two streams, measured in the multi-room lab), and that start-up gap holds from the
/// first reading on. So once the device clock runs (and `coarseSettle` more), the median of `coarseTime` of
/// readings moves the output: the rooms are within a few hundred µs a quarter of a second after their first sample,
/// instead of playing milliseconds apart until the precise first estimate below.
///
/// The device clock of an audio server (PulseAudio's stream time) is noisy from one reading to the next (tens to
/// hundreds of µs on a busy machine), while a device's rate differs from the sender's by up to a few hundred ppm.
/// So the gap is estimated by a straight line fitted over the last `window` (4 s) of readings, evaluated at the
/// newest (its slope is the rate difference); a correction is made when the gap expected on average until the next
/// decision (the estimate plus half a decision's drift) passes `trigger` (0.6) samples: each step moves the output by
/// that rounded to whole samples, at most `maxStep` (4, 83 µs at 48 kHz), at most every `decisionInterval`
/// (100 ms): inaudible, and fast enough for 800 ppm. Each room then sits within about ±0.6 samples of the clock,
/// centred on it however its device drifts (a trigger of 1.5 samples with the estimate rounded down left each
/// anywhere in ±1.5, two rooms up to 3 samples, 62 µs, apart by design). (One sample per step capped the rate at 208
/// ppm at 48 kHz: a PulseAudio null sink fed by pulsesink renders 60-400 ppm fast, as its timer counts each small
/// chunk's duration in whole µs, and the output fell behind it until a 10 ms jump.) Measured in the multi-room lab,
/// shorter windows chase the noise (20 steps a second, the output wandering by ±1 ms). Pure logic: `OutputAligner`
/// feeds it from the sink.
public struct AlignmentFilter: Sendable {
    /// Why the filter has no estimate yet, or how it stands.
    public enum Phase: Equatable, Sendable {
        /// The device clock is not running yet, or just started: nothing moved yet.
        case settling
        /// Moved by the rough start-up gap, and again whenever the device's readings clearly move away (see
        /// `interimTrigger`); settling (`settleTime` from the device's start) and collecting readings for the
        /// precise first estimate (`firstEstimateTime`).
        case measuring
        /// Corrections made; the output follows the clock.
        case following
    }

    var coarseSettle = 50_000.0
    var coarseTime = 100_000.0
    var settleTime = 700_000.0
    var firstEstimateTime = 1_000_000.0
    var window = 4_000_000.0
    var decisionInterval = 100_000.0
    /// Estimated gaps beyond this (µs) are corrected at once (a jump), not sample by sample.
    var jumpThreshold = 10_000.0
    /// The readings of the last `stepWindow` (µs) whose median is `stepThreshold` (µs) or more off the line through
    /// the older ones are a step: the device's time jumped (an audio server's underrun: a pipewire-pulse stream
    /// comes back a whole graph cycle, 5.3 ms, late), and the output moves by the whole step at once. Followed
    /// sample by sample, a 5.3 ms step took 6 s, the room that far off meanwhile, and the line through a window
    /// with a step in it overshot by 1-2 ms. (Readings wander by 75-300 µs on PipeWire, ±100 µs on PulseAudio.)
    var stepWindow = 200_000.0
    var stepThreshold = 2_000.0
    /// While measuring, the line through the readings since the move before the last (those before a move counted
    /// as seen after it) moves the output, once `interimSpan` of readings followed the last one, by the gap it
    /// expects on average until the next such move can come (its slope held within `plausibleDrift`), when that is
    /// `interimTrigger` samples or more and `interimSignificance` standard errors of the line: a device whose clock
    /// was still finding its place when the rough move was taken (a pipewire-pulse stream's time moved by 0.1-1.5 ms
    /// in its first 300 ms, measured in the multi-room lab), one that runs a few hundred ppm off, or a clock whose
    /// rate came after the rough move, is not left that far off until the precise estimate, 1.5 s later. (Judged by
    /// the median of the last 200 ms and 100 µs, rooms on the lab's PulseAudio, 200 ppm fast, swung between 0 and
    /// 110 µs until then, and a follower whose clocks ran 200 ppm fast sat 20-60 µs off, its rough move taken at the
    /// nominal rate.) The readings of the first `interimSettle` after such a move are left out (an audio server takes a
    /// moment to show it), so such moves come at least 200 ms apart: on a device 400 ppm fast (the lab's null sink
    /// under a faketime'd PulseAudio) every room then swings by 80 µs, not 160, its moves after the first 0.1 ms, not
    /// 0.3. (400 ms apart, three such rooms were 31-81 µs apart at p99 in five 10 s lab runs, median 68; since, 37-62,
    /// median 41.) After the rough move the readings of `startUpSettle` are left out and the first line waits for
    /// `startUpSpan` of them: a device still finding its place would bend it, and a line through 100 ms of readings
    /// that wander by ±20 µs overshot a 2-sample gap by a sample.
    var startUpSettle = 200_000.0
    var startUpSpan = 200_000.0
    var interimSettle = 100_000.0
    var interimSpan = 100_000.0
    var interimTrigger = 1.5
    var interimSignificance = 4.0
    var plausibleDrift = 1_000e-6
    var trigger = 0.6
    /// The most samples one step moves.
    var maxStep = 4.0

    private(set) var phase = Phase.settling
    /// The latest estimate of the gap (µs; positive: the device plays ahead of the clock) and of its drift (ppm).
    private(set) var gap: Double? = nil
    private(set) var drift: Double? = nil
    /// Corrections made since the start, and their sum (µs; positive: output moved later).
    private(set) var corrections = 0
    private(set) var corrected = 0.0

    private var readings: [(time: Double, gap: Double)] = []
    private var first = 0
    /// The reading the next one is compared with to see the device clock run (at least `runCheckInterval` apart).
    private var previous: (time: Double, gap: Double)? = nil
    private let runCheckInterval = 2_000.0
    /// When the device clock was first seen running, and the readings for the rough first move.
    private var runningSince: Double? = nil
    private var startUpGaps: [Double] = []
    /// When the last move while measuring was made, when readings count again after it, when the line through
    /// them is due, and the readings since (`interimMove`).
    private var measuringSince = 0.0
    private var countedFrom = 0.0
    private var lineDue = 0.0
    private var interimGaps: [(time: Double, gap: Double)] = []
    private var lastDecision = -Double.infinity

    /// Starts over: the device clock was recalibrated.
    mutating func restart() {
        phase = .settling
        readings.removeAll(keepingCapacity: true)
        first = 0
        previous = nil
        runningSince = nil
        startUpGaps.removeAll()
        interimGaps.removeAll()
        gap = nil
        drift = nil
        lastDecision = -.infinity
    }

    /// One reading: the pipeline clock's time and the device's gap to it (device − pipeline), both in µs.
    ///
    /// - Returns: how far to move the output now, in µs (positive: later), 0 for nothing.
    mutating func observe(time: Double, gap reading: Double, samplePeriod: Double) -> Double {
        guard let runningSince else {
            if deviceRuns(time: time, gap: reading) { runningSince = time }
            return 0
        }
        if phase == .settling {
            let move = startUpMove(time: time, gap: reading, since: runningSince, samplePeriod: samplePeriod)
            // The sink's times count from its calibration, which the move shifts by as much.
            if move != 0 { self.runningSince = runningSince + move }
            return move
        }
        if phase == .measuring, let move = interimMove(time: time, gap: reading, samplePeriod: samplePeriod) {
            return move
        }
        let settledAt = runningSince + settleTime
        guard time >= settledAt else { return 0 }
        // Readings that may not show the last move yet are left out; the precise estimate is not put off by them.
        if phase != .measuring || time >= countedFrom { readings.append((time, reading)) }
        while first < readings.count && readings[first].time < time - window { first += 1 }
        if first > 256 {
            readings.removeFirst(first)
            first = 0
        }
        guard time - lastDecision >= decisionInterval else { return 0 }
        lastDecision = time
        if phase == .measuring && time - settledAt < firstEstimateTime { return 0 }
        let stepped = phase == .following && absorbStep(at: time)
        let (estimate, slope) = fit(at: time)
        gap = estimate
        drift = slope * 1e6
        // The gap the output has on average until the next decision, the device drifting on meanwhile. Judged by the
        // gap now instead, a drifting room sat half a decision's drift off the clock (+11.6 µs at 180 ppm fast, +21.3
        // at 400: AlignmentFilterTests), and rooms drifting apart twice that apart.
        let ahead = estimate + slope * decisionInterval / 2
        let move: Double
        if phase == .measuring || stepped || abs(estimate) > jumpThreshold {
            move = AlignmentFilter.wholeSamples(estimate, samplePeriod: samplePeriod)
        } else if abs(ahead) > trigger * samplePeriod {
            let samples = min((abs(ahead) / samplePeriod).rounded(), maxStep)
            move = (ahead > 0 ? samples : -samples) * samplePeriod
        } else {
            move = 0
        }
        phase = .following
        if move != 0 {
            corrections += 1
            corrected += move
            // The readings were taken against the old calibration: as seen from the new one they are `move` less.
            for index in first..<readings.count { readings[index].gap -= move }
            gap = estimate - move
        }
        return move
    }

    /// Whether the device clock has started: it advanced at least half as far as the pipeline clock since the
    /// previous reading (a stream the server has not started yet reads one time while the pipeline runs on).
    private mutating func deviceRuns(time: Double, gap reading: Double) -> Bool {
        guard let previous else {
            previous = (time, reading)
            return false
        }
        guard time - previous.time >= runCheckInterval else { return false }
        self.previous = (time, reading)
        return reading - previous.gap >= -(time - previous.time) / 2
    }

    /// The rough first move: the median of the readings from `coarseSettle` to `coarseTime` after the device
    /// started.
    private mutating func startUpMove(
        time: Double, gap reading: Double, since start: Double, samplePeriod: Double
    )
        -> Double
    {
        guard time >= start + coarseSettle else { return 0 }
        startUpGaps.append(reading)
        guard time >= start + coarseSettle + coarseTime else { return 0 }
        let sorted = startUpGaps.sorted()
        let move = AlignmentFilter.wholeSamples(sorted[sorted.count / 2], samplePeriod: samplePeriod)
        startUpGaps.removeAll()
        phase = .measuring
        measuringSince = time + move
        countedFrom = measuringSince + startUpSettle
        lineDue = countedFrom + startUpSpan
        gap = 0
        corrections += 1
        corrected += move
        return move
    }

    /// The move while measuring (see `interimTrigger`), if one is due: the readings taken for the precise
    /// estimate are moved with it (as seen after it: right for a device that drifts; one that stepped after
    /// `settleTime` leaves the line through its readings a few hundred µs off, followed sample by sample then).
    private mutating func interimMove(time: Double, gap reading: Double, samplePeriod: Double) -> Double? {
        guard let runningSince, time >= countedFrom else { return nil }
        interimGaps.append((time, reading))
        guard time >= lineDue,
            let expected = expectedInterimGap(until: time + interimSettle + interimSpan),
            abs(expected.gap) >= max(interimTrigger * samplePeriod, interimSignificance * expected.error)
        else { return nil }
        let move = AlignmentFilter.wholeSamples(expected.gap, samplePeriod: samplePeriod)
        // As seen after the move (the sink's times shift by it, its gaps the other way), from the previous one on.
        interimGaps = interimGaps.filter { $0.time >= measuringSince }.map {
            (time: $0.time + move, gap: $0.gap - move)
        }
        measuringSince = time + move
        countedFrom = measuringSince + interimSettle
        lineDue = countedFrom + interimSpan
        self.runningSince = runningSince + move
        corrections += 1
        corrected += move
        for index in first..<readings.count { readings[index].gap -= move }
        return move
    }

    /// The gap the line through `interimGaps` expects on average from the newest reading until `end`, and its
    /// standard error; nil for fewer than three readings.
    private func expectedInterimGap(until end: Double) -> (gap: Double, error: Double)? {
        guard interimGaps.count >= 3, let newest = interimGaps.last?.time,
            let line = Line(through: interimGaps.lazy.map { (x: $0.time, y: $0.gap) }, origin: newest)
        else { return nil }
        let slope = min(max(line.slope, -plausibleDrift), plausibleDrift)
        let at = (newest + end) / 2
        let count = Double(interimGaps.count)
        let meanTime = interimGaps.reduce(0) { $0 + $1.time } / count
        let spread = interimGaps.reduce(0) { $0 + ($1.time - meanTime) * ($1.time - meanTime) }
        let squares = interimGaps.reduce(0) { sum, reading in
            let residual = reading.gap - line.value(at: reading.time)
            return sum + residual * residual
        }
        let scatter = (squares / (count - 2)).squareRoot()
        let error = scatter * (1 / count + (at - meanTime) * (at - meanTime) / spread).squareRoot()
        return (line.value + slope * (at - newest), error)
    }

    /// `move` (µs) rounded to whole samples: an audio sink places its buffers on whole samples, so a move by a
    /// fraction would change its device clock's calibration, and the readings, but not where it plays.
    static func wholeSamples(_ move: Double, samplePeriod: Double) -> Double {
        (move / samplePeriod).rounded() * samplePeriod
    }

    /// Whether the readings of the last `stepWindow` stepped away from the line through the older ones (at least 1 s
    /// of them); if so, the readings from before the step are moved by it (its size: the median of the newest
    /// half, all after the step), so that the window reads as the level now and keeps its slope.
    private mutating func absorbStep(at time: Double) -> Bool {
        guard readings[first].time <= time - stepWindow - 1_000_000,
            let recent = readings[first...].firstIndex(where: { $0.time > time - stepWindow }),
            readings.count - recent >= 6,
            let line = Line(through: readings[first..<recent].lazy.map { (x: $0.time, y: $0.gap) }, origin: time)
        else { return false }
        let residuals = readings[recent...].map { $0.gap - line.value(at: $0.time) }
        func median(_ values: some Collection<Double>) -> Double { values.sorted()[values.count / 2] }
        guard abs(median(residuals)) >= stepThreshold else { return false }
        let step = median(residuals.suffix(residuals.count / 2))
        let stepIndex = recent + (residuals.firstIndex { abs($0 - step) < abs($0) } ?? 0)
        for index in first..<stepIndex { readings[index].gap += step }
        return true
    }

    /// The least-squares line through the readings in the window: its value at `time`, and its slope (0 for a
    /// single reading).
    private func fit(at time: Double) -> (value: Double, slope: Double) {
        let points = readings[first...].lazy.map { (x: $0.time, y: $0.gap) }
        guard let line = Line(through: points, origin: time) else { return (readings.last?.gap ?? 0, 0) }
        return (line.value, line.slope)
    }
}
