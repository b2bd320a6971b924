// yt-gst — a hook into each streaming thread of a pipeline, run on that thread as it starts.
internal import CGStreamer

extension Pipeline {
    /// Runs `body` on every streaming thread of this pipeline as it starts (each pad task as it enters its loop),
    /// on that thread: the place to set a thread's scheduling. Set it before the pipeline leaves NULL; a second
    /// call replaces the first.
    ///
    /// - Note: `body` runs on streaming threads: quick, never blocking.
    /// The corresponding C function is `gst_bus_set_sync_handler`, on `GST_STREAM_STATUS_TYPE_ENTER`, which a task
    /// posts from its new thread.
    public func whenStreamingThreadStarts(_ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(ThreadHook(body)).toOpaque()
        gst_bus_set_sync_handler(
            bus,
            { _, message, context in
                guard let message, let context, message.pointee.type == GST_MESSAGE_STREAM_STATUS else {
                    return GST_BUS_PASS
                }
                var type = GST_STREAM_STATUS_TYPE_CREATE
                gst_message_parse_stream_status(message, &type, nil)
                if type == GST_STREAM_STATUS_TYPE_ENTER {
                    Unmanaged<ThreadHook>.fromOpaque(context).takeUnretainedValue().body()
                }
                return GST_BUS_PASS
            }, context,
            { context in
                guard let context else { return }
                Unmanaged<ThreadHook>.fromOpaque(context).release()
            })
    }
}

/// The closure of `whenStreamingThreadStarts`, owned by the bus.
private final class ThreadHook: Sendable {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}
