// yt-gst — a list of files through one appsrc: each continues where the last ended, with no gap and no EOS.
import Dispatch
import GstPlayer
import Synchronization
import WAV

/// Plays a `PlayOrder` through one appsrc, file after file, as one stream.
///
/// Each file gets a `WAVFeeder` whose window starts at the stream time where the previous one ended, so timestamps
/// continue and the sink hears no gap; a file of another raw format changes the appsrc's caps in order. The file that
/// follows is opened ahead of time on a worker thread while the current one plays, so need-data only takes what is
/// ready and never waits for a disk or a header; when it is not ready yet, the worker pushes on as soon as it is.
/// Moving from file to file is a loop, never a chain of calls. Files with nothing to play (empty, or cut away by the
/// window) are passed over and listed in `takeEmptyFiles()`; a list played once that holds nothing else plays as
/// nothing (the first such file's format, then the end of stream), as other players do, so an output is still
/// finalised. Only a loop (`PlayOrder.passes` other than 1, or `repeatEachFile`) whose whole pass has nothing to play
/// ends with `ending == .nothingToPlay` instead of looping forever.
///
/// A file that needs another decoder than the pipeline has cannot follow in the same pipeline: the chain ends the
/// stream there and leaves `handoff` for the player to build a new one. Files that fail to open are reported through
/// `takeFailures()` and skipped. The listener's skips and seeks go through `jump(to:fileTime:seeking:)`.
public final class GaplessChain: Feeder, Sendable {
    /// The files and the order they play in; the positions of `Segment`, `Ending` and `jump` are positions in it.
    /// `follow(_:repeatEachFile:)` replaces it for the files not yet opened.
    public var order: PlayOrder { state.withLock { $0.order } }
    /// How each file is fed: the same chunking, queue, window and repeat for the whole list.
    public let settings: Settings
    /// Opens one file into a feeder: `WAVFeeder(path:...)`; tests slow it down or watch which thread calls it.
    private let openFeeder: @Sendable (_ path: String, _ settings: Settings, _ window: FeedWindow) throws -> WAVFeeder
    /// Runs the opening of the next file off the streaming thread: a global queue; tests run it by hand.
    private let openAhead: @Sendable (_ work: @escaping @Sendable () -> Void) -> Void
    private let state: Mutex<State>

    /// How every file is fed.
    public struct Settings: Sendable {
        /// nil: the feeder's default chunking (see `WAVFeeder.init`).
        public var chunkMilliseconds: Int?
        /// Chunks the appsrc queues (see `WAVFeeder.buffers`); the queue grows when a file with larger chunks follows.
        public var buffers: Int
        /// The part of every file to play: from `start` to `end` in file time (nil: its start, its end).
        public var start: ClockTime?
        /// Where feeding stops in each file; nil = the file's end.
        public var end: ClockTime?
        /// After a file ends, it plays again (until a jump moves on), instead of the next; `follow` changes it.
        public var repeatEachFile: Bool

        /// Settings for the chain; the defaults are the feeder's own (default chunking and queue, whole files, no repeat).
        public init(
            chunkMilliseconds: Int? = nil, buffers: Int = WAVFeeder.defaultBuffers,
            start: ClockTime? = nil, end: ClockTime? = nil, repeatEachFile: Bool = false
        ) {
            self.chunkMilliseconds = chunkMilliseconds
            self.buffers = buffers
            self.start = start
            self.end = end
            self.repeatEachFile = repeatEachFile
        }
    }

    /// One file's run in the stream: which file, and from what stream time.
    public struct Segment: Sendable {
        /// Position in the play order (0-based).
        public var position: Int
        /// The file's path, as the play order gives it.
        public var path: String
        /// Stream time of the first unit fed.
        public var streamStart: ClockTime
        /// The file time of that first unit (the window's start, or where a seek landed).
        public var fileStart: ClockTime
        /// The file's whole duration.
        public var duration: ClockTime
        /// The header warnings of the file, shown once when it starts.
        public var warnings: [String]
        /// Read from a pipe (`WAVFile.isStream`): it cannot seek or play again.
        public var isStream: Bool = false
        /// Whether `duration` is the file's length; false for a pipe whose header does not say (`duration` is then
        /// only a bound).
        public var lengthIsKnown: Bool = true
        /// The file plays again after itself (each file repeats): a new start of the same position.
        public var isRepeat: Bool = false
    }

    /// Why the chain has nothing more to feed.
    public enum Ending: Sendable, Equatable {
        /// The play order ran out.
        case endOfList
        /// A loop whose whole pass had nothing to play: every file was empty, cut away by the window, or failed.
        case nothingToPlay
        /// The file at this position needs a pipeline with another decoder (see `handoff`).
        case handoff(Int)
    }

    /// A file passed over for having nothing to play.
    public struct EmptyFile: Sendable, Equatable {
        /// The file's path, to name it in a message.
        public var path: String
        /// True when the file has audio but the window leaves none of it; false when it holds none.
        public var cutAway: Bool
        /// The header's warnings (`WAVFile.warnings`): a file without audio has one that says why.
        public var warnings: [String] = []
    }

    /// A file that could not be opened.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var path: String
        /// Why: the file's `WAVError` (or what another opener threw).
        public var error: any Error
        /// "path: problem", the line a program prefixes with its own name.
        public var description: String { "\(path): \(error)" }
    }

    /// A file opened and ready to feed.
    private struct Opened {
        var feeder: WAVFeeder
        var segment: Segment
    }

    /// What comes after the current file.
    private enum Upcoming {
        /// Being opened on the worker for this generation of `current`.
        case opening(generation: Int)
        case ready(Opened)
        case none(Ending)
    }

    private struct State {
        var order: PlayOrder
        var repeatEachFile: Bool
        var current: WAVFeeder?
        /// Bumped each time `current` is replaced, so a worker's result for an older file is dropped.
        var generation = 0
        var upcoming: Upcoming = .none(.endOfList)
        /// Bumped each time the next file is asked for, so a worker's result opened for an older order is dropped.
        var opening = 0
        /// The appsrc that ran dry waiting for `upcoming` (a reference of its own: the callback's is borrowed); the
        /// worker feeds it when the file is ready. Held only while waiting, and dropped when reading stops (the
        /// appsrc holds the chain, so keeping it longer would keep both alive).
        var starved: (any AppSourceProtocol)?
        /// One thread feeds at a time; a need-data that arrives meanwhile asks it to go round once more.
        var feeding = false
        var feedAgain = false
        var ending: Ending?
        var segments: [Segment] = []
        var failures: [Failure] = []
        var emptyFiles: [EmptyFile] = []
        /// Set by `jump` and taken by the seek it makes: where that seek goes.
        var jump: (position: Int, fileTime: ClockTime?)?
        var caps: Caps?
        var chunkBytes = 0
        /// The stream plays as nothing (`prepare` found only files without audio): one empty buffer goes before its
        /// end, so that an encoder finalises an empty file (see `AppSourceProtocol.pushEmpty`).
        var silent = false
    }

    /// A chain over `order` that opens each file with `WAVFeeder(path:...)`; call `prepare(at:)` before attaching it.
    public convenience init(order: PlayOrder, settings: Settings) {
        self.init(order: order, settings: settings) { path, settings, window in
            try WAVFeeder(
                path: path, chunkMilliseconds: settings.chunkMilliseconds, buffers: settings.buffers, window: window)
        }
    }

    init(
        order: PlayOrder, settings: Settings,
        openAhead: @escaping @Sendable (_ work: @escaping @Sendable () -> Void) -> Void = {
            DispatchQueue.global(qos: .userInitiated).async(execute: $0)
        },
        openFeeder: @escaping @Sendable (String, Settings, FeedWindow) throws -> WAVFeeder
    ) {
        self.state = Mutex(State(order: order, repeatEachFile: settings.repeatEachFile))
        self.settings = settings
        self.openAhead = openAhead
        self.openFeeder = openFeeder
    }

    /// The current file's name for messages and the status (its path); empty before `prepare(at:)`.
    public var displayName: String { state.withLock { $0.current?.displayName ?? "" } }

    /// Opens the first playable file at or after `position`; false when none is left (see `ending`). Failures are
    /// kept for `takeFailures()`. Call it before attaching, on the control thread.
    public func prepare(at position: Int) -> Bool {
        switch findPlayable(from: position, streamStart: nil, fileTime: nil) {
        case .found(let opened):
            let generation = state.withLock { state in
                state.segments = []
                state.caps = opened.feeder.caps
                state.ending = nil
                state.silent = false
                return Self.install(opened, in: &state)
            }
            openNext(after: opened, generation: generation)
            return true
        case .none(.endOfList, let onlyEmpty?):
            // Nothing after it either (the search went to the list's end): its format, then the end of stream.
            state.withLock { state in
                state.segments = []
                state.caps = onlyEmpty.caps
                state.ending = nil
                state.silent = true
                state.current = onlyEmpty
                state.generation += 1
                state.upcoming = .none(.endOfList)
            }
            return true
        case .none(let ending, _):
            state.withLock { $0.ending = ending }
            return false
        }
    }

    /// Ends reads waiting on a pipe (`WAVFeeder.stopReading()`) of the current file and of the one opened next, so
    /// that the pipeline can stop however quiet the producer is, and lets go of a starved appsrc, so that a file
    /// opened after this feeds nothing. Call it before stopping the pipeline.
    public func stopReading() {
        let (current, upcoming) = state.withLock { state in
            state.starved = nil
            return (state.current, state.upcoming)
        }
        current?.stopReading()
        if case .ready(let opened) = upcoming { opened.feeder.stopReading() }
    }

    /// The current file's format (the first playable one's after `prepare(at:)`): a stream's format on the wire.
    public var format: WAVFormat? { state.withLock { $0.current?.file.format } }
    /// Reads of the current file that waited for a pipe's producer (`WAVFeeder.producerWaits`): a growing count
    /// means the input is live.
    public var producerWaits: Int { state.withLock { $0.current?.producerWaits ?? 0 } }

    /// The first file's decoder needs (the pipeline is built for them): `WAVFeeder.needsDecoder` and `decoder`.
    public var needsDecoder: Bool { state.withLock { $0.current?.needsDecoder ?? false } }
    /// The launch text of the decoder the current file needs (`WAVFeeder.decoder`); `decodebin` before `prepare(at:)`.
    public var decoder: String { state.withLock { $0.current?.decoder ?? "decodebin" } }

    /// The files that could not be opened since the last call.
    public func takeFailures() -> [Failure] {
        state.withLock { state in
            defer { state.failures = [] }
            return state.failures
        }
    }

    /// The files passed over for having nothing to play since the last call (a list played once that holds nothing
    /// else plays as nothing, and its files are here too), in the order they were found.
    public func takeEmptyFiles() -> [EmptyFile] {
        state.withLock { state in
            defer { state.emptyFiles = [] }
            return state.emptyFiles
        }
    }

    /// Why the chain stopped feeding, once it has (nil while it feeds).
    public var ending: Ending? { state.withLock { $0.ending } }

    /// Where the stream ended for want of another decoder, if it did.
    public var handoff: Int? {
        if case .handoff(let position)? = ending { return position }
        return nil
    }

    /// The application message the chain posts from the appsrc when it begins feeding a file after the first (or
    /// after a jump): the session's loop wakes to see when that file will reach the sink (`lastSegment`).
    public static let fileBeganMessage = "yt-gst/file-began"

    /// The file fed last: the one playing, or the one that follows it.
    public var lastSegment: Segment? { state.withLock { $0.segments.last } }

    /// The segment playing at stream time `time` (the last one that started at or before it).
    public func segment(at time: ClockTime) -> Segment? {
        state.withLock { state in
            state.segments.last { $0.streamStart <= time } ?? state.segments.first
        }
    }

    /// Moves to file `position` at `fileTime` (nil: the window's start) with the flushing seek `seek` performs.
    ///
    /// The request lives only for the duration of `seek`: the appsrc takes it while seeking, and a seek that fails
    /// (or never reaches the appsrc) leaves nothing behind for a later seek to find.
    public func jump<E: Error>(
        to position: Int, fileTime: ClockTime?, seeking seek: () throws(E) -> Void
    ) throws(E) {
        state.withLock { $0.jump = (position, fileTime) }
        defer { state.withLock { $0.jump = nil } }
        try seek()
    }

    // MARK: Feeder

    /// Configures the appsrc for the first file and installs the chain's callbacks.
    public func attach(to appSource: any AppSourceProtocol) throws(GstError) {
        guard let feeder = state.withLock({ $0.current }) else {
            throw GstError(kind: .nothingToPlay, message: "nothing to play")
        }
        try feeder.configure(appSource, announcingDuration: false)
        state.withLock { $0.chunkBytes = feeder.chunkBytes }
        appSource.setCallbacks(
            AppSourceCallbacks(
                needData: { [self] source, _ in feed(source) },
                enoughData: { [self] _ in state.withLock { $0.current }?.queueIsFull() },
                seekData: { [self] source, time in seek(source, to: time) }))
    }

    /// A seek (on the thread that seeks, not a streaming thread): within the current file, or into the file a
    /// `jump` asked for, opened here.
    private func seek(_ appSource: any AppSourceProtocol, to time: ClockTime) -> Bool {
        let (jump, current) = state.withLock { state in
            defer { state.jump = nil }
            return (state.jump, state.current)
        }
        guard let jump else { return current?.seek(to: time) ?? false }
        state.withLock {
            $0.segments = []
            $0.starved = nil
            $0.ending = nil
        }
        switch findPlayable(from: jump.position, streamStart: time, fileTime: jump.fileTime) {
        case .found(let opened):
            if takeOver(opened, appSource: appSource) != .switched { endStream(appSource) }
        case .none(let ending, _):
            state.withLock { $0.ending = ending }
            endStream(appSource)
        }
        return true
    }

    // MARK: Feeding

    /// Feeds the current file and, as each file runs out, the next one that is ready: a loop, never a call chain.
    /// Only one thread feeds at a time (the streaming thread, or the worker when the stream was starved).
    private func feed(_ appSource: any AppSourceProtocol) {
        let begins = state.withLock { state -> Bool in
            if state.feeding {
                state.feedAgain = true
                return false
            }
            state.feeding = true
            return true
        }
        guard begins else { return }
        while true {
            feedUntilWaiting(appSource)
            let again = state.withLock { state -> Bool in
                defer { state.feedAgain = false }
                if !state.feedAgain { state.feeding = false }
                return state.feedAgain
            }
            if !again { return }
        }
    }

    private func feedUntilWaiting(_ appSource: any AppSourceProtocol) {
        while let (feeder, generation) = state.withLock({ state in
            state.ending == nil ? state.current.map { ($0, state.generation) } : nil
        }) {
            guard feeder.feed(appSource) == .finished else { return }
            let upcoming = state.withLock { state -> Upcoming? in
                guard state.generation == generation else { return nil }  // a seek replaced the file meanwhile
                if case .opening = state.upcoming { state.starved = appSource.retained() }
                return state.upcoming
            }
            switch upcoming {
            case nil, .opening?:
                return  // after a seek the appsrc asks again; a file being opened is fed by the worker
            case .ready(var opened)?:
                // Opened ahead at the end the header promised; a pipe (or a file that shrank) ended elsewhere.
                if opened.segment.streamStart != feeder.endTime,
                    let moved = opened.feeder.moved(toStreamStart: feeder.endTime)
                {
                    opened = Opened(feeder: moved, segment: opened.segment)
                    opened.segment.streamStart = feeder.endTime
                }
                switch takeOver(opened, appSource: appSource, after: generation) {
                case .switched: continue
                case .superseded: return
                case .needsAnotherDecoder:
                    endStream(appSource)
                    return
                }
            case .none(let ending)?:
                state.withLock { $0.ending = ending }
                endStream(appSource)
                return
            }
        }
    }

    private enum TakeOver { case switched, superseded, needsAnotherDecoder }

    /// Makes `opened` the current file in the running stream, changing caps or queue size as needed. With `after`,
    /// only while that generation is still current (a seek on another thread may have replaced it meanwhile); the
    /// check and the switch happen under one lock, so the appsrc never gets one file's caps with another's data.
    private func takeOver(_ opened: Opened, appSource: any AppSourceProtocol, after generation: Int? = nil) -> TakeOver
    {
        let feeder = opened.feeder
        let outcome = state.withLock { state -> (TakeOver, generation: Int) in
            if let generation, state.generation != generation { return (.superseded, 0) }
            let compatible =
                state.caps == feeder.caps || (!feeder.needsDecoder && !(state.caps.map(Self.isCompressed) ?? false))
            guard compatible, let caps = feeder.caps else {
                state.ending = .handoff(opened.segment.position)
                return (.needsAnotherDecoder, 0)
            }
            // Neither call reaches back into the callbacks, so they are safe under the lock.
            if caps != state.caps { try? appSource.setCaps(caps) }
            if feeder.chunkBytes > state.chunkBytes { appSource.setMaxBytes(feeder.chunkBytes * feeder.buffers) }
            state.caps = caps
            state.chunkBytes = max(state.chunkBytes, feeder.chunkBytes)
            return (.switched, Self.install(opened, in: &state))
        }
        if outcome.0 == .switched {
            openNext(after: opened, generation: outcome.generation)
            appSource.postApplicationMessage(named: Self.fileBeganMessage)
        }
        return outcome.0
    }

    private static func isCompressed(_ caps: Caps) -> Bool { caps.mediaType != "audio/x-raw" }

    private func endStream(_ appSource: any AppSourceProtocol) {
        let silentStart = state.withLock { state -> ClockTime? in
            state.starved = nil
            // Not into a decoder: one that gets input but decodes nothing fails the stream.
            guard state.silent, let caps = state.caps, !Self.isCompressed(caps) else { return nil }
            return state.current?.startTime
        }
        if let silentStart {
            _ = appSource.pushEmpty(timing: BufferTiming(pts: silentStart, duration: .zero, offset: 0, offsetEnd: 0))
        }
        appSource.endOfStream()
    }

    // MARK: Opening files

    /// Makes `opened` the current file; returns its generation.
    private static func install(_ opened: Opened, in state: inout State) -> Int {
        state.current = opened.feeder
        state.generation += 1
        state.upcoming = .opening(generation: state.generation)
        state.segments.append(opened.segment)
        if state.segments.count > 64 { state.segments.removeFirst(state.segments.count - 64) }
        return state.generation
    }

    /// Plays the order `change` makes from the position of the file fed last (the one playing, or the one just
    /// after it; 0 before any), and repeats each file or not, from the file after that one: the file opened ahead
    /// for the old order is dropped and the next one opened anew, so the change takes effect at the next file
    /// without a gap. `change` runs under the chain's lock, so a file the streaming thread starts meanwhile cannot
    /// come between the position it is given and the order followed. Once the stream has ended it changes nothing
    /// there (a later chain plays the session's order).
    ///
    /// - Returns: the order made.
    @discardableResult
    public func follow(repeatEachFile: Bool, _ change: (_ lastFed: Int) -> PlayOrder) -> PlayOrder {
        let (order, last) = state.withLock { state -> (PlayOrder, (Segment, ClockTime, Int)?) in
            let order = change(state.segments.last?.position ?? 0)
            state.order = order
            state.repeatEachFile = repeatEachFile
            state.opening += 1  // a result on its way for the old order is dropped from now on
            guard state.ending == nil, let current = state.current, let segment = state.segments.last else {
                return (order, nil)
            }
            state.upcoming = .opening(generation: state.generation)
            return (order, (segment, current.endTime, state.generation))
        }
        if let (segment, endTime, generation) = last {
            openNext(after: segment.position, streamStart: endTime, generation: generation)
        }
        return order
    }

    /// Starts opening the file after `opened` (the same one when each file repeats) on a worker thread.
    private func openNext(after opened: Opened, generation: Int) {
        openNext(after: opened.segment.position, streamStart: opened.feeder.endTime, generation: generation)
    }

    private func openNext(after position: Int, streamStart: ClockTime, generation: Int) {
        let (next, request) = state.withLock { state in
            state.opening += 1
            return (state.repeatEachFile ? position : position + 1, state.opening)
        }
        openAhead {
            var found = self.findPlayable(from: next, streamStart: streamStart, fileTime: nil)
            if case .found(var opened) = found, opened.segment.position == position {
                opened.segment.isRepeat = true
                opened.segment.warnings = []  // said when it started the first time
                found = .found(opened)
            }
            self.offer(found, generation: generation, request: request)
        }
    }

    /// The worker's result: kept for the file it was opened after (and the order it was opened for), and fed at
    /// once if the stream ran dry waiting.
    private func offer(_ found: Found, generation: Int, request: Int) {
        let starved = state.withLock { state -> (any AppSourceProtocol)? in
            // The listener moved on meanwhile, or changed the order.
            guard state.generation == generation, state.opening == request else { return nil }
            switch found {
            case .found(let opened): state.upcoming = .ready(opened)
            case .none(let ending, _): state.upcoming = .none(ending)
            }
            defer { state.starved = nil }
            return state.starved
        }
        if let starved { feed(starved) }
    }

    private enum Found {
        case found(Opened)
        /// Nothing to play from there on. `onlyEmpty`: when the chain starts on files that all have nothing to play,
        /// the first of them, to play as nothing (never set once a file has played).
        case none(Ending, onlyEmpty: WAVFeeder? = nil)
    }

    /// Opens the first file at or after `position` that has something to play. Gives up after a whole pass of the
    /// list without one, so an endless loop over empty files ends instead of spinning. When files were skipped for
    /// being empty and none played before, the answer is `.nothingToPlay` for a loop and the first empty file for a
    /// list played once; files that failed to open are in `failures` either way.
    private func findPlayable(from position: Int, streamStart: ClockTime?, fileTime: ClockTime?) -> Found {
        var position = position
        var firstEmpty: WAVFeeder?
        let (order, repeatEachFile) = state.withLock { ($0.order, $0.repeatEachFile) }
        for _ in 0..<max(order.count, 1) {
            guard let path = order.path(at: position) else { break }
            let window = FeedWindow(start: fileTime ?? settings.start, end: settings.end, streamStart: streamStart)
            do {
                let feeder = try openFeeder(path, settings, window)
                if !feeder.units.isEmpty {
                    let segment = Segment(
                        position: position, path: path, streamStart: streamStart ?? feeder.startTime,
                        fileStart: ClockTime(nanoseconds: feeder.fileTime(ofStream: feeder.startTime)),
                        duration: feeder.endOfFile, warnings: feeder.file.warnings, isStream: feeder.file.isStream,
                        lengthIsKnown: feeder.file.lengthIsKnown)
                    return .found(Opened(feeder: feeder, segment: segment))
                }
                firstEmpty = firstEmpty ?? feeder
                let empty = EmptyFile(
                    path: path, cutAway: feeder.file.frameCount > 0, warnings: feeder.file.warnings)
                state.withLock { $0.emptyFiles.append(empty) }
            } catch {
                state.withLock { $0.failures.append(Failure(path: path, error: error)) }
            }
            // A repeated file repeats only while it plays; one with nothing to play gives way to the next.
            position += 1
        }
        guard let firstEmpty else { return .none(.endOfList) }
        let playedBefore = state.withLock { $0.current != nil }
        let wholePass = order.path(at: position) != nil
        if wholePass || (repeatEachFile && !playedBefore) { return .none(.nothingToPlay) }
        return .none(.endOfList, onlyEmpty: playedBefore ? nil : firstEmpty)
    }
}
