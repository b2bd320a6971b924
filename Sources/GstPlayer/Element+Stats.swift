// yt-gst — structure-valued properties ("stats" of rtpjitterbuffer, rtpsession, srtsrc read; a pipewiresink's
// "stream-properties" added to) and pads.
internal import CGStreamer

extension Element {
    /// The value of a property that holds a GstStructure (rtpjitterbuffer's, rtpsession's or srtsink's "stats"),
    /// with typed fields.
    ///
    /// - Returns: nil when there is no such property or it does not hold a structure.
    /// The corresponding C function is `g_object_get_property`.
    public func structure(of property: String) -> Structure? {
        guard let spec = g_object_class_find_property(CGst_gobject_class_of(raw), property),
            spec.pointee.value_type == gst_structure_get_type()
        else { return nil }
        var value = GValue()
        g_value_init(&value, gst_structure_get_type())
        defer { g_value_unset(&value) }
        g_object_get_property(CGst_gobject(raw), property, &value)
        return gst_value_get_structure(&value).map { Structure($0) }
    }

    /// Sets the string field `field` of the structure-valued property `property` to `value`, keeping the fields it
    /// has (a new structure named as the property where it holds none).
    ///
    /// - Throws: `.notFound` when there is no such property; `.invalidValue` when it holds no structure.
    /// The corresponding C functions are `g_object_get_property`, `gst_structure_set_value`, `g_object_set_property`.
    public func set(_ field: String, to value: String, inStructure property: String) throws(GstError) {
        guard try requireProperty(property).pointee.value_type == gst_structure_get_type() else {
            throw GstError(
                kind: .invalidValue, message: "property \"\(property)\" of \"\(name)\" holds no structure")
        }
        var structureValue = GValue()
        g_value_init(&structureValue, gst_structure_get_type())
        defer { g_value_unset(&structureValue) }
        g_object_get_property(CGst_gobject(raw), property, &structureValue)
        let structure =
            gst_value_get_structure(&structureValue).map { gst_structure_copy($0) } ?? gst_structure_new_empty(property)
        var fieldValue = GValue()
        g_value_init(&fieldValue, CGst_type_string())
        defer { g_value_unset(&fieldValue) }
        g_value_set_string(&fieldValue, value)
        gst_structure_set_value(structure, field, &fieldValue)
        gst_value_set_structure(&structureValue, structure)
        gst_structure_free(structure)
        g_object_set_property(CGst_gobject(raw), property, &structureValue)
    }

    /// Whether the pad of this name is linked to another pad.
    ///
    /// The corresponding C function is `gst_pad_is_linked`.
    public func isPadLinked(_ padName: String) -> Bool {
        guard let pad = gst_element_get_static_pad(raw, padName) else { return false }
        defer { gst_object_unref(UnsafeMutableRawPointer(pad)) }
        return gst_pad_is_linked(pad) != 0
    }

    /// Whether end of stream has passed through the pad of this name (its sticky EOS event is set).
    ///
    /// The corresponding C function is `gst_pad_get_sticky_event`.
    public func padHasSeenEndOfStream(_ padName: String) -> Bool {
        guard let pad = gst_element_get_static_pad(raw, padName) else { return false }
        defer { gst_object_unref(UnsafeMutableRawPointer(pad)) }
        guard let event = gst_pad_get_sticky_event(pad, GST_EVENT_EOS, 0) else { return false }
        gst_event_unref(event)
        return true
    }

    /// Sends end of stream into the pad of this name, as if it came from upstream, so everything downstream
    /// finishes (a `wavenc` writes its header) even when the source upstream can no longer send it.
    ///
    /// - Returns: whether the pad accepted the event.
    /// The corresponding C function is `gst_pad_send_event`.
    @discardableResult
    public func sendEndOfStream(intoPad padName: String) -> Bool {
        guard let pad = gst_element_get_static_pad(raw, padName) else { return false }
        defer { gst_object_unref(UnsafeMutableRawPointer(pad)) }
        return gst_pad_send_event(pad, gst_event_new_eos()) != 0
    }

    /// Sends a stream start and `caps` into the pad of this name, as if a stream of that format came from upstream,
    /// so that the elements downstream negotiate, and an audio sink opens its device, before any data comes.
    ///
    /// - Returns: whether the pad took both events.
    /// The corresponding C functions are `gst_event_new_stream_start`, `gst_event_new_caps`, `gst_pad_send_event`.
    @discardableResult
    public func announce(_ caps: Caps, intoPad padName: String) -> Bool {
        guard let pad = gst_element_get_static_pad(raw, padName) else { return false }
        defer { gst_object_unref(UnsafeMutableRawPointer(pad)) }
        guard let format = try? caps.makeGstCaps() else { return false }
        defer { gst_caps_unref(format) }
        return gst_pad_send_event(pad, gst_event_new_stream_start("announced")) != 0
            && gst_pad_send_event(pad, gst_event_new_caps(format)) != 0
    }

    /// Whether the element is a sink (it, or a sink inside it, ends the stream).
    ///
    /// The corresponding C macro is `GST_OBJECT_FLAG_IS_SET` with `GST_ELEMENT_FLAG_SINK`.
    public var isSink: Bool {
        raw.pointee.object.flags & GST_ELEMENT_FLAG_SINK.rawValue != 0
    }
}
