// yt-gst — the arithmetic of multi-room sync: RTP timestamps on the shared clock, the output's corrections, and
// the clock as SDP names it.
import Foundation
import GstPlayer
import TestSupport
import Testing

@testable import Streaming
@testable import yt_gst

@Suite struct MediaClockTests {
    @Test func aTimestampMeansTheSameInstantOnEveryReceiverWhateverItsArrival() {
        let rate = 48_000
        let sent = ClockTime(nanoseconds: 90_000 * 1_000_000_000 + 123_456_789)  // a day's uptime in
        let timestamp = MediaClock.rtpTimestamp(at: sent, rate: rate)
        // One receiver hears it 1 ms later, one 300 ms later, one 10 s later: all place it alike, within half a
        // sample of when it was sent.
        let placed = [1_000_000, 300_000_000, 10_000_000_000].map { (delay: UInt64) in
            MediaClock.time(
                ofRTPTimestamp: timestamp, rate: rate, near: ClockTime(nanoseconds: sent.nanoseconds + delay))
        }
        #expect(Set(placed).count == 1)
        #expect(abs(Int64(placed[0].nanoseconds) - Int64(sent.nanoseconds)) <= 10_417)
    }

    @Test func timestampsWrapWithoutAJump() {
        let rate = 44_100
        // 2³² RTP units at 44.1 kHz: 27 hours; the sample just before the wrap and the one after it are 1 apart.
        let wrap = ClockTime(frames: 1 << 32, rate: rate)
        let before = ClockTime(frames: (1 << 32) - 1, rate: rate)
        let timestampBefore = MediaClock.rtpTimestamp(at: before, rate: rate)
        let timestampAfter = MediaClock.rtpTimestamp(at: wrap, rate: rate)
        #expect(timestampBefore == UInt32.max && timestampAfter == 0)
        let now = ClockTime(nanoseconds: wrap.nanoseconds + 5_000_000)
        #expect(MediaClock.time(ofRTPTimestamp: timestampBefore, rate: rate, near: now) == before)
        #expect(MediaClock.time(ofRTPTimestamp: timestampAfter, rate: rate, near: now) == wrap)
    }

    @Test func theTimestampIsReadFromTheRTPHeaderOnly() {
        let packet: [UInt8] = [0x80, 0x60, 0x12, 0x34, 0xDE, 0xAD, 0xBE, 0xEF, 0, 0, 0, 1]
        packet.withUnsafeBytes { #expect(MediaClock.rtpTimestamp(inPacket: $0) == 0xDEAD_BEEF) }
        let notRTP: [UInt8] = [0x00, 0x60, 0x12, 0x34, 0xDE, 0xAD, 0xBE, 0xEF]
        notRTP.withUnsafeBytes { #expect(MediaClock.rtpTimestamp(inPacket: $0) == nil) }
        packet.prefix(7).withUnsafeBytes { #expect(MediaClock.rtpTimestamp(inPacket: $0) == nil) }
    }

    @Test func theClockIsPublishedTwoPortsAboveRTP() {
        #expect(MediaClock.clockPort(rtpPort: 5004) == 5006)
    }
}

@Suite struct AlignmentFilterTests {
    /// Feeds readings every 5 ms of a device that starts `offset` µs ahead and runs `ppm` fast, applying the
    /// filter's corrections as the sink would; returns the gap left after `seconds` and the corrections.
    /// With `step`, the device's time jumps by `size` µs at `at` s (an underrun), and the gap returned is the worst
    /// from `settle` s after the step on.
    func follow(
        offset: Double, ppm: Double, noise: Double = 0, seconds: Double,
        step: (at: Double, size: Double, settle: Double)? = nil
    ) -> (gap: Double, filter: AlignmentFilter) {
        var filter = AlignmentFilter()
        var moved = 0.0
        var generator = SplitMix(seed: 7)
        var time = 0.0
        var worstAfterStart = 0.0
        while time < seconds * 1e6 {
            let stepped = step.map { time >= $0.at * 1e6 ? $0.size : 0 } ?? 0
            let truth = offset + ppm * time / 1e6 + stepped - moved
            let reading = truth + noise * (generator.nextUnit() * 2 - 1)
            moved += filter.observe(time: time, gap: reading, samplePeriod: 1e6 / 48_000)
            let judgedFrom = step.map { ($0.at + $0.settle) * 1e6 } ?? 2e6
            if time > judgedFrom { worstAfterStart = max(worstAfterStart, abs(truth)) }
            time += 5_000
        }
        return (worstAfterStart, filter)
    }

    @Test func theStartUpOffsetIsCorrectedAtOnce() {
        let (worst, filter) = follow(offset: -4_321, ppm: 0, seconds: 5)
        #expect(worst < 11, "within half a sample from the first estimate on, not \(worst) µs")
        // 207 samples of 20.83 µs: the sink places its buffers on whole samples.
        #expect(filter.corrections == 1 && abs(filter.corrected + 4_312.5) < 0.01, "\(filter.corrected)")
        #expect(filter.phase == .following)
    }

    @Test func aDeviceThatRunsFastIsFollowedSampleBySample() {
        let (worst, filter) = follow(offset: 500, ppm: 200, noise: 30, seconds: 60)
        #expect(worst < 40, "the gap stays within 2 samples, not \(worst) µs")
        // The start-up 500 µs plus 200 ppm over 60 s (12 ms), in steps of a few samples after the first jump.
        #expect(abs(filter.corrected - 12_500) < 100, "\(filter.corrected) µs corrected")
        #expect(filter.corrections >= 12_000 / 84, "\(filter.corrections) corrections of at most 4 samples")
        #expect(abs((filter.drift ?? 0) - 200) < 30, "drift estimated as \(filter.drift ?? 0) ppm")
    }

    /// A device 400 ppm fast (the lab's PulseAudio null sink fed by pulsesink runs up to that): followed within 3
    /// samples. (One sample per step followed at most 208 ppm: the gap grew by 19 µs a second, over 1 ms here.)
    @Test func aDeviceFasterThanOneSampleAStepIsFollowed() {
        let (worst, filter) = follow(offset: 500, ppm: 400, noise: 30, seconds: 60)
        #expect(worst < 65, "the gap stays within 3 samples, not \(worst) µs")
        #expect(abs((filter.drift ?? 0) - 400) < 40, "drift estimated as \(filter.drift ?? 0) ppm")
    }

    /// A device whose time jumps by a PipeWire cycle (5.3 ms late after an underrun), with readings that wander by
    /// ±300 µs as pipewire-pulse's do: the output moves by the whole step within 400 ms, and then stays within 3
    /// samples. (Sample by sample it took 6 s.) The wander alone makes no step: the moves stay a few samples each.
    @Test func aStepOfTheDeviceIsCorrectedAtOnce() {
        for size in [-5_333.0, 5_333.0] {
            let (worst, filter) = follow(
                offset: 500, ppm: 200, noise: 300, seconds: 20, step: (at: 10, size: size, settle: 0.4))
            #expect(worst < 250, "\(size) µs: \(worst) µs off after 400 ms")
            #expect(abs((filter.drift ?? 0) - 200) < 60, "drift estimated as \(filter.drift ?? 0) ppm")
        }
        let (worst, filter) = follow(offset: 500, ppm: 200, noise: 300, seconds: 20)
        #expect(worst < 250 && filter.corrections < 20 * 10, "\(worst) µs, \(filter.corrections) corrections")
    }

    /// A device that drifts is followed one sample at a time, its gap a sawtooth between two decisions: centred on
    /// the clock, whichever way it drifts (the mean gap within 3 µs over 30 s). Judged by the gap at each decision,
    /// not the mean until the next, one 180 ppm fast sat +11.6 µs off and one 180 ppm slow -11.4 µs: two rooms 23 µs
    /// apart for good (seen red; 400 ppm fast: +21.3 µs).
    @Test(arguments: [180.0, -180, 400])
    func aDriftingDeviceIsHeldCentredOnTheClock(ppm: Double) {
        var filter = AlignmentFilter()
        var generator = SplitMix(seed: 11)
        var moved = 0.0
        var sum = 0.0
        var count = 0
        for step in 0..<12_000 {
            let time = Double(step) * 5_000
            let truth = 300 + ppm * time / 1e6 - moved
            moved += filter.observe(
                time: time, gap: truth + 10 * (generator.nextUnit() * 2 - 1), samplePeriod: 1e6 / 48_000)
            if time >= 30e6 {
                sum += truth
                count += 1
            }
        }
        #expect(abs(sum / Double(count)) < 3, "the mean gap over the last 30 s is \(sum / Double(count)) µs")
    }

    /// Every move is a whole number of samples, the start-up, interim and precise ones too: the sink places its
    /// buffers on whole samples, so a fraction would move the device clock's calibration and not the sound, and the
    /// readings, corrected by the move, would be off by that fraction.
    @Test func everyMoveIsAWholeNumberOfSamples() {
        let samplePeriod = 1e6 / 44_100
        var filter = AlignmentFilter()
        var generator = SplitMix(seed: 5)
        var moved = 0.0
        var moves: [Double] = []
        for step in 0..<4_000 {
            let time = Double(step) * 5_000
            let truth = time < 20_000 ? -time : -3_217.3 + 250 * time / 1e6 - moved
            let move = filter.observe(
                time: time, gap: truth + 40 * (generator.nextUnit() * 2 - 1), samplePeriod: samplePeriod)
            moved += move
            if move != 0 { moves.append(move) }
        }
        #expect(moves.count > 10)
        for move in moves {
            let samples = move / samplePeriod
            #expect(abs(samples - samples.rounded()) < 1e-9, "a move of \(samples) samples")
        }
    }

    /// The sink's placement lead counts as the device's: a device exactly on the clock whose sink places every
    /// buffer 0.7 samples early (its start rounded down to a whole sample) is moved one sample later, to 0.3 samples
    /// late, the nearest it can play; by the device clock alone it stayed 0.7 samples early.
    @Test func theSinksPlacementLeadIsPartOfTheGap() {
        let aligner = OutputAligner()
        let period: Int64 = 20_833
        var moved: Int64 = 0
        for step in Int64(0)..<1_000 {
            let time = step * 5_000_000
            moved += aligner.correction(
                pipelineTime: time, deviceTime: time - moved, placementLead: 0.7 * Double(period), sampleRate: 48_000)
        }
        #expect(moved == period, "moved \(moved) ns")
        #expect(aligner.status.phase == .following)
    }

    /// A device clock that has not started reads one time while the pipeline's runs on: nothing is measured until
    /// it runs, and then the start-up gap is moved away within 200 ms.
    @Test func theStartUpGapIsMovedAwayOnceTheDeviceClockRuns() {
        var filter = AlignmentFilter()
        var moves: [(time: Double, move: Double)] = []
        for step in 0..<80 {
            let time = Double(step) * 5_000
            let gap = time < 45_000 ? -time : -6_000
            let move = filter.observe(time: time, gap: gap, samplePeriod: 20.8)
            if move != 0 { moves.append((time, move)) }
            if time < 45_000 { #expect(filter.phase == .settling, "frozen at \(time) µs") }
        }
        #expect(moves.count == 1 && abs(moves[0].move + 5_990.4) < 0.01, "288 samples: \(moves)")
        #expect((150_000...260_000).contains(moves.first?.time ?? 0), "moved at \(moves.first?.time ?? 0) µs")
        filter.restart()
        #expect(filter.phase == .settling && filter.gap == nil)
    }

    /// The sink counts its times from its calibration, which a move shifts: after a start-up move of -1.27 s (a
    /// device that started 1.27 s after the sink calibrated, as an in-process receiver's did) its times restart
    /// 1.27 s lower, and the precise move still comes 1.7 s after the device started (it came 1.27 s later). The
    /// first 200 ms read 20 µs high, less than a move while measuring takes.
    @Test func thePreciseMoveFollowsTheStartUpMoveWhateverItsSize() {
        var filter = AlignmentFilter()
        var moves: [(wall: Double, move: Double)] = []
        var time = 0.0
        for step in 0..<500 {
            let wall = Double(step) * 10_000
            // Frozen until 1.31 s; then 1.274 s behind, read 20 µs high for its first 200 ms.
            let gap =
                wall < 1_310_000 ? -time : -1_274_000 - moves.reduce(0) { $0 + $1.move } + (wall < 1_510_000 ? 20 : 0)
            let move = filter.observe(time: time, gap: gap, samplePeriod: 22.7)
            if move != 0 { moves.append((wall, move)) }
            time += 10_000 + move
        }
        // 56 122 samples of 22.7 µs, then the 30.6 µs the high readings and that rounding left, as 1 sample.
        #expect(
            moves.count == 2 && abs(moves[0].move + 1_273_969.4) < 0.01 && abs(moves[1].move + 22.7) < 0.01,
            "\(moves)")
        #expect((2_900_000...3_200_000).contains(moves.last?.wall ?? 0), "\(moves)")
    }

    /// While measuring, a device 200 or 400 ppm fast (the lab's PulseAudio null sink, alone and under a faketime'd
    /// server) is held within 35 or 60 µs of the clock from its first move on, 0.6 s, not left to drift 100 or 180 µs
    /// between moves (400 ms apart they were 51 and 91 µs off); a gap of 2 samples that appears after the rough move
    /// (a follower's clock whose rate came 0.3 s after the device started) is moved away within 0.7 s, not at the
    /// precise estimate (1.7 s). Readings wander by ±20 µs.
    @Test(arguments: [(200.0, 0.0, 35.0), (400, 0, 60), (0, 41.7, 15)])
    func whileMeasuringTheOutputStaysCloseToTheClock(ppm: Double, shift: Double, bound: Double) {
        var filter = AlignmentFilter()
        var generator = SplitMix(seed: 5)
        var moved = 0.0
        var worst = 0.0
        for step in 0..<600 {
            let time = Double(step) * 5_000
            // Runs from 20 ms, 3 ms behind; `shift` more from 300 ms on.
            let truth = time < 20_000 ? -time : -3_000 + ppm * time / 1e6 + (time >= 300_000 ? shift : 0) - moved
            moved += filter.observe(time: time, gap: truth + 20 * (generator.nextUnit() * 2 - 1), samplePeriod: 20.8)
            if time >= (shift == 0 ? 600_000 : 1_000_000) { worst = max(worst, abs(truth)) }
        }
        #expect(worst <= bound, "\(worst) µs off (\(ppm) ppm, \(shift) µs shift)")
    }

    /// A device that was still finding its place when the rough move was taken (as a pipewire-pulse stream's did:
    /// 1.5 ms off after it, here from 300 ms on) is moved there within 400 ms, not at the precise estimate
    /// (1.72 s), which then finds nothing more to move; readings that wander by ±60 µs around the right place make
    /// no move of 100 µs or more.
    @Test func aDeviceStillMovingAtTheRoughMoveIsFollowedWhileMeasuring() {
        for (drift, from, expected) in [
            (1_500.0, 300_000.0, [-6_000.0, 1_500]), (0, 0, [-6_000]),
        ] {
            var filter = AlignmentFilter()
            var generator = SplitMix(seed: 3)
            var moves: [(time: Double, move: Double)] = []
            var moved = 0.0
            for step in 0..<500 {
                let time = Double(step) * 5_000
                // Runs from 20 ms; 6 ms behind, and `drift` more from `from` on.
                let truth = time < 20_000 ? -time : -6_000 + (time > from ? drift : 0) - moved
                let move = filter.observe(
                    time: time, gap: truth + 60 * (generator.nextUnit() * 2 - 1), samplePeriod: 20.8)
                moved += move
                if abs(move) >= 100 { moves.append((time, move)) }
            }
            #expect(moves.map { ($0.move / 500).rounded() * 500 } == expected, "\(moves)")
            if drift != 0 { #expect((from + 50_000...from + 400_000).contains(moves.last?.time ?? 0), "\(moves)") }
        }
    }
}

/// pulsesink's clock from PulseAudio's timing snapshots (`PulseStreamClock`), on a server whose clock is not this
/// process's: under libfaketime (the lab's --device-ppm) or on another host libpulse marks every snapshot's clocks
/// unsynchronised, and all of them were dropped (with each request left pending for its 1 s timeout), so pulsesink
/// ran on libpulse's smoothed time instead.
@Suite struct PulseStreamClockTests {
    /// A `pa_timing_info` (104 bytes) of a playing stream: read index `readFrames` of 4-byte frames, sink latency
    /// `sinkLatency` µs, and libpulse's verdict on the two wall clocks.
    static func timingInfo(readFrames: Int64, sinkLatency: UInt64, synchronizedClocks: Int32) -> [UInt8] {
        var info = [UInt8](repeating: 0, count: 104)
        info.withUnsafeMutableBytes { bytes in
            bytes.storeBytes(
                of: synchronizedClocks, toByteOffset: PulseStreamClock.TimingInfo.synchronizedClocks, as: Int32.self)
            bytes.storeBytes(of: sinkLatency, toByteOffset: PulseStreamClock.TimingInfo.sinkLatency, as: UInt64.self)
            bytes.storeBytes(of: Int32(1), toByteOffset: PulseStreamClock.TimingInfo.playing, as: Int32.self)
            bytes.storeBytes(of: readFrames * 4, toByteOffset: PulseStreamClock.TimingInfo.readIndex, as: Int64.self)
        }
        return info
    }

    /// A snapshot is stamped where the server sent it when that lies within the round trip (libpulse found the
    /// server's wall clock this process's), at its arrival otherwise: the request is the slow leg, so halfway
    /// through the round trip stamped every point early by as much as its own round trip.
    @Test func aSnapshotIsStampedWhereTheServerSentIt() throws {
        var state = Self.continuousStream()
        for (serverTime, stamp) in [(10_550.0, 10_550.0), (9_000, 10_600), (nil, 10_600)] {
            state.requestSent = 10_000
            _ = state.answered(at: 10_600, position: 480, serverTime: serverTime)
            let taken = try #require(state.snapshots.last?.time)
            #expect(taken == stamp, "server time \(serverTime ?? .nan) µs: stamped at \(taken) µs")
        }
        var info = Self.timingInfo(readFrames: 48_000, sinkLatency: 0, synchronizedClocks: 1)
        info.withUnsafeMutableBytes { bytes in
            bytes.storeBytes(of: 1_796_304_810, toByteOffset: PulseStreamClock.TimingInfo.timestamp, as: Int.self)
            bytes.storeBytes(of: 779_685, toByteOffset: PulseStreamClock.TimingInfo.timestamp + 8, as: Int.self)
        }
        #expect(info.withUnsafeBytes { PulseStreamClock.sent($0.baseAddress!) } == 1_796_304_810_779_685)
        let unsynchronised = Self.timingInfo(readFrames: 48_000, sinkLatency: 0, synchronizedClocks: 0)
        #expect(unsynchronised.withUnsafeBytes { PulseStreamClock.sent($0.baseAddress!) } == nil)
    }

    @Test func aSnapshotCountsWhateverTheServersWallClock() {
        for synchronized: Int32 in [1, 0] {
            let info = Self.timingInfo(readFrames: 48_000, sinkLatency: 10_000, synchronizedClocks: synchronized)
            let position = info.withUnsafeBytes {
                PulseStreamClock.position(in: $0.baseAddress!, rate: 48_000, frameBytes: 4)
            }
            #expect(position == 47_520, "the read index less the sink's 10 ms (clocks synchronised: \(synchronized))")
        }
    }

    /// Snapshots every 20 ms of a stream 300 ppm fast give the line at once; an answer with nothing usable in it
    /// still lets the next request go.
    @Test func answersAreFittedAndEveryAnswerLetsTheNextRequestGo() throws {
        var state = Self.continuousStream()
        for n in 1...12 {
            state.requestSent = UInt64(n) * 20_000
            let outcome = state.answered(at: Double(n) * 20_000 + 200, position: Double(n) * 960 * 1.0003)
            #expect(outcome.refit && !outcome.askAgain)
        }
        let line = try #require(PulseStreamClock.fit(state.snapshots, rate: state.rate))
        #expect(abs(line.slope * 1e6 - 48_000 * 1.0003) < 0.01, "\(line.slope * 1e6) frames a second")
        state.requestSent = 300_000
        let outcome = state.answered(at: 300_500, position: nil)
        #expect(!outcome.refit)
        #expect(state.requestSent == 0 && state.snapshots.count == 12)
    }

    /// Stamps are only ever late (the server stamps its answer after its I/O thread read the position): here 30 %
    /// by 0-20 µs, the rest by 100 µs and more (exponential, mean 500 µs), the round trip longer by twice as much
    /// and by up to 500 µs whatever the lateness. The line is the upper edge: within 25 µs of the true position
    /// after 2 s and after 20 s, its slope within 2 ppm after 20 s.
    @Test func theLineIsTheUpperEdgeOfLateStamps() throws {
        var random = SplitMix(seed: 11)
        var snapshots: [(time: Double, position: Double, roundTrip: Double)] = []
        let rate = 48_000 * 1.00018
        for n in 1...1000 {
            let time = Double(n) * 20_000
            let close = random.nextUnit() < 0.3
            let late: Double = close ? 20 * random.nextUnit() : 100 - 500 * log(1 - random.nextUnit())
            snapshots.append((time + late, time * rate / 1e6, 150 + 2 * late + 500 * random.nextUnit()))
            guard n == 100 || n == 1000 else { continue }
            let line = try #require(PulseStreamClock.fit(snapshots, rate: 48_000))
            let error = (line.value(at: time) - time * rate / 1e6) / rate * 1e6
            #expect(abs(error) < 25, "after \(n / 50) s: \(error) µs")
            if n == 1000 { #expect(abs(line.slope * 1e6 / rate - 1) < 2e-6, "\(line.slope * 1e6) frames a second") }
        }
    }

    /// A stream 180 ppm fast, its stamps late as above, that loses 256 frames (pipewire-pulse's lost graph cycle)
    /// after 10 s, skips 384 ahead after 14 s, and is corked from 18 s to 20 s; from 6 s to 6.4 s its answers are
    /// stamped 3 ms late (a server's busy main thread), which is no step. The line is the position within 25 µs
    /// throughout that burst, half a second after each step and 2 s after the pause (which starts it afresh, as a
    /// new stream); its slope is the device's rate.
    @Test func stepsInThePositionAreTheNewLevelAtOnce() throws {
        var random = SplitMix(seed: 5)
        var state = Self.continuousStream()
        let rate = 48_000 * 1.00018
        for n in 1...1100 where !(900..<1000).contains(n) {
            let time = Double(n) * 20_000
            let lost = (n > 500 ? 256.0 : 0) - (n > 700 ? 384 : 0) + (n >= 1000 ? 96_000 : 0)
            let position = time * rate / 1e6 - lost
            let close = random.nextUnit() < 0.3
            var late: Double = close ? 20 * random.nextUnit() : 100 - 500 * log(1 - random.nextUnit())
            if (300..<320).contains(n) { late = 3_000 }
            state.requestSent = UInt64(time - 150)
            _ = state.answered(at: time + late + 150, position: position, serverTime: time + late)
            state.line = PulseStreamClock.fit(state.snapshots, rate: state.rate)
            guard [310, 319, 525, 725, 1100].contains(n) else { continue }
            let line = try #require(state.line)
            let error = (line.value(at: time) - position) / rate * 1e6
            #expect(abs(error) < 25, "at \(n / 50) s: \(error) µs")
            if n > 320 && n < 1000 || n == 1100 {
                #expect(abs(line.slope * 1e6 / rate - 1) < 5e-6, "at \(n / 50) s: \(line.slope * 1e6) frames a second")
            }
        }
    }

    /// From the first answer on the stream has a time (the output's start-up gap is taken in its first 200 ms): the
    /// nominal rate through the fastest answers, until there are enough for a slope.
    @Test func theFirstAnswersGiveTheTimeAtTheNominalRate() throws {
        var state = Self.continuousStream()
        // A position of 48 frames a ms; the slow answers (3 ms round trips, taken as they were asked) are stamped at
        // their arrival, 3 ms off.
        for (sent, roundTrip) in [(10_000.0, 3_000.0), (30_000, 100), (50_000, 3_000)] {
            state.requestSent = UInt64(sent)
            _ = state.answered(at: sent + roundTrip, position: (sent + (roundTrip == 100 ? 100 : 0)) * 0.048)
        }
        let line = try #require(PulseStreamClock.fit(state.snapshots, rate: state.rate))
        #expect(line.slope == 0.048)
        #expect(abs(line.value(at: 70_000) - 70_000 * 0.048) < 1, "\(line.value(at: 70_000)) frames")
    }

    /// A 48 kHz stream of a server whose position moves continuously (PulseAudio), known as such: no bursts.
    static func continuousStream() -> PulseStreamClock.StreamState {
        var state = PulseStreamClock.StreamState()
        state.rate = 48_000
        state.positionSteps = false
        return state
    }

    /// A stream on a server like pipewire-pulse, as measured in the multi-room lab, for `seconds`: its position
    /// steps by 256 frames at each graph cycle's start (the device 100 ppm fast); the periodic request goes 20 ms
    /// apart, 400-600 µs after a cycle began (pulsesink asks as it writes, which the cycle started); the server reads
    /// the position and stamps its answer 50-250 µs after a request is sent, and the answer is back 30 µs later. Every
    /// burst request is answered the same way.
    /// From `lostAt` (s) on, the stream is a cycle (256 frames) behind: the server lost one. A new position is seen
    /// `seenAfter` µs (at random within) after its cycle began; `watched`: the graph's cycle starts are known.
    /// - Returns: the stream's state, and the true position (frames) at a time (µs).
    static func steppedStream(
        seconds: Double, lostAt: Double = .infinity, quantum: Double = 256, seenAfter: ClosedRange<Double> = 0...0,
        watched: Bool = false
    ) -> (
        PulseStreamClock.StreamState, (Double) -> Double
    ) {
        var random = SplitMix(seed: 17)
        var state = PulseStreamClock.StreamState()
        state.rate = 48_000
        let cycle = quantum / 48_000 * 1e6 / 1.0001
        let start = 1_000_000.0
        func cycleStart(after time: Double) -> Double { start + ((time - start) / cycle).rounded(.up) * cycle }
        func cycleStart(atOrBefore time: Double) -> Double {
            start + ((time - start) / cycle).rounded(.down) * cycle
        }
        let cycleAt: PulseStreamClock.CycleAt? = watched ? { (cycleStart(atOrBefore: $0), cycle) } : nil
        var lags = [Double: Double]()  // per cycle start: how long after it its position is seen
        func lag(_ cycleStart: Double) -> Double {
            if let known = lags[cycleStart] { return known }
            guard seenAfter.upperBound > seenAfter.lowerBound else { return seenAfter.lowerBound }
            let drawn = seenAfter.lowerBound + (seenAfter.upperBound - seenAfter.lowerBound) * random.nextUnit()
            lags[cycleStart] = drawn
            return drawn
        }
        var poll = cycleStart(after: start) + 500
        while poll < start + seconds * 1e6 {
            var sent = poll
            var outcome: PulseStreamClock.StreamState.Outcome
            repeat {
                state.requestSent = UInt64(sent)
                let read = sent + 50 + 200 * random.nextUnit()
                let lost = read - start >= lostAt * 1e6 ? quantum : 0
                var shown = cycleStart(atOrBefore: read)
                if read < shown + lag(shown) { shown -= cycle }
                let position = quantum * ((shown - start) / cycle).rounded() - lost
                outcome = state.answered(at: read + 30, position: position, serverTime: read, cycleAt: cycleAt)
                if outcome.refit {
                    state.line = PulseStreamClock.fit(state.snapshots, boundaries: state.boundaries, rate: 48_000)
                }
                sent = read + 30
            } while outcome.askAgain
            poll = cycleStart(after: max(poll + 20_000, sent) - 600) + 400 + 200 * random.nextUnit()
        }
        return (state, { ($0 - start) / cycle * quantum - ($0 - start >= lostAt * 1e6 ? quantum : 0) })
    }

    /// A stream whose position steps at each graph cycle is placed by the cycles' starts that bursts of requests
    /// find, not by the periodic snapshots, all stamped 500 µs (±100) after the cycle that gave their position: within
    /// 40 µs after 3 s and after 20 s, whatever the periodic snapshots' delay, and a second after a lost cycle; the
    /// slope within 10 ppm (the snapshots' line over 3 s; 0.5 ppm later).
    @Test func aStreamThatStepsAtEachCycleIsPlacedByTheCyclesStarts() throws {
        for (seconds, lostAt) in [(3.0, Double.infinity), (20, .infinity), (11, 10)] {
            let (state, truePosition) = Self.steppedStream(seconds: seconds, lostAt: lostAt)
            #expect(state.positionSteps == true)
            let line = try #require(state.line)
            let now = try #require(state.snapshots.last?.time)
            let error = (line.value(at: now) - truePosition(now)) / 0.048
            #expect(abs(error) < 40, "after \(seconds) s (a cycle lost at \(lostAt) s): \(error) µs")
            #expect(
                abs(line.slope * 1e6 / 48_000 / 1.0001 - 1) < 10e-6,
                "after \(seconds) s: \(line.slope * 1e6) frames a second")
        }
    }

    /// A stream whose new position is seen 100-400 µs after its cycle began (pipewire-pulse hands it from its data
    /// thread to its main loop after the streams before it; measured 110-500 µs in the multi-room lab) is placed by
    /// its graph's own cycle starts where the graph is watched (`PipeWireCycles`): within 1 µs and 0.1 ppm from its
    /// first half second on, and after 10 s. Unwatched, the cycles' starts the bursts find are as late as the
    /// position is seen: 150 µs or more.
    @Test func aStreamInAWatchedGraphIsPlacedByTheGraphsCycleStarts() throws {
        for seconds in [0.5, 10] {
            for watched in [true, false] {
                let (state, truePosition) = Self.steppedStream(
                    seconds: seconds, seenAfter: 100...400, watched: watched)
                let line = try #require(state.line)
                let now = try #require(state.snapshots.last?.time)
                let error = (line.value(at: now) - truePosition(now)) / 0.048
                if watched {
                    #expect(abs(error) < 1, "after \(seconds) s: \(error) µs")
                    #expect(
                        abs(line.slope * 1e6 / 48_000 / 1.0001 - 1) < 0.1e-6,
                        "after \(seconds) s: \(line.slope * 1e6) frames a second")
                } else {
                    #expect(error < -150, "unwatched, after \(seconds) s: \(error) µs")
                }
            }
        }
    }

    /// The cycle starts the graph placed make the line once two agree within a frame (one taken for its neighbour, a
    /// whole cycle off, is left out), or the first alone where it lies within 1 ms of the answers' own line.
    @Test func theGraphsCycleStartsMakeTheLineOnceTheyAgree() throws {
        func exact(_ points: [(time: Double, position: Double)]) -> [PulseStreamClock.Snapshot] {
            points.map { ($0.time, $0.position, 0) }
        }
        let answers = Line(origin: 0, value: 10, slope: 0.048)
        let first = try #require(PulseStreamClock.exactLine(exact([(0, 0)]), rate: 48_000, origin: 0, near: answers))
        #expect(first.value == 0 && first.slope == 0.048)
        let offByACycle = Line(origin: 0, value: 256, slope: 0.048)
        #expect(PulseStreamClock.exactLine(exact([(0, 0)]), rate: 48_000, origin: 0, near: offByACycle) == nil)
        #expect(PulseStreamClock.exactLine(exact([(0, 0), (40_000, 1_920 + 256)]), rate: 48_000, origin: 0) == nil)
        let agreed = try #require(
            PulseStreamClock.exactLine(
                exact([(0, 0), (40_000, 1_920 + 256), (80_000, 3_840)]), rate: 48_000, origin: 80_000))
        #expect(agreed.value == 3_840 && agreed.slope == 0.048)
    }

    /// A stream whose cycles (4096 frames, 85 ms) outlast a burst gets no more after three, and its line is its
    /// snapshots'.
    @Test func aStreamWhoseCyclesOutlastABurstGetsNoMore() throws {
        let (state, _) = Self.steppedStream(seconds: 3, quantum: 4096)
        #expect(state.positionSteps == false && state.boundaries.isEmpty)
        #expect(state.line == PulseStreamClock.fit(state.snapshots, rate: 48_000))
    }

    /// A burst that finds no cycle start within 50 ms (a stalled graph) ends alone, the cycle starts kept; only three
    /// in a row end the bursts and the cycle starts with them.
    @Test func aBurstWithoutACycleStartEndsAloneAndThreeInARowEndTheBursts() throws {
        var (state, _) = Self.steppedStream(seconds: 3)
        let known = state.boundaries.count
        var time = try #require(state.snapshots.last?.time) + 300_000
        for burst in 1...3 {
            let stalled = try #require(state.snapshots.last?.position)
            state.requestSent = UInt64(time)
            var outcome = state.answered(at: time + 200, position: stalled, serverTime: time + 100)
            #expect(outcome.askAgain)
            while outcome.askAgain {
                time += 200
                state.requestSent = UInt64(time)
                outcome = state.answered(at: time + 200, position: stalled, serverTime: time + 100)
            }
            if outcome.refit {
                state.line = PulseStreamClock.fit(state.snapshots, boundaries: state.boundaries, rate: 48_000)
            }
            #expect(state.positionSteps == (burst < 3), "after \(burst) fruitless bursts")
            #expect(state.boundaries.count == (burst < 3 ? known : 0), "after \(burst) fruitless bursts")
            time += 300_000
        }
        #expect(state.line == PulseStreamClock.fit(state.snapshots, rate: 48_000))
    }

    /// A stream whose position moves continuously gets no more bursts after three, and is fitted by its snapshots;
    /// one taken for a stepping stream (a position seen twice) gets no cycle starts from its continuous moves.
    @Test func aContinuousStreamGetsNoMoreBurstsAfterThree() throws {
        for stepping: Bool? in [nil, true] {
            var state = PulseStreamClock.StreamState()
            state.rate = 48_000
            state.positionSteps = stepping
            var bursts = 0
            var time = 20_000.0
            while time < 2_000_000 {
                var outcome: PulseStreamClock.StreamState.Outcome
                repeat {
                    state.requestSent = UInt64(time)
                    outcome = state.answered(at: time + 150, position: (time + 100) * 0.048, serverTime: time + 100)
                    if outcome.refit {
                        state.line = PulseStreamClock.fit(state.snapshots, boundaries: state.boundaries, rate: 48_000)
                    }
                    if outcome.askAgain { bursts += 1 }
                    time += 150
                } while outcome.askAgain
                time += 20_000
            }
            #expect(state.boundaries.isEmpty)
            if stepping == nil { #expect(bursts == 3 && state.positionSteps == false) }
            #expect(state.snapshots.count > 90, "\(state.snapshots.count) snapshots")
            let line = try #require(state.line)
            let last = try #require(state.snapshots.last)
            #expect(
                abs(line.value(at: last.time) - last.position) < 0.5,
                "\(line.value(at: last.time) - last.position) frames")
        }
    }
}

/// Where a receiver's PulseAudio stream starts: PulseAudio itself tells its name, and the receiver plays only once
/// every stream started for it has a position (`ReceiverSync.waitForOutputPositions`).
@Suite(.serialized) struct PulseStreamStartTests {
    /// `pa_context_get_server_info`'s answer naming `server` (its fourth field), as the callback gets it.
    func answer(naming server: String, for context: OpaquePointer) {
        let strings = ["root", "host", "16.1", server].map { (text: String) in strdup(text) }
        defer { strings.forEach { free($0) } }
        strings.withUnsafeBytes { info in PulseStreamClock.serverInfoArrived(context, info.baseAddress, nil) }
    }

    @Test func onlyPulseAudioItselfIsTakenForIt() throws {
        let context = try #require(OpaquePointer(bitPattern: 0x5eed_0001))
        let key = PulseStreamClock.address(of: context)
        defer { _ = PulseStreamClock.servers.withLock { $0.removeValue(forKey: key) } }
        answer(naming: "pulseaudio", for: context)
        #expect(PulseStreamClock.servers.withLock { $0[key] } == .pulseAudio)
        answer(naming: "PulseAudio (on PipeWire 0.3.65)", for: context)
        #expect(PulseStreamClock.servers.withLock { $0[key] } == .pipeWire)
        // No answer: not known, so asked again at the next connection.
        PulseStreamClock.serverInfoArrived(context, nil, nil)
        #expect(PulseStreamClock.servers.withLock { $0[key] } == nil)
    }

    @Test func theReceiverWaitsOnlyForStreamsStartedForItUntilEachHasAPosition() {
        let start = UInt64.max - 1_000  // later than any real stream's last request
        let (started, other) = (UInt(0x5eed_0010), UInt(0x5eed_0020))
        defer { Self.removeStreams(started, other) }
        func set(_ key: UInt, startedBy mode: PulseStreamClock.Start?, placed: Bool) {
            Self.putStream(key, readAt: start + 1, PulseStreamClock.StreamState(start: mode, awaited: mode != nil)) {
                $0.line = placed ? Line(origin: 0, value: 0, slope: 0.048) : nil
            }
        }
        #expect(PulseStreamClock.placed(askedSince: start) == nil)
        set(other, startedBy: nil, placed: false)
        #expect(PulseStreamClock.placed(askedSince: start) == nil, "a stream that starts with its first samples")
        set(started, startedBy: .whenPlaced, placed: false)
        #expect(PulseStreamClock.placed(askedSince: start) == false)
        set(started, startedBy: .whenPlaced, placed: true)
        #expect(PulseStreamClock.placed(askedSince: start) == true)
        #expect(PulseStreamClock.placed(askedSince: start + 2) == nil, "asked before the wait began")
    }

    /// A pipewire-pulse stream starts at the first reading of its time (the output's warm-up, as it opens), one on
    /// PulseAudio only once a receiver places its outputs, after the stream connected.
    @Test func aStreamStartsWhenAskedOnPipeWireAndWhenPlacedOnPulseAudio() {
        let connected = PulseStreamClock.monotonicMicroseconds() + 1_000_000  // after any placement so far
        #expect(PulseStreamClock.Start.whenAsked.isDue(connectedAt: connected))
        #expect(!PulseStreamClock.Start.whenPlaced.isDue(connectedAt: connected), "no placement since it connected")
        PulseStreamClock.beginPlacing()
        #expect(!PulseStreamClock.Start.whenPlaced.isDue(connectedAt: connected), "a placement before it connected")
        let connectedBefore = PulseStreamClock.monotonicMicroseconds()
        PulseStreamClock.beginPlacing()
        #expect(PulseStreamClock.Start.whenPlaced.isDue(connectedAt: connectedBefore), "a placement after it connected")
    }

    /// The output's warm-up reads on while a stream it started plays silence, and stops once its client writes, or
    /// at once when the streams it reads are not started by it; it waits for a stream to be read at all.
    @Test func theWarmUpReadsOnUntilEveryStreamItStartedPlaysItsClientsSamples() {
        let since = UInt64.max - 1_000  // later than any real stream's last reading
        let (fed, placedLater) = (UInt(0x5eed_0030), UInt(0x5eed_0040))
        defer { Self.removeStreams(fed, placedLater) }
        func set(_ key: UInt, _ start: PulseStreamClock.Start, started: Bool, clientWrote: Bool = false) {
            Self.putStream(key, readAt: since + 1, PulseStreamClock.StreamState(start: start)) {
                $0.startedAt = started ? 1 : nil
                $0.clientWrote = clientWrote
            }
        }
        #expect(PulseStreamClock.feedsSilence(askedSince: since) == nil, "nothing read yet")
        set(placedLater, .whenPlaced, started: false)
        #expect(PulseStreamClock.feedsSilence(askedSince: since) == false, "PulseAudio's starts when placed")
        set(placedLater, .whenPlaced, started: true)
        #expect(PulseStreamClock.feedsSilence(askedSince: since) == false, "and plays on without silence written")
        set(fed, .whenAsked, started: true)
        #expect(PulseStreamClock.feedsSilence(askedSince: since) == true)
        set(fed, .whenAsked, started: true, clientWrote: true)
        #expect(PulseStreamClock.feedsSilence(askedSince: since) == false)
    }

    /// Puts `state`, changed by `change`, for a made-up stream at `key` whose time was last read at `readAt`.
    static func putStream(
        _ key: UInt, readAt: UInt64, _ state: PulseStreamClock.StreamState,
        _ change: (inout PulseStreamClock.StreamState) -> Void
    ) {
        var state = state
        state.lastAsked = readAt
        change(&state)
        PulseStreamClock.streams.withLock { $0[key] = state }
    }

    static func removeStreams(_ keys: UInt...) {
        PulseStreamClock.streams.withLock { all in
            for key in keys { all[key] = nil }
        }
    }

    /// Silence is zero for signed and float samples; unsigned 8-bit, A-law and μ-law have their own byte.
    @Test func theSilenceIsEachSampleFormatsOwn() {
        #expect(
            [0, 1, 2, 3, 5].map { PulseStreamClock.silentByte(format: Int32($0)) } == [0x80, 0xD5, 0xFF, 0, 0])
    }

    /// The fitted stream time is on while any synchronised receiver holds a `Use`: one that ends (or plays
    /// unsynchronised after all) does not turn it off under another that still plays in step, as one flag for the
    /// process did; it is off again when the last goes.
    @Test func theFittedStreamTimeIsOnWhileAnyReceiverUsesIt() {
        let before = PulseStreamClock.users.load(ordering: .relaxed)
        do {
            let playing = PulseStreamClock.Use()
            do {
                let ending = PulseStreamClock.Use()
                #expect(PulseStreamClock.isEnabled)
                withExtendedLifetime(ending) {}
            }
            #expect(PulseStreamClock.isEnabled, "one receiver's end turned it off under another")
            withExtendedLifetime(playing) {}
        }
        #expect(PulseStreamClock.users.load(ordering: .relaxed) == before)
    }

    /// The wait for the outputs' positions ends when they are placed or need no placing, and says when it gave up.
    @Test func theWaitForOutputPositionsSaysWhetherItGotThem() {
        var asked = 0
        #expect(ReceiverSync.waitUntilPlaced(within: .seconds(5)) { nil })
        #expect(
            ReceiverSync.waitUntilPlaced(within: .seconds(5)) {
                asked += 1; return asked >= 3
            })
        #expect(asked == 3)
        let start = ContinuousClock.now
        #expect(!ReceiverSync.waitUntilPlaced(within: .milliseconds(20)) { false })
        #expect(ContinuousClock.now - start >= .milliseconds(20))
    }
}

@Suite struct ReferenceClockTests {
    @Test func optionsAndSDPNameTheSameClocks() throws {
        let cases: [(String, ReferenceClock, String)] = [
            ("sender", .sender, "local"),
            ("ntp://pool.example.org", .ntp(host: "pool.example.org", port: 123), "ntp=pool.example.org"),
            ("ntp://10.0.0.1:1123", .ntp(host: "10.0.0.1", port: 1123), "ntp=10.0.0.1:1123"),
            ("ptp", .ptp(domain: 0), "ptp=IEEE1588-2008:traceable"),
            ("ptp:3", .ptp(domain: 3), "ptp=IEEE1588-2008:00-00-00-00-00-00-00-00:3"),
        ]
        for (option, clock, sdp) in cases {
            #expect(try ReferenceClock(option: option) == clock)
            #expect(clock.sdpValue == sdp)
            #expect(ReferenceClock(sdpValue: sdp) == clock)
        }
        #expect(ReferenceClock(sdpValue: "gps") == nil)
        #expect(throws: UsageError.self) { try ReferenceClock(option: "ptp:300") }
        #expect(throws: UsageError.self) { try ReferenceClock(option: "chrony") }
    }

    @Test func theSDPCarriesTheClockBothWays() throws {
        let format = RTPFormat(codec: .l16, rate: 48_000, channels: 2)
        let written = SessionDescription(
            name: "kitchen", format: format, address: "239.255.0.1", port: 5004, ttl: 1, clock: .sender)
        #expect(written.text.contains("a=ts-refclk:local\r\na=mediaclk:direct=0\r\n"))
        #expect(try SessionDescription(parsing: written.text) == written)
        let session =
            "v=0\r\no=- 1 1 IN IP4 10.0.0.1\r\ns=x\r\nc=IN IP4 10.0.0.2\r\nt=0 0\r\n"
            + "a=ts-refclk:ptp=IEEE1588-2008:traceable\r\nm=audio 5004 RTP/AVP 96\r\na=rtpmap:96 L24/48000/2\r\n"
        #expect(try SessionDescription(parsing: session).referenceClock == .ptp(domain: 0), "session level")
    }
}

@Suite struct ClockWatchTests {
    /// One answer's statistics as GStreamer's network clocks post them (ns).
    static func statistics(
        local: UInt64, remote: UInt64, internal internalTime: UInt64, external: UInt64, rate: (UInt64, UInt64) = (1, 1)
    ) -> Structure {
        Structure(
            name: ClockWatch.statisticsMessage,
            fields: [
                ("local", .uint(local)), ("remote", .uint(remote)), ("internal-time", .uint(internalTime)),
                ("external-time", .uint(external)), ("rate-num", .uint(rate.0)), ("rate-den", .uint(rate.1)),
                ("rtt-average", .uint(199_000)),
            ])
    }

    /// An NTP clock counts from 1900, the receiver's own clock from boot: the distance is what the calibrated clock
    /// is off, not the epochs' difference (4005108891340904 µs in the issue).
    @Test func theDistanceIsToTheFollowedClockWhateverItsEpoch() {
        let boot: UInt64 = 5_000_000_000_000  // 5000 s after boot
        let ntp: UInt64 = 3_960_000_000 * 1_000_000_000  // 2025 on NTP's scale
        // Calibrated a second ago; since then the followed clock went 1 s + 37 µs, the calibration says 1 s.
        var watch = ClockWatch()
        _ = watch.observe(
            Self.statistics(
                local: boot, remote: ntp + 1_000_037_000, internal: boot - 1_000_000_000, external: ntp))
        #expect(abs(watch.offset! - 37) < 0.01, "\(watch.offset!)")
        #expect(watch.roundTrip == 199)
        // A calibration whose rate is 200 ppm fast: 10 s later it reads 2 ms more, and the followed clock did too.
        _ = watch.observe(
            Self.statistics(
                local: boot + 10_000_000_000, remote: ntp + 10_002_000_000, internal: boot, external: ntp,
                rate: (1_000_200, 1_000_000)))
        #expect(abs(watch.offset!) < 0.01, "\(watch.offset!)")
        #expect(SyncSummary(clock: watch, output: nil).text == "in sync, clock 0 µs (rtt 199 µs)")
        #expect(
            SyncSummary(clock: watch, output: nil, onGraphCycles: true).text
                == "in sync, clock 0 µs (rtt 199 µs), placed by PipeWire's cycles")
    }
}
