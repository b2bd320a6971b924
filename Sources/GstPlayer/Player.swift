// yt-gst — the player the command line is built on: one pipeline per feeder, events, transport controls.

/// Something that feeds an appsrc: a WAV file, a list of them, a test tone, a network buffer.
///
/// The player builds the pipeline, finds its appsrc and hands it to `attach(to:)` before the pipeline leaves NULL;
/// the feeder sets caps and installs its callbacks there. GstPlayer knows nothing of file formats.
public protocol Feeder: AnyObject, Sendable {
    /// A name for messages, e.g. the file's path.
    var displayName: String { get }
    /// Configures the appsrc and installs the callbacks that feed it.
    func attach(to appSource: any AppSourceProtocol) throws(GstError)
}

/// What a player reports while it plays.
public enum PlayerEvent: Sendable {
    /// The pipeline reached a new state.
    case stateChanged(State)
    /// Everything was played, up to the last sample.
    case endOfStream
    /// Playback failed; the player has stopped (unless the error was contained in a branch: see `errorIsContained`).
    case error(GstError)
    /// A problem an element works around.
    case warning(GstError)
    /// Metadata found in the stream.
    case tags([Message.Tag])
    /// A segment seek reached its stop position: loop back with another segment seek, or end.
    case segmentDone
    /// A message the application posted to itself (see `post(_:)`).
    case application(String)
    /// An element message (level meter readings, network timeouts).
    case element(Structure)
}

/// Plays one source at a time through a pipeline built from a launch string.
///
/// Shaped after the iOS player's manager, without its faults: playing while something plays restarts cleanly,
/// end of stream is reported only after the sink has played the last sample, and `stop()` (or releasing the player)
/// releases every GStreamer resource. Use it from one thread: it is the control side, not a callback target.
public final class Player {
    /// The launch string each play builds its pipeline from; it must contain `appsrc name=<appSourceName>`.
    /// Change it between plays (e.g. to put a decoder in for a compressed file).
    public var launch: String
    /// The `name` of the appsrc in `launch` that each feeder feeds ("src" by default).
    public let appSourceName: String
    /// The pipeline of the current play, if any.
    public private(set) var pipeline: Pipeline?
    private var feeder: (any Feeder)?

    /// Whether an error is contained in a part of the pipeline that fails alone (a branch, see
    /// `Pipeline.addBranch`): the player then plays on and reports it. Any other error stops the player.
    public var errorIsContained: (GstError) -> Bool = { _ in false }
    /// Sets properties on each new pipeline after parsing (e.g. template values), before it leaves NULL.
    private let configure: (Pipeline) throws(GstError) -> Void
    /// The pipeline `prepare()` built, kept for the next play while `launch` is unchanged.
    private var prepared: (launch: String, pipeline: Pipeline)?

    /// A player for pipelines built from `launch`; nothing is parsed until `prepare()` or the first `play`.
    ///
    /// - Parameters:
    ///   - launch: a gst-launch description containing `appsrc name=<appSourceName>`.
    ///   - appSourceName: the name of the appsrc the feeders feed.
    ///   - configure: sets properties on each new pipeline after parsing (user values are set, never spliced into
    ///     the launch text).
    public init(
        launch: String, appSourceName: String = "src",
        configure: @escaping (Pipeline) throws(GstError) -> Void = { _ in }
    ) {
        Gst.initialize()
        self.launch = launch
        self.appSourceName = appSourceName
        self.configure = configure
    }

    deinit { stop() }

    /// Starts playing `feeder`, stopping whatever played before.
    ///
    /// With `start` or `stop`, the pipeline prerolls first and seeks, so not a sample outside them is heard.
    /// Returns once the pipeline is on its way to PLAYING; errors while prerolling arrive as `.error` events.
    /// - Throws: parse errors, a missing appsrc, or a state change the pipeline refused.
    public func play(
        _ feeder: some Feeder, from start: ClockTime? = nil, to stop: ClockTime? = nil
    )
        throws(GstError)
    {
        self.stop()
        let pipeline = try makePipeline()
        try feeder.attach(to: pipeline.appSource(named: appSourceName))
        self.pipeline = pipeline
        self.feeder = feeder
        do {
            if start != nil || stop != nil {
                try pipeline.setState(.paused)
                if case .paused = pipeline.state(timeout: .seconds(10)) {
                    try pipeline.seek(to: start ?? .zero, stop: stop)
                }
            }
            try pipeline.setState(.playing)
        } catch {
            self.stop()
            throw error
        }
    }

    /// Builds the pipeline ahead of the first play, so that a bad launch string fails before any file is opened;
    /// the next `play` uses it when `launch` has not changed since.
    /// - Throws: parse errors, errors from `configure`, or a missing appsrc.
    public func prepare() throws(GstError) {
        prepared = (launch, try makePipeline())
    }

    /// The prepared pipeline, or a new one parsed from `launch`, its appsrc checked, configured.
    private func makePipeline() throws(GstError) -> Pipeline {
        defer { prepared = nil }
        if let prepared, prepared.launch == launch { return prepared.pipeline }
        let pipeline = try Pipeline(launch: launch)
        _ = try pipeline.appSource(named: appSourceName)
        try configure(pipeline)
        return pipeline
    }

    /// Pauses; `resume()` continues from the same sample.
    public func pause() throws(GstError) { try pipeline?.setState(.paused) }

    /// Continues after `pause()`.
    public func resume() throws(GstError) { try pipeline?.setState(.playing) }

    /// Stops and releases the pipeline: its threads, devices and file handles go with it.
    public func stop() {
        guard let pipeline else { return }
        _ = try? pipeline.setState(.null)
        self.pipeline = nil
        self.feeder = nil
    }

    /// Seeks the current play to `time` (clamped by the source to its length), optionally up to `stop`, at `rate`.
    public func seek(
        to time: ClockTime, stop: ClockTime? = nil, rate: Double = 1.0,
        options: Pipeline.SeekOptions = [.flush, .accurate]
    ) throws(GstError) {
        try current().seek(to: time, stop: stop, rate: rate, options: options)
    }

    /// The playback position, when known.
    public var position: ClockTime? { pipeline?.position }

    /// The length of the current source, when known.
    public var duration: ClockTime? { pipeline?.duration }

    /// The current state (NULL when nothing plays).
    public var state: State { pipeline?.state() ?? .null }

    /// Sets the linear volume (1.0 = unchanged) on the pipeline's `volume` element, or on a sink that has one.
    ///
    /// - Throws: `.notFound` when the pipeline has nothing that controls volume.
    public func setVolume(_ volume: Double) throws(GstError) {
        guard let element = try current().volumeElement() else {
            throw GstError(kind: .notFound, message: "the pipeline has no volume control (add \"volume name=volume\")")
        }
        try element.set("volume", fromString: String(volume))
    }

    /// Mutes or unmutes through the same control as `setVolume`.
    public func setMuted(_ muted: Bool) throws(GstError) {
        guard let element = try current().volumeElement() else {
            throw GstError(kind: .notFound, message: "the pipeline has no volume control (add \"volume name=volume\")")
        }
        try element.set("mute", fromString: muted ? "true" : "false")
    }

    /// Posts an application message that comes back as `.application(name)` from `nextEvent`, in order with
    /// the pipeline's own events. Safe from any thread that holds the pipeline (e.g. a signal handler's queue).
    public func post(_ name: String) { pipeline?.postApplicationMessage(named: name) }

    /// A descriptor that is readable while events of the current play wait (see `Pipeline.busDescriptor`); nil when
    /// nothing plays. Poll it, then take the events with `nextEvent(timeout: .zero)`.
    public var eventDescriptor: Int32? { pipeline?.busDescriptor }

    /// Waits up to `timeout` for the next event of the current play; nil on timeout or when nothing plays.
    ///
    /// State changes of elements inside the pipeline are left out; the pipeline's own are reported.
    /// An error stops the player before it is returned, unless `errorIsContained`.
    public func nextEvent(timeout: Duration) -> PlayerEvent? {
        guard let pipeline else { return nil }
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard let message = pipeline.nextMessage(timeout: max(remaining, .zero)) else { return nil }
            if let event = event(for: message) { return event }
            if remaining <= .zero { return nil }
        }
    }

    private func event(for message: Message) -> PlayerEvent? {
        switch message {
        case .endOfStream: return .endOfStream
        case .error(let error):
            if !errorIsContained(error) { stop() }
            return .error(error)
        case .warning(let warning): return .warning(warning)
        case .stateChanged(_, let new, _, let isPipeline): return isPipeline ? .stateChanged(new) : nil
        case .tags(let tags): return .tags(tags)
        case .application(let structure): return .application(structure.name)
        case .element(let structure): return .element(structure)
        case .segmentDone: return .segmentDone
        case .asyncDone, .other: return nil
        }
    }

    private func current() throws(GstError) -> Pipeline {
        guard let pipeline else { throw GstError(kind: .stateChange, message: "nothing is playing") }
        return pipeline
    }
}
