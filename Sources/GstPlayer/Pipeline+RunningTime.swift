// yt-gst — a running time that goes on through pauses and jumps: what a sender that others follow needs.
internal import CGStreamer

extension Pipeline {
    /// Keeps the base time as it is from now on: a pause or a flushing seek no longer starts the running time
    /// again, so it keeps counting the clock. Call it while PLAYING (the base time is chosen on the way there).
    ///
    /// A stream others follow (RTP timestamps that count the clock, a GDP segment a receiver plays by) must not step
    /// back; the application then places the audio that follows a pause or a jump with `Element.setOffset(ofPad:to:)`.
    /// The corresponding C function is `gst_element_set_start_time` (NONE).
    public func keepRunningTime() { gst_element_set_start_time(raw, CGst_clock_time_none()) }

    /// Before a flushing seek that starts `source`'s segment again at 0: keeps the running time going
    /// (`keepRunningTime`) and places what the source sends next at the present moment plus `margin` (the time the
    /// pipeline takes to fill again), so the stream goes on forward in running time (RTP timestamps, muxers and
    /// receivers that never see it step back). Does nothing before the pipeline has a running time.
    public func continueAfterFlush(of source: Element, pad: String = "src", margin: Duration) {
        guard let now = runningTime else { return }
        keepRunningTime()
        source.setOffset(ofPad: pad, to: .nanoseconds(Int64(now.nanoseconds)) + margin)
    }

    /// The pipeline's running time now (its clock's time less its base time); nil without a clock.
    ///
    /// The corresponding C function is `gst_element_get_current_running_time`.
    public var runningTime: ClockTime? {
        let time = gst_element_get_current_running_time(raw)
        return time == CGst_clock_time_none() ? nil : ClockTime(nanoseconds: UInt64(time))
    }
}

extension Element {
    /// The running time added to every buffer and segment that leaves the pad of this name (nil: no such pad).
    ///
    /// The corresponding C function is `gst_pad_get_offset`.
    public func offset(ofPad padName: String) -> Duration? {
        guard let pad = gst_element_get_static_pad(raw, padName) else { return nil }
        defer { gst_object_unref(UnsafeMutableRawPointer(pad)) }
        return .nanoseconds(gst_pad_get_offset(pad))
    }

    /// Moves every buffer and segment that leaves the pad of this name `offset` later in running time, from the
    /// next one on (the pad sends its segment again).
    ///
    /// - Returns: false when the element has no such pad.
    /// The corresponding C function is `gst_pad_set_offset`.
    @discardableResult
    public func setOffset(ofPad padName: String, to offset: Duration) -> Bool {
        guard let pad = gst_element_get_static_pad(raw, padName) else { return false }
        defer { gst_object_unref(UnsafeMutableRawPointer(pad)) }
        let (seconds, attoseconds) = offset.components
        gst_pad_set_offset(pad, gint64(seconds) * 1_000_000_000 + gint64(attoseconds / 1_000_000_000))
        return true
    }

    /// Seeks this source alone to `start` without flushing: what went downstream plays out, and the new segment
    /// follows it in running time, so encoders, muxers and network sinks downstream see one continuous stream.
    ///
    /// - Throws: `.unsupported` when the element refuses.
    /// The corresponding C function is `gst_element_seek` (without `GST_SEEK_FLAG_FLUSH`).
    public func seekWithoutFlush(to start: ClockTime) throws(GstError) {
        let ok = gst_element_seek(
            raw, 1.0, GST_FORMAT_TIME, GST_SEEK_FLAG_ACCURATE, GST_SEEK_TYPE_SET, gint64(start.nanoseconds),
            GST_SEEK_TYPE_NONE, -1)
        guard ok != 0 else { throw GstError(kind: .unsupported, message: "\(name) cannot seek to \(start)") }
    }
}
