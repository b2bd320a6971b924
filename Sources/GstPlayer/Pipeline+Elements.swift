// yt-gst — finding elements inside a pipeline (also inside bins such as rtpbin) and ending live pipelines.
internal import CGStreamer

extension Pipeline {
    /// Every element in the pipeline, at any depth, in no particular order.
    ///
    /// The corresponding C function is `gst_bin_iterate_recurse`.
    public func allElements() -> [Element] {
        var result: [Element] = []
        guard let iterator = gst_bin_iterate_recurse(CGst_bin(raw)) else { return result }
        defer { gst_iterator_free(iterator) }
        var value = GValue()
        var done = false
        while !done {
            switch gst_iterator_next(iterator, &value) {
            case GST_ITERATOR_OK:
                if let object = g_value_get_object(&value) {
                    result.append(Element(borrowing: object.assumingMemoryBound(to: GstElement.self)))
                }
                g_value_reset(&value)
            case GST_ITERATOR_RESYNC:
                result.removeAll()
                gst_iterator_resync(iterator)
            default:
                done = true
            }
        }
        g_value_unset(&value)
        return result
    }

    /// The elements made by this factory ("rtpjitterbuffer", "udpsrc"), at any depth.
    ///
    /// The corresponding C functions are `gst_bin_iterate_recurse` and `gst_element_get_factory`.
    public func elements(madeBy factory: String) -> [Element] {
        allElements().filter { $0.factoryName == factory }
    }

    /// Asks every source to end the stream. The pipeline posts `.endOfStream` once every sink has finished;
    /// a live pipeline (network sources) ends no other way.
    ///
    /// The corresponding C function is `gst_element_send_event` with `gst_event_new_eos`.
    public func sendEndOfStream() {
        _ = gst_element_send_event(raw, gst_event_new_eos())
    }

    /// The latency the pipeline settled on (what a live pipeline waits before a sample is rendered), if known.
    ///
    /// The corresponding C function is `gst_pipeline_get_latency` (set when the pipeline distributes latency).
    public var configuredLatency: ClockTime? {
        let value = gst_pipeline_get_latency(UnsafeMutableRawPointer(raw).assumingMemoryBound(to: GstPipeline.self))
        return value == CGst_clock_time_none() ? nil : ClockTime(nanoseconds: UInt64(value))
    }
}
