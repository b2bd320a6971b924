// yt-gst — judging a multi-room lab run by its bounds, with one more attempt for a run that misses one.
import TestSupport
import Testing

/// One bound a lab run is judged by: what it says, and whether the run held it.
struct LabBound {
    let name: String
    let holds: Bool

    init(_ name: String, _ holds: Bool) {
        self.name = name
        self.holds = holds
    }

    /// Each receiver's last words say it was in sync (not "clock lost", not unsynchronised).
    static func receiversInSync(_ report: SkewReport) -> [LabBound] {
        report.lab.processes.sorted { $0.key < $1.key }.filter { $0.key.hasPrefix("receiver") }.map {
            LabBound("\($0.key) in sync", $0.value.logTail.contains("in sync"))
        }
    }
}

extension MultiRoomLab {
    /// Runs the lab, prints the report and judges it; a run that misses a bound is run once more, and only the
    /// last attempt's misses are recorded as issues.
    ///
    /// These are real-time measurements on a shared two-core machine, where one stall of the whole machine can
    /// spoil a run of a feature that works (CI saw one room's latency drift for seconds beside a steady one). A
    /// broken feature misses on every attempt; a missed attempt is printed with its report, never hidden.
    /// An audio server whose own device runs this far off its rate has missed its own deadlines: the run measures
    /// the server's overload, not the receivers. A last attempt that misses on such a server is a known issue, not
    /// a failure. PipeWire's null sink runs -11 to +8 ppm when it is well; starved it measured -1 881 to -9 083 ppm
    /// in full CI runs (latencies wandering by 10-80 ms), and -134 to -495 ppm beside `stress-ng --cpu 2` (rooms on
    /// pipewiresink, which no aligner follows, moving by whole 5.3 ms cycles). PulseAudio's null sink runs +80 to
    /// +490 ppm on its own.
    static func serverOverloadPPM(_ server: String) -> Double { server == "pipewire" ? 100 : 1_000 }

    static func run(
        _ run: MultiRoomRun, titled title: String, attempts: Int = 2,
        sourceLocation: SourceLocation = #_sourceLocation, judge: (SkewReport) -> [LabBound]
    ) throws -> SkewReport {
        var attempt = 1
        while true {
            let report = try MultiRoomLab.run(run)
            print("\(title): \(report)")
            let missed = judge(report).filter { !$0.holds }.map(\.name).joined(separator: "; ")
            if missed.isEmpty { return report }
            guard attempt == attempts else {
                print("\(title): attempt \(attempt) of \(attempts) missed: \(missed); running it again")
                attempt += 1
                continue
            }
            let serverOff = abs((report.device.measuredPpm ?? 0) - report.device.setPpm)
            guard serverOff > serverOverloadPPM(run.server) else {
                Issue.record("\(title): missed: \(missed)\n\(report)", sourceLocation: sourceLocation)
                return report
            }
            withKnownIssue("the lab's audio server ran \(Int(serverOff)) ppm off its rate", isIntermittent: true) {
                Issue.record("\(title): missed: \(missed)\n\(report)", sourceLocation: sourceLocation)
            }
            return report
        }
    }
}
