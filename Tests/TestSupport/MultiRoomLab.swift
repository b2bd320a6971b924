// yt-gst — the multi-room lab for tests: one sender and two receivers in network namespaces, each receiver playing
// into one channel of a private PulseAudio null sink, the skew between them measured from a recording.
//
// The lab itself is scripts/multiroom-lab.py (the benchmark runs the same script, so the test and the bench
// measure alike); this runs it and decodes its report. Commands are shell strings with placeholders, see the
// script's header: {group} {port} {sender} {sink} {index} {noise} {seconds} {work}.
import Foundation

/// What to run in the lab, and the faults to put on the receivers (keys are receiver numbers, 1-based).
public struct MultiRoomRun: Sendable {
    /// Started in the sender's namespace after the receivers (the last one's start is "sending" for latency).
    public var senders: [String]
    /// One command per receiver: receiver 1 plays into the left channel (`toL`), receiver 2 into the right (`toR`).
    public var receivers: [String]
    /// Started in the sender's namespace before the receivers (a server).
    public var before: [String] = []
    /// How long to record from the start of sending.
    public var seconds: Double = 10
    /// The lag receiver 2 should have behind receiver 1 (a delay), and the bound for `settleSeconds`.
    public var expectMicroseconds: Double = 0
    public var boundMicroseconds: Double = 50
    /// Parts per million the audio server's clock runs fast (libfaketime): its null sink, every receiver's output
    /// and what is recorded, plays that much faster than the sender's clock (on top of its own rate, see `device`).
    public var devicePPM: Double = 0
    /// Receiver → parts per million its clocks run fast (libfaketime).
    public var fast: [Int: Double] = [:]
    /// Receiver → percent of incoming packets dropped (nftables).
    public var loss: [Int: Double] = [:]
    /// Receiver → the largest delay in ms added to each packet on its path (0 to that, in order).
    public var jitter: [Int: Double] = [:]
    /// Receiver → seconds after the start of sending at which it is started.
    public var join: [Int: Double] = [:]
    /// The steady statistics start this long after sending (the start-up left out).
    public var warmupSeconds: Double = 5
    /// CPU hogs beside the lab (`stress-ng --cpu 1` each), from before the receivers start.
    public var hogs = 0
    /// The audio server: "pulseaudio", or "pipewire" (PipeWire with pipewire-pulse on the same socket).
    public var server = "pulseaudio"
    /// The audio server stopped this many seconds after sending starts, for this many ms (as a starved machine
    /// stalls it).
    public var serverStall: (at: Double, milliseconds: Double)?

    public init(senders: [String], receivers: [String]) {
        self.senders = senders
        self.receivers = receivers
    }

    var arguments: [String] {
        func pairs(_ flag: String, _ values: [Int: Double]) -> [String] {
            values.sorted { $0.key < $1.key }.flatMap { [flag, "\($0.key):\($0.value)"] }
        }
        return senders.flatMap { ["--sender", $0] } + before.flatMap { ["--pre", $0] }
            + receivers.flatMap { ["--receiver", $0] }
            + ["--seconds", "\(seconds)", "--expect-us", "\(expectMicroseconds)", "--bound-us", "\(boundMicroseconds)"]
            + ["--device-ppm", "\(devicePPM)"]
            + pairs("--fast", fast) + pairs("--loss", loss) + pairs("--jitter", jitter) + pairs("--join", join)
            + ["--warmup-s", "\(warmupSeconds)", "--hog", "\(hogs)", "--server", server]
            + (serverStall.map { ["--stall-server", "\($0.at):\($0.milliseconds)"] } ?? [])
    }
}

/// scripts/skew.py's report of one run (see `analyse` there): lags are receiver 2 minus receiver 1, in µs.
public struct SkewReport: Decodable, Sendable, CustomStringConvertible {
    public struct PerChannel: Decodable, Sendable {
        public var left: Double?
        public var right: Double?
        /// Receiver 3's, in a lab with three.
        public var center: Double?
    }
    public struct Gaps: Decodable, Sendable {
        public var left: Double
        public var right: Double
        public var max: Double
    }
    /// Dropouts of 1 ms or more in every room at once: lost by the audio server or the recorder, not a receiver.
    public struct CommonGaps: Decodable, Sendable {
        public var count: Int
        public var longestMs: Double
    }
    public struct Process: Decodable, Sendable {
        public var command: String
        public var status: Int?
        public var logTail: String
    }
    /// The statistics of a stretch of windows (the steady ones, after the start-up).
    public struct Statistics: Decodable, Sendable {
        public var windows: Int
        public var medianUs: Double?
        public var p99AbsUs: Double?
        public var maxAbsUs: Double?
        public var driftUsPerS: Double?
        public var rangeUs: Double?
        /// The range and drift of the windows between the lag's 5th and 95th percentile (without one transient).
        public var coreRangeUs: Double?
        public var coreDriftUsPerS: Double?
        /// The longest run of digital silence in either receiver's sound, from the stretch's start on.
        public var longestGapMs: Double?
    }
    /// Sending → sound along the steady stretch, in real time (see skew.py's `latency_track`).
    public struct LatencyTrack: Decodable, Sendable {
        /// At the start of the stretch.
        public var ms: Double
        /// Least-squares slope over the stretch, and max − min.
        public var driftUsPerS: Double
        public var rangeUs: Double
        public var points: Int
    }
    public struct LatencyTracks: Decodable, Sendable {
        public var left: LatencyTrack?
        public var right: LatencyTrack?
    }
    /// The device all receivers play to: the rate set (`MultiRoomRun.devicePPM`) and the one measured from the
    /// recording against CLOCK_MONOTONIC (the sender's clock), from the start of sending on.
    public struct Device: Decodable, Sendable {
        public var setPpm: Double
        public var measuredPpm: Double?
    }
    public struct Lab: Decodable, Sendable {
        public var secondsRecorded: Double
        public var processes: [String: Process]
    }

    /// Windows of 0.5 s in which both receivers sounded and correlated.
    public var windows: Int
    public var medianUs: Double?
    public var p99AbsUs: Double?
    public var maxAbsUs: Double?
    public var driftUsPerS: Double?
    public var rangeUs: Double?
    /// Sending → first sound of each receiver.
    public var latencyMs: PerChannel?
    /// The longest run of digital silence inside each receiver's sound.
    public var longestGapMs: Gaps
    public var commonGaps: CommonGaps?
    /// From a late receiver's start until every later window is within the bound (nil: never).
    public var settleS: Double?
    /// The windows from `warmupSeconds` after sending on.
    public var steady: Statistics?
    /// Sending (the first packet on the wire) to sound, in the steady state, per receiver.
    public var steadyLatencyMs: PerChannel?
    /// The same along the steady stretch: whether each receiver holds it in real time.
    public var steadyLatency: LatencyTracks?
    public var device: Device
    /// Where in the sent noise file each receiver's sound begins, in ms (0: nothing of the start was cut).
    public var firstSampleMs: PerChannel?
    /// The largest jump in the sent noise within each receiver's first second of sound, in ms (0: none).
    public var startSkipMs: PerChannel?
    /// Per receiver ("left", "right", "center"), how far in the sent noise its sound went on after each pause (a
    /// silence of 0.3 s or more) from where it stopped, in ms (0: where it stopped; nil: not found).
    public var resumeJumpsMs: [String: [Double?]?]?
    /// How much earlier than the stream's first sample was due (sent at the pace of the rest) its first packet came.
    public var firstPacketLeadMs: Double?
    public var lab: Lab

    /// The figures and, for a run that went wrong, what each process said last.
    public var description: String {
        func f(_ v: Double?) -> String { v.map { String(format: "%.1f", $0) } ?? "-" }
        let logs = lab.processes.sorted { $0.key < $1.key }.map {
            "\($0.key) [\($0.value.status ?? -1)]: \($0.value.logTail)"
        }
        return "windows \(windows), median \(f(medianUs)) µs, p99 \(f(p99AbsUs)) µs, max \(f(maxAbsUs)) µs, "
            + "drift \(f(driftUsPerS)) µs/s, latency \(f(latencyMs?.left))/\(f(latencyMs?.right)) ms, "
            + "steady: median \(f(steady?.medianUs)) µs, range \(f(steady?.rangeUs)) µs "
            + "(core \(f(steady?.coreRangeUs)) µs, drift \(f(steady?.coreDriftUsPerS)) µs/s), "
            + "drift \(f(steady?.driftUsPerS)) µs/s, latency \(f(steadyLatencyMs?.left))/\(f(steadyLatencyMs?.right)) ms "
            + "(drift \(f(steadyLatency?.left?.driftUsPerS))/\(f(steadyLatency?.right?.driftUsPerS)) µs/s, range "
            + "\(f(steadyLatency?.left?.rangeUs))/\(f(steadyLatency?.right?.rangeUs)) µs), device "
            + "\(f(device.measuredPpm)) ppm (set \(f(device.setPpm))), "
            + "longest gap \(f(longestGapMs.max)) ms (in every room at once: \(commonGaps?.count ?? 0)), first sample heard \(f(firstSampleMs?.left))/"
            + "\(f(firstSampleMs?.right)) ms into the file (then skipping \(f(startSkipMs?.left))/\(f(startSkipMs?.right)) ms), "
            + "first packet \(f(firstPacketLeadMs)) ms early\n"
            + logs.joined(separator: "\n")
    }
}

public enum MultiRoomLab {
    static let python = "/usr/bin/python3"
    public static let script = Paths.packageRoot.appendingPathComponent("scripts/multiroom-lab.py").path

    /// Whether the lab can run here: network namespaces (root, iproute2), PulseAudio and parec, Python with numpy.
    public static var available: Bool {
        guard NetworkLab.available,
            ["/usr/bin/pulseaudio", "/usr/bin/parec", python, setpriv].allSatisfy(FileManager.default.isExecutableFile)
        else { return false }
        return (try? Run.run(python, ["-c", "import numpy"], timeout: 30).status) == 0
    }

    /// Whether the lab can also run on PipeWire (`MultiRoomRun.server = "pipewire"`).
    public static var pipeWireAvailable: Bool {
        available
            && ["/usr/bin/pipewire", "/usr/bin/pipewire-pulse", "/usr/bin/wireplumber"].allSatisfy(
                FileManager.default.isExecutableFile)
    }

    /// Runs the lab and returns its report; throws with the script's stderr when it fails.
    public static func run(_ run: MultiRoomRun) throws -> SkewReport {
        let lastJoin = run.join.values.max() ?? 0
        let result = try finish(start(run), within: run.seconds + lastJoin + 90)
        guard result.status == 0, let data = result.stdout.data(using: .utf8) else {
            throw NetworkLabError(description: "multiroom-lab.py: \(result.termination): \(result.stderr)")
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        do {
            return try decoder.decode(SkewReport.self, from: data)
        } catch {
            throw NetworkLabError(description: "multiroom-lab.py's report: \(error): \(result.stdout.prefix(2000))")
        }
    }

    /// A lab run in the background, and the marker every process of it carries.
    public struct Started {
        public let process: Launched
        public let marker: ProcessMarker
        /// The prefix of the namespaces the script makes (`ytn<its PID>m`).
        public var namespacePrefix: String { "\(NetworkLab.namePrefix)\(process.pid)m" }
        /// The script's scratch directories (in the temporary directory; one, while it runs).
        public var scratchDirectories: [URL] {
            let temporary = FileManager.default.temporaryDirectory
            let names = (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []
            return names.filter { $0.hasPrefix("yt-gst-multiroom.\(process.pid).") }.map {
                temporary.appendingPathComponent($0)
            }
        }
    }

    /// Starts the script. It dies with the test process (`setpriv --pdeathsig KILL`), and its own children with it
    /// (the script starts them so too).
    public static func start(_ run: MultiRoomRun) throws -> Started {
        let marker = ProcessMarker()
        let process = try Run.launch(
            setpriv, ["--pdeathsig", "KILL", python, script] + run.arguments, environment: marker.environment)
        return Started(process: process, marker: marker)
    }

    /// Waits for the script up to `seconds` (then kills it), and then leaves nothing of it however it ended: every
    /// process that carries its marker (grandchildren too, in any session or namespace), its namespaces and its
    /// scratch directory.
    public static func finish(_ started: Started, within seconds: Double) -> RunResult {
        let result = started.process.wait(timeout: seconds)
        started.marker.killAll()
        NetworkLab.removeNamespaces(withPrefix: started.namespacePrefix)
        started.scratchDirectories.forEach(Paths.removeScratch)
        return result
    }

    static let setpriv = "/usr/bin/setpriv"
}
