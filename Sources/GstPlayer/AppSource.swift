// yt-gst — appsrc: the element through which an application pushes data into a pipeline.
internal import CGStreamer

/// What an appsrc asks of the application that feeds it.
///
/// - Note: Every method is called on a GStreamer streaming thread (or the thread that seeks). They must be short,
///   never block on the pipeline and never throw: report failures with `AppSource.postError` or end the stream.
public protocol AppSourceDelegate: AnyObject, Sendable {
    /// The appsrc's queue is running low: push data now (the analogue of AudioQueue's buffer-empty callback).
    /// `length` is a hint in bytes, or nil when the appsrc has no preference.
    func appSourceNeedsData(_ source: AppSource, length: Int?)
    /// The queue is full (max-bytes reached): stop pushing until the next need-data.
    func appSourceHasEnoughData(_ source: AppSource)
    /// A seek: continue from `time`. Return false to refuse it.
    func appSource(_ source: AppSource, seekTo time: ClockTime) -> Bool
}

/// An `appsrc` element.
public final class AppSource: Element, @unchecked Sendable {
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

    /// What happened to a pushed buffer.
    public enum FlowResult: Sendable, Equatable {
        /// Queued.
        case ok
        /// The appsrc is flushing (a seek or stop is under way): stop pushing for now.
        case flushing
        /// The appsrc already had end of stream.
        case endOfStream
        /// Any other flow return, by name.
        case other(String)

        init(_ raw: GstFlowReturn) {
            switch raw {
            case GST_FLOW_OK: self = .ok
            case GST_FLOW_FLUSHING: self = .flushing
            case GST_FLOW_EOS: self = .endOfStream
            default: self = .other(String(cString: gst_flow_get_name(raw)))
            }
        }
    }

    /// Configures the appsrc before the pipeline leaves NULL: caps, time format, access, queue size, duration.
    ///
    /// - Parameters:
    ///   - caps: caps in text form, e.g. "audio/x-raw,format=S16LE,rate=44100,channels=2,layout=interleaved".
    ///   - maxBytes: queue limit; when reached the appsrc calls `appSourceHasEnoughData`.
    ///   - refillPercent: need-data is called when the queue falls to this percentage of `maxBytes`.
    ///   - duration: the stream's length, so duration queries can answer.
    /// - Throws: `.invalidValue` when the caps do not parse.
    public func configure(
        caps: String, streamType: StreamType, maxBytes: Int, refillPercent: Int = 0, duration: ClockTime?
    ) throws(GstError) {
        guard let parsed = gst_caps_from_string(caps) else {
            throw GstError(kind: .invalidValue, message: "invalid caps \"\(caps)\"")
        }
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
    public func setCaps(_ caps: String) throws(GstError) {
        guard let parsed = gst_caps_from_string(caps) else {
            throw GstError(kind: .invalidValue, message: "invalid caps \"\(caps)\"")
        }
        defer { gst_caps_unref(parsed) }
        gst_app_src_set_caps(CGst_app_src(raw), parsed)
    }

    /// Changes the queue limit (a following file with larger chunks).
    ///
    /// The corresponding C function is `gst_app_src_set_max_bytes`.
    public func setMaxBytes(_ maxBytes: Int) { gst_app_src_set_max_bytes(CGst_app_src(raw), guint64(maxBytes)) }

    /// Installs the delegate. The appsrc keeps it alive and releases it when the callbacks are replaced or the
    /// element is destroyed (through the destroy notify), so no one else has to.
    ///
    /// The corresponding C function is `gst_app_src_set_callbacks`.
    public func setDelegate(_ delegate: some AppSourceDelegate) {
        var callbacks = GstAppSrcCallbacks()
        callbacks.need_data = { src, length, context in
            guard let src, let context else { return }
            let delegate = Unmanaged<AnyObject>.fromOpaque(context).takeUnretainedValue() as! any AppSourceDelegate
            delegate.appSourceNeedsData(
                AppSource(borrowing: UnsafeMutableRawPointer(src).assumingMemoryBound(to: GstElement.self)),
                length: length == UInt32.max ? nil : Int(length))
        }
        callbacks.enough_data = { src, context in
            guard let src, let context else { return }
            let delegate = Unmanaged<AnyObject>.fromOpaque(context).takeUnretainedValue() as! any AppSourceDelegate
            delegate.appSourceHasEnoughData(
                AppSource(borrowing: UnsafeMutableRawPointer(src).assumingMemoryBound(to: GstElement.self)))
        }
        callbacks.seek_data = { src, offset, context in
            guard let src, let context else { return 0 }
            let delegate = Unmanaged<AnyObject>.fromOpaque(context).takeUnretainedValue() as! any AppSourceDelegate
            let accepted = delegate.appSource(
                AppSource(borrowing: UnsafeMutableRawPointer(src).assumingMemoryBound(to: GstElement.self)),
                seekTo: ClockTime(nanoseconds: UInt64(offset)))
            return accepted ? 1 : 0
        }
        let context = Unmanaged<AnyObject>.passRetained(delegate).toOpaque()
        gst_app_src_set_callbacks(CGst_app_src(raw), &callbacks, context) { context in
            guard let context else { return }
            Unmanaged<AnyObject>.fromOpaque(context).release()
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
        guard let buffer = gst_buffer_new_allocate(nil, gsize(capacity), nil) else {
            return .other("allocation failed")
        }
        var map = GstMapInfo()
        guard gst_buffer_map(buffer, &map, GST_MAP_WRITE) != 0 else {
            gst_buffer_unref(buffer)
            return .other("map failed")
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
            buffer, timing.pts.raw, timing.duration.raw, guint64(timing.offset), guint64(timing.offsetEnd))
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
    public func postError(_ message: String, debug: String? = nil) {
        guard
            let error = g_error_new_literal(gst_resource_error_quark(), gint(GST_RESOURCE_ERROR_READ.rawValue), message)
        else { return }
        let msg = gst_message_new_error(CGst_object(raw), error, debug)
        g_error_free(error)
        if let msg { gst_element_post_message(raw, msg) }  // takes the message
    }
}

/// Where a buffer sits in the stream: presentation time, duration and sample offsets.
public struct BufferTiming: Sendable, Equatable {
    public var pts: ClockTime
    public var duration: ClockTime
    /// Index of the first frame in the buffer.
    public var offset: Int64
    /// Index one past the last frame.
    public var offsetEnd: Int64

    public init(pts: ClockTime, duration: ClockTime, offset: Int64, offsetEnd: Int64) {
        self.pts = pts
        self.duration = duration
        self.offset = offset
        self.offsetEnd = offsetEnd
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
