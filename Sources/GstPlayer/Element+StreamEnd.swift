// yt-gst — an in-band end-of-stream marker for transports that lose EOS (GDP does not carry it over SRT).
internal import CGStreamer

extension Element {
    /// Just before end of stream leaves the pad of this name, sends a custom downstream event named `marker`,
    /// so a receiver can tell "the sender finished" from "the connection closed".
    ///
    /// - Returns: false when the element has no such pad.
    /// The corresponding C functions are `gst_pad_add_probe` and `gst_event_new_custom`.
    @discardableResult
    public func sendMarkerBeforeEndOfStream(onPad padName: String, named marker: String) -> Bool {
        addProbe(onPad: padName, type: GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, context: marker) { pad, info, context in
            guard let pad, let info, let context, let event = gst_pad_probe_info_get_event(info),
                event.pointee.type == GST_EVENT_EOS,
                let structure = ProbeContext<String>.value(at: context).withCString({ gst_structure_new_empty($0) }),
                let marker = gst_event_new_custom(GST_EVENT_CUSTOM_DOWNSTREAM, structure)
            else { return GST_PAD_PROBE_OK }
            // Ahead of the EOS, in the same stream: into a sink pad as if from upstream, out of a source pad.
            if pad.pointee.direction == GST_PAD_SINK {
                _ = gst_pad_send_event(pad, marker)
            } else {
                _ = gst_pad_push_event(pad, marker)
            }
            return GST_PAD_PROBE_OK
        }
    }

    /// When an event named `marker` passes the pad of this name, posts an application message
    /// named `messageName` and turns the marker into end of stream, so everything downstream finishes.
    ///
    /// - Returns: false when the element has no such pad.
    /// The corresponding C function is `gst_pad_add_probe`.
    @discardableResult
    public func endStreamAtMarker(
        onPad padName: String, named marker: String, postingMessage messageName: String
    ) -> Bool {
        let names = (marker: marker, message: messageName)
        return addProbe(onPad: padName, type: GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, context: names) {
            pad, info, context in
            guard let pad, let info, let context, let event = gst_pad_probe_info_get_event(info),
                event.pointee.type != GST_EVENT_EOS, let structure = gst_event_get_structure(event)
            else { return GST_PAD_PROBE_OK }
            let names = ProbeContext<(marker: String, message: String)>.value(at: context)
            // Matched by name only: after GDP the event's type is no longer CUSTOM_DOWNSTREAM.
            guard String(cString: gst_structure_get_name(structure)) == names.marker else { return GST_PAD_PROBE_OK }
            if let element = gst_pad_get_parent_element(pad) {
                Element.postApplicationMessage(from: UnsafeMutableRawPointer(element), named: names.message)
                gst_object_unref(UnsafeMutableRawPointer(element))
            }
            _ = gst_pad_push_event(pad, gst_event_new_eos())
            return GST_PAD_PROBE_DROP
        }
    }
}
