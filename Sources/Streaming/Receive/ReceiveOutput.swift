// yt-gst — what a receiver's loop acts on: its running pipeline, or a test's stand-in on an embedded bus.
import GstPlayer

/// The few things `ReceiveLoop` does to a receiver's pipeline and reads from it, so that its decisions (how and
/// when the stream ends) run the same against a test's recording stand-in, without a network or an output.
protocol ReceiveOutput: EventBus where Event == Message {
    /// Counts what flows, then plays; a synchronised receiver's outputs are aligned on the way.
    /// - Returns: what went less well than it should on the way, for the session to report.
    func start() throws(GstError) -> [StreamingWarning]
    /// Stops the pipeline and lets go of what watches it.
    func stop()
    /// The decoded audio so far; nil before `start()`.
    var audio: FlowCounter.Snapshot? { get }
    /// Buffers the network source delivered so far.
    var arrivals: Int { get }
    /// The jitter buffer's statistics; nil while there is none (rtpbin makes one for the first packet; none over SRT).
    var jitterBufferStats: Structure? { get }
    /// The output volume (0 to 10) and mute, on the volume element of `ReceivePlan`; each change is a short ramp
    /// from the next buffer on (no click).
    func setVolume(_ volume: Double)
    func setMute(_ muted: Bool)
    /// Sends end of stream in, right after the sources (`afterSources`: into the decoded side), or from the sources
    /// through the whole pipeline.
    func endStream(afterSources: Bool)
}

/// A receiver's pipeline as `ReceiveLoop` drives it.
final class ReceivePipeline: ReceiveOutput {
    private let pipeline: Pipeline
    private let plan: ReceivePlan
    private let sync: ReceiverSync?
    /// The decoded audio (after the decoder), and what the network source delivered.
    private var counter: FlowCounter? = nil
    private var arrivalCounter: FlowCounter? = nil
    /// An SRT listener's watch for rejected callers.
    private var logWatch: DebugLogWatch? = nil
    private var jitterBuffer: Element? = nil
    /// The output's gain (`volume`, 0 while `muted`), moved along a ramp; nil before `start()`.
    private var gain: VolumeRamp? = nil
    private var volume = 1.0
    private var muted = false

    init(_ pipeline: Pipeline, plan: ReceivePlan, sync: ReceiverSync?) {
        self.pipeline = pipeline
        self.plan = plan
        self.sync = sync
    }

    func start() throws(GstError) -> [StreamingWarning] {
        gain = try VolumeRamp(on: pipeline.element(named: ReceivePlan.volumeName), gain: muted ? 0 : volume)
        counter = try pipeline.element(named: "received").countFlow(onPad: "src")
        arrivalCounter = try pipeline.element(named: plan.networkSourceName).countFlow(onPad: "src")
        if case .srt(let endpoint) = plan, endpoint.mode == .listener {
            // A listener is never told that a caller was rejected; libsrt only logs it.
            logWatch = DebugLogWatch(
                category: "srtlib", level: .info, patterns: [SRTRejectReason.handshakeLogMarker],
                pipeline: pipeline, messageName: ApplicationMessage.srtRejected.rawValue)
        }
        var noticed: [StreamingWarning] = []
        if let sync {
            // autoaudiosink makes its sink when it goes to READY; an output opened early (PAUSED) stays open.
            if pipeline.state() != .paused { try pipeline.setState(.ready) }
            try sync.alignOutputs(of: pipeline, jitterBuffer: pipeline.element(named: "rtpbin"))
            if !sync.waitForOutputPositions(of: pipeline) {
                noticed.append(.outputNotPlaced(milliseconds: ReceiverSync.outputPositionLimitMilliseconds))
            }
        }
        try pipeline.setState(.playing)
        return noticed
    }

    func stop() {
        _ = try? pipeline.setState(.null)
        logWatch?.stop()
    }

    var audio: FlowCounter.Snapshot? { counter?.snapshot }

    var arrivals: Int { arrivalCounter?.snapshot.buffers ?? 0 }

    var jitterBufferStats: Structure? {
        if jitterBuffer == nil { jitterBuffer = pipeline.elements(madeBy: "rtpjitterbuffer").first }
        return jitterBuffer?.structure(of: "stats")
    }

    func setVolume(_ volume: Double) {
        self.volume = volume
        gain?.move(to: muted ? 0 : volume)
    }

    /// Mute is a ramp to 0 (and back to the volume): the element's own `mute` would silence at once, a click.
    func setMute(_ muted: Bool) {
        self.muted = muted
        gain?.move(to: muted ? 0 : volume)
    }

    func endStream(afterSources: Bool) {
        if afterSources {
            _ = try? pipeline.element(named: "received").sendEndOfStream(intoPad: "sink")
        } else {
            pipeline.sendEndOfStream()
        }
    }

    // MARK: EventBus

    var eventDescriptor: Int32? { pipeline.busDescriptor }

    func nextEvent(timeout: Duration) -> Message? { pipeline.nextMessage(timeout: timeout) }
}
