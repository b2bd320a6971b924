// yt-gst — what a receiver needs to reconnect inside one running pipeline: a source part that restarts, the
// decoder's new pads linked again, and an end of stream that waits for the application's word.
internal import CGStreamer

/// Signature of decodebin's "pad-added" handler.
private typealias PadAddedHandler =
    @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<GstPad>?, UnsafeMutableRawPointer?) -> Void

/// The element and pad that each new pad is linked to, kept alive by the signal handler.
private final class LinkTarget: @unchecked Sendable {
    /// An owned reference (released in deinit); used only through GStreamer's thread-safe calls.
    let element: UnsafeMutablePointer<GstElement>
    let pad: String
    init(element: UnsafeMutablePointer<GstElement>, pad: String) {
        self.element = element
        gst_object_ref(UnsafeMutableRawPointer(element))
        self.pad = pad
    }
    deinit { gst_object_unref(UnsafeMutableRawPointer(element)) }
}

extension Element {
    /// Links every pad this element adds (a decodebin's output: the first, one after a `restart()`, one for each
    /// new stream of a chained Ogg) to `target`'s pad `padName`, in place of the pad linked before.
    ///
    /// A pad added while the pipeline plays gets the pipeline's current running time as its offset, so a stream
    /// that starts again at zero continues where the output is instead of arriving late.
    ///
    /// - Note: The handler runs on a streaming thread; it only links pads.
    /// The corresponding C functions are `g_signal_connect_data` with "pad-added", `gst_pad_link` and
    /// `gst_pad_set_offset`.
    public func linkEachNewPad(to target: Element, pad padName: String) {
        let handler: PadAddedHandler = { _, pad, context in
            guard let pad, let context, pad.pointee.direction == GST_PAD_SRC else { return }
            let target = Unmanaged<LinkTarget>.fromOpaque(context).takeUnretainedValue()
            guard let sink = gst_element_get_static_pad(target.element, target.pad) else { return }
            defer { gst_object_unref(UnsafeMutableRawPointer(sink)) }
            if let old = gst_pad_get_peer(sink) {
                _ = gst_pad_unlink(old, sink)
                gst_object_unref(UnsafeMutableRawPointer(old))
            }
            let now = gst_element_get_current_running_time(target.element)
            if now != CGst_clock_time_none() { gst_pad_set_offset(pad, gint64(now)) }
            _ = gst_pad_link(pad, sink)
        }
        let context = Unmanaged.passRetained(LinkTarget(element: target.raw, pad: padName)).toOpaque()
        g_signal_connect_data(
            UnsafeMutableRawPointer(raw), "pad-added", unsafeBitCast(handler, to: GCallback.self), context,
            { context, _ in
                guard let context else { return }
                Unmanaged<LinkTarget>.fromOpaque(context).release()
            }, GConnectFlags(rawValue: 0))
    }

    /// Stops end of stream at the pad of this name and posts an application message named `messageName`
    /// instead, so the application decides whether the stream goes on (a source restarted) or ends
    /// (`pushEndOfStream(fromPad:)`).
    ///
    /// - Returns: false when the element has no such pad.
    /// The corresponding C function is `gst_pad_add_probe`.
    @discardableResult
    public func holdEndOfStream(onPad padName: String, postingMessage messageName: String) -> Bool {
        addProbe(onPad: padName, type: GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, context: messageName) {
            pad, info, context in
            guard let pad, let info, let context, let event = gst_pad_probe_info_get_event(info),
                event.pointee.type == GST_EVENT_EOS
            else { return GST_PAD_PROBE_OK }
            if let element = gst_pad_get_parent_element(pad) {
                let name = ProbeContext<String>.value(at: context)
                Element.postApplicationMessage(from: UnsafeMutableRawPointer(element), named: name)
                gst_object_unref(UnsafeMutableRawPointer(element))
            }
            return GST_PAD_PROBE_DROP
        }
    }

    /// Pushes end of stream out of the source pad of this name, past a `holdEndOfStream`, so everything
    /// downstream finishes.
    ///
    /// - Returns: whether the pad took the event.
    /// The corresponding C function is `gst_pad_push_event`.
    @discardableResult
    public func pushEndOfStream(fromPad padName: String) -> Bool {
        guard let pad = gst_element_get_static_pad(raw, padName) else { return false }
        defer { gst_object_unref(UnsafeMutableRawPointer(pad)) }
        return gst_pad_push_event(pad, gst_event_new_eos()) != 0
    }

    /// Takes the element down to NULL (a source closes its connection, a decodebin drops its pads and decoders).
    ///
    /// The corresponding C function is `gst_element_set_state`.
    public func stop() { _ = gst_element_set_state(raw, GST_STATE_NULL) }

    /// Brings a stopped element back to the state of the pipeline around it (a source connects again).
    ///
    /// - Returns: false when it could not.
    /// The corresponding C function is `gst_element_sync_state_with_parent`.
    @discardableResult
    public func resumeWithParent() -> Bool { gst_element_sync_state_with_parent(raw) != 0 }
}
