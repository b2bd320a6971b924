// yt-gst — appsrc: the element through which an application pushes data into a pipeline.
internal import CGStreamer

/// An `appsrc` element: the real `AppSourceProtocol`, through which a `Feeder` pushes its data.
///
/// The corresponding C type is `GstAppSrc`.
public final class AppSource: Element, AppSourceProtocol, @unchecked Sendable {
    /// How the stream can be accessed, which decides whether the pipeline may seek it.
    public enum StreamType: Sendable {
        /// No seeking.
        case stream
        /// Seeking through the delegate's `seekTo` (times, with `format=time`).
        case seekable
        /// Random access by byte offset (for parsers that pull).
        case randomAccess

        var raw: GstAppStreamType {
            switch self {
            case .stream: GST_APP_STREAM_TYPE_STREAM
            case .seekable: GST_APP_STREAM_TYPE_SEEKABLE
            case .randomAccess: GST_APP_STREAM_TYPE_RANDOM_ACCESS
            }
        }
    }

    /// Configures the appsrc before the pipeline leaves NULL (see `AppSourceProtocol.configure`).
    ///
    /// The corresponding C functions are `gst_app_src_set_caps`, `gst_app_src_set_stream_type`,
    /// `gst_app_src_set_max_bytes` and `gst_app_src_set_duration`.
    public func configure(
        caps: Caps, streamType: StreamType, maxBytes: Int, refillPercent: Int, duration: ClockTime?
    ) throws(GstError) {
        let parsed = try caps.makeGstCaps()
        defer { gst_caps_unref(parsed) }
        let src = CGst_app_src(raw)
        gst_app_src_set_caps(src, parsed)
        gst_app_src_set_stream_type(src, streamType.raw)
        gst_app_src_set_max_bytes(src, guint64(maxBytes))
        gst_util_set_object_arg(CGst_gobject(raw), "format", "time")
        gst_util_set_object_arg(CGst_gobject(raw), "min-percent", String(max(0, min(refillPercent, 100))))
        gst_app_src_set_duration(src, duration?.raw ?? CGst_clock_time_none())
    }

    /// Changes the caps mid-stream (the next file of a gapless list has another format); they take effect in order,
    /// before the next buffer pushed.
    ///
    /// The corresponding C function is `gst_app_src_set_caps`.
    public func setCaps(_ caps: Caps) throws(GstError) {
        let parsed = try caps.makeGstCaps()
        defer { gst_caps_unref(parsed) }
        gst_app_src_set_caps(CGst_app_src(raw), parsed)
    }

    /// Changes the queue limit (a following file with larger chunks).
    ///
    /// The corresponding C function is `gst_app_src_set_max_bytes`.
    public func setMaxBytes(_ maxBytes: Int) { gst_app_src_set_max_bytes(CGst_app_src(raw), guint64(maxBytes)) }

    /// A wrapper that holds a reference of its own (the callbacks' wrapper holds none, see `CallbackContext`), so
    /// the appsrc outlives its pipeline for as long as the caller keeps it: pushing then just returns `.flushing`.
    ///
    /// The corresponding C function is `gst_object_ref`.
    public func retained() -> any AppSourceProtocol { AppSource(borrowing: raw) }

    /// What the appsrc keeps as its callbacks' context: the closures, and a wrapper of the appsrc itself to hand
    /// them (made once, holding no reference, since the appsrc outlives its context). That wrapper is borrowed:
    /// valid only during a callback; whoever keeps it longer must keep `retained()` instead.
    private final class CallbackContext {
        let callbacks: AppSourceCallbacks
        let source: AppSource
        init(_ callbacks: AppSourceCallbacks, source: AppSource) {
            self.callbacks = callbacks
            self.source = source
        }
    }

    /// Installs the callbacks. The appsrc keeps them alive and releases them when they are replaced or the element is
    /// destroyed (through the destroy notify), so no one else has to.
    ///
    /// The corresponding C function is `gst_app_src_set_callbacks`.
    public func setCallbacks(_ callbacks: AppSourceCallbacks) {
        var table = GstAppSrcCallbacks()
        table.need_data = { _, length, opaque in
            guard let opaque else { return }
            let context = Unmanaged<CallbackContext>.fromOpaque(opaque).takeUnretainedValue()
            context.callbacks.needData(context.source, length == UInt32.max ? nil : Int(length))
        }
        table.enough_data = { _, opaque in
            guard let opaque else { return }
            let context = Unmanaged<CallbackContext>.fromOpaque(opaque).takeUnretainedValue()
            context.callbacks.enoughData(context.source)
        }
        table.seek_data = { _, offset, opaque in
            guard let opaque else { return 0 }
            let context = Unmanaged<CallbackContext>.fromOpaque(opaque).takeUnretainedValue()
            return context.callbacks.seekData(context.source, ClockTime(nanoseconds: UInt64(offset))) ? 1 : 0
        }
        let context = CallbackContext(callbacks, source: AppSource(unretained: raw))
        gst_app_src_set_callbacks(CGst_app_src(raw), &table, Unmanaged.passRetained(context).toOpaque()) { opaque in
            guard let opaque else { return }
            Unmanaged<CallbackContext>.fromOpaque(opaque).release()
        }
    }

    /// Pushes one buffer of up to `capacity` bytes that `fill` writes into, stamped with `timing` of what was written.
    ///
    /// `fill` writes straight into the buffer's memory (no copy) and returns how many bytes it wrote; a short
    /// fill shrinks the buffer, and 0 pushes nothing. The appsrc takes the buffer either way.
    /// - Returns: what the appsrc did with it.
    /// - Throws: whatever `fill` throws; the buffer is then released and nothing is pushed.
    /// The corresponding C function is `gst_app_src_push_buffer`.
    public func push<E: Error>(
        capacity: Int, fill: (UnsafeMutableRawBufferPointer) throws(E) -> Int, timing: (_ written: Int) -> BufferTiming
    ) throws(E) -> FlowResult {
        guard let buffer = gst_buffer_new_allocate(nil, gsize(capacity), nil) else { return .error }
        var map = GstMapInfo()
        guard gst_buffer_map(buffer, &map, GST_MAP_WRITE) != 0 else {
            gst_buffer_unref(buffer)
            return .error
        }
        let written: Int
        do {
            written = try fill(UnsafeMutableRawBufferPointer(start: map.data, count: Int(map.size)))
        } catch {
            gst_buffer_unmap(buffer, &map)
            gst_buffer_unref(buffer)
            throw error
        }
        gst_buffer_unmap(buffer, &map)
        guard written > 0 else {
            gst_buffer_unref(buffer)
            return .ok
        }
        if written < capacity { gst_buffer_set_size(buffer, gssize(written)) }
        let timing = timing(written)
        CGst_buffer_set_timing(
            buffer, timing.pts?.raw ?? CGst_clock_time_none(), timing.duration?.raw ?? CGst_clock_time_none(),
            guint64(timing.offset), guint64(timing.offsetEnd))
        return FlowResult(gst_app_src_push_buffer(CGst_app_src(raw), buffer))  // takes the buffer
    }

    /// Pushes a buffer with no memory, stamped with `timing` (see `AppSourceProtocol.pushEmpty`).
    ///
    /// The corresponding C functions are `gst_buffer_new` and `gst_app_src_push_buffer`.
    public func pushEmpty(timing: BufferTiming) -> FlowResult {
        guard let buffer = gst_buffer_new() else { return .error }
        CGst_buffer_set_timing(
            buffer, timing.pts?.raw ?? CGst_clock_time_none(), timing.duration?.raw ?? CGst_clock_time_none(),
            guint64(timing.offset), guint64(timing.offsetEnd))
        return FlowResult(gst_app_src_push_buffer(CGst_app_src(raw), buffer))  // takes the buffer
    }

    /// Signals that no more data will come; the pipeline plays what is queued, then posts end of stream.
    ///
    /// The corresponding C function is `gst_app_src_end_of_stream`.
    @discardableResult
    public func endOfStream() -> FlowResult {
        FlowResult(gst_app_src_end_of_stream(CGst_app_src(raw)))
    }

    /// Posts an ERROR message from this element, for failures found on a streaming thread (e.g. a read error).
    /// The pipeline's bus then reports it like any other element error.
    ///
    /// The corresponding C function is `gst_element_message_full`.
    public func postError(_ message: String, debug: String?) {
        guard
            let error = g_error_new_literal(gst_resource_error_quark(), gint(GST_RESOURCE_ERROR_READ.rawValue), message)
        else { return }
        let msg = gst_message_new_error(CGst_object(raw), error, debug)
        g_error_free(error)
        if let msg { gst_element_post_message(raw, msg) }  // takes the message
    }

    public func postApplicationMessage(named name: String) {
        Element.postApplicationMessage(from: UnsafeMutableRawPointer(raw), named: name)
    }
}

/// Where a buffer sits in the stream: presentation time, duration and sample offsets.
public struct BufferTiming: Sendable, Equatable {
    /// When the buffer's first sample plays; nil when unknown (`GST_CLOCK_TIME_NONE`), for a parser to work out.
    public var pts: ClockTime?
    /// How long it plays; nil when unknown.
    public var duration: ClockTime?
    /// Index of the first frame in the buffer.
    public var offset: Int64
    /// Index one past the last frame.
    public var offsetEnd: Int64

    /// Timing given field by field (nil times are sent as `GST_CLOCK_TIME_NONE`).
    public init(pts: ClockTime?, duration: ClockTime?, offset: Int64, offsetEnd: Int64) {
        self.pts = pts
        self.duration = duration
        self.offset = offset
        self.offsetEnd = offsetEnd
    }

    /// When the buffer's last sample has played (pts + duration), when both are known.
    public var end: ClockTime? {
        guard let pts, let duration else { return nil }
        return ClockTime(nanoseconds: pts.nanoseconds + duration.nanoseconds)
    }

    /// Timing of frames `start..<end` at `rate`: both ends from the frame index, so no rounding accumulates.
    public init(frames range: Range<Int64>, rate: Int) {
        let pts = ClockTime(frames: range.lowerBound, rate: rate)
        let end = ClockTime(frames: range.upperBound, rate: rate)
        self.init(
            pts: pts, duration: ClockTime(nanoseconds: end.nanoseconds - pts.nanoseconds),
            offset: range.lowerBound, offsetEnd: range.upperBound)
    }
}
