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

/// Plays one source at a time through a pipeline built from a launch string.
///
/// Shaped after the iOS player's manager, without its faults: playing while something plays restarts cleanly,
/// end of stream is reported only after the sink has played the last sample, and `stop()` (or releasing the player)
/// releases every GStreamer resource. Use it from one thread: it is the control side, not a callback target.
public final class Player {
    /// The launch string plays build their pipeline from unless `play` is given another (e.g. with a decoder put in
    /// for a compressed file); it must contain `appsrc name=<appSourceName>`.
    public let launch: String
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
    /// The pipeline `prepare()` built, kept for the next play through the same launch string.
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

    /// Starts playing `feeder` through a pipeline built from `launch` (the player's own when nil), stopping whatever
    /// played before.
    ///
    /// With `start` or `stop`, the pipeline prerolls first and seeks, so not a sample outside them is heard.
    /// Returns once the pipeline is on its way to PLAYING; errors while prerolling arrive as `.error` events.
    /// - Throws: parse errors, a missing appsrc, or a state change the pipeline refused.
    public func play(
        _ feeder: some Feeder, launch: String? = nil, from start: ClockTime? = nil, to stop: ClockTime? = nil
    )
        throws(GstError)
    {
        self.stop()
        let pipeline = try makePipeline(launch ?? self.launch)
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
    /// the next `play` uses it when it plays through `launch`.
    /// - Throws: parse errors, errors from `configure`, or a missing appsrc.
    public func prepare() throws(GstError) {
        prepared = (launch, try makePipeline(launch))
    }

    /// The prepared pipeline, or a new one parsed from `launch`, its appsrc checked, configured.
    private func makePipeline(_ launch: String) throws(GstError) -> Pipeline {
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
    /// - Throws: `.notPlaying` when nothing plays, `.notFound` when the pipeline has nothing that controls volume,
    ///   `.invalidValue` when the control does not take `volume` (out of its range).
    public func setVolume(_ volume: Double) throws(GstError) {
        guard let element = try current().volumeElement() else {
            throw GstError(kind: .notFound, message: "the pipeline has no volume control (add \"volume name=volume\")")
        }
        try element.set("volume", to: volume)
    }

    /// Mutes or unmutes through the same control as `setVolume`.
    public func setMuted(_ muted: Bool) throws(GstError) {
        guard let element = try current().volumeElement() else {
            throw GstError(kind: .notFound, message: "the pipeline has no volume control (add \"volume name=volume\")")
        }
        try element.set("mute", to: muted)
    }

    /// Posts an application message that comes back as `.application` from `nextEvent`, in order with
    /// the pipeline's own events. Safe from any thread that holds the pipeline (e.g. a signal handler's queue).
    public func post(_ name: String) { pipeline?.postApplicationMessage(named: name) }

    /// A descriptor that is readable while events of the current play wait (see `Pipeline.busDescriptor`); nil when
    /// nothing plays. Poll it, then take the events with `nextEvent(timeout: .zero)`.
    public var eventDescriptor: Int32? { pipeline?.busDescriptor }

    /// Waits up to `timeout` for the next message of the current play that matters to its controller; nil on timeout
    /// or when nothing plays.
    ///
    /// State changes of elements inside the pipeline, `.asyncDone` and `.other` messages are left out; the pipeline's
    /// own state changes are reported. An error stops the player before it is returned, unless `errorIsContained`.
    public func nextEvent(timeout: Duration) -> Message? {
        guard let pipeline else { return nil }
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard let message = pipeline.nextMessage(timeout: max(remaining, .zero)) else { return nil }
            if reports(message) { return message }
            if remaining <= .zero { return nil }
        }
    }

    /// Whether `message` is an event of the player (stopping it first on an error that is not contained).
    private func reports(_ message: Message) -> Bool {
        if message.isInnerStateChange || message.isHousekeeping { return false }
        if message.isError, case .error(let error) = message.view, !errorIsContained(error) { stop() }
        return true
    }

    private func current() throws(GstError) -> Pipeline {
        guard let pipeline else { throw GstError(kind: .notPlaying, message: "nothing is playing") }
        return pipeline
    }
}
