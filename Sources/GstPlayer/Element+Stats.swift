// yt-gst — reading structure-valued properties ("stats" of rtpjitterbuffer, rtpsession, srtsrc) and pads.
internal import CGStreamer

extension Element {
    /// The fields of a property whose value is a GstStructure (for example rtpjitterbuffer's or srtsrc's "stats"),
    /// each as text: strings as they are, numbers and everything else serialised ("12", "0.5", "true").
    ///
    /// - Returns: nil when there is no such property or it does not hold a structure.
    /// The corresponding C functions are `g_object_get_property` and `gst_structure_nth_field_name`.
    public func structureFields(of property: String) -> [String: String]? {
        guard let spec = g_object_class_find_property(CGst_gobject_class_of(raw), property),
            spec.pointee.value_type == gst_structure_get_type()
        else { return nil }
        var value = GValue()
        g_value_init(&value, gst_structure_get_type())
        defer { g_value_unset(&value) }
        g_object_get_property(CGst_gobject(raw), property, &value)
        guard let structure = gst_value_get_structure(&value) else { return nil }
        return Element.fields(of: structure)
    }

    /// Every field of a structure, as text by name.
    static func fields(of structure: UnsafePointer<GstStructure>) -> [String: String] {
        var result: [String: String] = [:]
        for index in 0..<gst_structure_n_fields(structure) {
            guard let name = gst_structure_nth_field_name(structure, guint(index)),
                let value = gst_structure_get_value(structure, name)
            else { continue }
            if let string = CGst_value_string(value) {
                result[String(cString: name)] = String(cString: string)
            } else {
                let serialised = gst_value_serialize(value)
                defer { g_free(serialised) }
                result[String(cString: name)] = serialised.map { String(cString: $0) } ?? ""
            }
        }
        return result
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

    /// Whether the element is a sink (it, or a sink inside it, ends the stream).
    public var isSink: Bool {
        raw.pointee.object.flags & GST_ELEMENT_FLAG_SINK.rawValue != 0
    }
}
