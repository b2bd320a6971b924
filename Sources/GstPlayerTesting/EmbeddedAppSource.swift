// yt-gst — an appsrc in memory, for testing feeding code step by step without a pipeline.
import Glibc
import GstPlayer
import Synchronization

/// A stand-in for an appsrc that records what is pushed into it, and that a test drives by hand.
///
/// Feeding code written against `AppSourceProtocol` runs on it unchanged: `needData()` calls the installed
/// `needData` callback as the appsrc's streaming thread would, `consume()` takes queued buffers as downstream
/// would, and `seek(to:)` flushes and calls `seekData` as a flushing seek does. Pushes count against `maxBytes` and
/// call `enoughData` from inside the push that fills the queue, as the real appsrc does. Everything arrives in
/// `events`, in order: caps, tags, buffers (with their timing) and the end of stream. Nothing here touches
/// GStreamer, so a test runs in microseconds.
///
/// - Note: Thread-safe; callbacks run on the thread that calls the driving method (or on whatever thread the feeding
///   code pushes from).
public final class EmbeddedAppSource: AppSourceProtocol, Sendable {
    /// A buffer as pushed.
    public struct Buffer: Sendable, Equatable {
        /// What `fill` wrote, and only that (a short fill is not padded).
        public var bytes: [UInt8]
        /// The timing the pusher stamped on it.
        public var timing: BufferTiming
    }

    /// Something that went downstream, in order.
    public enum Event: Sendable, Equatable {
        /// Caps set by `configure` or `setCaps`.
        case caps(Caps)
        /// Tags sent by `pushTags` (never empty).
        case tags([Message.Tag])
        /// A buffer pushed with at least one byte, or one pushed by `pushEmpty` (with none).
        case buffer(Buffer)
        /// The end of stream, signalled once.
        case endOfStream
    }

    private struct State {
        var callbacks: AppSourceCallbacks?
        var events: [Event] = []
        var queuedBytes = 0
        var queue: [Buffer] = []
        var maxBytes = 200_000
        var refillPercent = 0
        var streamType: AppSource.StreamType = .stream
        var duration: ClockTime?
        var ended = false
        var flushing = false
        var errors: [String] = []
    }

    private let state = Mutex(State())
    private let synchronizes: Bool

    /// - Parameter synchronizesToClock: what `pipelineSynchronizesToClock` answers (a real-time sink or not).
    public init(synchronizesToClock: Bool = true) { self.synchronizes = synchronizesToClock }

    // MARK: What was pushed

    /// Everything that went downstream so far, in order.
    public var events: [Event] { state.withLock { $0.events } }

    /// The bytes of every buffer pushed so far, in order.
    public var bytes: [UInt8] { buffers.flatMap(\.bytes) }

    /// The buffers pushed so far.
    public var buffers: [Buffer] { events.compactMap { if case .buffer(let b) = $0 { b } else { nil } } }

    /// Whether the end of stream was signalled (and not flushed away by a seek since).
    public var isEnded: Bool { state.withLock { $0.ended } }

    /// Errors posted by the feeding code.
    public var errors: [String] { state.withLock { $0.errors } }

    /// Bytes pushed but not yet consumed.
    public var queuedBytes: Int { state.withLock { $0.queuedBytes } }

    /// The queue limit now in force.
    public var maxBytes: Int { state.withLock { $0.maxBytes } }

    /// The duration given to `configure`.
    public var duration: ClockTime? { state.withLock { $0.duration } }

    // MARK: Driving it

    /// Calls the `needData` callback, as the appsrc does when its queue has fallen to the refill level
    /// (`refillPercent` of `maxBytes`; empty when it is 0); does nothing while the queue is fuller, or after the end.
    public func needData() {
        let callbacks = state.withLock { state -> AppSourceCallbacks? in
            guard !state.ended, state.queuedBytes <= state.maxBytes * state.refillPercent / 100 else { return nil }
            return state.callbacks
        }
        callbacks?.needData(self, nil)
    }

    /// Takes up to `count` queued buffers, as downstream does.
    @discardableResult
    public func consume(_ count: Int = .max) -> [Buffer] {
        state.withLock { state in
            let taken = Array(state.queue.prefix(count))
            state.queue.removeFirst(taken.count)
            state.queuedBytes -= taken.reduce(0) { $0 + $1.bytes.count }
            return taken
        }
    }

    /// A flushing seek: drops what is queued, forgets the end of stream and calls `seekData`.
    @discardableResult
    public func seek(to time: ClockTime) -> Bool {
        let callbacks = state.withLock { state in
            state.queue = []
            state.queuedBytes = 0
            state.ended = false
            return state.callbacks
        }
        return callbacks?.seekData(self, time) ?? false
    }

    /// Alternates `needData()` and `consume()` until the end of stream, or until `limit` rounds passed without one.
    /// Returns whether the stream ended. Feeding code that pushes from another thread gets `pause` between rounds.
    @discardableResult
    public func runToEnd(limit: Int = 100_000, pause: Duration = .zero) -> Bool {
        for _ in 0..<limit {
            if isEnded { return true }
            needData()
            consume()
            if pause > .zero { Self.sleep(pause) }
        }
        return isEnded
    }

    private static func sleep(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var time = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        nanosleep(&time, nil)
    }

    // MARK: AppSourceProtocol

    /// Records the caps as an event and keeps the stream type, queue limit and duration (the refill point is ignored:
    /// a test decides when to call `needData()`).
    public func configure(
        caps: Caps, streamType: AppSource.StreamType, maxBytes: Int, refillPercent: Int, duration: ClockTime?
    ) throws(GstError) {
        try setCaps(caps)
        state.withLock {
            $0.streamType = streamType
            $0.maxBytes = maxBytes
            $0.refillPercent = max(0, min(refillPercent, 100))
            $0.duration = duration
        }
    }

    /// Records the caps as an event; it never throws, since nothing here hands caps to GStreamer.
    public func setCaps(_ caps: Caps) throws(GstError) {
        state.withLock { $0.events.append(.caps(caps)) }
    }

    /// Changes the queue limit that the next pushes count against.
    public func setMaxBytes(_ maxBytes: Int) { state.withLock { $0.maxBytes = maxBytes } }

    /// Installs the callbacks that the driving methods call, replacing any installed before.
    public func setCallbacks(_ callbacks: AppSourceCallbacks) { state.withLock { $0.callbacks = callbacks } }

    /// Records one buffer of what `fill` wrote and queues it; calls `enoughData` when the queue reaches `maxBytes`.
    ///
    /// - Returns: `.endOfStream` after the end of stream was signalled (nothing is recorded), else `.ok`.
    /// - Throws: whatever `fill` throws; nothing is recorded then.
    public func push<E: Error>(
        capacity: Int, fill: (UnsafeMutableRawBufferPointer) throws(E) -> Int,
        timing: (_ written: Int) -> BufferTiming
    ) throws(E) -> FlowResult {
        if let refused = state.withLock({ $0.ended ? FlowResult.endOfStream : nil }) { return refused }
        let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 16)
        defer { memory.deallocate() }
        memory.initializeMemory(as: UInt8.self, repeating: 0)
        let written = try fill(memory)
        guard written > 0 else { return .ok }
        let bytes = [UInt8](memory[0..<written])
        let buffer = Buffer(bytes: bytes, timing: timing(written))
        let (full, callbacks) = state.withLock { state in
            state.events.append(.buffer(buffer))
            state.queue.append(buffer)
            state.queuedBytes += written
            return (state.queuedBytes >= state.maxBytes, state.callbacks)
        }
        if full { callbacks?.enoughData(self) }
        return .ok
    }

    /// Records an empty buffer (see `AppSourceProtocol.pushEmpty`).
    public func pushEmpty(timing: BufferTiming) -> FlowResult {
        state.withLock { state in
            if state.ended { return .endOfStream }
            state.events.append(.buffer(Buffer(bytes: [], timing: timing)))
            return .ok
        }
    }

    /// Records the end of stream; a second call records nothing and returns `.endOfStream`, as the appsrc does.
    @discardableResult
    public func endOfStream() -> FlowResult {
        state.withLock { state in
            if state.ended { return .endOfStream }
            state.ended = true
            state.events.append(.endOfStream)
            return .ok
        }
    }

    /// Records the tags as one event, unconverted; returns how many there were (0 records nothing).
    @discardableResult
    public func pushTags(_ tags: [Message.Tag]) -> Int {
        guard !tags.isEmpty else { return 0 }
        state.withLock { $0.events.append(.tags(tags)) }
        return tags.count
    }

    /// Records the error's message in `errors` (the debug text is dropped).
    public func postError(_ message: String, debug: String?) { state.withLock { $0.errors.append(message) } }

    /// What was given as `synchronizesToClock` at creation.
    public var pipelineSynchronizesToClock: Bool { synchronizes }

    /// Itself: a Swift object is kept by its reference count, so borrowed and kept are the same thing here.
    public func retained() -> any AppSourceProtocol { self }
}
