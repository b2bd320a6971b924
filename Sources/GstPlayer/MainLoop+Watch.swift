// yt-gst — a descriptor watched on the main loop: its handler runs on the loop's thread whenever it is readable.
internal import CGStreamer
import Synchronization

extension MainLoop {
    /// A descriptor watched, or a call due, on GLib's default main context until `cancel()` (or until it is
    /// released).
    ///
    /// The corresponding C functions are `g_unix_fd_add_full`, `g_timeout_add_full` and `g_source_destroy`.
    /// - Note: Sendable: removing a source from the default context is thread-safe, and the id is taken once.
    public final class Watch: Sendable {
        private let sourceID: Atomic<UInt32>

        init(sourceID: guint) { self.sourceID = Atomic(sourceID) }

        /// Stops watching; the handler is released. Calling it again, or after a one-shot call ran, does nothing.
        public func cancel() {
            let id = sourceID.exchange(0, ordering: .relaxed)
            // Looked up first: a one-shot source is gone once it ran (GLib ids are not reused until they wrap).
            if id != 0, let source = g_main_context_find_source_by_id(nil, id) { g_source_destroy(source) }
        }

        deinit { cancel() }
    }

    /// Calls `handler` on the loop's thread, from `wait(for:until:)`, each time `descriptor` is readable (or hung
    /// up); keep the returned watch for as long as it should be watched. With `writable`, each time it can be
    /// written instead (a socket whose peer was slow to read: cancel the watch once the queue is written).
    public static func watch(_ descriptor: Int32, writable: Bool = false, handler: @escaping () -> Void) -> Watch {
        let box = Unmanaged.passRetained(HandlerBox(handler)).toOpaque()
        let condition = GIOCondition(
            rawValue: (writable ? G_IO_OUT.rawValue : G_IO_IN.rawValue) | G_IO_HUP.rawValue | G_IO_ERR.rawValue)
        let id = g_unix_fd_add_full(
            G_PRIORITY_DEFAULT, descriptor, condition,
            { _, _, context in
                Unmanaged<HandlerBox>.fromOpaque(context!).takeUnretainedValue().handler()
                return gboolean(1)  // G_SOURCE_CONTINUE
            }, box, { Unmanaged<HandlerBox>.fromOpaque($0!).release() })
        return Watch(sourceID: id)
    }

    /// Calls `handler` once on the loop's thread, from `wait(for:until:)`, after `delay` (zero: at the loop's next
    /// turn, after what is ready now); cancel the returned watch to call it off.
    public static func after(_ delay: Duration, handler: @escaping () -> Void) -> Watch {
        let box = Unmanaged.passRetained(HandlerBox(handler)).toOpaque()
        let milliseconds = guint(min(max(0, (delay / .milliseconds(1)).rounded(.up)), Double(guint.max)))
        let id = g_timeout_add_full(
            G_PRIORITY_DEFAULT, milliseconds,
            { context in
                Unmanaged<HandlerBox>.fromOpaque(context!).takeUnretainedValue().handler()
                return gboolean(0)  // G_SOURCE_REMOVE
            }, box, { Unmanaged<HandlerBox>.fromOpaque($0!).release() })
        return Watch(sourceID: id)
    }

    /// The handler a watch calls, kept alive by GLib until the source is removed (released in its destroy notify).
    private final class HandlerBox {
        let handler: () -> Void
        init(_ handler: @escaping () -> Void) { self.handler = handler }
    }
}
