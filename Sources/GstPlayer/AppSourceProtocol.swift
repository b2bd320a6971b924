// yt-gst — the application's side of an appsrc, as the code that feeds it sees it: a real appsrc or a test double.

/// What feeding code uses of an appsrc: configure it, install callbacks, push buffers, tags and the end of stream.
///
/// `AppSource` is the real element; `EmbeddedAppSource` records everything in memory so that feeding logic can be
/// driven step by step in a test (as swift-nio's `EmbeddedChannel` does for channel handlers). Write feeders against
/// this protocol and they run unchanged on both.
public protocol AppSourceProtocol: AnyObject, Sendable {
    /// Configures caps, time format, access, queue size and duration before the pipeline leaves NULL.
    ///
    /// - Parameters:
    ///   - caps: the stream's format, e.g. `.rawAudio(format: .s16LE, rate: 44100, channels: 2)`.
    ///   - maxBytes: queue limit; when reached, the `enoughData` callback runs.
    ///   - refillPercent: the `needData` callback runs when the queue falls to this percentage of `maxBytes`.
    ///   - duration: the stream's length, so duration queries can answer.
    /// - Throws: `.invalidValue` when GStreamer does not take the caps (a malformed media type or field name).
    func configure(
        caps: Caps, streamType: AppSource.StreamType, maxBytes: Int, refillPercent: Int, duration: ClockTime?
    ) throws(GstError)

    /// Changes the caps mid-stream; they take effect in order, before the next buffer pushed.
    func setCaps(_ caps: Caps) throws(GstError)

    /// Changes the queue limit.
    func setMaxBytes(_ maxBytes: Int)

    /// Installs the callbacks, replacing (and releasing) any installed before.
    func setCallbacks(_ callbacks: AppSourceCallbacks)

    /// Pushes one buffer of up to `capacity` bytes that `fill` writes into, stamped with `timing` of what was written.
    ///
    /// `fill` writes straight into the buffer's memory and returns how many bytes it wrote; 0 pushes nothing.
    /// - Throws: whatever `fill` throws; nothing is pushed then.
    func push<E: Error>(
        capacity: Int, fill: (UnsafeMutableRawBufferPointer) throws(E) -> Int,
        timing: (_ written: Int) -> BufferTiming
    ) throws(E) -> FlowResult

    /// Pushes a buffer that holds no samples, stamped with `timing`: a stream that plays nothing still has a buffer
    /// go through, for the elements that finish their output only once one came (wavenc, without one, leaves its
    /// placeholder sizes in the header at the end of the stream).
    func pushEmpty(timing: BufferTiming) -> FlowResult

    /// Signals that no more data will come.
    @discardableResult
    func endOfStream() -> FlowResult

    /// Sends tags downstream, in order with the data; returns how many were sent.
    @discardableResult
    func pushTags(_ tags: [Message.Tag]) -> Int

    /// Reports a failure found while feeding (a read error) as an ERROR from this element.
    func postError(_ message: String, debug: String?)

    /// Posts an empty application message named `name` from this element (on the pipeline's bus): a streaming
    /// thread telling the session's loop something happened, without waiting for it.
    func postApplicationMessage(named name: String)

    /// Whether anything downstream plays in time with the clock (see `Element.pipelineSynchronizesToClock`).
    var pipelineSynchronizesToClock: Bool { get }

    /// The same appsrc as a reference to keep: the source a callback is given is borrowed, valid only until the
    /// callback returns (the appsrc may be freed with its pipeline after that); keep this instead.
    ///
    /// As gstreamer-rs hands callbacks a `&AppSrc` and `clone()` adds a reference.
    func retained() -> any AppSourceProtocol
}

extension AppSourceProtocol {
    /// Configures the appsrc with the default refill point (0%: `needData` runs only when the queue is empty).
    public func configure(
        caps: Caps, streamType: AppSource.StreamType, maxBytes: Int, duration: ClockTime?
    )
        throws(GstError)
    {
        try configure(caps: caps, streamType: streamType, maxBytes: maxBytes, refillPercent: 0, duration: duration)
    }

    /// Reports a failure found while feeding, with no debug text.
    public func postError(_ message: String) { postError(message, debug: nil) }
}

/// What an appsrc asks of the application, as closures (the shape of gstreamer-rs's `AppSrcCallbacks`).
///
/// - Note: The closures run on a GStreamer streaming thread (`seekData` on the thread that seeks). They must be
///   short, never block on the pipeline and never throw: report failures with `postError` or end the stream. The
///   source they are given is borrowed for the call: to use it later (from another thread), keep `retained()`.
public struct AppSourceCallbacks: Sendable {
    /// The queue is running low: push data now (the analogue of AudioQueue's buffer-empty callback). The length is
    /// a hint in bytes, or nil when the appsrc has none.
    public var needData: @Sendable (_ source: any AppSourceProtocol, _ length: Int?) -> Void
    /// The queue is full (max-bytes reached): stop pushing until the next `needData`.
    public var enoughData: @Sendable (_ source: any AppSourceProtocol) -> Void
    /// A seek: continue from the given time. Return false to refuse it.
    public var seekData: @Sendable (_ source: any AppSourceProtocol, _ time: ClockTime) -> Bool

    /// Callbacks from closures; a source that only needs `needData` ignores the rest (and refuses seeks).
    public init(
        needData: @escaping @Sendable (_ source: any AppSourceProtocol, _ length: Int?) -> Void,
        enoughData: @escaping @Sendable (_ source: any AppSourceProtocol) -> Void = { _ in },
        seekData: @escaping @Sendable (_ source: any AppSourceProtocol, _ time: ClockTime) -> Bool = { _, _ in false }
    ) {
        self.needData = needData
        self.enoughData = enoughData
        self.seekData = seekData
    }
}
