// yt-gst — whether a pipeline plays in real time: do its sinks synchronise to the clock?
internal import CGStreamer

extension Element {
    /// The time of the clock this element provides (an audio sink's: its device's), nil when it provides none now
    /// (an audio sink before it opened its device) or the clock has no time.
    ///
    /// The corresponding C functions are `gst_element_provide_clock` and `gst_clock_get_time`.
    public var providedClockTime: ClockTime? {
        guard let clock = gst_element_provide_clock(raw) else { return nil }
        defer { gst_object_unref(clock) }
        let time = gst_clock_get_time(clock)
        return time == CGst_clock_time_none() ? nil : ClockTime(nanoseconds: UInt64(time))
    }

    /// Whether the pipeline this element belongs to renders in time with its clock.
    ///
    /// True when any sink synchronises (`sync=true`, the default of every base sink and of `autoaudiosink`) or
    /// cannot be asked (a sink element without a `sync` property), or an element on the way paces the data
    /// (`clocksync`, `identity sync=true`: a broadcast's encoders and network sinks run behind one). False only when
    /// every sink has `sync=false` (`fakesink sync=false`, `appsink sync=false`) and nothing paces, or there is no
    /// sink: then data goes through as fast as the elements take it, and no one hears how it is cut into buffers.
    /// Bins without a `sync` property of their own are judged by the elements inside them.
    ///
    /// - Note: Safe from any thread (iterators and property reads lock the elements).
    /// The corresponding C functions are `gst_object_get_parent`, `gst_bin_iterate_recurse` and
    /// `g_object_get_property` ("sync").
    public var pipelineSynchronizesToClock: Bool {
        var top = UnsafeMutableRawPointer(raw)
        gst_object_ref(top)
        while let parent = gst_object_get_parent(CGst_object(top)) {
            gst_object_unref(top)
            top = UnsafeMutableRawPointer(parent)
        }
        defer { gst_object_unref(top) }
        let element = top.assumingMemoryBound(to: GstElement.self)
        guard CGst_is_bin(element) != 0 else { return Self.synchronizes(element) ?? false }
        guard let iterator = gst_bin_iterate_recurse(CGst_bin(element)) else { return true }
        defer { gst_iterator_free(iterator) }
        var value = GValue()
        defer { g_value_unset(&value) }
        var synchronizes = false
        while true {
            switch gst_iterator_next(iterator, &value) {
            case GST_ITERATOR_OK:
                if let object = g_value_get_object(&value),
                    Self.synchronizes(object.assumingMemoryBound(to: GstElement.self)) == true
                {
                    synchronizes = true
                }
                g_value_reset(&value)
            case GST_ITERATOR_RESYNC:
                synchronizes = false
                gst_iterator_resync(iterator)
            case GST_ITERATOR_DONE:
                return synchronizes
            default:
                return true  // an iterator error: assume real time
            }
        }
    }

    /// For a sink: whether it synchronises (its `sync` property; true when a non-bin sink has none). For an element
    /// that is neither a sink nor a bin: whether it paces the data (a `sync` property that is true). nil for the
    /// rest: other elements, and bins without a `sync` property.
    private static func synchronizes(_ element: UnsafeMutablePointer<GstElement>) -> Bool? {
        let flags = UnsafeMutableRawPointer(element).assumingMemoryBound(to: GstObject.self).pointee.flags
        let isSink = flags & GST_ELEMENT_FLAG_SINK.rawValue != 0
        let isBin = CGst_is_bin(element) != 0
        guard let spec = g_object_class_find_property(CGst_gobject_class_of(element), "sync"),
            spec.pointee.value_type == CGst_type_boolean()
        else { return isSink && !isBin ? true : nil }
        var value = GValue()
        g_value_init(&value, CGst_type_boolean())
        defer { g_value_unset(&value) }
        g_object_get_property(CGst_gobject(element), "sync", &value)
        let sync = g_value_get_boolean(&value) != 0
        return isSink ? sync : (sync ? true : nil)
    }
}
