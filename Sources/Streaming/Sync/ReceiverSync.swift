// yt-gst — what makes a receiver play in step with the sender and every other receiver.
import Glibc
import GstPlayer
import Synchronization

/// A synchronised receiver's timing: the clock it shares with the sender, and when each sample plays.
///
/// Sample n plays when the shared clock reads (the sender's time of n) + `latency` + `delay`, on every receiver:
/// - the pipeline runs on the shared clock (`Pipeline.run(on:baseTime:)`) with its latency fixed to `latency`;
/// - every RTP packet gets the timestamp its RTP timestamp means on that clock (`MediaClock`), whatever the network
///   did to it on the way, so the first packet a late receiver hears is placed as exactly as the millionth;
/// - the audio sink follows the clock sample by sample (`OutputAligner`): the device's own rate and the audio
///   server's start-up offset are corrected one sample at a time instead of the sink's 40 ms tolerance.
public final class ReceiverSync {
    /// The end-to-end latency when --latency-ms is not given: the jitter buffer's 30 ms, the output's 40 ms and room.
    public static let defaultLatencyMilliseconds = 80
    /// What the audio sink buffers (its `buffer-time`, 40 ms) and how much it writes at once (`latency-time`,
    /// 10 ms), unless the user set them: the sink's own latency must fit within the shared one.
    public static let outputBufferMicroseconds = 40_000
    static let outputPeriodMicroseconds = 10_000

    let clock: Clock
    let latency: ClockTime
    /// --delay-ms, in ns (negative: earlier): read by the retiming probe for every packet, so a change is live.
    private let delay: SharedDelay
    /// The RTP clock rate of the stream.
    let rate: Int
    /// One per audio sink.
    private(set) var aligners: [OutputAligner] = []
    /// One per `pipewiresink`, which has no clock for an aligner to follow.
    private(set) var pacers: [PipeWireSinkPacer] = []
    /// pulsesink's clock, which the aligners compare with the shared one, from `PulseStreamClock` while this plays.
    private let streamClockUse: PulseStreamClock.Use
    /// Keeps the early opened output's pulsesink streams playing until their first sample; nil without one.
    private let warmUp: OutputWarmUp?

    init(
        clock: Clock, latency: ClockTime, delay: Int64, rate: Int, streamClockUse: PulseStreamClock.Use,
        warmUp: OutputWarmUp? = nil
    ) {
        self.streamClockUse = streamClockUse
        self.warmUp = warmUp
        self.clock = clock
        self.latency = latency
        self.delay = SharedDelay(delay)
        self.rate = rate
    }

    /// The earliest a receiver may play (the most negative --delay-ms) with a shared latency of `latency` ms: what
    /// an output buffer of `outputBuffer` µs (and 10 ms for the rest of the pipeline) leaves of it.
    public static func earliestDelayMilliseconds(latency: Int, outputBuffer: Int = outputBufferMicroseconds) -> Int {
        max(latency - outputBuffer / 1000 - 10, 0)
    }

    /// The largest audio sink's buffer in µs: the default's until `alignOutputs` has seen the sinks.
    private var outputBuffer = ReceiverSync.outputBufferMicroseconds
    private var earliestDelayMilliseconds: Int {
        ReceiverSync.earliestDelayMilliseconds(latency: latencyMilliseconds, outputBuffer: outputBuffer)
    }

    /// Plays every later packet `milliseconds` later than the shared instant (negative: earlier), within what the
    /// latency allows; returns the delay set. The output realigns once to the new instant (a short gap or skip).
    func setDelay(milliseconds: Int) -> Int {
        let earliest = -earliestDelayMilliseconds
        let bounded = min(max(milliseconds, earliest), 10_000)
        delay.nanoseconds.store(Int64(bounded) * 1_000_000, ordering: .relaxed)
        return bounded
    }

    private var latencyMilliseconds: Int { Int(latency.nanoseconds / 1_000_000) }

    /// The jitter buffer's latency: what the shared latency leaves after the output's buffer, at least 10 ms.
    private var jitterBufferMilliseconds: Int { max(earliestDelayMilliseconds, 10) }

    /// How far back the running time starts: packets that waited on the socket while the clock was being learned
    /// (at most its 3 s limit) get their running time like any other, and play if they are still due.
    static let keptPacketsLimit = ClockTime(nanoseconds: 10_000_000_000)

    /// Sets the pipeline's clock, base time and latency, and gives every packet its time on the shared clock: as
    /// its arrival where it leaves `networkSource` (the jitter buffer holds each packet for its latency from its
    /// arrival: the packets that queued on the socket while the clock was learned and the output opened, 40-55 ms
    /// on PipeWire, were held 30 ms more and came to the output up to 37 ms late for their first samples), and
    /// as its presentation, less --delay-ms, where it passes `retimeElement`'s sink pad. Call before the pipeline
    /// goes to PLAYING.
    func prepare(_ pipeline: Pipeline, networkSource: Element, retimeElement: Element) {
        let now = clock.time.nanoseconds
        let baseTime = ClockTime(nanoseconds: now - min(now, ReceiverSync.keptPacketsLimit.nanoseconds))
        pipeline.run(on: clock, baseTime: baseTime)
        pipeline.setLatency(latency)
        let (clock, rate) = (clock, rate)
        /// The running time of the packet's RTP timestamp on the shared clock, moved by `delay` ns.
        @Sendable func runningTime(of head: UnsafeRawBufferPointer, delay: Int64) -> ClockTime? {
            guard let timestamp = MediaClock.rtpTimestamp(inPacket: head) else { return nil }
            let played = MediaClock.time(ofRTPTimestamp: timestamp, rate: rate, near: clock.time)
            let running = Int64(played.nanoseconds) - Int64(baseTime.nanoseconds) + delay
            return running >= 0 ? ClockTime(nanoseconds: UInt64(running)) : nil
        }
        networkSource.retime(onPad: "src", stamp: .arrival) { runningTime(of: $0, delay: 0) }
        retimeElement.retime(onPad: "sink") { [delay] in
            runningTime(of: $0, delay: delay.nanoseconds.load(ordering: .relaxed))
        }
    }

    /// Sink properties `sizeOutputs` set, each of one sink.
    typealias SizedOutputs = [(sink: Element, property: String)]

    /// Gives every audio sink of the pipeline the synchronised buffer (`outputBufferMicroseconds`) and period,
    /// unless the user set them: before the sink opens its device, which takes them then.
    ///
    /// - Returns: the properties it set, for `unsizeOutputs`.
    @discardableResult
    static func sizeOutputs(of pipeline: Pipeline) throws(GstError) -> SizedOutputs {
        var sized: SizedOutputs = []
        for sink in pipeline.allElements() where sink.isAudioBaseSink {
            for (property, value) in [
                ("buffer-time", ReceiverSync.outputBufferMicroseconds),
                ("latency-time", ReceiverSync.outputPeriodMicroseconds),
            ] where sink.hasDefaultValue(property) {
                try sink.set(property, to: value)
                sized.append((sink, property))
            }
        }
        return sized
    }

    /// Gives each `pipewiresink` whose stream has no node.name a name of its own (the process and the element; the
    /// stream properties a pipeline set are kept), before it makes its stream (at READY): its pacer follows that
    /// node's state (`PipeWireSinkPacer`).
    static func nameOutputNodes(of pipeline: Pipeline) throws(GstError) {
        for sink in pipeline.elements(madeBy: "pipewiresink")
        where sink.structure(of: "stream-properties")?.string("node.name") == nil {
            try sink.set("node.name", to: "yt-gst-\(getpid())-\(sink.name)", inStructure: "stream-properties")
        }
    }

    /// Puts back what `sizeOutputs` set: for a receiver that plays unsynchronised after all.
    static func unsizeOutputs(_ sized: SizedOutputs) {
        for (sink, property) in sized { sink.resetToDefault(property) }
    }

    /// The audio sinks whose output `waitForOutputPositions` starts before their first sample, playing silence:
    /// `alsasink`, whose clock (samples written less the device's delay) otherwise starts with its first sample,
    /// after the sink calibrated it. Through ALSA's `pulse` plugin the plugin's stream then began 5-12 ms after that
    /// calibration, and every room played that much late and skipped as much about 0.2 s in (lab and bench, two
    /// rooms: every run). Started before, the output's device is a whole buffer ahead when the first packet comes
    /// (104 ms of the lab's 100 ms buffer and the server's latency), so the jitter buffer hands that packet on at
    /// once (`Element.startJitterBuffersOnFirstPacket`; held for its latency, it came 100.4 ms before its time, and
    /// the first 0.6-7.5 ms were cut in 21 rooms of 28). Measured: first sample 0.0 ms into the file and no skip in
    /// every room of 7 two-room lab runs (2 beside CPU hogs), steady p99 18-83 µs. (pulsesink's stream is started
    /// by `PulseStreamClock.Start`; `ytpipewiresink` drops the silence its stream starts with, and its clock runs
    /// from its first write.)
    static let startedBeforeFirstSample: Set<String> = ["alsasink"]

    /// The longest `waitForOutputPositions` waits: a PulseAudio stream played 1-25 ms after it was started (lab).
    static let outputPositionLimitMilliseconds = 60
    static let outputPositionLimit = Duration.milliseconds(outputPositionLimitMilliseconds)

    /// Before the pipeline plays: starts the outputs of `startedBeforeFirstSample`, and reads every audio sink's
    /// clock until `PulseStreamClock` knows where each stream is (on PulseAudio the first reading starts pulsesink's
    /// stream, silent until the first sample; a pipewire-pulse stream plays since the output opened, see
    /// `OutputWarmUp`), at most `outputPositionLimit`, so that the sink calibrates its clock on its stream's position
    /// when the first buffer comes and every sample plays where its time says from the first on; at once for other
    /// outputs (a device's clock runs once the output does). The packets wait on the socket meanwhile, each stamped
    /// with its own arrival (`prepare`). At the limit (a server that does not answer) the stream's first position
    /// comes later and the output's first move is as large as the wait.
    /// - Returns: whether every stream was placed in time (or had nothing to wait for).
    func waitForOutputPositions(of pipeline: Pipeline) -> Bool {
        let sinks = pipeline.allElements().filter(\.isAudioBaseSink)
        let start = PulseStreamClock.monotonicMicroseconds()
        PulseStreamClock.beginPlacing()
        for sink in sinks where ReceiverSync.startedBeforeFirstSample.contains(sink.factoryName) {
            sink.startOutput()
        }
        return ReceiverSync.waitUntilPlaced(within: ReceiverSync.outputPositionLimit) {
            for sink in sinks { _ = sink.providedClockTime }
            return PulseStreamClock.placed(askedSince: start)
        }
    }

    /// Asks `placed` (which reads the outputs' clocks: the reading is what gets a position) every 2 ms until it is
    /// not false (true, or nil: nothing to place), at most `limit`; whether it came to that.
    static func waitUntilPlaced(within limit: Duration, _ placed: () -> Bool?) -> Bool {
        let deadline = ContinuousClock.now + limit
        while placed() == false {
            guard ContinuousClock.now < deadline else { return false }
            usleep(2_000)
        }
        return true
    }

    /// Hands every audio sink of the (READY or early opened) pipeline to an `OutputAligner`, with buffers small enough for the
    /// shared latency and realignment on a sample's difference, and gives the jitter buffer what the largest
    /// output buffer leaves of the latency (a user's `buffer-time=100000` on alsasink takes 60 ms more than the
    /// default; with the default's share the pipeline's latency fell short of its minimum, and GStreamer warned).
    func alignOutputs(of pipeline: Pipeline, jitterBuffer: Element) throws(GstError) {
        try ReceiverSync.sizeOutputs(of: pipeline)
        var largestBuffer: Int? = nil
        for sink in pipeline.allElements() where sink.isAudioBaseSink {
            largestBuffer = max(
                largestBuffer ?? 0, sink.integer("buffer-time") ?? ReceiverSync.outputBufferMicroseconds)
            // A correction moves the output by one sample; the sink realigns only when its samples are at least
            // this far (1.5 samples) from where their timestamps say.
            try sink.set("alignment-threshold", to: 1_500_000_000 / rate)
            try sink.set("discont-wait", to: 0)
            let aligner = OutputAligner()
            sink.follow(aligner)
            aligners.append(aligner)
        }
        for sink in pipeline.elements(madeBy: "pipewiresink") {
            guard
                let pacer = PipeWireSinkPacer(
                    target: sink.string("target-object"),
                    node: sink.structure(of: "stream-properties")?.string("node.name"), clock: clock,
                    latency: latency)
            else { continue }
            // It hands each buffer on as it comes; the pacer places its samples (the jitter buffer holds them).
            try sink.set("sync", to: false)
            sink.pace(pacer, chunk: PipeWireSinkPacer.chunk)
            pacers.append(pacer)
        }
        outputBuffer = largestBuffer ?? ReceiverSync.outputBufferMicroseconds
        try jitterBuffer.set("latency", to: jitterBufferMilliseconds)
        // An output that plays before its first sample needs that sample as early as the later ones (see there).
        if pipeline.allElements().contains(where: { ReceiverSync.startedBeforeFirstSample.contains($0.factoryName) }) {
            jitterBuffer.startJitterBuffersOnFirstPacket()
        }
    }

    /// The first output's alignment, for the status; nil without an audio sink or `pipewiresink`.
    var outputStatus: OutputAligner.Status? { aligners.first?.status ?? pacers.first?.status }

    /// Whether an output is placed by its PipeWire graph's own cycle starts (pulsesink on pipewire-pulse, or a
    /// paced `pipewiresink`).
    var placedByGraphCycles: Bool { PulseStreamClock.placedByGraphCycles || pacers.contains { $0.placed } }
}

/// The delay, shared by the loop that sets it and the streaming thread that reads it for every packet.
private final class SharedDelay: Sendable {
    let nanoseconds: Atomic<Int64>
    init(_ nanoseconds: Int64) { self.nanoseconds = Atomic(nanoseconds) }
}
