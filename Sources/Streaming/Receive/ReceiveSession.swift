// yt-gst — a receiver as a library type: RTP (in step with the sender's clock, or not) or SRT, into an output.
import GstPlayer

/// Receives one stream into an output until it ends (the sender finished, the timeout, a stop, an error), makes sure
/// the output is finalised (a wavenc header is written), and says how it ended.
///
/// A synchronised RTP receiver first waits for the sender's first packet (to learn where its clock is published),
/// then for the clock; every receiver following one sender's clock plays sample n at the same instant. Everything
/// runs on the thread that calls `run()`: events reach the observer there, and commands sent through `control` from
/// any thread are carried out there.
///
///     let session = ReceiveSession(.init(source: .rtp(RTPEndpoint(host: nil, port: 5004, listen: true)))) {
///         if case .status(let status) = $0 { print(status.stats.audio.duration) }
///     }
///     let ending = try session.run()  // session.control.stop() from another thread ends it
public final class ReceiveSession {
    /// The output when `Configuration.output` is nil.
    public static let defaultOutput = "audioconvert ! audioresample ! autoaudiosink"
    /// The jitter buffer's latency of an unsynchronised RTP receiver, unless the configuration gives one.
    public static let unsynchronisedLatencyMilliseconds = 50

    let configuration: Configuration
    let observer: (Event) -> Void
    let commands = CommandQueue<Command>()
    /// Commands taken while the session waited for the sender and its clock, for the loop to carry out first.
    var early: [Command] = []

    public init(_ configuration: Configuration, observer: @escaping (Event) -> Void) {
        self.configuration = configuration
        self.observer = observer
    }

    /// Sends commands to this session from any thread.
    public var control: Control { Control(queue: commands) }

    /// The URL as the caller gave it, for errors.
    var url: String { configuration.source.description }

    /// Runs on the calling thread until the stream ends.
    ///
    /// - Returns: how it ended (also for a timeout or a stop, and for an error after which the output was finalised).
    /// - Throws: what kept it from running, or ended it at once (an SRT rejection or error before any audio).
    public func run() throws(StreamingError) -> Ending {
        Gst.initialize()
        let plan = try makePlan()
        if configuration.output == nil && Gst.audioOutputs().isEmpty { throw .noAudioOutput }
        let packetGuard = plan.packetGuard()
        let pipeline = try makePipeline(plan, packetGuard: packetGuard)
        let sync: ReceiverSync?
        switch try synchronise(plan, pipeline: pipeline, packetGuard: packetGuard) {
        case .success(let found):
            sync = found
        case .failure(let missing):
            _ = try? pipeline.setState(.null)
            switch missing {
            case .timedOut: return Ending(reason: .timedOut, finalised: false)
            case .stopped(let reason): return Ending(reason: .stopped(reason), finalised: false)
            }
        }
        let output = ReceivePipeline(pipeline, plan: plan, sync: sync)
        return try ReceiveLoop(session: self, output: output, plan: plan, packetGuard: packetGuard, sync: sync).run()
    }

    /// Before the pipeline plays: runs what the main context has ready (a signal's watch, a control socket), keeps
    /// the commands for the loop, and says whether one asked to stop.
    func stopRequested() -> StopReason? {
        MainLoop.wait(for: [], until: .now)
        early += commands.take()
        for case .stop(let reason) in early { return reason }
        return nil
    }
}
