// yt-gst — a descriptor watched on the main loop: its handler runs on the loop's thread whenever it is readable.
internal import CGStreamer
import Synchronization

extension MainLoop {
    /// A descriptor watched on GLib's default main context until `cancel()` (or until it is released).
    ///
    /// The corresponding C functions are `g_unix_fd_add_full` and `g_source_remove`.
    /// - Note: Sendable: removing a source from the default context is thread-safe, and the id is taken once.
    public final class Watch: Sendable {
        private let sourceID: Atomic<UInt32>

        fileprivate init(sourceID: guint) { self.sourceID = Atomic(sourceID) }

        /// Stops watching; the handler is released. Calling it again does nothing.
        public func cancel() {
            let id = sourceID.exchange(0, ordering: .relaxed)
            if id != 0 { g_source_remove(id) }
        }

        deinit { cancel() }
    }

    /// Calls `handler` on the loop's thread, from `wait(for:until:)`, each time `descriptor` is readable (or hung
    /// up); keep the returned watch for as long as it should be watched.
    public static func watch(_ descriptor: Int32, handler: @escaping () -> Void) -> Watch {
        let box = Unmanaged.passRetained(HandlerBox(handler)).toOpaque()
        let condition = GIOCondition(rawValue: G_IO_IN.rawValue | G_IO_HUP.rawValue | G_IO_ERR.rawValue)
        let id = g_unix_fd_add_full(
            G_PRIORITY_DEFAULT, descriptor, condition,
            { _, _, context in
                Unmanaged<HandlerBox>.fromOpaque(context!).takeUnretainedValue().handler()
                return gboolean(1)  // G_SOURCE_CONTINUE
            }, box, { Unmanaged<HandlerBox>.fromOpaque($0!).release() })
        return Watch(sourceID: id)
    }

    /// The handler a watch calls, kept alive by GLib until the source is removed (released in its destroy notify).
    private final class HandlerBox {
        let handler: () -> Void
        init(_ handler: @escaping () -> Void) { self.handler = handler }
    }
}
