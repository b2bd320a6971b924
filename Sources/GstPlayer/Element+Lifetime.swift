// yt-gst — observing when an element is destroyed, so tests can prove that every reference is released.
internal import CGStreamer

extension Element {
    /// Calls `body` once, on the thread that drops the element's last reference, when the element is finalised.
    ///
    /// For tests: an element that is never finalised keeps `body` alive with it, which is what a leak looks like.
    /// The corresponding C function is `g_object_weak_ref`.
    package func whenFinalized(_ body: @escaping @Sendable () -> Void) {
        final class Box: Sendable {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        let context = Unmanaged.passRetained(Box(body)).toOpaque()
        g_object_weak_ref(
            CGst_gobject(raw),
            { context, _ in
                guard let context else { return }
                Unmanaged<Box>.fromOpaque(context).takeRetainedValue().body()
            }, context)
    }
}
