// yt-gst — one playback from start to end: the list, gaplessly, one control loop over the player's events and the
// commands sent to it.
import GstPlayer

/// Plays a list of files through one pipeline, gaplessly (`GaplessChain`), taking commands from any thread (`control`)
/// and reporting what happens to one observer.
///
/// Everything is decided in one loop on the thread that calls `run()`: it takes the commands sent, reads the bus,
/// reports the status when due, then sleeps in `MainLoop.wait` (which also runs GLib sources such as a watched
/// keyboard). A new pipeline is built only where a file needs another decoder or after an error.
public final class PlaybackSession {
    public let configuration: Configuration
    /// Sends commands to this session from any thread.
    public let control: Control
    private let observer: (Event) -> Void
    /// The list and its order; a `load` command replaces it, and so do loop and shuffle commands.
    var order: PlayOrder
    /// Each file repeats (`Configuration.repeatEachFile`, then the loop commands).
    var repeatEachFile: Bool
    /// Passes through the list as last asked for (nil: for ever), counted from where that was asked.
    var passes: Int?
    /// `configuration.launch` with the processing elements put in.
    private let launch: String
    /// The player (a test's stand-in for one in the logic tests).
    let player: any PlaybackTarget

    var volume: Double
    var muted: Bool
    var rate: Double
    /// Paused is what was asked last: the pipeline passes through PAUSED on its way to PLAYING and on every flushing
    /// seek, so its state cannot say.
    var paused = false
    /// A-B loop points, in file time.
    var loopA: ClockTime?
    var loopB: ClockTime?
    private var levels: [ChannelLevel] = []
    private var anyFailed = false
    /// The play position whose file was announced (`.fileStarted`).
    private var shownPosition: Int?
    /// Where the file announced last began in the stream: a repeat of it begins elsewhere.
    private var shownStart: ClockTime?
    /// The files with nothing to play that were reported (once each, however often a loop passes them).
    private var reportedEmpty: Set<String> = []
    /// The last file passed over for having nothing to play, to name it when a list of one file has nothing.
    private var lastEmpty: GaplessChain.EmptyFile?
    /// Commands taken between two pipelines, for the next one; and a stop among them.
    private var pending: [Command] = []
    private var stopRequest: StopReason?
    /// How often a control surface asks for `.status` events now (`Command.reportStatus`).
    var requestedStatusInterval: Duration?

    /// How one pipeline's run ended.
    enum Outcome: Equatable {
        /// The chain ran out (or needs a pipeline with another decoder from its handoff position).
        case ended
        /// An error stopped the pipeline while this play position played.
        case failed(Int)
        case stopped(StopReason)
        /// A new pipeline is to play from this play position (a `load` replaced the list).
        case restart(Int)
    }

    /// A session for `configuration`; nothing is opened until `run()`. `observer` gets every event, on the thread
    /// that runs it.
    public convenience init(_ configuration: Configuration, observer: @escaping (Event) -> Void) {
        let (properties, realtime) = (configuration.properties, configuration.realtimeThreads)
        self.init(configuration, observer: observer) { launch in
            Player(launch: launch) { pipeline throws(GstError) in
                try pipeline.apply(properties)
                if realtime { RealtimeThreads.raiseStreamingThreads(of: pipeline) }
            }
        }
    }

    /// A session that plays through the target `makeTarget` makes for the launch string (with processing put in).
    init(
        _ configuration: Configuration, observer: @escaping (Event) -> Void,
        makeTarget: (String) -> any PlaybackTarget
    ) {
        self.configuration = configuration
        self.control = Control(commands: CommandQueue())
        self.observer = observer
        self.order = PlayOrder(files: configuration.files, shuffle: configuration.shuffle, passes: configuration.passes)
        self.launch = configuration.processing.inserted(into: configuration.launch)
        self.repeatEachFile = configuration.repeatEachFile
        self.passes = configuration.passes
        self.volume = configuration.volume ?? 1
        self.muted = configuration.muted
        self.rate = configuration.rate
        self.player = makeTarget(launch)
    }

    /// Plays the list to its end, or until a `stop` command; every pipeline is released on return.
    ///
    /// The files' own errors come first (as `.fileFailed` events): the pipeline and the output are checked only
    /// when something can play.
    /// - Throws: `.launch` when the pipeline does not build, `.noAudioOutput` when it needs an output there is not.
    public func run() throws(PlaybackError) -> Ending {
        defer { player.stop() }
        let chain = makeChain()
        let prepared = chain.prepare(at: 0)
        reportFailures(of: chain)
        let ending: Ending
        if prepared {
            try prepareOutput()
            ending = play(from: chain)
        } else {
            // A signal may have ended a wait for a pipe's header: say it was a stop, not a failure.
            pollCommands()
            ending = stopRequest.map { .stopped($0, filesFailed: true) } ?? nothingToPlay(chain)
        }
        observer(.ended(ending))
        return ending
    }

    /// Builds the pipeline once before any file plays, so a bad launch string is one error, not one per file (the
    /// first play reuses it), and checks that an autoaudiosink has somewhere to play.
    private func prepareOutput() throws(PlaybackError) {
        do { try player.prepare() } catch { throw .launch(launch, error) }
        let needsOutput = Launch.elements(in: launch).contains { $0.factory == "autoaudiosink" }
        if needsOutput && Gst.audioOutputs().isEmpty { throw .noAudioOutput }
    }

    /// Plays pipeline after pipeline from `first`: on to the handoff (a file that needs another decoder) or past a
    /// file that failed, until the list ends or a stop.
    private func play(from first: GaplessChain) -> Ending {
        var chain = first
        /// Pipelines in a row that failed: a whole list's worth means every file fails, so stop instead of cycling.
        var failuresInARow = 0
        while true {
            let outcome = play(chain)
            // The chain is done with: a read waiting on a quiet pipe must not hold up stopping the pipeline.
            chain.stopReading()
            reportFailures(of: chain)
            let position: Int
            switch outcome {
            case .ended:
                if chain.ending == .nothingToPlay { return nothingToPlay(chain) }
                guard let next = chain.handoff ?? appended(after: chain) else {
                    return .finished(filesFailed: anyFailed)
                }
                position = next
                failuresInARow = 0
            case .restart(let first):
                position = first
                failuresInARow = 0
            case .failed(let failed):
                anyFailed = true
                failuresInARow += 1
                if failuresInARow >= max(order.count, 1) { return .failed }
                position = failed + 1
            case .stopped(let reason):
                return .stopped(reason, filesFailed: anyFailed)
            }
            pollCommands()
            if let stopRequest { return .stopped(stopRequest, filesFailed: anyFailed) }
            chain = makeChain()
            let prepared = chain.prepare(at: position)
            reportFailures(of: chain)
            pollCommands()
            if let stopRequest { return .stopped(stopRequest, filesFailed: anyFailed) }
            guard prepared else { return nothingToPlay(chain) }
        }
    }

    /// The play position after the last file `chain` played, when files were added after it (`load`) while it
    /// played; nil when none were.
    private func appended(after chain: GaplessChain) -> Int? {
        guard chain.order !== order, let last = shownPosition, order.index(at: last + 1) != nil else { return nil }
        return last + 1
    }

    private func makeChain() -> GaplessChain {
        GaplessChain(
            order: order,
            settings: GaplessChain.Settings(
                chunkMilliseconds: configuration.chunkMilliseconds, buffers: configuration.buffers,
                start: configuration.start.map { ClockTime(seconds: $0) },
                end: configuration.end.map { ClockTime(seconds: $0) }, repeatEachFile: repeatEachFile))
    }

    /// The list has nothing (more) to play; said when it is for want of audio (files that failed have said so).
    private func nothingToPlay(_ chain: GaplessChain) -> Ending {
        if chain.ending == .nothingToPlay { observer(.nothingToPlay(order.count == 1 ? lastEmpty : nil)) }
        return .failed
    }

    /// Takes the commands sent while no pipeline plays (running the loop's ready sources first, such as a signal's
    /// watch after a wait it interrupted), keeping them for the next pipeline; notes a stop among them.
    private func pollCommands() {
        MainLoop.wait(for: [], until: .now)
        pending += control.commands.take()
        for case .stop(let reason) in pending where stopRequest == nil { stopRequest = reason }
    }

    // MARK: One pipeline

    private func play(_ chain: GaplessChain) -> Outcome {
        shownPosition = nil
        shownStart = nil
        loopA = nil
        loopB = nil
        do {
            try player.play(
                chain,
                launch: chain.needsDecoder
                    ? Launch.insertingDecoder(afterSource: "src", in: launch, decoder: chain.decoder) : launch,
                from: nil, to: nil)
            // The sink opened its connection (and libpulse's or ytpipewiresink's thread) on its way to READY.
            if configuration.realtimeThreads { RealtimeThreads.raiseAudioServerThreads() }
            if paused { try player.pause() }
            if configuration.volume != nil || muted { try applyVolume() }
            if rate != 1, let segment = chain.segment(at: .zero) { try seek(chain, segment, to: segment.fileStart) }
        } catch {
            let failed = chain.segment(at: .zero)
            observer(.fileFailed(.pipeline(path: failed?.path ?? chain.displayName, error)))
            return .failed(failed?.position ?? 0)
        }
        let first = pending
        pending = []
        return SessionLoop.run(PipelineTurns(self, chain), bus: player, commands: control.commands, first: first)
    }

    /// One pipeline's turns of the session's loop: before the commands and messages, the files the chain could not
    /// open and what plays now (commands and messages act on it); after them, the status when due.
    private final class PipelineTurns: SessionLoopHandler {
        private let session: PlaybackSession
        private let chain: GaplessChain
        private var now: Now?
        private var nextStatus = ContinuousClock.now

        init(_ session: PlaybackSession, _ chain: GaplessChain) {
            self.session = session
            self.chain = chain
        }

        func doWhatIsDue() -> Outcome? {
            session.reportFailures(of: chain)
            now = session.current(chain)
            return nil
        }

        func perform(_ command: Command) -> Outcome? { session.run(command, chain: chain, now: now) }

        func handle(_ message: Message) -> Outcome? { session.handle(message, chain: chain, now: now) }

        func finishTurn() -> Outcome? {
            if let interval = session.statusInterval, ContinuousClock.now >= nextStatus {
                session.reportStatus(chain)
                nextStatus = .now.advanced(by: interval)
            }
            return nil
        }

        func nextDue() -> ContinuousClock.Instant? {
            MainLoop.earliest(session.statusInterval.map { _ in nextStatus }, session.nextFileStart(chain))
        }
    }

    /// When the file the chain began last reaches the sink, while it plays and has not yet: the loop wakes then to
    /// announce it (`.fileStarted`) with no status ticks. The chain's `fileBeganMessage` wakes the loop to ask.
    func nextFileStart(_ chain: GaplessChain) -> ContinuousClock.Instant? {
        guard let next = chain.lastSegment, !isShown(next), player.state == .playing,
            let position = player.position
        else { return nil }
        return .now + .seconds(max((next.streamStart.seconds - position.seconds) / rate, 0.005))
    }

    /// Whether `segment` is the file announced last: the same position, and not a repeat of it beginning later (a
    /// seek within the file is the same file).
    private func isShown(_ segment: GaplessChain.Segment) -> Bool {
        segment.position == shownPosition && !(segment.isRepeat && segment.streamStart != shownStart)
    }

    /// What plays now: the file's segment and the position in that file.
    struct Now {
        var segment: GaplessChain.Segment
        var fileTime: ClockTime
    }

    /// What plays now; announces a file that has started at the sink since the last call.
    func current(_ chain: GaplessChain) -> Now? {
        let stream = player.position ?? .zero
        guard let segment = chain.segment(at: stream) else { return nil }
        let offset =
            stream.nanoseconds >= segment.streamStart.nanoseconds
            ? stream.nanoseconds - segment.streamStart.nanoseconds : 0
        let fileTime = min(ClockTime(nanoseconds: segment.fileStart.nanoseconds + offset), segment.duration)
        if !isShown(segment) {
            // A new file (or the same one again) has started at the sink: loop points belong to the old one.
            shownPosition = segment.position
            shownStart = segment.streamStart
            loopA = nil
            loopB = nil
            observer(
                .fileStarted(
                    File(
                        position: segment.position, index: segment.position % max(order.count, 1), path: segment.path,
                        warnings: segment.warnings, isStream: segment.isStream)))
        }
        return Now(segment: segment, fileTime: fileTime)
    }

    private func handle(_ message: Message, chain: GaplessChain, now: Now?) -> Outcome? {
        switch message.view {
        case .endOfStream:
            return .ended
        case .segmentDone:
            // The A-B loop reached B: back to A without a flush, so the loop is seamless.
            if let now, let a = loopA { _ = try? seek(chain, now.segment, to: a, flush: false) }
        case .error(let error):
            observer(.fileFailed(.pipeline(path: now?.segment.path ?? chain.displayName, error)))
            return .failed(now?.segment.position ?? 0)
        case .warning(let warning):
            observer(.warning(path: now?.segment.path ?? chain.displayName, warning))
        case .tags(let tags):
            observer(.tags(tags))
        case .element(let structure):
            if let reading = ChannelLevel.parse(structure) { levels = reading }
        case .stateChanged, .application, .asyncDone, .other:
            break
        }
        return nil
    }

    /// How often `.status` events go out: the configuration's, or what a control surface asks for, if more often.
    private var statusInterval: Duration? {
        [configuration.statusInterval, requestedStatusInterval].compactMap { $0 }.min()
    }

    /// A `.status` event, once the pipeline has started (a READY "position 0" would be a status of nothing).
    private func reportStatus(_ chain: GaplessChain) {
        guard [.playing, .paused].contains(player.state), let now = current(chain) else { return }
        observer(
            .status(
                PlaybackSnapshot(
                    state: paused ? .paused : .playing, file: now.segment.path,
                    index: now.segment.position % max(order.count, 1),
                    count: order.count, position: now.fileTime.seconds,
                    duration: now.segment.lengthIsKnown ? now.segment.duration.seconds : 0, volume: volume,
                    muted: muted, rate: rate, loopA: loopA?.seconds, loopB: loopB?.seconds, levels: levels)))
    }

    /// Files that could not be opened (a `.fileFailed` each), and files passed over for having nothing to play (a
    /// `.fileSkipped` each, as other players play them: as nothing); a loop with nothing to play at all is
    /// `.nothingToPlay` instead.
    private func reportFailures(of chain: GaplessChain) {
        for failure in chain.takeFailures() {
            anyFailed = true
            observer(.fileFailed(.file(path: failure.path, failure.error)))
        }
        let empty = chain.takeEmptyFiles()
        lastEmpty = empty.last ?? lastEmpty
        guard chain.ending != .nothingToPlay else { return }
        for file in empty where reportedEmpty.insert(file.path).inserted { observer(.fileSkipped(file)) }
    }

    /// Tells the observer (for the commands' extension).
    func report(_ event: Event) { observer(event) }
}
