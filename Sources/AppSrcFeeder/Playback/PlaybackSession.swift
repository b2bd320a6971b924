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
    let order: PlayOrder
    /// `configuration.launch` with the processing elements put in.
    private let launch: String
    let player: Player

    var volume: Double
    var muted: Bool
    var rate: Double
    /// A-B loop points, in file time.
    var loopA: ClockTime?
    var loopB: ClockTime?
    private var levels: [ChannelLevel] = []
    private var anyFailed = false
    /// The play position whose file was announced (`.fileStarted`).
    private var shownPosition: Int?
    /// The files with nothing to play that were reported (once each, however often a loop passes them).
    private var reportedEmpty: Set<String> = []
    /// The last file passed over for having nothing to play, to name it when a list of one file has nothing.
    private var lastEmpty: GaplessChain.EmptyFile?
    /// Commands taken between two pipelines, for the next one; and a stop among them.
    private var pending: [Command] = []
    private var stopRequest: StopReason?

    /// How one pipeline's run ended.
    enum Outcome: Equatable {
        /// The chain ran out (or needs a pipeline with another decoder from its handoff position).
        case ended
        /// An error stopped the pipeline while this play position played.
        case failed(Int)
        case stopped(StopReason)
    }

    /// A session for `configuration`; nothing is opened until `run()`. `observer` gets every event, on the thread
    /// that runs it.
    public init(_ configuration: Configuration, observer: @escaping (Event) -> Void) {
        self.configuration = configuration
        self.control = Control(commands: CommandQueue())
        self.observer = observer
        self.order = PlayOrder(files: configuration.files, shuffle: configuration.shuffle, passes: configuration.passes)
        self.launch = configuration.processing.inserted(into: configuration.launch)
        self.volume = configuration.volume ?? 1
        self.muted = configuration.muted
        self.rate = configuration.rate
        let properties = configuration.properties
        self.player = Player(launch: launch) { pipeline throws(GstError) in try pipeline.apply(properties) }
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
                guard let handoff = chain.handoff else { return .finished(filesFailed: anyFailed) }
                position = handoff
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

    private func makeChain() -> GaplessChain {
        GaplessChain(
            order: order,
            settings: GaplessChain.Settings(
                chunkMilliseconds: configuration.chunkMilliseconds, buffers: configuration.buffers,
                start: configuration.start.map { ClockTime(seconds: $0) },
                end: configuration.end.map { ClockTime(seconds: $0) }, repeatEachFile: configuration.repeatEachFile))
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
        loopA = nil
        loopB = nil
        do {
            try player.play(
                chain,
                launch: chain.needsDecoder
                    ? Launch.insertingDecoder(afterSource: "src", in: launch, decoder: chain.decoder) : launch)
            if configuration.volume != nil || muted { try applyVolume() }
            if rate != 1, let segment = chain.segment(at: .zero) { try seek(chain, segment, to: segment.fileStart) }
        } catch {
            let failed = chain.segment(at: .zero)
            observer(.fileFailed(.pipeline(path: failed?.path ?? chain.displayName, error)))
            return .failed(failed?.position ?? 0)
        }
        var nextStatus = ContinuousClock.now
        while true {
            reportFailures(of: chain)
            let now = current(chain)
            let commands = pending + control.commands.take()
            pending = []
            for command in commands {
                if let outcome = run(command, chain: chain, now: now) { return outcome }
            }
            while let message = player.nextEvent(timeout: .zero) {
                if let outcome = handle(message, chain: chain, now: now) { return outcome }
            }
            if let interval = configuration.statusInterval, ContinuousClock.now >= nextStatus {
                reportStatus(chain)
                nextStatus = .now.advanced(by: interval)
            }
            MainLoop.wait(for: [player.eventDescriptor], until: configuration.statusInterval.map { _ in nextStatus })
        }
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
        if shownPosition != segment.position {
            // A new file has started at the sink: loop points belong to the old one.
            shownPosition = segment.position
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
        switch message {
        case .endOfStream:
            return .ended
        case .segmentDone:
            // The A-B loop reached B: back to A without a flush, so the loop is seamless.
            if let now, let a = loopA { try? seek(chain, now.segment, to: a, flush: false) }
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

    /// A `.status` event, once the pipeline has started (a READY "position 0" would be a status of nothing).
    private func reportStatus(_ chain: GaplessChain) {
        let state: PlaybackSnapshot.State
        switch player.state {
        case .playing: state = .playing
        case .paused: state = .paused
        default: return
        }
        guard let now = current(chain) else { return }
        observer(
            .status(
                PlaybackSnapshot(
                    state: state, file: now.segment.path, index: now.segment.position % max(order.count, 1),
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
