// yt-gst — element signals the network commands need: rtpbin's payload types and BYEs, srtsink's callers.
internal import CGStreamer

/// Caps by RTP payload type, kept alive by the signal handler that answers rtpbin's request-pt-map.
private final class PayloadTable: Sendable {
    let caps: [Int: Caps]
    init(_ caps: [Int: Caps]) { self.caps = caps }
}

/// Signature of rtpbin's "request-pt-map" handler.
private typealias PayloadMapHandler =
    @convention(c) (UnsafeMutableRawPointer?, guint, guint, UnsafeMutableRawPointer?) -> UnsafeMutablePointer<GstCaps>?
/// Signature of rtpbin's "on-bye-ssrc" handler.
private typealias ByeHandler = @convention(c) (UnsafeMutableRawPointer?, guint, guint, UnsafeMutableRawPointer?) -> Void
/// Signature of rtpbin's "new-jitterbuffer" handler.
private typealias NewJitterBufferHandler =
    @convention(c) (
        UnsafeMutableRawPointer?, UnsafeMutablePointer<GstElement>?, guint, guint, UnsafeMutableRawPointer?
    ) -> Void
/// Signature of srtsink's and srtsrc's "caller-added" handler.
private typealias CallerHandler =
    @convention(c) (UnsafeMutableRawPointer?, gint, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void

extension Element {
    /// Answers an rtpbin's requests for the caps of a payload type from `table` (payload type → caps,
    /// e.g. 10 → `application/x-rtp, media=audio, clock-rate=44100, encoding-name=L16, channels=2`). Packets of a
    /// payload type that is not in the table are dropped by rtpbin.
    ///
    /// The corresponding C function is `g_signal_connect_data` with rtpbin's "request-pt-map".
    public func answerPayloadTypeRequests(from table: [Int: Caps]) {
        let handler: PayloadMapHandler = { _, _, pt, context in
            guard let context else { return nil }
            let table = Unmanaged<PayloadTable>.fromOpaque(context).takeUnretainedValue()
            return try? table.caps[Int(pt)]?.makeGstCaps()  // transfer full: the signal's return value takes it
        }
        let context = Unmanaged.passRetained(PayloadTable(table)).toOpaque()
        g_signal_connect_data(
            UnsafeMutableRawPointer(raw), "request-pt-map", unsafeBitCast(handler, to: GCallback.self), context,
            { context, _ in
                guard let context else { return }
                Unmanaged<PayloadTable>.fromOpaque(context).release()
            }, GConnectFlags(rawValue: 0))
    }

    /// Adds a destination to a `multiudpsink` (its "add" action signal: any address family, unlike its "clients"
    /// string, which splits "HOST:PORT" at the first colon).
    ///
    /// The corresponding C function is `g_signal_emit_by_name` with multiudpsink's "add".
    public func addDestination(host: String, port: Int) { CGst_multiudpsink_add(raw, host, gint(port)) }

    /// Posts an application message named `name`, with the sender's SSRC in its field `ssrc`, on the bus each time
    /// an rtpbin receives an RTCP BYE (a sender has finished), so the one loop reading the bus can end the stream.
    ///
    /// The corresponding C function is `g_signal_connect_data` with rtpbin's "on-bye-ssrc".
    public func postApplicationMessageOnBye(named name: String) {
        let handler: ByeHandler = { element, _, ssrc, context in
            guard let element, let context else { return }
            Element.postApplicationMessage(
                from: element, named: context.assumingMemoryBound(to: CChar.self), ssrc: ssrc)
        }
        let context = UnsafeMutableRawPointer(g_strdup(name))
        g_signal_connect_data(
            UnsafeMutableRawPointer(raw), "on-bye-ssrc", unsafeBitCast(handler, to: GCallback.self), context,
            { context, _ in g_free(context) }, GConnectFlags(rawValue: 0))
    }

    /// Makes every jitter buffer this rtpbin creates from now on start on its first packet (`faststart-min-packets`
    /// 1), instead of holding it for its whole latency in case earlier packets come late: for an output that plays
    /// already, to which the first packet must come as early before its time as every later one does.
    ///
    /// The corresponding C function is `g_signal_connect_data` with rtpbin's "new-jitterbuffer".
    public func startJitterBuffersOnFirstPacket() {
        let handler: NewJitterBufferHandler = { _, jitterBuffer, _, _, _ in
            guard let jitterBuffer else { return }
            try? Element(borrowing: jitterBuffer).set("faststart-min-packets", to: 1)
        }
        g_signal_connect_data(
            UnsafeMutableRawPointer(raw), "new-jitterbuffer", unsafeBitCast(handler, to: GCallback.self), nil, nil,
            GConnectFlags(rawValue: 0))
    }

    /// Posts an application message named `name` on the bus when an SRT listener (srtsink or srtsrc) accepts
    /// a caller.
    ///
    /// The corresponding C function is `g_signal_connect_data` with the "caller-added" signal.
    public func postApplicationMessageOnCallerAdded(named name: String) {
        let handler: CallerHandler = { element, _, _, context in
            guard let element, let context else { return }
            Element.postApplicationMessage(from: element, named: context.assumingMemoryBound(to: CChar.self))
        }
        g_signal_connect_data(
            UnsafeMutableRawPointer(raw), "caller-added", unsafeBitCast(handler, to: GCallback.self),
            UnsafeMutableRawPointer(g_strdup(name)), { context, _ in g_free(context) }, GConnectFlags(rawValue: 0))
    }

    /// Posts an application message from `element`, empty or with an `ssrc` field (called on the thread that emits
    /// a signal).
    static func postApplicationMessage(
        from element: UnsafeMutableRawPointer, named name: UnsafePointer<CChar>, ssrc: guint? = nil
    ) {
        guard let structure = gst_structure_new_empty(name) else { return }
        if let ssrc {
            var value = GValue()
            g_value_init(&value, CGst_type_uint())
            g_value_set_uint(&value, ssrc)
            gst_structure_take_value(structure, "ssrc", &value)
        }
        guard let message = gst_message_new_application(CGst_object(element), structure) else { return }
        _ = gst_element_post_message(element.assumingMemoryBound(to: GstElement.self), message)  // takes it
    }
}
