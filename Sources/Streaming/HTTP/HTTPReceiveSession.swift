// yt-gst — one run of a receiver of http://...: play, report the title, reconnect when the connection drops, and
// end with the stream.
import GstPlayer

/// Receives an HTTP stream (an Icecast mount, any HTTP audio, an HLS playlist) into an output until it ends, cannot
/// be had, or is stopped.
///
/// When the connection ends or breaks after audio arrived, the source and decoder are restarted (the output keeps
/// running, its end of stream held back) every half second until audio flows again, for up to the timeout (a relay
/// or a restarted server takes a mount up again within seconds). If the server still answered 404 at the last try,
/// the mount is gone: the broadcast ended, the output is finalised and that is a normal end; if the server could not
/// be reached, the connection is lost. An HLS playlist's end is the stream's end. Runs on the calling thread, like
/// `ReceiveSession`.
public final class HTTPReceiveSession {
    static let retryPause: Duration = .milliseconds(500)

    let configuration: Configuration
    private let observer: (Event) -> Void
    private let commands = CommandQueue<Command>()
    private var pipeline: Pipeline! = nil
    private var counter: FlowCounter?
    private var warnings = WarningFilter()
    private var title: String?
    private var tags: [String: String] = [:]
    /// Since when the connection is down, when to try again, and whether the server said at the last try that
    /// the mount is gone (404).
    private var dropped: (since: ContinuousClock.Instant, nextTry: ContinuousClock.Instant?, mountGone: Bool)?
    /// The audio that had arrived when the connection dropped: more means it flows again.
    private var buffersAtDrop = 0
    /// End of stream is on its way to the output; how the session ends once it is there.
    private var ending: (reason: Ending.Reason, received: Duration, deadline: ContinuousClock.Instant)?
    private var lastArrival = ContinuousClock.now
    private var lastCount = 0
    private var nextStatus = ContinuousClock.now

    public init(_ configuration: Configuration, observer: @escaping (Event) -> Void) {
        self.configuration = configuration
        self.observer = observer
    }

    /// Sends commands to this session from any thread.
    public var control: Control { Control(queue: commands) }

    private var url: String { configuration.url }
    private var audioBuffers: Int { counter?.snapshot.buffers ?? 0 }
    private var received: Duration { .nanoseconds(Int64(counter?.snapshot.duration.nanoseconds ?? 0)) }

    /// Runs on the calling thread until the stream ends.
    ///
    /// - Throws: what kept it from running, or an error before any audio (not found, no server, the stream's).
    public func run() throws(StreamingError) -> Ending {
        pipeline = try makePipeline()
        defer { _ = try? pipeline.setState(.null) }
        do {
            counter = try pipeline.element(named: "received").countFlow(onPad: "src")
            try pipeline.setState(.playing)
        } catch {
            throw .stream(error, url: url)
        }
        return try SessionLoop.run(Turns(self), bus: pipeline, commands: commands)
    }

    /// The turns of the session's loop: the ending once due and the connection's watch, a stop, the messages, the
    /// status.
    private final class Turns: SessionLoopHandler {
        typealias Command = HTTPReceiveSession.Command
        typealias Ending = HTTPReceiveSession.Ending
        typealias Failure = StreamingError
        private let session: HTTPReceiveSession

        init(_ session: HTTPReceiveSession) { self.session = session }

        func doWhatIsDue() throws(StreamingError) -> Ending? {
            if let ending = session.ending, ContinuousClock.now >= ending.deadline {
                return Ending(ending.reason, ending.received)
            }
            return try session.watch()
        }

        func perform(_ command: Command) -> Ending? {
            if case .stop(let reason) = command { session.finish(.stopped(reason)) }
            return nil
        }

        func handle(_ message: Message) throws(StreamingError) -> Ending? { try session.handle(message) }

        func finishTurn() -> Ending? {
            session.reportStatus()
            return nil
        }

        func nextDue() -> ContinuousClock.Instant? {
            MainLoop.earliest(
                session.dropped?.nextTry, session.ending?.deadline,
                .now + (session.configuration.statusInterval ?? .milliseconds(250)))
        }
    }

    /// Audio flowing again after a drop, a retry that is due, and the time without data; an ending when nothing
    /// arrived at all within the timeout.
    private func watch() throws(StreamingError) -> Ending? {
        let count = audioBuffers
        if count != lastCount {
            lastCount = count
            lastArrival = .now
        }
        if let drop = dropped {
            if count > buffersAtDrop {
                dropped = nil
                observer(.reconnected(after: ContinuousClock.now - drop.since))
            } else if let next = drop.nextTry, ContinuousClock.now >= next {
                retry()
            }
        }
        guard ending == nil else { return nil }
        if let drop = dropped, ContinuousClock.now - drop.since >= configuration.timeout {
            finish(drop.mountGone ? .streamEnded : .connectionLost)
        } else if dropped == nil && ContinuousClock.now - lastArrival >= configuration.timeout {
            if audioBuffers == 0 { return Ending(.timedOut, received) }
            finish(.timedOut)
        }
        return nil
    }

    private func handle(_ message: Message) throws(StreamingError) -> Ending? {
        switch message.view {
        case .endOfStream:
            return Ending(ending?.reason ?? .finished, ending?.received ?? received)
        case .error(let error):
            try handle(error)
        case .warning(let warning):
            if ending == nil && warnings.isNew(warning) { observer(.warning(.pipeline(warning))) }
        case .tags(let list):
            for tag in list where ["title", "artist"].contains(tag.name) { tags[tag.name] = tag.value }
            reportTitle()
        case .application(let structure) where ApplicationMessage(structure) == .sourceEnded:
            if configuration.isHLS { finish(.streamEnded) } else { connectionDropped(mountGone: false) }
        default:
            break
        }
        return nil
    }

    /// An error: before any audio it ends the session; afterwards the connection is taken as dropped.
    private func handle(_ error: GstError) throws(StreamingError) {
        let notFound = error.resourceError == .notFound
        if audioBuffers == 0 && dropped == nil {
            if notFound { throw .notFound(url: url) }
            if let problem = connectionProblem() { throw .cannotConnect(url: url, problem: problem) }
            throw .stream(error, url: url)
        }
        guard ending == nil else { return }
        observer(.problem(.stream(error, url: url)))
        // A try that fails posts the source's error and then a stream error: only the source's says what the
        // server did (404: the mount is gone; open or read: the server is not there).
        let gone: Bool? = notFound ? true : error.resourceError == nil ? nil : false
        connectionDropped(mountGone: gone)
    }

    /// Why the server cannot be reached ("Connection refused"), or nil when it accepts connections.
    private func connectionProblem() -> String? {
        guard let server = configuration.server else { return nil }
        do { try HTTPProbe.connect(host: server.host, port: server.port, timeout: .seconds(2)) } catch {
            return error.description
        }
        return nil
    }

    /// The source stopped (ended, broke, or a retry failed): try again in a moment, remembering whether the
    /// server said the mount is gone.
    private func connectionDropped(mountGone: Bool?) {
        guard ending == nil else { return }
        if dropped == nil {
            buffersAtDrop = audioBuffers
            observer(.connectionDropped)
            dropped = (ContinuousClock.now, nil, false)
        }
        if let mountGone { dropped?.mountGone = mountGone }
        dropped?.nextTry = .now + HTTPReceiveSession.retryPause
        for name in ["net", "decode"] { (try? pipeline.element(named: name))?.stop() }
    }

    /// Starts the source and decoder again: a new request to the server.
    private func retry() {
        dropped?.nextTry = nil
        for name in ["decode", "net"] { (try? pipeline.element(named: name))?.resumeWithParent() }
    }

    /// Sends end of stream to the output (past the hold) and ends for `reason` once it is there, or after 3 s.
    private func finish(_ reason: Ending.Reason) {
        guard ending == nil else { return }
        ending = (reason, received, .now + .seconds(3))
        dropped = nil
        for name in ["net", "decode"] { (try? pipeline.element(named: name))?.stop() }
        if audioBuffers == 0 { ending?.deadline = .now }
        (try? pipeline.element(named: "received"))?.pushEndOfStream(fromPad: "src")
    }

    /// The title from the stream's tags ("ARTIST - TITLE"; ICY titles come whole as the title), reported when it
    /// changes.
    private func reportTitle() {
        guard let newTitle = tags["title"] else { return }
        var text = newTitle
        if let artist = tags["artist"], !artist.isEmpty, !newTitle.hasPrefix(artist) {
            text = "\(artist) - \(newTitle)"
        }
        guard text != title else { return }
        title = text
        observer(.titleChanged(text))
    }

    private func reportStatus() {
        guard let interval = configuration.statusInterval, ContinuousClock.now >= nextStatus else { return }
        nextStatus = .now + interval
        let state: Status.State = dropped != nil ? .reconnecting : audioBuffers == 0 ? .connecting : .receiving
        observer(.status(Status(state: state, received: counter?.snapshot.duration ?? .zero, title: title)))
    }
}
