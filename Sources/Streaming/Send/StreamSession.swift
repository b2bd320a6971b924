// yt-gst — one stream: WAV files sent over RTP or SRT, from the first sample to the last out, with commands.
import AppSrcFeeder
import GstPlayer
import WAV

/// Sends a list of WAV files as one stream to RTP hosts or groups, or to an SRT peer, until the audio has left (or
/// an error or a `stop` ends it), and says how it ended.
///
/// The files go through one appsrc as a `GaplessChain`, converted to the first one's format; `next` and `previous`
/// jump in it as `play` does. The pipeline's running time never starts again (`Pipeline.keepRunningTime`): after a
/// pause or a jump the audio is placed at the present moment, so RTP timestamps keep counting the clock and
/// synchronised receivers stay in step (they hear a gap). Events come on the thread that calls `run()`; commands
/// from any thread through `control`.
public final class StreamSession {
    let configuration: Configuration
    let observer: (Event) -> Void
    let commands = CommandQueue<Command>()
    /// Commands taken while waiting for the clock, for the loop to run.
    private(set) var deferred: [Command] = []
    /// A stop that came during the setup.
    private(set) var stopReason: StopReason?
    /// Whether a file could not be opened (the stream then ends with `someFilesFailed`).
    var someFilesFailed = false

    public init(_ configuration: Configuration, observer: @escaping (Event) -> Void) {
        Gst.initialize()
        self.configuration = configuration
        self.observer = observer
    }

    /// Sends commands to the stream from any thread.
    public var control: Control { Control(queue: commands) }

    /// Runs the stream on the calling thread until it ends.
    ///
    /// - Throws: what kept it from starting or ended it: no file opened, a format the transport cannot carry, a
    ///   destination that does not resolve, a clock that does not answer, the SDP not written, a pipeline error.
    public func run() throws(StreamingError) -> Ending {
        let (chain, format) = try makeChain()
        // A read waiting on a quiet pipe must not hold up stopping the pipeline.
        defer { chain.stopReading() }
        let first = chain.segment(at: .zero)
        let plan = try makePlan(for: format, named: first?.path ?? chain.displayName)
        let pipeline: Pipeline
        do { pipeline = try makePipeline(plan, chain: chain, format: format) } catch {
            throw .pipeline(error, connected: false)
        }
        defer { _ = try? pipeline.setState(.null) }
        let senderClock = try startClock(plan, pipeline: pipeline)
        defer { withExtendedLifetime(senderClock) {} }
        if let stopReason { return .stopped(stopReason) }
        try writeSDP(plan)
        observer(.sending(format: plan.formatName))
        let sender = StreamSender(
            session: self, pipeline: pipeline, chain: chain, plan: plan, total: totalDuration(first: first),
            shown: first)
        return try sender.run()
    }

    /// The commands taken during the setup, for the loop's first turn.
    func takeDeferred() -> [Command] {
        defer { deferred = [] }
        return deferred
    }

    /// Whether a stop was sent (kept in `stopReason`); other commands wait for the loop. For waits in the setup.
    func stopRequested() -> Bool {
        for command in commands.take() {
            if case .stop(let reason) = command { stopReason = stopReason ?? reason } else { deferred.append(command) }
        }
        return stopReason != nil
    }

    /// Says that `segment`'s file started: the event, then its header's warnings.
    func announce(_ segment: GaplessChain.Segment) {
        observer(.fileChanged(path: segment.path, position: segment.position))
        for warning in segment.warnings { observer(.fileWarning(path: segment.path, warning: warning)) }
    }
}
