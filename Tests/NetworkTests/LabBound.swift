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

    /// The start of a two-room run: each room's first sample at most `firstSampleMs` into the file, no skip over
    /// 1 ms in its first second, and its steady sending → sound latency within `latencyMs`.
    static func twoRoomsStart(
        _ report: SkewReport, firstSampleMs: Double, latencyMs: ClosedRange<Double>
    ) -> [LabBound] {
        let first = [report.firstSampleMs?.left, report.firstSampleMs?.right].map {
            LabBound("first sample ≤ \(Int(firstSampleMs)) ms into the file", ($0 ?? .infinity) <= firstSampleMs)
        }
        let skips = [report.startSkipMs?.left, report.startSkipMs?.right].map {
            LabBound("no skip over 1 ms in the first second", abs($0 ?? .infinity) <= 1)
        }
        let latencies = [report.steadyLatencyMs?.left, report.steadyLatencyMs?.right].map {
            LabBound(
                "latency \(Int(latencyMs.lowerBound))-\(Int(latencyMs.upperBound)) ms",
                latencyMs.contains($0 ?? .infinity))
        }
        return first + skips + latencies
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
    /// +490 ppm on its own. Likewise a last attempt whose rooms all fell silent at the same moments (1 ms or more):
    /// each receiver plays its own channel, so only the server (a lost graph cycle: 5.3 ms on PipeWire) or the
    /// recorder silences them together. Full CI runs saw that on a PipeWire on its rate (-1.6 ppm, rooms 10 ms apart
    /// across a lost cycle).
    static func serverOverloadPPM(_ server: String) -> Double { server == "pipewire" ? 100 : 1_000 }

    /// Why the lab's audio server, not the receivers, spoiled `report`; nil when nothing says so. Silences in every
    /// room at once say nothing where `silencesAreTheServers` is false: in a run whose rooms fall silent on purpose
    /// (a pause), or whose rooms would all play a stream wrong together (in another format: no sound the lab knows);
    /// nor when none is `shortestServerSilenceMs` long (see `run`).
    static func serverFault(
        of report: SkewReport, server: String, silencesAreTheServers: Bool = true, shortestServerSilenceMs: Double = 1
    ) -> String? {
        let off = abs((report.device.measuredPpm ?? 0) - report.device.setPpm)
        if off > serverOverloadPPM(server) { return "the lab's audio server ran \(Int(off)) ppm off its rate" }
        if silencesAreTheServers, let gaps = report.commonGaps, gaps.count > 0,
            gaps.longestMs >= shortestServerSilenceMs
        {
            return "the lab lost sound in every room at once \(gaps.count) times (the audio server or the recorder)"
        }
        return nil
    }

    /// `shortestServerSilenceMs`: for a run whose rooms' own start-up moves would fall silent together (see
    /// `serverFault`), the shortest silence the server or the recorder loses (PipeWire: a graph cycle, 5.3 ms).
    static func run(
        _ run: MultiRoomRun, titled title: String, attempts: Int = 2, silencesAreTheServers: Bool = true,
        shortestServerSilenceMs: Double = 1, sourceLocation: SourceLocation = #_sourceLocation,
        judge: (SkewReport) -> [LabBound]
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
            guard
                let fault = serverFault(
                    of: report, server: run.server, silencesAreTheServers: silencesAreTheServers,
                    shortestServerSilenceMs: shortestServerSilenceMs)
            else {
                Issue.record("\(title): missed: \(missed)\n\(report)", sourceLocation: sourceLocation)
                return report
            }
            withKnownIssue(Comment(rawValue: fault), isIntermittent: true) {
                Issue.record("\(title): missed: \(missed)\n\(report)", sourceLocation: sourceLocation)
            }
            return report
        }
    }
}
