// yt-gst — one broadcast: the playlist through the gapless chain to every destination, titles as files start,
// and the Icecast server's faults survived.
import AppSrcFeeder
import Glibc
import GstPlayer
import WAV

/// Runs a broadcast until the list ends (or a `stop`, an error, or a server lost for longer than the retry time).
///
/// One loop decides everything, as in `play`: it runs the commands, reads the player's events, follows the position
/// (to know the file and the time in it, and to announce each file's title as it starts; 4 or 10 times a second),
/// and while an Icecast server is lost it tries it again with a growing pause (100 ms to 1 s), so streaming resumes
/// within about a second of the server being back. A sole destination waits for its server: resuming builds a new
/// pipeline at the place where the broadcast stopped (the same file, the same time in it). Beside other
/// destinations, only the lost mount's branch is replaced; the others go on in real time (HLS segment numbers never
/// start again). A pause sends silence (see `Command.pause`). Events come on the thread that calls `run()`.
public final class BroadcastSession {
    /// The pause between two tries of a lost server grows from the first to the last.
    static let firstRetryPause: Duration = .milliseconds(100)
    static let longestRetryPause: Duration = .seconds(1)

    /// A lost Icecast server: which, since when, and when to try it next.
    struct Loss {
        var endpoint: IcecastEndpoint
        var since: ContinuousClock.Instant
        var nextTry: ContinuousClock.Instant
        var pause: Duration
    }

    /// Where each Icecast sink's connection is, by sink name.
    enum Mount {
        /// Connecting on its first buffer. `rendered`: it rendered one and no error has been read since: connected,
        /// once the bus has been read once more (a failed connect posts its error before the render counts, so it
        /// would be there). `after`: the loss this connection ends.
        case connecting(rendered: Bool, after: Loss?)
        case streaming
        case lost(Loss)
    }

    let configuration: Configuration
    let observer: (Event) -> Void
    private let commands = CommandQueue<Command>()
    var plan: BroadcastPlan { configuration.plan }
    let order: PlayOrder
    let player: Player
    var chain: GaplessChain?
    var someFilesFailed = false
    /// The play position and the time in that file where the broadcast is (where it resumes after a loss or a
    /// pause): followed while it plays, held while paused.
    var place: (position: Int, fileTime: ClockTime?) = (0, nil)
    /// Whether silence goes out in place of the list (`Command.pause`).
    var paused = false
    /// The furthest position the current pipeline reported.
    var furthest: ClockTime?
    /// While paused: when the silent feed starts its file again, so the list never runs out under the silence.
    private var nextRefill: ContinuousClock.Instant?
    /// The play position whose title was announced on the current connections.
    var announced: Int?
    private var title = ""
    private var oggTitleWarned = false
    var mounts: [String: Mount] = [:]
    /// The playlist of each HLS destination, for the whole broadcast: across every pipeline it builds (for a file
    /// that needs another decoder) segment numbers only grow, and the break is marked as a discontinuity.
    let playlists: [HLSPlaylistFile]
    /// The files with nothing to play that were reported (once each, however often a loop passes them).
    private var reportedEmpty: Set<String> = []
    /// Whether audio ever went out: a refusal before that is a fault of the setup.
    var everConnected = false
    private var nextStatus = ContinuousClock.now

    public init(_ configuration: Configuration, observer: @escaping (Event) -> Void) {
        self.configuration = configuration
        self.observer = observer
        order = PlayOrder(files: configuration.files, shuffle: configuration.shuffle, passes: configuration.passes)
        let plan = configuration.plan
        let playlists = plan.hlsSinks.map {
            HLSPlaylistFile(
                sink: $0.name, directory: $0.directory, name: $0.playlist, targetSeconds: plan.segmentSeconds,
                length: plan.playlistLength)
        }
        self.playlists = playlists
        player = Player(launch: plan.launch) { pipeline throws(GstError) in
            try plan.configure(pipeline) { sink in playlists.first { $0.sink == sink }?.nextSegment ?? 0 }
        }
        player.errorIsContained = { error in
            plan.mountsReconnectAlone && plan.icecastSinks.contains { $0.name == error.elementName }
        }
    }

    /// Sends commands to the broadcast from any thread.
    public var control: Control { Control(queue: commands) }

    /// The lost servers, by sink name.
    var losses: [(sink: String, loss: Loss)] {
        mounts.compactMap { if case .lost(let loss) = $0.value { ($0.key, loss) } else { nil } }
            .sorted { $0.sink < $1.sink }
    }

    /// Whether the broadcast stands still until a lost server is back (a sole destination).
    var waitingForServer: Bool { !plan.mountsReconnectAlone && !losses.isEmpty }

    /// How often the loop looks at the position: at the status rate when asked, else 4 times a second (a title
    /// reaches the server within a quarter second of its file's start, and the loop costs less).
    private var followEvery: Duration { configuration.statusInterval ?? .milliseconds(250) }

    /// Broadcasts the list on the calling thread until it ends.
    ///
    /// libshout writes to its socket without MSG_NOSIGNAL: a server that goes away would kill the process with
    /// SIGPIPE instead of failing the write (which is what lets the broadcast retry), so SIGPIPE is ignored from here
    /// on.
    /// - Throws: a destination that cannot be used, nothing to broadcast, a refusal, a lost server not back in time,
    ///   a pipeline error.
    public func run() throws(StreamingError) -> Ending {
        signal(SIGPIPE, SIG_IGN)
        defer { player.stop() }
        try checkDestinations()
        try start()
        return try SessionLoop.run(Turns(self), bus: player, commands: commands)
    }

    /// The turns of the broadcast's loop: retries and silence when due, commands, the player's events, then the
    /// position followed (titles, connections) and the status.
    private final class Turns: SessionLoopHandler {
        typealias Failure = StreamingError
        private let session: BroadcastSession

        init(_ session: BroadcastSession) { self.session = session }

        func doWhatIsDue() throws(StreamingError) -> Ending? {
            try session.retryIfDue()
            try session.refillSilence()
            return nil
        }

        func perform(_ command: Command) throws(StreamingError) -> Ending? { try session.perform(command) }

        func handle(_ message: Message) throws(StreamingError) -> Ending? { try session.handle(message) }

        func finishTurn() -> Ending? {
            session.follow()
            session.sendStatus()
            return nil
        }

        /// The next look at the position, or a lost server's retry when sooner (or when the broadcast waits for it).
        func nextDue() -> ContinuousClock.Instant? {
            let until = ContinuousClock.now + session.followEvery
            guard let due = session.losses.map(\.loss.nextTry).min(), session.waitingForServer || due < until else {
                return until
            }
            return due
        }
    }

    /// Every Icecast server accepts connections, and every HLS directory exists, before anything is built.
    private func checkDestinations() throws(StreamingError) {
        for (_, endpoint) in plan.icecastSinks {
            if let problem = endpoint.connectionProblem() {
                throw .cannotConnect(url: endpoint.description, problem: problem)
            }
        }
        for (_, directory, _) in plan.hlsSinks {
            var info = stat()
            guard stat(directory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
                throw .noSuchDirectory(directory)
            }
        }
    }

    // MARK: Starting

    /// Starts a pipeline at `place`: a new chain prepared at its file, sought to its time (silent while paused).
    /// `resuming`: the loss of a server that is back.
    func start(resuming: Loss? = nil) throws(StreamingError) {
        let chain = GaplessChain(order: order, settings: GaplessChain.Settings())
        let prepared = chain.prepare(at: place.position)
        reportFiles(of: chain)
        guard prepared else { throw chain.ending == .nothingToPlay ? .nothingToBroadcast : .nothingOpened }
        self.chain = chain
        let launch =
            chain.needsDecoder
            ? Launch.insertingDecoder(afterSource: "src", in: plan.launch, decoder: chain.decoder) : plan.launch
        mounts = Dictionary(
            uniqueKeysWithValues: plan.icecastSinks.map { ($0.name, .connecting(rendered: false, after: resuming)) })
        announced = nil
        furthest = nil
        for playlist in playlists { playlist.pipelineStarts() }
        do {
            try player.play(chain, launch: launch, from: place.fileTime)
            if paused { try player.setMuted(true) }
        } catch {
            throw .pipeline(error, connected: everConnected)
        }
    }

    /// Files that could not be opened, and files passed over (or broadcast as nothing) for having nothing to play.
    func reportFiles(of chain: GaplessChain) {
        for failure in chain.takeFailures() {
            someFilesFailed = true
            observer(.fileFailed(failure))
        }
        let empty = chain.takeEmptyFiles()
        guard chain.ending != .nothingToPlay else { return }
        for file in empty where reportedEmpty.insert(file.path).inserted { observer(.emptyFile(file)) }
    }

    // MARK: Following the broadcast

    /// Where the broadcast is: the file and the time in it; announces a file's title once audio goes out. Held
    /// while paused: the silence is no place in the list.
    private func follow() {
        // With several sinks the pipeline answers with one or another's position: take the furthest seen, so the
        // broadcast never seems to step back into the file before.
        guard !waitingForServer, let chain, let reported = player.position else { return }
        let position = max(reported, furthest ?? reported)
        furthest = position
        followConnections()
        guard !paused, let segment = chain.segment(at: position) else { return }
        let offset =
            position.nanoseconds >= segment.streamStart.nanoseconds
            ? position.nanoseconds - segment.streamStart.nanoseconds : 0
        place = (segment.position, ClockTime(nanoseconds: segment.fileStart.nanoseconds + offset))
        let connecting = mounts.values.contains { if case .connecting = $0 { true } else { false } }
        if !connecting && announced != segment.position {
            announced = segment.position
            announce(BroadcastSession.title(of: segment.path))
        }
    }

    /// Moves each connecting sink on: rendered, then streaming once the bus was read in between (said when it
    /// ends a loss); a sink that starts streaming gets the title (announced again to all).
    private func followConnections() {
        for (sink, state) in mounts {
            guard case .connecting(let rendered, let after) = state else { continue }
            guard rendered else {
                if hasRendered(sink) { mounts[sink] = .connecting(rendered: true, after: after) }
                continue
            }
            mounts[sink] = .streaming
            everConnected = true
            announced = nil
            if let after { observer(.streamingAgain(after.endpoint, lostFor: ContinuousClock.now - after.since)) }
        }
    }

    /// Whether the shout2send `sink` has rendered a buffer: it connects on its first, and counts it even when that
    /// failed (its error is on the bus by then).
    private func hasRendered(_ sink: String) -> Bool {
        guard let pipeline = player.pipeline else { return false }
        return ((try? pipeline.element(named: sink))?.structure(of: "stats")?.count("rendered") ?? 0) > 0
    }

    /// The now-playing title of a file: "ARTIST - TITLE" from its LIST/INFO (INAM, IART), else its file name.
    static func title(of path: String) -> String {
        let name = String(path.split(separator: "/").last ?? Substring(path))
        guard let info = try? WAVFile.open(path: path).file.metadata.info else { return name }
        func entry(_ id: String) -> String? {
            info.first { $0.id == id }.map(\.value.trimmingWhitespace).flatMap { $0.isEmpty ? nil : $0 }
        }
        switch (entry("IART"), entry("INAM")) {
        case (let artist?, let title?): return "\(artist) - \(title)"
        case (nil, let title?): return title
        default: return name
        }
    }

    /// Tells every Icecast server the title now playing (again after a reconnect: the server forgot it), and
    /// reports it when it changed.
    private func announce(_ title: String) {
        if title != self.title { observer(.titleChanged(title)) }
        self.title = title
        for (sink, endpoint) in plan.icecastSinks {
            guard case .streaming = mounts[sink] else { continue }
            guard plan.codec.takesTitleUpdates else {
                if !oggTitleWarned { observer(.titlesStayFirst(endpoint)) }
                oggTitleWarned = true
                continue
            }
            if let problem = endpoint.announce(title: title) { observer(.titleNotSent(endpoint, problem: problem)) }
        }
    }

    /// While paused, starts the silent feed's file again every second: only a last file shorter than that can
    /// end the list under the silence.
    private func refillSilence() throws(StreamingError) {
        guard paused else { return nextRefill = nil }
        guard let due = nextRefill else { return nextRefill = .now + .seconds(1) }
        guard ContinuousClock.now >= due else { return }
        nextRefill = .now + .seconds(1)
        try jump(to: place.position, fileTime: nil, holdingPlace: true)
    }

    private func sendStatus() {
        guard let interval = configuration.statusInterval, ContinuousClock.now >= nextStatus else { return }
        nextStatus = .now + interval
        let state: Status.State =
            losses.first.map { .lost($0.loss.endpoint, since: $0.loss.since) } ?? (paused ? .paused : .broadcasting)
        observer(.status(Status(state: state, fileTime: place.fileTime ?? .zero, title: title)))
    }
}
