// yt-gst — an appsrc in memory, for testing feeding code step by step without a pipeline, in virtual time.
import GstPlayer
import Synchronization

/// A stand-in for an appsrc that records what is pushed into it, and that a test drives by hand.
///
/// Feeding code written against `AppSourceProtocol` runs on it unchanged: `needData()` calls the installed
/// `needData` callback as the appsrc's streaming thread would, `consume()` takes queued buffers as downstream
/// would, and `seek(to:)` flushes and calls `seekData` as a flushing seek does. Pushes count against `maxBytes` and
/// call `enoughData` from inside the push that fills the queue, as the real appsrc does. Everything arrives in
/// `events`, in order: caps, tags, buffers (with their timing) and the end of stream.
///
/// Time is virtual: `advance(by:)` lets time pass for a sink that plays in time with the clock (it takes the buffers
/// whose time has come, and the appsrc asks for more), so a minute of playback is tested in microseconds, the same
/// way on every run. What a pipeline would post arrives on `bus`: an error the feeding code posts, and the end of
/// stream once the sink has taken the last buffer. Nothing here touches GStreamer or sleeps. Feeding code that
/// pushes from a thread of its own is made to run on the calling thread for such a test (as `GaplessChain`'s
/// `openAhead` can be), so every step is the test's.
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
        /// Where the virtual clock stands, in stream time.
        var now = ClockTime.zero
        /// Whether the end of stream has been posted on the bus since the last seek.
        var endPosted = false
    }

    private let state = Mutex(State())
    private let synchronizes: Bool

    /// Where what a pipeline would post arrives: `.error` for `postError`, `.endOfStream` once the stream ended and
    /// the sink took its last buffer.
    public let bus: EmbeddedBus<Message>

    /// - Parameters:
    ///   - synchronizesToClock: what `pipelineSynchronizesToClock` answers (a real-time sink or not).
    ///   - bus: where to post (a new bus by default; pass one to share it with other stand-ins).
    public init(synchronizesToClock: Bool = true, bus: EmbeddedBus<Message> = EmbeddedBus()) {
        self.synchronizes = synchronizesToClock
        self.bus = bus
    }

    // MARK: What was pushed

    /// Everything that went downstream so far, in order.
    public var events: [Event] { state.withLock { $0.events } }

    /// The bytes of every buffer pushed so far, in order.
    public var bytes: [UInt8] { buffers.flatMap(\.bytes) }

    /// The buffers pushed so far.
    public var buffers: [Buffer] { events.compactMap { if case .buffer(let b) = $0 { b } else { nil } } }

    /// Whether the end of stream was signalled (and not flushed away by a seek since).
    public var isEnded: Bool { state.withLock { $0.ended } }

    /// Bytes pushed but not yet consumed.
    public var queuedBytes: Int { state.withLock { $0.queuedBytes } }

    /// The queue limit now in force.
    public var maxBytes: Int { state.withLock { $0.maxBytes } }

    /// The duration given to `configure`.
    public var duration: ClockTime? { state.withLock { $0.duration } }

    /// The virtual clock: the stream time a sink playing in time with it has reached. It starts at zero, moves only
    /// with `advance(by:)`, and a seek sets it to the seek's time.
    public var now: ClockTime { state.withLock { $0.now } }

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

    /// Takes up to `count` queued buffers, as downstream does when it does not wait for the clock.
    @discardableResult
    public func consume(_ count: Int = .max) -> [Buffer] {
        take { taken, _ in taken < count }
    }

    /// Lets `duration` of virtual time pass, as a sink that plays in time with the clock sees it: it takes, one at a
    /// time and in order, each queued buffer whose time has come (its pts at or before the new time; one without a
    /// pts at once), and after each the appsrc asks for data if its queue fell to the refill level (`needData()`),
    /// until nothing more is due. Returns what was taken.
    @discardableResult
    public func advance(by duration: Duration) -> [Buffer] {
        let target = state.withLock { state in
            state.now = ClockTime(nanoseconds: state.now.nanoseconds + ClockTime(duration).nanoseconds)
            return state.now
        }
        let isDue = { (buffer: Buffer) in buffer.timing.pts.map { $0 <= target } ?? true }
        var taken: [Buffer] = []
        for _ in 0..<100_000 {  // a bound, for feeding code that never stops pushing buffers without a time
            taken += take { count, buffer in count == 0 && isDue(buffer) }
            needData()
            guard state.withLock({ $0.queue.first.map(isDue) ?? false }) else { break }
        }
        return taken
    }

    /// A flushing seek: drops what is queued, forgets the end of stream, sets the clock to `time` and calls
    /// `seekData`.
    @discardableResult
    public func seek(to time: ClockTime) -> Bool {
        let callbacks = state.withLock { state in
            state.queue = []
            state.queuedBytes = 0
            state.ended = false
            state.endPosted = false
            state.now = time
            return state.callbacks
        }
        return callbacks?.seekData(self, time) ?? false
    }

    /// Alternates `needData()` and `consume()` until the end of stream, or until `limit` rounds passed without one.
    /// Returns whether the stream ended.
    @discardableResult
    public func runToEnd(limit: Int = 100_000) -> Bool {
        for _ in 0..<limit {
            if isEnded { return true }
            needData()
            consume()
        }
        return isEnded
    }

    /// Takes queued buffers from the front while `taking(countSoFar, next)` says so; posts the end of stream once
    /// the stream ended and the queue is empty, as the sink does on taking the last buffer.
    private func take(while taking: (Int, Buffer) -> Bool) -> [Buffer] {
        let (taken, ends) = state.withLock { state in
            var taken: [Buffer] = []
            while let next = state.queue.first, taking(taken.count, next) {
                taken.append(state.queue.removeFirst())
                state.queuedBytes -= next.bytes.count
            }
            return (taken, drainedToTheEnd(&state))
        }
        if ends { bus.post(.endOfStream()) }
        return taken
    }

    /// Whether the end of stream is now due on the bus (ended, nothing queued, not yet posted); marks it posted.
    private func drainedToTheEnd(_ state: inout State) -> Bool {
        guard state.ended, state.queue.isEmpty, !state.endPosted else { return false }
        state.endPosted = true
        return true
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
    /// With nothing queued, the sink reaches it at once: `.endOfStream` is posted on the bus.
    @discardableResult
    public func endOfStream() -> FlowResult {
        let (result, ends) = state.withLock { state -> (FlowResult, Bool) in
            if state.ended { return (.endOfStream, false) }
            state.ended = true
            state.events.append(.endOfStream)
            return (.ok, drainedToTheEnd(&state))
        }
        if ends { bus.post(.endOfStream()) }
        return result
    }

    /// Records the tags as one event, unconverted; returns how many there were (0 records nothing).
    @discardableResult
    public func pushTags(_ tags: [Message.Tag]) -> Int {
        guard !tags.isEmpty else { return 0 }
        state.withLock { $0.events.append(.tags(tags)) }
        return tags.count
    }

    /// Posts the error on the bus as an appsrc named "src" does: a read failure in GStreamer's resource domain.
    public func postError(_ message: String, debug: String?) {
        bus.post(.error(.readFailure(message, debug: debug, elementPath: "/GstPipeline:pipeline0/GstAppSrc:src")))
    }

    /// Posts the application message on the bus, as a pipeline's appsrc would.
    public func postApplicationMessage(named name: String) { bus.post(.application(name: name)) }

    /// What was given as `synchronizesToClock` at creation.
    public var pipelineSynchronizesToClock: Bool { synchronizes }

    /// Itself: a Swift object is kept by its reference count, so borrowed and kept are the same thing here.
    public func retained() -> any AppSourceProtocol { self }
}
