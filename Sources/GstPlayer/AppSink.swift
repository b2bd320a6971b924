// yt-gst — appsink: the element through which an application takes data out of a pipeline.
internal import CGStreamer

/// An `appsink` element, read by pulling samples (tests, analysers, network receivers).
///
/// The corresponding C type is `GstAppSink`.
public final class AppSink: Element, @unchecked Sendable {
    /// One buffer taken from the sink, copied out.
    public struct Sample: Sendable {
        /// The buffer's contents, copied so the sample outlives the GStreamer buffer.
        public var bytes: [UInt8]
        /// Presentation time, nil when the buffer had none.
        public var pts: ClockTime?
        /// How long the buffer plays, nil when the buffer had none.
        public var duration: ClockTime?
        /// Sample offsets (frame indexes for raw audio), nil when unset.
        public var offset: Int64?
        /// Index one past the buffer's last frame, nil when unset.
        public var offsetEnd: Int64?
        /// The caps of the stream, nil when the sample had none.
        public var caps: Caps?
        /// Who sent the buffer ("10.0.0.1"), for buffers received from the network (`udpsrc`); else nil.
        public var sourceAddress: String? = nil

        /// A sample made in Swift (a test's, standing in for a sink's).
        public init(
            bytes: [UInt8], pts: ClockTime? = nil, duration: ClockTime? = nil, offset: Int64? = nil,
            offsetEnd: Int64? = nil, caps: Caps? = nil, sourceAddress: String? = nil
        ) {
            self.bytes = bytes
            self.pts = pts
            self.duration = duration
            self.offset = offset
            self.offsetEnd = offsetEnd
            self.caps = caps
            self.sourceAddress = sourceAddress
        }
    }

    /// Waits up to `timeout` for the next buffer; nil at end of stream or on timeout (`isEndOfStream` tells which).
    ///
    /// - Parameter includingCaps: false leaves `caps` nil: a reader that has the caps already saves copying them out
    ///   for every buffer (a recorder pulls a hundred a second).
    /// The corresponding C function is `gst_app_sink_try_pull_sample`.
    public func pull(timeout: Duration, includingCaps: Bool = true) -> Sample? {
        guard let sample = gst_app_sink_try_pull_sample(CGst_app_sink(raw), ClockTime(timeout).raw) else { return nil }
        defer { gst_sample_unref(sample) }
        guard let buffer = gst_sample_get_buffer(sample) else { return nil }
        var map = GstMapInfo()
        guard gst_buffer_map(buffer, &map, GST_MAP_READ) != 0 else { return nil }
        let bytes = Array(UnsafeRawBufferPointer(start: map.data, count: Int(map.size)))
        gst_buffer_unmap(buffer, &map)
        let none = CGst_clock_time_none()
        func time(_ value: GstClockTime) -> ClockTime? { value == none ? nil : ClockTime(nanoseconds: UInt64(value)) }
        func index(_ value: guint64) -> Int64? { value == guint64.max ? nil : Int64(value) }
        return Sample(
            bytes: bytes, pts: time(CGst_buffer_pts(buffer)), duration: time(CGst_buffer_duration(buffer)),
            offset: index(CGst_buffer_offset(buffer)), offsetEnd: index(CGst_buffer_offset_end(buffer)),
            caps: includingCaps ? gst_sample_get_caps(sample).flatMap { Caps($0) } : nil,  // transfer none: copied
            sourceAddress: CGst_buffer_source_address(buffer).map { address in
                defer { g_free(address) }
                return String(cString: address)
            })
    }

    /// Whether the sink has received end of stream and every sample was pulled.
    ///
    /// The corresponding C function is `gst_app_sink_is_eos`.
    public var isEndOfStream: Bool { gst_app_sink_is_eos(CGst_app_sink(raw)) != 0 }
}
