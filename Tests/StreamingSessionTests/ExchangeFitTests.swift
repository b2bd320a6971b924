// yt-gst — a network clock follows the sender's time through its fastest exchanges.
import Foundation
import TestSupport
import Testing

@testable import GstPlayer

@Suite(.serialized) struct ExchangeFitTests {
    /// Exchanges every 100 ms for `seconds` with the follower's clock running `ppm` fast: the request's leg 20 µs
    /// plus a heavy tail (as a server's thread that wakes late makes it: exponential, mean 100 µs), the answer's 20
    /// µs plus at most 10; the sender's time is the true time.
    private func exchanges(seconds: Double, ppm: Double = 0) -> [ExchangeFit.Exchange] {
        var random = SplitMix(seed: 22)
        return stride(from: 1.0, to: seconds * 10, by: 1).map { index in
            let sent = index * 100_000_000
            let there = sent + 20_000 - 100_000 * log(1 - random.nextUnit())
            let back = there + 20_000 + 10_000 * random.nextUnit()
            let local = { (time: Double) in UInt64(time * (1 + ppm / 1e6)) }
            return ExchangeFit.Exchange(
                local: local(sent) / 2 + local(back) / 2, remote: UInt64(there),
                roundTrip: local(back) - local(sent))
        }
    }

    /// A fit of exchanges logged in the lab: local time and offset relative to the last exchange's, round trip (ns).
    private static func fit(_ logged: [(local: Int64, offset: Int64, roundTrip: UInt64, inBurst: Bool)]) -> ExchangeFit
    {
        let last: Int64 = 1_000_000_000_000
        var fit = ExchangeFit()
        for exchange in logged {
            let local = last + exchange.local
            fit.add(
                .init(
                    local: UInt64(local), remote: UInt64(local + exchange.offset), roundTrip: exchange.roundTrip,
                    inBurst: exchange.inBurst))
        }
        return fit
    }

    /// The sender's time the calibration gives at the follower's local time `local` (ns), less the true time.
    private func error(_ calibration: ExchangeFit.Calibration, atTrue time: Double, ppm: Double = 0) -> Double {
        let local = time * (1 + ppm / 1e6)
        return Double(calibration.external) + (local - Double(calibration.local)) * calibration.rate - time
    }

    /// The midpoints of all round trips put the sender's time 50 µs late on average here (what GStreamer's client
    /// fits); the fastest put it within 15 µs after 10 s, and within 50 µs after 2 s (its rate from 8 points over
    /// 1.8 s is off by 22 ppm then).
    @Test func theFastestExchangesGiveTheSendersTime() throws {
        let all = exchanges(seconds: 10)
        let meanLate = all.map { Double($0.remote) - Double($0.local) }.reduce(0, +) / Double(all.count)
        #expect(meanLate > 40_000, "the exchanges are as asymmetric as measured: \(meanLate) ns")
        for (seconds, bound, rateBound) in [(2.0, 50_000.0, 30e-6), (10.0, 15_000.0, 2e-6)] {
            var fit = ExchangeFit()
            for exchange in all.prefix(Int(seconds * 10) - 1) { fit.add(exchange) }
            let calibration = try #require(fit.calibration)
            let now = seconds * 1e9
            #expect(
                abs(error(calibration, atTrue: now)) < bound,
                "after \(seconds) s: \(error(calibration, atTrue: now)) ns")
            #expect(abs(calibration.rate - 1) < rateBound, "rate after \(seconds) s: \(calibration.rate)")
        }
    }

    /// A follower whose clock runs 200 ppm fast: its rate is found once the fastest exchanges span a second, and
    /// the sender's time is right 0.5 s ahead of the last exchange.
    @Test func aFollowerWhoseClockRunsFastIsFollowed() throws {
        var fit = ExchangeFit()
        for exchange in exchanges(seconds: 5, ppm: 200) { fit.add(exchange) }
        let calibration = try #require(fit.calibration)
        #expect(abs(calibration.rate - 1 / (1 + 200e-6)) < 15e-6, "rate \(calibration.rate)")
        let ahead = error(calibration, atTrue: 5.4e9, ppm: 200)
        #expect(abs(ahead) < 20_000, "\(ahead) ns")
    }

    /// A seed's burst (7 exchanges within 0.1 ms, round trips of 11-13 µs) followed by the client's slower answers
    /// (every 100 ms, round trips of 90-150 µs, each up to a quarter of that off by the legs' asymmetry), two of them
    /// faster (77 and 80 µs, 24 and 25 µs off), as measured in the multi-room lab beside 4 CPU hogs: the burst is most
    /// of the fastest 30 % for seconds, and its own scatter (±0.2 µs over 0.1 ms) is no rate. (It was: the two
    /// faster answers were dropped as outliers of the line through the burst, whose slope, -2,000 to -33,000 ppm
    /// in 1 receiver in 5 there, set the clock 5-19 ms off for half a second; the rooms heard a jump there and back,
    /// and sat up to 1 ms apart for seconds after.)
    @Test func aSeedsBurstIsNoRate() throws {
        var random = SplitMix(seed: 7)
        var fit = ExchangeFit()
        for index in 0..<7 {
            let local = 100_000_000 + UInt64(index) * 15_000
            let scatter = Int64(400 * random.nextUnit()) - 200
            fit.add(
                .init(
                    local: local, remote: UInt64(Int64(local) + scatter), roundTrip: 11_000 + UInt64(index % 3) * 1000))
        }
        var worst = (rate: 0.0, error: 0.0)
        for index in 2...30 {
            let local = UInt64(index) * 100_000_000
            let (roundTrip, off): (Double, Double) =
                switch index {
                case 8: (77_000, 24_000)
                case 12: (80_000, 25_500)
                default: (90_000 + 60_000 * random.nextUnit(), 0)
                }
            let asymmetry = off != 0 ? off : roundTrip / 4 * (2 * random.nextUnit() - 1)
            fit.add(.init(local: local, remote: UInt64(Double(local) + asymmetry), roundTrip: UInt64(roundTrip)))
            let calibration = try #require(fit.calibration)
            worst.rate = max(worst.rate, abs(calibration.rate - 1) * 1e6)
            worst.error = max(worst.error, abs(error(calibration, atTrue: Double(local))))
        }
        #expect(worst.rate < 100, "rate up to \(worst.rate) ppm off")
        #expect(worst.error < 100_000, "time up to \(worst.error) ns off")
    }

    /// A follower whose clock runs 200 ppm fast, seeded by a burst and another 0.3 s later (`Clock.burstDelays`), with
    /// the client's slower answers between (as in `aSeedsBurstIsNoRate`): its rate is known within 2 ppm from the
    /// second burst on, not seconds later (the nominal rate until then: its room drifted 200 µs a second). The
    /// second burst's round trips are a little longer, so the fastest exchanges are all the first's.
    @Test func twoBurstsGiveTheRateAtOnce() throws {
        var random = SplitMix(seed: 11)
        let ppm = 200.0
        func local(_ time: Double) -> UInt64 { UInt64(time * (1 + ppm / 1e6)) }
        var fit = ExchangeFit()
        func burst(at start: Double, roundTrips: Double) {
            for index in 0..<8 {
                let sent = start + Double(index) * 15_000
                let roundTrip = roundTrips + 1_000 * random.nextUnit()
                let there = sent + roundTrip / 2 + 400 * random.nextUnit() - 200
                fit.add(
                    .init(
                        local: local(sent + roundTrip / 2), remote: UInt64(there),
                        roundTrip: UInt64(roundTrip * (1 + ppm / 1e6)), inBurst: true))
            }
        }
        func client(at time: Double) {
            let roundTrip = 90_000 + 60_000 * random.nextUnit()
            let asymmetry = roundTrip / 4 * (2 * random.nextUnit() - 1)
            fit.add(.init(local: local(time), remote: UInt64(time + asymmetry), roundTrip: UInt64(roundTrip)))
        }
        burst(at: 100_000_000, roundTrips: 11_000)
        for index in 2...3 { client(at: Double(index) * 100_000_000) }
        burst(at: 400_000_000, roundTrips: 13_000)
        let expected = 1 / (1 + ppm / 1e6)
        for index in 5...12 {
            client(at: Double(index) * 100_000_000)
            let rate = try #require(fit.calibration).rate
            #expect(abs(rate - expected) < 2e-6, "rate \((rate - 1) * 1e6) ppm at \(index * 100) ms")
        }
    }

    /// Bursts as a follower under libfaketime makes them (the multi-room lab's receiver with fast clocks): round trips
    /// of 22-160 µs, the slower ones' server time up to half their extra round trip late, and µs of scatter besides;
    /// the seed's first three up to 0.9 ms (the process just started). Their slope is known only to 6-20 ppm after
    /// 0.3 s, yet a follower 200 ppm fast takes it at the second burst (the nominal rate, 200 ppm off, was kept until
    /// the burst at 1 s), and one on its rate keeps the nominal rate.
    @Test(arguments: [200.0, 0.0])
    func scatteredBurstsGiveARateThatIsNoChance(ppm: Double) throws {
        var random = SplitMix(seed: 13)
        func local(_ time: Double) -> UInt64 { UInt64(time * (1 + ppm / 1e6)) }
        var fit = ExchangeFit()
        func burst(at start: Double, slow: Int) {
            for index in 0..<8 {
                let sent = start + Double(index) * 40_000
                let unit = random.nextUnit()
                let roundTrip = index < slow ? 100_000 + 800_000 * unit : 22_000 + 140_000 * unit * unit * unit
                let late = (roundTrip - 22_000) / 2 * random.nextUnit() + 8_000 * random.nextUnit() - 4_000
                fit.add(
                    .init(
                        local: local(sent + roundTrip / 2), remote: UInt64(sent + roundTrip / 2 + late),
                        roundTrip: UInt64(roundTrip * (1 + ppm / 1e6)), inBurst: true))
            }
        }
        burst(at: 100_000_000, slow: 3)
        burst(at: 400_000_000, slow: 0)
        let rate = try #require(fit.calibration).rate
        let expected = 1 / (1 + ppm / 1e6)
        #expect(abs(rate - expected) < (ppm == 0 ? 2e-6 : 40e-6), "rate \((rate - 1) * 1e6) ppm")
    }

    /// The two bursts of a follower 200 ppm fast under libfaketime, as logged in the multi-room lab (local time and
    /// offset relative to the last exchange, and round trip, in ns): the seed's with round trips of 78-912 µs, the
    /// second's 22-61 µs. Through all 16 the slope is -446 ppm, 3 standard errors from 0; without the outliers of
    /// that line, -263 ppm, 13 standard errors. (Judged through all, it was the nominal rate until the burst at 1 s.)
    @Test func aSeedsSlowBurstGivesARateWithoutItsOutliers() throws {
        let logged: [(local: Int64, offset: Int64, roundTrip: UInt64)] = [
            (-303_257_000, 81_096, 134_918), (-303_142_000, 54_002, 77_921), (-302_645_000, 274_004, 912_259),
            (-302_136_000, 71_426, 99_298), (-301_715_000, 386_795, 740_388), (-301_257_000, 105_002, 167_974),
            (-301_107_000, 50_225, 126_372), (-300_999_000, 63_548, 84_773), (-188_000, 6_688, 60_502),
            (-144_000, 326, 23_930), (-119_000, 214, 22_157), (-96_000, 169, 21_717), (-73_000, 34, 22_257),
            (-46_000, 325, 22_288), (-23_000, -40, 21_806), (0, 0, 22_197),
        ]
        let fit = Self.fit(logged.map { ($0.local, $0.offset, $0.roundTrip, true) })
        let rate = try #require(fit.calibration).rate
        #expect(abs((rate - 1) * 1e6 + 200) < 70, "rate \((rate - 1) * 1e6) ppm")
    }

    /// Bursts every second as a busy machine answers them (as logged in the multi-room lab with three receivers,
    /// PipeWire and the sender on two cores): 2 of 8 exchanges fast (20-22 µs round trips, on time), the others
    /// 45-90 µs and up to a third of that late, the client's answers slower still. The fastest 30 % are mostly slow
    /// ones, and put the sender's time 5 µs late; the fast ones alone, within 2 µs.
    @Test func theFastExchangesAloneGiveTheSendersTime() throws {
        var random = SplitMix(seed: 9)
        var fit = ExchangeFit()
        for second in 0..<10 {
            for index in 0..<8 {
                let local = UInt64(second) * 1_000_000_000 + UInt64(index) * 60_000
                let fast = index % 4 == 1
                let roundTrip = fast ? 20_000 + 2_000 * random.nextUnit() : 45_000 + 45_000 * random.nextUnit()
                let late = fast ? 0 : (roundTrip - 20_000) / 3 * random.nextUnit()
                fit.add(.init(local: local, remote: local + UInt64(late), roundTrip: UInt64(roundTrip), inBurst: true))
            }
            for answer in 1..<10 {
                let local = UInt64(second) * 1_000_000_000 + UInt64(answer) * 100_000_000
                let roundTrip = 80_000 + 120_000 * random.nextUnit()
                let late = (roundTrip - 20_000) / 3 * random.nextUnit()
                fit.add(.init(local: local, remote: local + UInt64(late), roundTrip: UInt64(roundTrip)))
            }
        }
        let calibration = try #require(fit.calibration)
        let off = Double(Int64(bitPattern: calibration.external &- calibration.local))
        #expect(abs(off) < 2_000, "\(off) ns off")
        #expect(abs(calibration.rate - 1) < 0.5e-6, "rate \((calibration.rate - 1) * 1e6) ppm")
    }

    /// A follower on the sender's rate (the lab's namespaces share one clock: every true offset is 0), as logged in
    /// the multi-room lab with three receivers, PipeWire and the sender on two cores: the seed's burst made while the
    /// machine was busy (round trips of 70-171 µs, 4-55 µs off), the client's answers, and a fast burst 0.3 s later
    /// (20-22 µs, within 1 µs). Through the bursts the slope is -57 ppm at 4 standard errors, but the round trips
    /// allow ±150 ppm: the rate stays the nominal one, and the clock is within 3 µs 0.94 s after the seed. (It was
    /// 36 µs off, and 61 µs at the burst at 1 s.)
    @Test func aSlopeTheRoundTripsAllowIsNoRate() throws {
        let logged: [(local: Int64, offset: Int64, roundTrip: UInt64, inBurst: Bool)] = [
            (-942_386_000, 58_577, 192_826, false), (-942_395_000, 55_418, 170_944, true),
            (-942_249_000, 35_723, 106_158, true), (-942_129_000, 3_766, 133_839, true),
            (-941_994_000, 53_659, 134_961, true), (-941_871_000, 25_269, 109_743, true),
            (-941_777_000, 9_610, 76_103, true), (-941_704_000, 7_200, 69_744, true),
            (-941_627_000, 12_023, 83_594, true), (-893_089_000, 11_597, 103_454, false),
            (-843_722_000, 10_170, 53_870, false), (-794_540_000, 14_387, 57_035, false),
            (-695_250_000, -14, 127_179, false), (-640_063_000, 5_743, 45_718, true),
            (-640_029_000, 862, 21_812, true), (-640_007_000, 421, 19_990, true), (-639_987_000, 409, 19_810, true),
            (-639_967_000, 385, 19_779, true), (-639_943_000, -220, 22_193, true),
            (-639_922_000, -341, 19_769, true), (-639_902_000, -390, 19_569, true),
            (-595_946_000, 881, 79_898, false), (-496_530_000, 28_989, 110_093, false),
            (-397_211_000, 40_924, 119_583, false), (-297_972_000, 24_689, 112_892, false),
            (-198_560_000, 65_856, 188_836, false), (-99_303_000, 18_280, 107_725, false),
            (0, 15_979, 59_819, false),
        ]
        let calibration = try #require(Self.fit(logged).calibration)
        #expect(abs(calibration.rate - 1) < 2e-6, "rate \((calibration.rate - 1) * 1e6) ppm")
        let off = Double(Int64(bitPattern: calibration.external &- calibration.local))
        #expect(abs(off) < 3_000, "\(off) ns off")
    }

    /// Exchanges whose fastest lie on a line 3,000 ppm steep (no two clocks run that far apart) give the nominal
    /// rate: such a slope is the noise of a few points.
    @Test func aRateNoClockHasIsNotTaken() throws {
        var fit = ExchangeFit()
        for index in 0..<30 {
            let local = 1_000_000_000 + UInt64(index) * 100_000_000
            fit.add(
                .init(
                    local: local, remote: local + UInt64(index) * 300_000, roundTrip: index % 2 == 0 ? 40_000 : 60_000))
        }
        #expect(try #require(fit.calibration).rate == 1)
    }

    /// Before exchanges span a second the rate is the nominal one, and the offset the median of the 3 fastest.
    @Test func theFirstExchangesGiveTheOffsetAtTheNominalRate() throws {
        var fit = ExchangeFit()
        let offsets: [(offset: UInt64, roundTrip: UInt64)] = [
            (60_000, 900_000), (5_000, 80_000), (250_000, 2_000_000), (7_000, 90_000), (3_000, 85_000),
        ]
        for (index, exchange) in offsets.enumerated() {
            let local = 1_000_000_000 + UInt64(index) * 100_000_000
            fit.add(.init(local: local, remote: local + 4_000_000_000 + exchange.offset, roundTrip: exchange.roundTrip))
        }
        #expect(fit.calibration == .init(local: 1_400_000_000, external: 5_400_005_000, rate: 1))
    }
}
