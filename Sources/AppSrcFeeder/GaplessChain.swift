// yt-gst — a list of files through one appsrc: each continues where the last ended, with no gap and no EOS.
import GstPlayer
import Synchronization

/// Plays a `PlayOrder` through one appsrc, file after file, as one stream.
///
/// Each file gets a `WAVFeeder` whose window starts at the stream time where the previous one ended, so timestamps
/// continue and the sink hears no gap; a file of another raw format changes the appsrc's caps in order. A file that
/// needs another decoder than the pipeline has cannot follow in the same pipeline: the chain ends the stream there
/// and leaves `handoff` for the player to build a new one. Files that fail to open are reported through
/// `takeFailures()` and skipped. The listener's skips and seeks go through `requestJump` plus a flushing seek.
public final class GaplessChain: PlayableSource, AppSourceDelegate, Sendable {
    public let order: PlayOrder
    public let settings: Settings
    private let state = Mutex(State())

    /// How every file is fed.
    public struct Settings: Sendable {
        /// nil: the feeder's default chunking (see `WAVFeeder.init`).
        public var chunkMilliseconds: Int?
        public var buffers: Int
        /// --start / --end, applied to every file.
        public var start: ClockTime?
        public var end: ClockTime?
        /// --loop-file: after a file ends, it plays again (until a jump moves on).
        public var repeatEachFile: Bool

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
        public var path: String
        /// Stream time of the first unit fed.
        public var streamStart: ClockTime
        /// The file time of that first unit (the --start point or where a seek landed).
        public var fileStart: ClockTime
        /// The file's whole duration.
        public var duration: ClockTime
        /// The header warnings of the file, shown once when it starts.
        public var warnings: [String]
    }

    private struct State {
        var current: WAVFeeder?
        /// The current feeder has run out and what follows it was decided (need-data may come again meanwhile).
        var currentFinished = false
        var segments: [Segment] = []
        var failures: [String] = []
        /// Set by `requestJump` and taken by the next seek: where that seek goes.
        var jump: (position: Int, fileTime: ClockTime?)?
        /// The position that needs a pipeline with another decoder; the stream ended before it.
        var handoff: Int?
        var caps: String?
        var chunkBytes = 0
    }

    public init(order: PlayOrder, settings: Settings) {
        self.order = order
        self.settings = settings
    }

    public var displayName: String { state.withLock { $0.current?.displayName ?? "" } }

    /// Opens the first playable file at or after `position`; false when none is left. Failures are kept for
    /// `takeFailures()`.
    public func prepare(at position: Int) -> Bool {
        guard let (feeder, segment) = open(from: position, streamStart: nil, fileTime: nil) else { return false }
        state.withLock {
            $0.current = feeder
            $0.segments = [segment]
            $0.caps = feeder.caps
            $0.handoff = nil
        }
        return true
    }

    /// The first file's decoder needs (the pipeline is built for them): `WAVFeeder.needsDecoder` and `decoder`.
    public var needsDecoder: Bool { state.withLock { $0.current?.needsDecoder ?? false } }
    public var decoder: String { state.withLock { $0.current?.decoder ?? "decodebin" } }

    /// Lines "path: problem" for files that could not be opened since the last call.
    public func takeFailures() -> [String] {
        state.withLock { state in
            defer { state.failures = [] }
            return state.failures
        }
    }

    /// Where the stream ended for want of another decoder, if it did.
    public var handoff: Int? { state.withLock { $0.handoff } }

    /// The segment playing at stream time `time` (the last one that started at or before it).
    public func segment(at time: ClockTime) -> Segment? {
        state.withLock { state in
            state.segments.last { $0.streamStart <= time } ?? state.segments.first
        }
    }

    /// Makes the next seek land in file `position` at `fileTime` (nil: the --start point) instead of within the
    /// current file. Follow it with a flushing seek; the seek's time becomes that file's stream start.
    public func requestJump(to position: Int, fileTime: ClockTime?) {
        state.withLock { $0.jump = (position, fileTime) }
    }

    // MARK: PlayableSource

    public func attach(to appSource: AppSource) throws(GstError) {
        guard let feeder = state.withLock({ $0.current }) else {
            throw GstError(kind: .stateChange, message: "nothing to play")
        }
        try feeder.attach(to: appSource)
        state.withLock { $0.chunkBytes = feeder.chunkBytes }
        appSource.setDelegate(self)  // the chain, not the file, answers the appsrc from now on
    }

    // MARK: AppSourceDelegate (streaming thread)

    public func appSourceNeedsData(_ appSource: AppSource, length: Int?) {
        state.withLock { $0.current }?.appSourceNeedsData(appSource, length: length)
    }

    public func appSourceHasEnoughData(_ appSource: AppSource) {
        state.withLock { $0.current }?.appSourceHasEnoughData(appSource)
    }

    public func appSource(_ appSource: AppSource, seekTo time: ClockTime) -> Bool {
        let (jump, current) = state.withLock { state in
            defer { state.jump = nil }
            return (state.jump, state.current)
        }
        guard let jump else { return current?.appSource(appSource, seekTo: time) ?? false }
        guard let (feeder, segment) = open(from: jump.position, streamStart: time, fileTime: jump.fileTime),
            switchTo(feeder, segment, appSource: appSource, resetSegments: true)
        else {
            appSource.endOfStream()
            return true
        }
        return true
    }

    /// Called by the current feeder after its last unit: the next file continues at the stream time it ended.
    private func continueAfter(_ finished: WAVFeeder, position: Int, appSource: AppSource) {
        let next = settings.repeatEachFile ? position : position + 1
        guard let (feeder, segment) = open(from: next, streamStart: finished.endTime, fileTime: nil),
            switchTo(feeder, segment, appSource: appSource, resetSegments: false)
        else {
            appSource.endOfStream()
            return
        }
        feeder.appSourceNeedsData(appSource, length: nil)
    }

    /// Makes `feeder` the current one, changing caps or queue size as needed; false when it needs another decoder.
    private func switchTo(_ feeder: WAVFeeder, _ segment: Segment, appSource: AppSource, resetSegments: Bool) -> Bool {
        let (oldCaps, oldChunk) = state.withLock { ($0.caps, $0.chunkBytes) }
        let compatible =
            oldCaps == feeder.caps || (!feeder.needsDecoder && !(oldCaps.map(Self.isCompressed) ?? false))
        guard compatible, let caps = feeder.caps else {
            state.withLock { $0.handoff = segment.position }
            return false
        }
        if caps != oldCaps { try? appSource.setCaps(caps) }
        if feeder.chunkBytes > oldChunk { appSource.setMaxBytes(feeder.chunkBytes * feeder.buffers) }
        state.withLock { state in
            state.current = feeder
            state.currentFinished = false
            state.caps = caps
            state.chunkBytes = max(oldChunk, feeder.chunkBytes)
            if resetSegments { state.segments = [] }
            state.segments.append(segment)
            if state.segments.count > 64 { state.segments.removeFirst(state.segments.count - 64) }
        }
        return true
    }

    private static func isCompressed(_ caps: String) -> Bool { !caps.hasPrefix("audio/x-raw") }

    /// Opens the first file at or after `position` that can play; nil when the order has none left.
    private func open(from position: Int, streamStart: ClockTime?, fileTime: ClockTime?) -> (WAVFeeder, Segment)? {
        var position = position
        var attempts = 0
        while let path = order.path(at: position), attempts < max(order.count, 1) {
            attempts += 1
            let next = position
            let window = FeedWindow(
                start: fileTime ?? settings.start, end: settings.end, streamStart: streamStart,
                onEnd: { [weak self] appSource in self?.continueAfterCurrent(position: next, appSource: appSource) })
            do {
                let feeder = try WAVFeeder(
                    path: path, chunkMilliseconds: settings.chunkMilliseconds, buffers: settings.buffers, window: window
                )
                if feeder.units.isEmpty && settings.repeatEachFile {
                    throw WAVError(.missingData, "nothing to play between --start and --end")
                }
                let segment = Segment(
                    position: position, path: path, streamStart: streamStart ?? feeder.startTime,
                    fileStart: ClockTime(nanoseconds: feeder.fileTime(ofStream: feeder.startTime)),
                    duration: feeder.endOfFile, warnings: feeder.file.warnings)
                return (feeder, segment)
            } catch {
                state.withLock { $0.failures.append("\(path): \(error)") }
                position += 1
            }
        }
        return nil
    }

    private func continueAfterCurrent(position: Int, appSource: AppSource) {
        let finished = state.withLock { state -> WAVFeeder? in
            guard let current = state.current, !state.currentFinished else { return nil }
            state.currentFinished = true
            return current
        }
        guard let finished else { return }  // already continued (or ended) after this file
        continueAfter(finished, position: position, appSource: appSource)
    }
}
